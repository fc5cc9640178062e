// The session code of `double_buffering` with our `mpst`, included twice by `lib.rs`: as
// `double_buffering::ours` over `Unbounded` and as `double_buffering::ours_spsc` over `Spsc`.
// The including module defines `WHAT` (the name in error messages) and `Channel`
// (the route type).

use mpst::{session, try_session, End, Message, Receive, Role, Roles, Send};

use super::{check_all, fill};
use crate::{spawn, Result};

#[derive(Roles)]
struct Roles(S, K, T);

#[derive(Role)]
#[message(Label)]
struct S(#[route(K)] Channel);

#[derive(Role)]
#[message(Label)]
struct K(#[route(S)] Channel, #[route(T)] Channel);

#[derive(Role)]
#[message(Label)]
struct T(#[route(K)] Channel);

#[derive(Message)]
enum Label {
    Ready(Ready),
    Value(Value),
}

struct Ready;
struct Value(Vec<i32>);

#[session]
type Source = Receive<K, Ready, Send<K, Value, Receive<K, Ready, Send<K, Value, End>>>>;

#[session]
#[rustfmt::skip]
type Kernel = Send<S, Ready, Receive<S, Value, Receive<T, Ready, Send<T, Value,
    Send<S, Ready, Receive<S, Value, Receive<T, Ready, Send<T, Value, End>>>>>>>>;

#[session]
#[rustfmt::skip]
type KernelOptimised = Send<S, Ready, Send<S, Ready, Receive<S, Value, Receive<T, Ready,
    Send<T, Value, Receive<S, Value, Receive<T, Ready, Send<T, Value, End>>>>>>>>;

#[session]
type Sink = Send<K, Ready, Receive<K, Value, Send<K, Ready, Receive<K, Value, End>>>>;

async fn source(role: &mut S, n: usize) -> Result<(), mpst::Error> {
    try_session(role, |s: Source<'_, S>| async move {
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(fill(0, n))).await?;
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(fill(1, n))).await?;
        Ok(((), s))
    })
    .await
}

async fn kernel(role: &mut K) -> Result<(), mpst::Error> {
    try_session(role, |s: Kernel<'_, K>| async move {
        let s = s.send(Ready).await?;
        let (Value(buffer), s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(buffer)).await?;
        let s = s.send(Ready).await?;
        let (Value(buffer), s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(buffer)).await?;
        Ok(((), s))
    })
    .await
}

async fn kernel_optimised(role: &mut K) -> Result<(), mpst::Error> {
    try_session(role, |s: KernelOptimised<'_, K>| async move {
        let s = s.send(Ready).await?;
        let s = s.send(Ready).await?;
        let (Value(buffer), s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(buffer)).await?;
        let (Value(buffer), s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(buffer)).await?;
        Ok(((), s))
    })
    .await
}

async fn sink(role: &mut T) -> Result<Vec<Vec<i32>>, mpst::Error> {
    try_session(role, |s: Sink<'_, T>| async move {
        let s = s.send(Ready).await?;
        let (Value(first), s) = s.receive().await?;
        let s = s.send(Ready).await?;
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
