//! `derive(Role)` needs `#[message(Label)]`.
#![allow(unused)]

use mpst::Role;

#[derive(Role)]
struct A(#[route(B)] mpst::channel::Unbounded<()>);

#[derive(Role)]
#[message(())]
struct B(#[route(A)] mpst::channel::Unbounded<()>);

fn main() {}
