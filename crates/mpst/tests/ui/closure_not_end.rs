//! Stopping before `End` (here: never receiving `Sum`) leaves no `End` to return.
#![allow(unused)]

include!("common/adder.rs");


async fn adder_a(role: &mut A) -> Result<i32, mpst::Error> {
    try_session(role, |s: AdderA<'_, A>| async move {
        let s = s.send(Add(1)).await?;
        Ok((0, s))
    })
    .await
}

fn main() {
    let Roles(mut a, _, _) = Roles::default();
    let _ = adder_a(&mut a);
}
