//! The ring protocol's roles, labels and the process of `A`, shared by the plain and the
//! optimised ring (`main.rs`, `optimised.rs`): the optimisation changes only `B` and `C`.
//! The runs of the protocol take `B` and `C` as parameters for the same reason.

use std::convert::Infallible;
use std::future::Future;

use futures::{TryFutureExt, future::try_join3};
use mpst::{Error, Message, Payload, Receive, Role, Roles, Send, session, try_session};
use mpst_examples::{Observer, observe, observer};

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
#[derive(Payload)]
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

/// Runs `rounds` rounds with the processes `b` and `c` (given their roles) in one future
/// (any executor); returns what came back to `A`.
pub async fn run<FB, FC>(
    rounds: usize,
    b: impl FnOnce(B) -> FB,
    c: impl FnOnce(C) -> FC,
) -> Result<Vec<i32>, Error>
where
    FB: Future<Output = Result<Infallible, Error>>,
    FC: Future<Output = Result<Infallible, Error>>,
{
    let Roles(mut a, role_b, role_c) = Roles::default();
    let (reporter, observations) = observer();
    let ring = try_join3(ring_a(&mut a, reporter), b(role_b), c(role_c));
    observe(ring.map_ok(|(never, _, _)| never), observations, rounds).await
}

/// Like [`run`], with each role a task on the multi-thread tokio runtime of the tests.
#[cfg(test)]
pub fn run_tasks<FB, FC>(
    rounds: usize,
    b: impl FnOnce(B) -> FB,
    c: impl FnOnce(C) -> FC,
) -> Result<Vec<i32>, Error>
where
    FB: Future<Output = Result<Infallible, Error>> + std::marker::Send + 'static,
    FC: Future<Output = Result<Infallible, Error>> + std::marker::Send + 'static,
{
    let runtime = mpst_examples::tokio_runtime().unwrap();
    let Roles(mut a, role_b, role_c) = Roles::default();
    let (reporter, observations) = observer();
    runtime.block_on(async {
        let tasks = vec![
            tokio::spawn(async move { ring_a(&mut a, reporter).await }),
            tokio::spawn(b(role_b)),
            tokio::spawn(c(role_c)),
        ];
        mpst_examples::observe_tasks(tasks, observations, rounds).await
    })
}
