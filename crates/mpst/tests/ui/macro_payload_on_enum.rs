//! A payload is declared by a label struct, not by an enum.
#![allow(unused)]

use mpst::Payload;

#[derive(Payload)]
enum Value {
    Small(u8),
    Large(u64),
}

fn main() {}
