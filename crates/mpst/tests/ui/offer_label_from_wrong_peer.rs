//! A variant's continuation exists only for the peer its `#[from]` names: the
//! continuation of `Add` from `B` is asked for, but the enum takes `Add` from `A` only.
#![allow(unused)]

include!("common/adder.rs");

use mpst::{OfferCase, OfferContinuation};

#[session]
enum Told {
    #[from(A)]
    Add(Add, End),
    #[from(B)]
    Stop(Stop, End),
}

fn take<'r>(next: OfferContinuation<'r, Told<'r, C>>) -> End<'r, C> {
    next.into_session::<B, Add>()
}

fn main() {}
