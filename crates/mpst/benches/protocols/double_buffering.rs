//! Double buffering's session-typed code (PPoPP 2022 Sections 1 and 4.1, two iterations of
//! Listing 1): roles, labels, session types and the three processes, written once for the
//! runtime bench (`benches/double_buffering.rs`) and for the side-by-side comparison
//! (`comparison/suite/src/double_buffering/ours.rs`), which both include this file.
//!
//! The including module defines `Channel`, the route type (`Spsc<Label>` in the bench,
//! `Unbounded<Label>` or `Spsc<Label>` in the comparison). What differs between the two is
//! only the work around the messages, so the source takes the function that fills a buffer
//! and the sink folds the buffers it reads into whatever it returns.

use mpst::{End, Error, Message, Receive, Role, Roles, Send, session, try_session};

use super::Channel;

/// The three roles, wired by `Roles::default()`.
#[derive(Roles)]
pub struct Roles(pub S, pub K, pub T);

/// The source: fills buffers.
#[derive(Role)]
#[message(Label)]
pub struct S(#[route(K)] Channel);

/// The kernel: passes each buffer from the source on to the sink.
#[derive(Role)]
#[message(Label)]
pub struct K(#[route(S)] Channel, #[route(T)] Channel);

/// The sink: reads buffers.
#[derive(Role)]
#[message(Label)]
pub struct T(#[route(K)] Channel);

/// The labels of the protocol.
#[derive(Message)]
pub enum Label {
    /// `ready()`: a buffer is free (to the source) or the sink can read (to the kernel).
    Ready(Ready),
    /// `value(buffer)`: one filled buffer.
    Value(Value),
}

/// `ready()`.
pub struct Ready;
/// `value(buffer)`.
pub struct Value(pub Vec<i32>);

/// The source's projection, twice: `K?ready. K!value`.
#[session]
pub type Source = Receive<K, Ready, Send<K, Value, Receive<K, Ready, Send<K, Value, End>>>>;

/// The sink's projection, twice: `K!ready. K?value`.
#[session]
pub type Sink = Send<K, Ready, Receive<K, Value, Send<K, Ready, Receive<K, Value, End>>>>;

/// The projected kernel, twice: `S!ready. S?value. T?ready. T!value`.
#[session]
pub type Kernel = Send<S, Ready, Receive<S, Value, Receive<T, Ready, Send<T, Value, KernelAgain>>>>;

/// The projected kernel's second iteration.
#[session]
pub type KernelAgain = Send<S, Ready, Receive<S, Value, Receive<T, Ready, Send<T, Value, End>>>>;

/// The optimised kernel (Listing 3) for two iterations: both `ready`s first.
#[session]
pub type OptimisedKernel = Send<S, Ready, Send<S, Ready, Receive<S, Value, OptimisedRest>>>;

/// The optimised kernel after its first buffer arrived.
#[session]
pub type OptimisedRest =
    Receive<T, Ready, Send<T, Value, Receive<S, Value, Receive<T, Ready, Send<T, Value, End>>>>>;

/// The source: sends buffer `fill(0)`, then `fill(1)`, each when the kernel is ready.
pub async fn source(role: &mut S, mut fill: impl FnMut(usize) -> Vec<i32>) -> Result<(), Error> {
    try_session(role, |s: Source<'_, S>| async move {
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(fill(0))).await?;
        let (Ready, s) = s.receive().await?;
        Ok(((), s.send(Value(fill(1))).await?))
    })
    .await
}

/// The projected kernel: one buffer at a time.
pub async fn kernel(role: &mut K) -> Result<(), Error> {
    try_session(role, |s: Kernel<'_, K>| async move {
        let (Value(buffer), s) = s.send(Ready).await?.receive().await?;
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(buffer)).await?;
        let (Value(buffer), s) = s.send(Ready).await?.receive().await?;
        let (Ready, s) = s.receive().await?;
        Ok(((), s.send(Value(buffer)).await?))
    })
    .await
}

/// The optimised kernel (Listing 3): both buffers in flight.
pub async fn optimised_kernel(role: &mut K) -> Result<(), Error> {
    try_session(role, |s: OptimisedKernel<'_, K>| async move {
        let s = s.send(Ready).await?.send(Ready).await?;
        let (Value(buffer), s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(buffer)).await?;
        let (Value(buffer), s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        Ok(((), s.send(Value(buffer)).await?))
    })
    .await
}

/// The sink: folds each buffer into `init` with `read` as it arrives (and frees it there,
/// unless `read` keeps it), and returns the result.
pub async fn sink<A>(
    role: &mut T,
    init: A,
    mut read: impl FnMut(A, Vec<i32>) -> A,
) -> Result<A, Error> {
    try_session(role, |s: Sink<'_, T>| async move {
        let (Value(first), s) = s.send(Ready).await?.receive().await?;
        let folded = read(init, first);
        let (Value(second), end) = s.send(Ready).await?.receive().await?;
        Ok((read(folded, second), end))
    })
    .await
}
