//! A unit variant carries no label type.
#![allow(unused)]

use mpst::Message;

#[derive(Message)]
enum Label {
    Stop,
}

fn main() {}
