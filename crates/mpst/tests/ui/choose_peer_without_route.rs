//! A variant may only name a peer the role has a route to: `A` cannot reach `C`.
#![allow(unused)]

use mpst::{session, try_session, Choose, End, Message, Role, Roles};

type Channel = mpst::channel::Unbounded<Label>;

#[derive(Roles)]
struct Roles(A, B);

#[derive(Role)]
#[message(Label)]
struct A(#[route(B)] Channel);

#[derive(Role)]
#[message(Label)]
struct B(#[route(A)] Channel);

#[derive(Role)]
#[message(Label)]
struct C(#[route(A)] Channel);

#[derive(Message)]
enum Label {
    Left(Left),
    Right(Right),
}

struct Left;
struct Right;

#[session]
enum Routed {
    #[to(B)]
    Left(Left, End),
    #[to(C)]
    Right(Right, End),
}

async fn wrong(role: &mut A) -> Result<(), mpst::Error> {
    try_session(role, |s: Choose<'_, A, Routed<'_, A>>| async move {
        let end = s.choose(Right).await?;
        Ok(((), end))
    })
    .await
}

fn main() {}
