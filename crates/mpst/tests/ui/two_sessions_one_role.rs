//! `try_session` borrows the role exclusively: two sessions at once on one role are
//! rejected by the borrow checker.
#![allow(unused)]

include!("common/adder.rs");


async fn twice(role: &mut A) -> Result<(), mpst::Error> {
    let first = try_session(role, |s: AdderA<'_, A>| async move {
        let s = s.send(Add(1)).await?;
        let (Sum(x), s) = s.receive().await?;
        Ok((x, s))
    });
    let second = try_session(role, |s: AdderA<'_, A>| async move {
        let s = s.send(Add(2)).await?;
        let (Sum(x), s) = s.receive().await?;
        Ok((x, s))
    });
    let (x, y) = futures::join!(first, second);
    let _ = (x?, y?);
    Ok(())
}

fn main() {
    let Roles(mut a, _, _) = Roles::default();
    let _ = twice(&mut a);
}
