//! The label set is an enum.
#![allow(unused)]

use mpst::Message;

#[derive(Message)]
struct Label(i32);

fn main() {}
