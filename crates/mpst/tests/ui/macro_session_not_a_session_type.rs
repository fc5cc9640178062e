//! Continuations must be session types, not arbitrary types.
#![allow(unused)]

use mpst::{session, Send};

struct B;
struct Add;

#[session]
type Wrong = Send<B, Add, &'static str>;

fn main() {}
