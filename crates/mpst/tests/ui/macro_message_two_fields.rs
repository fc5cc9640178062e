//! Each label variant wraps exactly one label type.
#![allow(unused)]

use mpst::Message;

struct Add(i32);

#[derive(Message)]
enum Label {
    Add(Add, i32),
}

fn main() {}
