//! Two routes to the same peer are ambiguous.
#![allow(unused)]

use mpst::Role;

type Channel = mpst::channel::Unbounded<()>;

#[derive(Role)]
#[message(())]
struct A(#[route(B)] Channel, #[route(B)] Channel);

#[derive(Role)]
#[message(())]
struct B(#[route(A)] Channel);

fn main() {}
