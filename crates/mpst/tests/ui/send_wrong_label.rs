//! The type says `Add`; sending `Sum` is a type error.
#![allow(unused)]

include!("common/adder.rs");


async fn adder_a(role: &mut A) -> Result<i32, mpst::Error> {
    try_session(role, |s: AdderA<'_, A>| async move {
        let s = s.send(Sum(1)).await?;
        let (Sum(x), s) = s.receive().await?;
        Ok((x, s))
    })
    .await
}

fn main() {
    let Roles(mut a, _, _) = Roles::default();
    let _ = adder_a(&mut a);
}
