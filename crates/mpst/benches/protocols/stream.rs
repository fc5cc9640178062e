//! Streaming's session-typed code (PPoPP 2022 Section 4.1): roles, labels, the projected
//! session types and the source and sink that follow them, written once for the runtime
//! bench (`benches/stream.rs`) and for the side-by-side comparison
//! (`comparison/suite/src/stream/ours.rs`), which both include this file.
//!
//! The including module defines `Channel`, the route type, and `Number`, the payload of a
//! `value` (`i64` in the bench, `i32` in the comparison, as its peers send). Each keeps its
//! own optimised source: the bench's stays five values ahead to the end, the comparison's
//! (like its peers') sends five values up front and then takes up the projected loop.

use mpst::Send;
use mpst::{Branch, End, Error, Message, Receive, Role, Roles, Select, session, try_session};

use super::{Channel, Number};

/// The two roles, wired by `Roles::default()`.
#[derive(Roles)]
pub struct Roles(pub S, pub T);

/// The source: sends the values.
#[derive(Role)]
#[message(Label)]
pub struct S(#[route(T)] Channel);

/// The sink: asks for each value with `ready`.
#[derive(Role)]
#[message(Label)]
pub struct T(#[route(S)] Channel);

/// The labels of the protocol.
#[derive(Message)]
pub enum Label {
    /// `ready()`: the sink can take a value.
    Ready(Ready),
    /// `value(n)`: the next value.
    Value(Value),
    /// `stop()`: no more values.
    Stop(Stop),
}

/// `ready()`.
pub struct Ready;
/// `value(n)`.
pub struct Value(pub Number);
/// `stop()`.
pub struct Stop;

/// The source's projection: `mu x. T?ready. (T!value. x + T!stop. end)`.
#[session]
pub type Source = Receive<T, Ready, Select<T, SourceChoice>>;

/// The source's choice.
#[session]
pub enum SourceChoice {
    /// Another value, and the loop again.
    Value(Value, Source),
    /// The end of the stream.
    Stop(Stop, End),
}

/// The sink's projection: `mu x. S!ready. (S?value. x & S?stop. end)`.
#[session]
pub type Sink = Send<S, Ready, Branch<S, SinkChoice>>;

/// The sink's branches.
#[session]
pub enum SinkChoice {
    /// Another value, and the loop again.
    Value(Value, Sink),
    /// The end of the stream.
    Stop(Stop, End),
}

/// The projected source from wherever its loop stands: sends each of `values` when the
/// sink is ready, then `stop`.
pub async fn source_loop<'r>(
    mut s: Source<'r, S>,
    values: impl IntoIterator<Item = Number>,
) -> Result<((), End<'r, S>), Error> {
    for value in values {
        let (Ready, choice) = s.receive().await?;
        s = choice.select(Value(value)).await?;
    }
    let (Ready, choice) = s.receive().await?;
    Ok(((), choice.select(Stop).await?))
}

/// The projected source: the whole session of [`source_loop`].
pub async fn source(role: &mut S, values: impl IntoIterator<Item = Number>) -> Result<(), Error> {
    try_session(role, |s: Source<'_, S>| source_loop(s, values)).await
}

/// The sink: sends `ready` and folds each value it receives into `init` with `read`, until
/// `stop`; returns the result.
pub async fn sink<A>(
    role: &mut T,
    init: A,
    mut read: impl FnMut(A, Number) -> A,
) -> Result<A, Error> {
    try_session(role, |mut s: Sink<'_, T>| async move {
        let mut folded = init;
        loop {
            match s.send(Ready).await?.branch().await? {
                SinkChoice::Value(Value(v), next) => {
                    folded = read(folded, v);
                    s = next;
                }
                SinkChoice::Stop(Stop, end) => return Ok((folded, end)),
            }
        }
    })
    .await
}
