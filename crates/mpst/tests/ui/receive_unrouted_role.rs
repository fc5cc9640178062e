//! `D` is not a peer of `A` (no `#[route(D)]`): receiving from it does not compile.
#![allow(unused)]

include!("common/adder.rs");


#[derive(Role)]
#[message(Label)]
struct D;

#[session]
type FromD = Receive<D, Sum, End>;

async fn from_d(role: &mut A) -> Result<i32, mpst::Error> {
    try_session(role, |s: FromD<'_, A>| async move {
        let (Sum(x), s) = s.receive().await?;
        Ok((x, s))
    })
    .await
}

fn main() {
    let Roles(mut a, _, _) = Roles::default();
    let _ = from_d(&mut a);
}
