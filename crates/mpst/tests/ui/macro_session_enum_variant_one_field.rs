//! A choice variant is `Variant(Label, Continuation)`.
#![allow(unused)]

use mpst::{session, End};

struct Add;

#[session]
enum Choice {
    Add(Add),
}

fn main() {}
