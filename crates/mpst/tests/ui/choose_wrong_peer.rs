//! A choice whose variants each name their peer cannot be sent with the one-peer
//! `Select`: `Sum` goes to `C`, and `Select<B, _>` would send it to `B`.
#![allow(unused)]

include!("common/adder.rs");

#[session]
enum Routed {
    #[to(B)]
    Add(Add, End),
    #[to(C)]
    Sum(Sum, End),
}

#[session]
type ToB = Select<B, Routed>;

async fn wrong(role: &mut A) -> Result<(), mpst::Error> {
    try_session(role, |s: ToB<'_, A>| async move {
        let end = s.select(Sum(1)).await?;
        Ok(((), end))
    })
    .await
}

fn main() {}
