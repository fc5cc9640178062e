// The session code of `stream` with our `mpst`, included twice by `lib.rs`: as
// `stream::ours` over `Unbounded` and as `stream::ours_spsc` over `Spsc`.
// The including module defines `WHAT` (the name in error messages) and `Channel`
// (the route type).

use mpst::{session, try_session, Branch, End, Message, Receive, Role, Roles, Select, Send};

use super::{check, value, UNROLL};
use crate::{spawn, Result};

#[derive(Roles)]
struct Roles(S, T);

#[derive(Role)]
#[message(Label)]
struct S(#[route(T)] Channel);

#[derive(Role)]
#[message(Label)]
struct T(#[route(S)] Channel);

#[derive(Message)]
enum Label {
    Ready(Ready),
    Value(Value),
    Stop(Stop),
}

struct Ready;
struct Value(i32);
struct Stop;

#[session]
struct Source(Receive<T, Ready, Select<T, SourceChoice>>);

#[session]
enum SourceChoice {
    Value(Value, Source),
    Stop(Stop, End),
}

/// The optimised source: [`UNROLL`] values first, then the matching `ready`s.
#[session]
#[rustfmt::skip]
type SourceOptimised = Send<T, Value, Send<T, Value, Send<T, Value, Send<T, Value, Send<T, Value,
    Receive<T, Ready, Receive<T, Ready, Receive<T, Ready, Receive<T, Ready, Receive<T, Ready,
    Source>>>>>>>>>>;

#[session]
struct Sink(Send<S, Ready, Branch<S, SinkChoice>>);

#[session]
enum SinkChoice {
    Value(Value, Sink),
    Stop(Stop, End),
}

async fn source_loop(
    mut s: Source<'_, S>,
    from: usize,
    n: usize,
) -> Result<((), End<'_, S>), mpst::Error> {
    for i in from..n {
        let (Ready, choice) = s.into_session().receive().await?;
        s = choice.select(Value(value(i))).await?;
    }
    let (Ready, choice) = s.into_session().receive().await?;
    Ok(((), choice.select(Stop).await?))
}

async fn source(role: &mut S, n: usize) -> Result<(), mpst::Error> {
    try_session(role, |s: Source<'_, S>| source_loop(s, 0, n)).await
}

async fn source_optimised(role: &mut S, n: usize) -> Result<(), mpst::Error> {
    try_session(role, |s: SourceOptimised<'_, S>| async move {
        let s = s.send(Value(value(0))).await?;
        let s = s.send(Value(value(1))).await?;
        let s = s.send(Value(value(2))).await?;
        let s = s.send(Value(value(3))).await?;
        let s = s.send(Value(value(4))).await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        source_loop(s, UNROLL, n).await
    })
    .await
}

async fn sink(role: &mut T) -> Result<(usize, i64), mpst::Error> {
    try_session(role, |mut s: Sink<'_, T>| async move {
        let (mut count, mut sum) = (0, 0);
        loop {
            match s.into_session().send(Ready).await?.branch().await? {
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
    let source = async move {
        if optimised {
            Ok(source_optimised(&mut s, n).await?)
        } else {
            Ok(source(&mut s, n).await?)
        }
    };
    let source = spawn(WHAT, source);
    let sink = spawn(WHAT, async move { Ok(sink(&mut t).await?) });
    let (sent, received) = futures::join!(source, sink);
    sent?;
    check(WHAT, n, received?)
}
