//! Double buffering with the published rumpsteak 0.1 crate, plain and optimised kernel.

use rumpsteak::{
    End, Label, Receive, Send,
    role::{Nil, Role, Roles, ToFrom},
    try_session,
};

use super::{check_all, fill};
use crate::{Result, spawn};

const WHAT: &str = "double_buffering/rumpsteak";

#[derive(Roles)]
struct Roles(S, K, T);

#[derive(Role)]
#[message(Message)]
struct S(#[route(K)] ToFrom<K>, #[route(T)] Nil<T>);

#[derive(Role)]
#[message(Message)]
struct K(#[route(S)] ToFrom<S>, #[route(T)] ToFrom<T>);

#[derive(Role)]
#[message(Message)]
struct T(#[route(S)] Nil<S>, #[route(K)] ToFrom<K>);

#[derive(Label)]
enum Message {
    Ready(Ready),
    Value(Value),
}

struct Ready;
struct Value(Vec<i32>);

#[rustfmt::skip]
type Source<'s> = Receive<'s, S, K, Ready, Send<'s, S, K, Value, Receive<'s, S, K, Ready,
    Send<'s, S, K, Value, End<'s>>>>>;

#[rustfmt::skip]
type Kernel<'k> = Send<'k, K, S, Ready, Receive<'k, K, S, Value, Receive<'k, K, T, Ready,
    Send<'k, K, T, Value, Send<'k, K, S, Ready, Receive<'k, K, S, Value, Receive<'k, K, T, Ready,
    Send<'k, K, T, Value, End<'k>>>>>>>>>;

#[rustfmt::skip]
type KernelOptimised<'k> = Send<'k, K, S, Ready, Send<'k, K, S, Ready, Receive<'k, K, S, Value,
    Receive<'k, K, T, Ready, Send<'k, K, T, Value, Receive<'k, K, S, Value, Receive<'k, K, T, Ready,
    Send<'k, K, T, Value, End<'k>>>>>>>>>;

#[rustfmt::skip]
type Sink<'t> = Send<'t, T, K, Ready, Receive<'t, T, K, Value, Send<'t, T, K, Ready,
    Receive<'t, T, K, Value, End<'t>>>>>;

async fn source(role: &mut S, n: usize) -> rumpsteak::Result<()> {
    try_session(role, |s: Source<'_>| async move {
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(fill(0, n)))?;
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(fill(1, n)))?;
        Ok(((), s))
    })
    .await
}

async fn kernel(role: &mut K) -> rumpsteak::Result<()> {
    try_session(role, |s: Kernel<'_>| async move {
        let s = s.send(Ready)?;
        let (Value(buffer), s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(buffer))?;
        let s = s.send(Ready)?;
        let (Value(buffer), s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(buffer))?;
        Ok(((), s))
    })
    .await
}

async fn kernel_optimised(role: &mut K) -> rumpsteak::Result<()> {
    try_session(role, |s: KernelOptimised<'_>| async move {
        let s = s.send(Ready)?;
        let s = s.send(Ready)?;
        let (Value(buffer), s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(buffer))?;
        let (Value(buffer), s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(buffer))?;
        Ok(((), s))
    })
    .await
}

async fn sink(role: &mut T) -> rumpsteak::Result<Vec<Vec<i32>>> {
    try_session(role, |s: Sink<'_>| async move {
        let s = s.send(Ready)?;
        let (Value(first), s) = s.receive().await?;
        let s = s.send(Ready)?;
        let (Value(second), s) = s.receive().await?;
        Ok((vec![first, second], s))
    })
    .await
}

/// Moves two buffers of `n` elements through the kernel (three tokio tasks) and checks
/// them at the sink; `optimised` selects the kernel that sends both `ready`s first.
pub async fn run(n: usize, optimised: bool) -> Result {
    let Roles(mut s, mut k, mut t) = Roles::default();
    let source = spawn(WHAT, async move { Ok(source(&mut s, n).await?) });
    let kernel = spawn(WHAT, async move {
        if optimised {
            Ok(kernel_optimised(&mut k).await?)
        } else {
            Ok(kernel(&mut k).await?)
        }
    });
    let sink = spawn(WHAT, async move { Ok(sink(&mut t).await?) });
    let (sent, passed, received) = futures::join!(source, kernel, sink);
    sent?;
    passed?;
    check_all(WHAT, n, &received?)
}
