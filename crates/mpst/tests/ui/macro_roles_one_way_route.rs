//! `derive(Roles)` wires pairs that route to each other: `B` has no route back to `A`.
#![allow(unused)]

use mpst::{Role, Roles};

type Channel = mpst::channel::Unbounded<()>;

#[derive(Roles)]
struct Roles(A, B);

#[derive(Role)]
#[message(())]
struct A(#[route(B)] Channel);

#[derive(Role)]
#[message(())]
struct B;

fn main() {}
