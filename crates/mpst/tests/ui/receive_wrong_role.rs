//! The type receives `Sum` from `B`; code written to receive it from `C` does not
//! type-check.
#![allow(unused)]

include!("common/adder.rs");


async fn receive_from_c<'r>(
    s: Receive<'r, A, C, Sum, End<'r, A>>,
) -> Result<(i32, End<'r, A>), mpst::Error> {
    let (Sum(x), s) = s.receive().await?;
    Ok((x, s))
}

async fn adder_a(role: &mut A) -> Result<i32, mpst::Error> {
    try_session(role, |s: AdderA<'_, A>| async move {
        let s = s.send(Add(1)).await?;
        receive_from_c(s).await
    })
    .await
}

fn main() {
    let Roles(mut a, _, _) = Roles::default();
    let _ = adder_a(&mut a);
}
