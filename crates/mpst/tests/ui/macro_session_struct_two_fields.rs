//! A session struct wraps exactly one session type.
#![allow(unused)]

use mpst::{session, End, Receive};

struct B;
struct Add;

#[session]
struct Loop(Receive<B, Add, Self>, End);

fn main() {}
