//! The ring-with-choice protocol's roles, labels and the processes of `A` and `C`, shared
//! by the plain and the optimised ring (`main.rs`, `optimised.rs`): the optimisation
//! changes only `B`. The runs of the protocol take `B` as a parameter for the same reason.

use std::convert::Infallible;
use std::future::Future;

use futures::{TryFutureExt, future::try_join3};
use mpst::{Branch, Error, Message, Payload, Receive, Role, Roles, Send, session, try_session};
use mpst_examples::{Observer, observe, observer};

type Channel = mpst::channel::Unbounded<Label>;

/// The three roles, wired to each other.
#[derive(Roles)]
pub struct Roles(pub A, pub B, pub C);

/// Starts each round.
#[derive(Role)]
#[message(Label)]
pub struct A(#[route(B)] Channel, #[route(C)] Channel);

/// Makes the choice.
#[derive(Role)]
#[message(Label)]
pub struct B(#[route(A)] Channel, #[route(C)] Channel);

/// Keeps the running total.
#[derive(Role)]
#[message(Label)]
pub struct C(#[route(A)] Channel, #[route(B)] Channel);

/// The labels of `ring_choice.scr`.
#[derive(Message)]
pub enum Label {
    /// `add(i32)`
    Add(Add),
    /// `sub(i32)`
    Sub(Sub),
}

/// `add(i32)`: from `A` and to `A`, a value; from `B` to `C`, "add it to the total".
#[derive(Payload)]
pub struct Add(pub i32);
/// `sub(i32)`: from `B` to `C`, "subtract it from the total".
#[derive(Payload)]
pub struct Sub(pub i32);

/// `A`'s projection: `mu x. B!add. C?add. x`.
#[session]
pub struct RingA(Send<B, Add, Receive<C, Add, Self>>);

/// `C`'s projection: `mu x. B?{add. A!add. x, sub. A!add. x}`.
#[session]
pub struct RingC(Branch<B, ChoiceC>);

/// What `C` can receive from `B`.
#[session]
pub enum ChoiceC {
    /// Add the value to the total.
    Add(Add, Send<A, Add, RingC>),
    /// Subtract the value from the total.
    Sub(Sub, Send<A, Add, RingC>),
}

/// What `A` sends in the first round.
pub const SEED_A: i32 = 1;

/// `B`'s rule: even values are added to `C`'s total, odd ones subtracted.
pub fn adds(value: i32) -> bool {
    value % 2 == 0
}

/// What `A` sends after receiving `total` from `C`.
pub fn next_a(total: i32) -> i32 {
    total.wrapping_mul(3).wrapping_add(1)
}

/// `A`: sends `SEED_A`, then forever reports what `C` sends back and sends `next_a` of it.
pub async fn ring_a(role: &mut A, observer: Observer<i32>) -> Result<Infallible, Error> {
    try_session(role, |mut s: RingA<'_, A>| async move {
        let mut x = SEED_A;
        loop {
            let (Add(total), next) = s.into_session().send(Add(x)).await?.receive().await?;
            observer.report(total);
            x = next_a(total);
            s = next;
        }
    })
    .await
}

/// `C`: keeps a running total (starting at 0) that `B`'s choices change and sends it to `A`
/// every round.
pub async fn ring_c(role: &mut C) -> Result<Infallible, Error> {
    try_session(role, |mut s: RingC<'_, C>| async move {
        let mut total = 0i32;
        loop {
            let t = match s.into_session().branch().await? {
                ChoiceC::Add(Add(v), t) => {
                    total = total.wrapping_add(v);
                    t
                }
                ChoiceC::Sub(Sub(v), t) => {
                    total = total.wrapping_sub(v);
                    t
                }
            };
            s = t.send(Add(total)).await?;
        }
    })
    .await
}

/// Runs `rounds` rounds with the process `b` (given its role) in one future (any
/// executor); returns the totals `A` got.
pub async fn run<F>(rounds: usize, b: impl FnOnce(B) -> F) -> Result<Vec<i32>, Error>
where
    F: Future<Output = Result<Infallible, Error>>,
{
    let Roles(mut a, role_b, mut c) = Roles::default();
    let (reporter, observations) = observer();
    let ring = try_join3(ring_a(&mut a, reporter), b(role_b), ring_c(&mut c));
    observe(ring.map_ok(|(never, _, _)| never), observations, rounds).await
}

/// Like [`run`], with each role a task on the multi-thread tokio runtime of the tests.
#[cfg(test)]
pub fn run_tasks<F>(rounds: usize, b: impl FnOnce(B) -> F) -> Result<Vec<i32>, Error>
where
    F: Future<Output = Result<Infallible, Error>> + std::marker::Send + 'static,
{
    let runtime = mpst_examples::tokio_runtime().unwrap();
    let Roles(mut a, role_b, mut c) = Roles::default();
    let (reporter, observations) = observer();
    runtime.block_on(async {
        let tasks = vec![
            tokio::spawn(async move { ring_a(&mut a, reporter).await }),
            tokio::spawn(b(role_b)),
            tokio::spawn(async move { ring_c(&mut c).await }),
        ];
        mpst_examples::observe_tasks(tasks, observations, rounds).await
    })
}
