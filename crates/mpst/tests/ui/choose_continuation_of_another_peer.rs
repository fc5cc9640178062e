//! After `Choose` sends `Add` to `B`, the session continues as that variant says
//! (receive `Sum` from `B`), not as another variant (send `Stop` to `C`).
#![allow(unused)]

include!("common/adder.rs");

#[session]
enum Routed {
    #[to(B)]
    Add(Add, Receive<B, Sum, End>),
    #[to(C)]
    Stop(Stop, End),
}

#[session]
type Routing = mpst::Choose<Routed>;

async fn wrong(role: &mut A) -> Result<(), mpst::Error> {
    try_session(role, |s: Routing<'_, A>| async move {
        let s = s.choose(Add(1)).await?;
        let end = s.send(Stop).await?;
        Ok(((), end))
    })
    .await
}

fn main() {}
