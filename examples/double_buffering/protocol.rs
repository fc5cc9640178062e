//! The double-buffering protocol's roles, labels, source and sink, shared by the plain
//! and the optimised kernel (`main.rs`, `optimised.rs`) and by the multi-process run
//! (`net.rs`): the optimisation changes only the kernel. The runs of the protocol take the
//! kernel as a parameter for the same reason.

use std::convert::Infallible;
use std::future::Future;

use futures::{future::try_join3, TryFutureExt};
use mpst::{session, try_session, Error, Message, Payload, Receive, Role, Roles, Send};
use mpst_examples::{observe, observer, Observer};

/// In memory (`Roles::default()`) or over TCP (`mpst::net::Connections::into_role`).
type Channel = mpst::net::AnyRoute<Label>;

/// The three roles, wired to each other.
#[derive(Roles)]
pub struct Roles(pub S, pub K, pub T);

/// The source: fills buffers.
#[derive(Role)]
#[message(Label)]
pub struct S(#[route(K)] Channel, #[route(T)] Channel);

/// The kernel: owns both buffers, copies from the source to the sink.
#[derive(Role)]
#[message(Label)]
pub struct K(#[route(S)] Channel, #[route(T)] Channel);

/// The sink: reads buffers.
#[derive(Role)]
#[message(Label)]
pub struct T(#[route(S)] Channel, #[route(K)] Channel);

/// The labels of `double_buffering.scr` (PPoPP 2022 Listing 2); serde for `mpst::net`.
#[derive(Message, serde::Serialize, serde::Deserialize)]
pub enum Label {
    /// `ready()`
    Ready(Ready),
    /// `value(i32)`
    Value(Value),
}

/// `ready()`: a buffer is free (to the source) or the sink can read (to the kernel).
#[derive(Payload, serde::Serialize, serde::Deserialize)]
pub struct Ready;
/// `value(i32)`: the content of one buffer.
#[derive(Payload, serde::Serialize, serde::Deserialize)]
pub struct Value(pub i32);

/// The source's projection: `mu x. K?ready. K!value. x`.
#[session]
pub struct Source(Receive<K, Ready, Send<K, Value, Self>>);

/// The sink's projection: `mu x. K!ready. K?value. x`.
#[session]
pub struct Sink(Send<K, Ready, Receive<K, Value, Self>>);

/// The `i`-th value the source produces.
pub fn produce(i: i32) -> i32 {
    i.wrapping_mul(i).wrapping_sub(7)
}

/// What the kernel does to each value on its way from the source to the sink.
pub fn kernel_work(value: i32) -> i32 {
    value.wrapping_mul(2).wrapping_add(1)
}

/// The source: each time the kernel is ready, sends the next value `produce(0)`,
/// `produce(1)`, ...
pub async fn source(role: &mut S) -> Result<Infallible, Error> {
    try_session(role, |mut s: Source<'_, S>| async move {
        let mut i = 0i32;
        loop {
            let (Ready, t) = s.into_session().receive().await?;
            s = t.send(Value(produce(i))).await?;
            i = i.wrapping_add(1);
        }
    })
    .await
}

/// The sink: tells the kernel it is ready, receives a value and reports it, forever.
pub async fn sink(role: &mut T, observer: Observer<i32>) -> Result<Infallible, Error> {
    try_session(role, |mut s: Sink<'_, T>| async move {
        loop {
            let (Value(value), t) = s.into_session().send(Ready).await?.receive().await?;
            observer.report(value);
            s = t;
        }
    })
    .await
}

/// Moves `count` values from the source through `kernel` (given its role) to the sink in
/// one future (any executor); returns what the sink read.
pub async fn run<F>(count: usize, kernel: impl FnOnce(K) -> F) -> Result<Vec<i32>, Error>
where
    F: Future<Output = Result<Infallible, Error>>,
{
    let Roles(mut s, k, mut t) = Roles::default();
    let (reporter, observations) = observer();
    let processes = try_join3(source(&mut s), kernel(k), sink(&mut t, reporter));
    observe(processes.map_ok(|(never, _, _)| never), observations, count).await
}

/// Like [`run`], with each role a task on the multi-thread tokio runtime of the tests.
#[cfg(test)]
pub fn run_tasks<F>(count: usize, kernel: impl FnOnce(K) -> F) -> Result<Vec<i32>, Error>
where
    F: Future<Output = Result<Infallible, Error>> + std::marker::Send + 'static,
{
    let runtime = mpst_examples::tokio_runtime().unwrap();
    let Roles(mut s, k, mut t) = Roles::default();
    let (reporter, observations) = observer();
    runtime.block_on(async {
        let tasks = vec![
            tokio::spawn(async move { source(&mut s).await }),
            tokio::spawn(kernel(k)),
            tokio::spawn(async move { sink(&mut t, reporter).await }),
        ];
        mpst_examples::observe_tasks(tasks, observations, count).await
    })
}

/// What the sink reads from the first `count` values: `2 * (i * i - 7) + 1` for the `i`-th.
#[cfg(test)]
pub fn expected(count: usize) -> Vec<i32> {
    (0..count as i32).map(|i| 2 * (i * i - 7) + 1).collect()
}

/// The test of either kernel (plain or optimised): the sink reads what the kernel made of
/// the source's values, 200 of them on the futures executor and 500 with each role a task
/// on tokio's multi-thread runtime.
#[cfg(test)]
pub fn assert_moves_values<F>(kernel: impl Fn(K) -> F)
where
    F: Future<Output = Result<Infallible, Error>> + std::marker::Send + 'static,
{
    let got = futures::executor::block_on(run(200, &kernel)).unwrap();
    assert_eq!(got[..3], [-13, -11, -5]);
    assert_eq!(got, expected(200));
    assert_eq!(run_tasks(500, kernel).unwrap(), expected(500));
}
