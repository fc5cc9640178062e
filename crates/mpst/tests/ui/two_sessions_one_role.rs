//! `try_session` borrows the role exclusively: two sessions at once on one role are
//! rejected by the borrow checker.
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


async fn twice(role: &mut A) -> Result<(), mpst::Error> {
    let first = try_session(role, |s: AdderA<'_, A>| async move {
        let s = s.send(Add(1)).await?;
        let (Sum(x), s) = s.receive().await?;
        Ok((x, s))
    });
    let second = try_session(role, |s: AdderA<'_, A>| async move {
        let s = s.send(Add(2)).await?;
        let (Sum(x), s) = s.receive().await?;
        Ok((x, s))
    });
    let (x, y) = futures::join!(first, second);
    let _ = (x?, y?);
    Ok(())
}

fn main() {
    let Roles(mut a, _, _) = Roles::default();
    let _ = twice(&mut a);
}
