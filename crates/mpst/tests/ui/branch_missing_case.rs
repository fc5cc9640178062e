//! A branch must handle every label of the choice: a missing arm is a non-exhaustive
//! match.
#![allow(unused)]

include!("common/adder.rs");


async fn chosen(role: &mut B) -> Result<i32, mpst::Error> {
    try_session(role, |s: Chosen<'_, B>| async move {
        match s.branch().await? {
            Choice::Add(Add(x), end) => Ok((x, end)),
        }
    })
    .await
}

fn main() {
    let Roles(_, mut b, _) = Roles::default();
    let _ = chosen(&mut b);
}
