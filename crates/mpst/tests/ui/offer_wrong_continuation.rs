//! Each variant of an `Offer` continues as its own type: after `Add` from `A`, `C` must
//! send `Sum` to `B`, so it cannot receive there.
#![allow(unused)]

include!("common/adder.rs");

use mpst::Offer;

#[session]
enum Told {
    #[from(A)]
    Add(Add, Send<B, Sum, End>),
    #[from(B)]
    Stop(Stop, End),
}

#[session]
type Learns = Offer<Told>;

async fn wrong(role: &mut C) -> Result<(), mpst::Error> {
    try_session(role, |s: Learns<'_, C>| async move {
        match s.offer().await? {
            Told::Add(Add(x), s) => {
                let (Sum(y), end) = s.receive().await?;
                Ok(((), end))
            }
            Told::Stop(_, end) => Ok(((), end)),
        }
    })
    .await
}

fn main() {}
