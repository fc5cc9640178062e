//! Stream with the published rumpsteak 0.1 crate (the paper's artefact as released):
//! async sessions over unbounded `futures` channels, plain and optimised (unrolled) source.

use rumpsteak::{
    Branch, End, Label, Receive, Select, Send,
    choice::Choice,
    role::{Role, Roles, ToFrom},
    try_session,
};

use super::{UNROLL, check, value};
use crate::{Result, spawn};

const WHAT: &str = "stream/rumpsteak";

#[derive(Roles)]
struct Roles(S, T);

#[derive(Role)]
#[message(Message)]
struct S(#[route(T)] ToFrom<T>);

#[derive(Role)]
#[message(Message)]
struct T(#[route(S)] ToFrom<S>);

#[derive(Label)]
enum Message {
    Ready(Ready),
    Value(Value),
    Stop(Stop),
}

struct Ready;
struct Value(i32);
struct Stop;

type Source<'s> = Receive<'s, S, T, Ready, Select<'s, S, T, SourceChoice<'s>>>;

#[allow(dead_code)] // the fields are read by the generated `Internal` impls only
#[derive(Choice)]
#[role('s, S)]
enum SourceChoice<'s> {
    Value(Value, Source<'s>),
    Stop(Stop, End<'s>),
}

/// The optimised source: [`UNROLL`] values first, then the matching `ready`s.
#[rustfmt::skip]
type SourceOptimised<'s> = Send<'s, S, T, Value, Send<'s, S, T, Value, Send<'s, S, T, Value,
    Send<'s, S, T, Value, Send<'s, S, T, Value, Receive<'s, S, T, Ready, Receive<'s, S, T, Ready,
    Receive<'s, S, T, Ready, Receive<'s, S, T, Ready, Receive<'s, S, T, Ready, Source<'s>>>>>>>>>>>;

type Sink<'t> = Send<'t, T, S, Ready, Branch<'t, T, S, SinkChoice<'t>>>;

#[derive(Choice)]
#[role('t, T)]
enum SinkChoice<'t> {
    Value(Value, Sink<'t>),
    Stop(Stop, End<'t>),
}

async fn source_loop(s: Source<'_>, from: usize, n: usize) -> rumpsteak::Result<((), End<'_>)> {
    let (Ready, mut s) = s.receive().await?;
    for i in from..n {
        let next = s.select(Value(value(i)))?;
        let (Ready, next) = next.receive().await?;
        s = next;
    }
    Ok(((), s.select(Stop)?))
}

async fn source(role: &mut S, n: usize) -> rumpsteak::Result<()> {
    try_session(role, |s: Source<'_>| source_loop(s, 0, n)).await
}

async fn source_optimised(role: &mut S, n: usize) -> rumpsteak::Result<()> {
    try_session(role, |s: SourceOptimised<'_>| async move {
        let s = s.send(Value(value(0)))?;
        let s = s.send(Value(value(1)))?;
        let s = s.send(Value(value(2)))?;
        let s = s.send(Value(value(3)))?;
        let s = s.send(Value(value(4)))?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        source_loop(s, UNROLL, n).await
    })
    .await
}

async fn sink(role: &mut T) -> rumpsteak::Result<(usize, i64)> {
    try_session(role, |mut s: Sink<'_>| async move {
        let (mut count, mut sum) = (0, 0);
        loop {
            match s.send(Ready)?.branch().await? {
                SinkChoice::Value(Value(v), next) => {
                    count += 1;
                    sum += i64::from(v);
                    s = next;
                }
                SinkChoice::Stop(Stop, end) => return Ok(((count, sum), end)),
            }
        }
    })
    .await
}

/// Streams `n` values (source and sink as two tokio tasks) and checks the sum; with
/// `optimised`, the source sends the first [`UNROLL`] values at once (needs `n >= UNROLL`).
pub async fn run(n: usize, optimised: bool) -> Result {
    if optimised && n < UNROLL {
        return Err(format!("{WHAT}: the optimised source needs n >= {UNROLL}").into());
    }
    let Roles(mut s, mut t) = Roles::default();
    let source = spawn(WHAT, async move {
        if optimised {
            Ok(source_optimised(&mut s, n).await?)
        } else {
            Ok(source(&mut s, n).await?)
        }
    });
    let sink = spawn(WHAT, async move { Ok(sink(&mut t).await?) });
    let (sent, received) = futures::join!(source, sink);
    sent?;
    check(WHAT, n, received?)
}
