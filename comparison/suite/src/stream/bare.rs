//! Stream written directly on the channels `mpst` uses (`mpst::channel::Unbounded` of a
//! label enum), without session types: the limit our runtime is measured against.

use futures::SinkExt;
use mpst::channel::{Unbounded, unbounded};

use super::{UNROLL, check, value};
use crate::{Result, receive_bare, spawn, unexpected};

const WHAT: &str = "stream/bare";

enum Label {
    Ready,
    Value(i32),
    Stop,
}

async fn ready(route: &mut Unbounded<Label>) -> Result {
    match receive_bare(WHAT, route).await?? {
        Label::Ready => Ok(()),
        _ => Err(unexpected(WHAT, "Ready")),
    }
}

async fn source(mut route: Unbounded<Label>, n: usize, optimised: bool) -> Result {
    let mut from = 0;
    if optimised {
        for i in 0..UNROLL {
            route.send(Label::Value(value(i))).await?;
        }
        for _ in 0..UNROLL {
            ready(&mut route).await?;
        }
        from = UNROLL;
    }
    for i in from..n {
        ready(&mut route).await?;
        route.send(Label::Value(value(i))).await?;
    }
    ready(&mut route).await?;
    route.send(Label::Stop).await?;
    Ok(())
}

async fn sink(mut route: Unbounded<Label>) -> Result<(usize, i64)> {
    let (mut count, mut sum) = (0, 0);
    loop {
        route.send(Label::Ready).await?;
        match receive_bare(WHAT, &mut route).await?? {
            Label::Value(v) => {
                count += 1;
                sum += i64::from(v);
            }
            Label::Stop => return Ok((count, sum)),
            Label::Ready => return Err(unexpected(WHAT, "Value or Stop")),
        }
    }
}

/// Streams `n` values (two tokio tasks) and checks the sum; `optimised` sends the first
/// [`UNROLL`] values at once, like the optimised session-typed sources (needs `n >= UNROLL`).
pub async fn run(n: usize, optimised: bool) -> Result {
    if optimised && n < UNROLL {
        return Err(format!("{WHAT}: the optimised source needs n >= {UNROLL}").into());
    }
    let (s, t) = unbounded();
    let source = spawn(WHAT, source(s, n, optimised));
    let sink = spawn(WHAT, sink(t));
    let (sent, received) = futures::join!(source, sink);
    sent?;
    check(WHAT, n, received?)
}
