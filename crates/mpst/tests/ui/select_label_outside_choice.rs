//! `Choice` offers `Add` and `Sum`; selecting `Stop` does not compile.
#![allow(unused)]

include!("common/adder.rs");


async fn chooser(role: &mut A) -> Result<(), mpst::Error> {
    try_session(role, |s: Chooser<'_, A>| async move {
        let end = s.select(Stop).await?;
        Ok(((), end))
    })
    .await
}

fn main() {
    let Roles(mut a, _, _) = Roles::default();
    let _ = chooser(&mut a);
}
