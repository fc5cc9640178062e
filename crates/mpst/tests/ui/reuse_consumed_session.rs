//! A session is consumed by its step: using it again is a use of a moved value.
#![allow(unused)]

include!("common/adder.rs");


async fn adder_a(role: &mut A) -> Result<i32, mpst::Error> {
    try_session(role, |s: AdderA<'_, A>| async move {
        let _first = s.send(Add(1)).await?;
        let s = s.send(Add(2)).await?;
        let (Sum(x), s) = s.receive().await?;
        Ok((x, s))
    })
    .await
}

fn main() {
    let Roles(mut a, _, _) = Roles::default();
    let _ = adder_a(&mut a);
}
