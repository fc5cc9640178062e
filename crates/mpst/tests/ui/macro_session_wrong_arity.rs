//! `Send` takes a peer, a label and a continuation.
#![allow(unused)]

use mpst::{session, End, Send};

struct B;
struct Add;

#[session]
type Missing = Send<B, Add>;

fn main() {}
