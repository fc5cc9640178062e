//! Roles are concrete structs.
#![allow(unused)]

use mpst::Role;

#[derive(Role)]
#[message(())]
struct A<Ch>(#[route(A)] Ch);

fn main() {}
