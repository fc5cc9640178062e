//! Sessions cannot be built by hand: `State` has no public constructor, so there is no
//! way to conjure an `End` (or any other step).
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


fn forge<'r>(role: &'r mut A) -> End<'r, A> {
    mpst::FromState::from_state(mpst::State { role })
}

fn main() {
    let Roles(mut a, _, _) = Roles::default();
    let _end = forge(&mut a);
}
