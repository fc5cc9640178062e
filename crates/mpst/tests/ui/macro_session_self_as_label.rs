//! `Self` stands for a continuation, never for a label or a peer.
#![allow(unused)]

use mpst::{session, End, Receive};

struct B;

#[session]
struct Loop(Receive<B, Self, End>);

fn main() {}
