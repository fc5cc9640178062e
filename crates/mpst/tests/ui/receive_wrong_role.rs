//! The type receives `Sum` from `B`; code written to receive it from `C` does not
//! type-check.
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


async fn receive_from_c<'r>(
    s: Receive<'r, A, C, Sum, End<'r, A>>,
) -> Result<(i32, End<'r, A>), mpst::Error> {
    let (Sum(x), s) = s.receive().await?;
    Ok((x, s))
}

async fn adder_a(role: &mut A) -> Result<i32, mpst::Error> {
    try_session(role, |s: AdderA<'_, A>| async move {
        let s = s.send(Add(1)).await?;
        receive_from_c(s).await
    })
    .await
}

fn main() {
    let Roles(mut a, _, _) = Roles::default();
    let _ = adder_a(&mut a);
}
