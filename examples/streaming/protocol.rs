//! The streaming protocol's roles, labels and sink, shared by the plain and the optimised
//! source (`main.rs`, `optimised.rs`): the optimisation changes only the source. The runs
//! of the protocol take the source as a parameter for the same reason.

use std::future::Future;

use futures::future::try_join;
use mpst::{Branch, End, Error, Message, Payload, Role, Roles, Send, session, try_session};

type Channel = mpst::channel::Unbounded<Label>;

/// Both roles, wired to each other.
#[derive(Roles)]
pub struct Roles(pub S, pub T);

/// The source.
#[derive(Role)]
#[message(Label)]
pub struct S(#[route(T)] Channel);

/// The sink.
#[derive(Role)]
#[message(Label)]
pub struct T(#[route(S)] Channel);

/// The labels of `streaming.scr`.
#[derive(Message)]
pub enum Label {
    /// `ready()`
    Ready(Ready),
    /// `value(i32)`
    Value(Value),
    /// `stop()`
    Stop(Stop),
}

/// `ready()`: the sink can take one more message.
#[derive(Payload)]
pub struct Ready;
/// `value(i32)`: one value of the stream.
#[derive(Payload)]
pub struct Value(pub i32);
/// `stop()`: the stream is over.
#[derive(Payload)]
pub struct Stop;

/// The sink's projection: `mu x. S!ready. S?{value. x, stop. end}`.
#[session]
pub type Sink = Send<S, Ready, Branch<S, SinkChoice>>;

/// What the sink can receive after `ready`.
#[session]
pub enum SinkChoice {
    /// One more value, then loop.
    Value(Value, Sink),
    /// The end of the stream.
    Stop(Stop, End),
}

/// The sink: says it is ready before each message and collects the values until `stop`.
pub async fn sink(role: &mut T) -> Result<Vec<i32>, Error> {
    try_session(role, |mut s: Sink<'_, T>| async move {
        let mut values = Vec::new();
        loop {
            match s.send(Ready).await?.branch().await? {
                SinkChoice::Value(Value(value), next) => {
                    values.push(value);
                    s = next;
                }
                SinkChoice::Stop(Stop, end) => return Ok((values, end)),
            }
        }
    })
    .await
}

/// The values the examples stream: `n` distinct, easily recognised numbers.
pub fn values(n: usize) -> Vec<i32> {
    (0..n as i32).map(|i| i * i - 3 * i).collect()
}

/// Streams from `source` (given its role) to the sink in one future (any executor);
/// returns what the sink got.
pub async fn run<F>(source: impl FnOnce(S) -> F) -> Result<Vec<i32>, Error>
where
    F: Future<Output = Result<(), Error>>,
{
    let Roles(s, mut t) = Roles::default();
    let ((), received) = try_join(source(s), sink(&mut t)).await?;
    Ok(received)
}

/// Like [`run`], with each role a task on the multi-thread tokio runtime of the tests.
#[cfg(test)]
pub fn run_tasks<F>(source: impl FnOnce(S) -> F) -> Result<Vec<i32>, Error>
where
    F: Future<Output = Result<(), Error>> + std::marker::Send + 'static,
{
    let runtime = mpst_examples::tokio_runtime().unwrap();
    let Roles(s, mut t) = Roles::default();
    runtime.block_on(async {
        let s = tokio::spawn(source(s));
        let t = tokio::spawn(async move { sink(&mut t).await });
        mpst_examples::joined(s).await?;
        mpst_examples::joined(t).await
    })
}
