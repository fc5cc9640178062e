//! `Choose` sends only the labels of its choice enum: `Stop` is not one of them.
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
type Routing = mpst::Choose<Routed>;

async fn wrong(role: &mut A) -> Result<(), mpst::Error> {
    try_session(role, |s: Routing<'_, A>| async move {
        let end = s.choose(Stop).await?;
        Ok(((), end))
    })
    .await
}

fn main() {}
