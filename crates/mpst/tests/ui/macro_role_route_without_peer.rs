//! `#[route]` must name the peer: `#[route(B)]`.
#![allow(unused)]

use mpst::Role;

#[derive(Role)]
#[message(())]
struct A(#[route] mpst::channel::Unbounded<()>);

fn main() {}
