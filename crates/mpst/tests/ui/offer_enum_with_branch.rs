//! A choice whose variants name their senders is for `Offer` only: the one-peer `Branch`
//! would take `Stop` from `A`, though the enum says it comes from `B`.
#![allow(unused)]

include!("common/adder.rs");

#[session]
enum Told {
    #[from(A)]
    Add(Add, End),
    #[from(B)]
    Stop(Stop, End),
}

#[session]
type FromA = Branch<A, Told>;

async fn wrong(role: &mut C) -> Result<(), mpst::Error> {
    try_session(role, |s: FromA<'_, C>| async move {
        match s.branch().await? {
            Told::Add(_, end) | Told::Stop(_, end) => Ok(((), end)),
        }
    })
    .await
}

fn main() {}
