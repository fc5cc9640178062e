//! In a choice whose variants name their peers, every variant must name one.
#![allow(unused)]

include!("common/adder.rs");

#[session]
enum Routed {
    #[to(B)]
    Add(Add, End),
    Sum(Sum, End),
}

fn main() {}
