//! A type alias cannot be recursive: `Self` needs a `#[session] struct`.
#![allow(unused)]

use mpst::{session, End, Receive};

struct B;
struct Add;

#[session]
type Loop = Receive<B, Add, Self>;

fn main() {}
