//! Each role appears once in `derive(Roles)`.
#![allow(unused)]

use mpst::{Role, Roles};

type Channel = mpst::channel::Unbounded<()>;

#[derive(Roles)]
struct Roles(A, B, A);

#[derive(Role)]
#[message(())]
struct A(#[route(B)] Channel);

#[derive(Role)]
#[message(())]
struct B(#[route(A)] Channel);

fn main() {}
