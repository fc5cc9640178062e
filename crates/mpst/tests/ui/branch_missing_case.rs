//! A branch must handle every label of the choice: a missing arm is a non-exhaustive
//! match.
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


async fn chosen(role: &mut B) -> Result<i32, mpst::Error> {
    try_session(role, |s: Chosen<'_, B>| async move {
        match s.branch().await? {
            Choice::Add(Add(x), end) => Ok((x, end)),
        }
    })
    .await
}

fn main() {
    let Roles(_, mut b, _) = Roles::default();
    let _ = chosen(&mut b);
}
