//! The ring protocol's roles, labels and the process of `A`, shared by the plain and the
//! optimised ring (`main.rs`, `optimised.rs`): the optimisation changes only `B` and `C`.

use std::convert::Infallible;

use mpst::{session, try_session, Error, Message, Receive, Role, Roles, Send};
use mpst_examples::Observer;

type Channel = mpst::channel::Unbounded<Label>;

/// The three roles, wired to each other.
#[derive(Roles)]
pub struct Roles(pub A, pub B, pub C);

/// Starts each round.
#[derive(Role)]
#[message(Label)]
pub struct A(#[route(B)] Channel, #[route(C)] Channel);

/// Second in the ring.
#[derive(Role)]
#[message(Label)]
pub struct B(#[route(A)] Channel, #[route(C)] Channel);

/// Third in the ring.
#[derive(Role)]
#[message(Label)]
pub struct C(#[route(A)] Channel, #[route(B)] Channel);

/// The labels of `ring.scr`.
#[derive(Message)]
pub enum Label {
    /// `value(i32)`
    Value(Value),
}

/// `value(i32)`: the value travelling round the ring.
pub struct Value(pub i32);

/// `A`'s projection: `mu x. B!value. C?value. x`.
#[session]
pub struct RingA(Send<B, Value, Receive<C, Value, Self>>);

/// What `A` sends in the first round.
pub const SEED_A: i32 = 1;

/// What `B` does to a value before passing it on.
pub fn step_b(x: i32) -> i32 {
    x.wrapping_add(1)
}

/// What `C` does to a value before passing it on.
pub fn step_c(x: i32) -> i32 {
    x.wrapping_mul(2)
}

/// `A`: sends `SEED_A`, then forever passes on (and reports) what comes back from `C`.
pub async fn ring_a(role: &mut A, observer: Observer<i32>) -> Result<Infallible, Error> {
    try_session(role, |mut s: RingA<'_, A>| async move {
        let mut x = SEED_A;
        loop {
            let (Value(y), next) = s.into_session().send(Value(x)).await?.receive().await?;
            observer.report(y);
            x = y;
            s = next;
        }
    })
    .await
}
