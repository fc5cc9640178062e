//! A role is a struct of routes, not an enum.
#![allow(unused)]

use mpst::Role;

#[derive(Role)]
#[message(())]
enum A {
    One,
}

fn main() {}
