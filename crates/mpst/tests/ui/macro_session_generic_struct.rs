//! Named session structs and choice enums cannot be generic (aliases can): their
//! introspection impls must hold without bounds.
#![allow(unused)]

use mpst::{session, End, Receive};

struct B;

#[session]
struct Loop<N>(Receive<B, N, Self>);

fn main() {}
