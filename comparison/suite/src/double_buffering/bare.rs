//! Double buffering on the bare channels `mpst` uses: the limit for ours.

use futures::SinkExt;
use mpst::channel::{Unbounded, unbounded};

use super::{check_all, fill};
use crate::{Result, receive_bare, spawn, unexpected};

const WHAT: &str = "double_buffering/bare";

enum Label {
    Ready,
    Value(Vec<i32>),
}

async fn ready(route: &mut Unbounded<Label>) -> Result {
    match receive_bare(WHAT, route).await?? {
        Label::Ready => Ok(()),
        Label::Value(_) => Err(unexpected(WHAT, "Ready")),
    }
}

async fn buffer(route: &mut Unbounded<Label>) -> Result<Vec<i32>> {
    match receive_bare(WHAT, route).await?? {
        Label::Value(buffer) => Ok(buffer),
        Label::Ready => Err(unexpected(WHAT, "Value")),
    }
}

async fn source(mut k: Unbounded<Label>, n: usize) -> Result {
    ready(&mut k).await?;
    k.send(Label::Value(fill(0, n))).await?;
    ready(&mut k).await?;
    k.send(Label::Value(fill(1, n))).await?;
    Ok(())
}

async fn kernel(mut s: Unbounded<Label>, mut t: Unbounded<Label>, optimised: bool) -> Result {
    s.send(Label::Ready).await?;
    if optimised {
        s.send(Label::Ready).await?;
    }
    let first = buffer(&mut s).await?;
    ready(&mut t).await?;
    t.send(Label::Value(first)).await?;
    if !optimised {
        s.send(Label::Ready).await?;
    }
    let second = buffer(&mut s).await?;
    ready(&mut t).await?;
    t.send(Label::Value(second)).await?;
    Ok(())
}

async fn sink(mut k: Unbounded<Label>) -> Result<Vec<Vec<i32>>> {
    k.send(Label::Ready).await?;
    let first = buffer(&mut k).await?;
    k.send(Label::Ready).await?;
    let second = buffer(&mut k).await?;
    Ok(vec![first, second])
}

/// Moves two buffers of `n` elements through the kernel (three tokio tasks) and checks
/// them at the sink; `optimised` sends both `ready`s to the source first.
pub async fn run(n: usize, optimised: bool) -> Result {
    let (s_k, k_s) = unbounded();
    let (k_t, t_k) = unbounded();
    let source = spawn(WHAT, source(s_k, n));
    let kernel = spawn(WHAT, kernel(k_s, k_t, optimised));
    let sink = spawn(WHAT, sink(t_k));
    let (sent, passed, received) = futures::join!(source, kernel, sink);
    sent?;
    passed?;
    check_all(WHAT, n, &received?)
}
