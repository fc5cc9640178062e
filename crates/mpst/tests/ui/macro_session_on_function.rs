//! `#[session]` applies to types only.
#![allow(unused)]

use mpst::session;

#[session]
fn process() {}

fn main() {}
