//! Stopping before `End` (here: never receiving `Sum`) leaves no `End` to return.
#![allow(unused)]

use mpst::{session, try_session, Branch, End, Message, Receive, Role, Roles, Select, Send};

type Channel = mpst::channel::Unbounded<Label>;

#[derive(Roles)]
struct Roles(A, B, C);

#[derive(Role)]
#[message(Label)]
struct A(#[route(B)] Channel, #[route(C)] Channel);

#[derive(Role)]
#[message(Label)]
struct B(#[route(A)] Channel, #[route(C)] Channel);

#[derive(Role)]
#[message(Label)]
struct C(#[route(A)] Channel, #[route(B)] Channel);

#[derive(Message)]
enum Label {
    Add(Add),
    Sum(Sum),
    Stop(Stop),
}

struct Add(i32);
struct Sum(i32);
struct Stop;

#[session]
type AdderA = Send<B, Add, Receive<B, Sum, End>>;

#[session]
enum Choice {
    Add(Add, End),
    Sum(Sum, End),
}

#[session]
type Chooser = Select<B, Choice>;

#[session]
type Chosen = Branch<A, Choice>;


async fn adder_a(role: &mut A) -> Result<i32, mpst::Error> {
    try_session(role, |s: AdderA<'_, A>| async move {
        let s = s.send(Add(1)).await?;
        Ok((0, s))
    })
    .await
}

fn main() {
    let Roles(mut a, _, _) = Roles::default();
    let _ = adder_a(&mut a);
}
