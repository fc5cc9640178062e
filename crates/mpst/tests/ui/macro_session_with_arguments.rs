//! `#[session]` takes no arguments.
#![allow(unused)]

use mpst::{session, End};

#[session(role = A)]
type Done = End;

fn main() {}
