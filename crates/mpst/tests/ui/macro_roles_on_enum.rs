//! `derive(Roles)` needs a struct of roles.
#![allow(unused)]

use mpst::Roles;

#[derive(Roles)]
enum Roles {
    A,
}

fn main() {}
