//! Each label needs its own type, or receiving could not tell them apart.
#![allow(unused)]

use mpst::Message;

struct Value(i32);

#[derive(Message)]
enum Label {
    Left(Value),
    Right(Value),
}

fn main() {}
