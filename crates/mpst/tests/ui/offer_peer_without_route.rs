//! An `Offer` waits only on peers its role has a route from: `C` has none from itself.
#![allow(unused)]

include!("common/adder.rs");

use mpst::Offer;

#[session]
enum Told {
    #[from(A)]
    Add(Add, End),
    #[from(C)]
    Stop(Stop, End),
}

#[session]
type Learns = Offer<Told>;

async fn wrong(role: &mut C) -> Result<(), mpst::Error> {
    try_session(role, |s: Learns<'_, C>| async move {
        match s.offer().await? {
            Told::Add(_, end) | Told::Stop(_, end) => Ok(((), end)),
        }
    })
    .await
}

fn main() {}
