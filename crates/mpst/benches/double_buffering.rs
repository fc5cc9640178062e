//! Double buffering (PPoPP 2022 Sections 1 and 4.1): two iterations of the protocol of
//! Listing 1 (as in the paper's benchmark, so that both buffers fill and the session
//! ends), moving buffers of `n` integers from a source through a kernel to a sink. Three
//! implementations in one criterion group: `typed` (projected kernel), `typed_optimised`
//! (the kernel of Listing 3: two `ready`s up front) and `bare` (the projected protocol
//! written by hand on the same `mpst::channel::Unbounded<Label>` channels). Roles and
//! channels are created once and reused by every session. See `BENCHMARKS.md`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use futures::executor::block_on;
use futures::future::try_join3;
use futures::{SinkExt, StreamExt};
use mpst::channel::Unbounded;
use mpst::{session, try_session, End, Error, Message, Receive, Role, Roles, Send};

type Channel = Unbounded<Label>;

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
type Sink = Send<K, Ready, Receive<K, Value, Send<K, Ready, Receive<K, Value, End>>>>;

/// The projected kernel, twice: `S!ready. S?value. T?ready. T!value` twice.
#[session]
type Kernel = Send<S, Ready, Receive<S, Value, Receive<T, Ready, Send<T, Value, KernelAgain>>>>;

#[session]
type KernelAgain = Send<S, Ready, Receive<S, Value, Receive<T, Ready, Send<T, Value, End>>>>;

/// The optimised kernel (Listing 3) for two iterations: both `ready`s first.
#[session]
type OptimisedKernel = Send<S, Ready, Send<S, Ready, Receive<S, Value, OptimisedRest>>>;

#[session]
type OptimisedRest =
    Receive<T, Ready, Send<T, Value, Receive<S, Value, Receive<T, Ready, Send<T, Value, End>>>>>;

/// The source's work: fill a buffer of `n` integers.
fn fill(n: usize, round: i32) -> Vec<i32> {
    (0..n as i32).map(|i| i ^ round).collect()
}

/// The sink's work: read a whole buffer.
fn drain(buffer: &[i32]) -> i64 {
    buffer.iter().map(|&x| i64::from(x)).sum()
}

async fn source(role: &mut S, n: usize) -> Result<(), Error> {
    try_session(role, |s: Source<'_, S>| async move {
        let (Ready, s) = s.receive().await?;
        let s = s.send(Value(fill(n, 0))).await?;
        let (Ready, s) = s.receive().await?;
        Ok(((), s.send(Value(fill(n, 1))).await?))
    })
    .await
}

async fn sink(role: &mut T) -> Result<i64, Error> {
    try_session(role, |s: Sink<'_, T>| async move {
        let (Value(first), s) = s.send(Ready).await?.receive().await?;
        let (Value(second), end) = s.send(Ready).await?.receive().await?;
        Ok((drain(&first) + drain(&second), end))
    })
    .await
}

async fn kernel(role: &mut K) -> Result<(), Error> {
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

async fn optimised_kernel(role: &mut K) -> Result<(), Error> {
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

fn unexpected(role: &'static str) -> Error {
    Error::other(format!("{role}: unexpected label"))
}

fn closed(role: &'static str) -> Error {
    Error::other(format!("{role}: channel closed"))
}

async fn bare_ready(channel: &mut Channel, role: &'static str) -> Result<(), Error> {
    match channel.next().await {
        Some(Label::Ready(Ready)) => Ok(()),
        Some(_) => Err(unexpected(role)),
        None => Err(closed(role)),
    }
}

async fn bare_value(channel: &mut Channel, role: &'static str) -> Result<Vec<i32>, Error> {
    match channel.next().await {
        Some(Label::Value(Value(buffer))) => Ok(buffer),
        Some(_) => Err(unexpected(role)),
        None => Err(closed(role)),
    }
}

async fn bare_source(to_k: &mut Channel, n: usize) -> Result<(), Error> {
    for round in 0..2 {
        bare_ready(to_k, "source").await?;
        let buffer = fill(n, round);
        to_k.send(Label::Value(Value(buffer)))
            .await
            .map_err(Error::other)?;
    }
    Ok(())
}

async fn bare_kernel(to_s: &mut Channel, to_t: &mut Channel) -> Result<(), Error> {
    for _ in 0..2 {
        to_s.send(Label::Ready(Ready)).await.map_err(Error::other)?;
        let buffer = bare_value(to_s, "kernel").await?;
        bare_ready(to_t, "kernel").await?;
        to_t.send(Label::Value(Value(buffer)))
            .await
            .map_err(Error::other)?;
    }
    Ok(())
}

async fn bare_sink(to_k: &mut Channel) -> Result<i64, Error> {
    let mut sum = 0;
    for _ in 0..2 {
        to_k.send(Label::Ready(Ready)).await.map_err(Error::other)?;
        sum += drain(&bare_value(to_k, "sink").await?);
    }
    Ok(sum)
}

fn double_buffering(c: &mut Criterion) {
    let mut group = c.benchmark_group("double_buffering");
    let Roles(mut s, mut k, mut t) = Roles::default();
    let (mut s_k, mut k_s) = mpst::channel::unbounded::<Label>();
    let (mut k_t, mut t_k) = mpst::channel::unbounded::<Label>();
    for n in (5000..=25000).step_by(5000) {
        let expected = drain(&fill(n, 0)) + drain(&fill(n, 1));
        let typed = block_on(try_join3(source(&mut s, n), kernel(&mut k), sink(&mut t)));
        let optimised = block_on(try_join3(
            source(&mut s, n),
            optimised_kernel(&mut k),
            sink(&mut t),
        ));
        let bare = block_on(try_join3(
            bare_source(&mut s_k, n),
            bare_kernel(&mut k_s, &mut k_t),
            bare_sink(&mut t_k),
        ));
        assert_eq!(typed.unwrap().2, expected);
        assert_eq!(optimised.unwrap().2, expected);
        assert_eq!(bare.unwrap().2, expected);

        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("typed", n), &n, |b, &n| {
            b.iter(|| {
                let run = try_join3(source(&mut s, n), kernel(&mut k), sink(&mut t));
                black_box(block_on(run).unwrap())
            })
        });
        group.bench_with_input(BenchmarkId::new("typed_optimised", n), &n, |b, &n| {
            b.iter(|| {
                let run = try_join3(source(&mut s, n), optimised_kernel(&mut k), sink(&mut t));
                black_box(block_on(run).unwrap())
            })
        });
        group.bench_with_input(BenchmarkId::new("bare", n), &n, |b, &n| {
            b.iter(|| {
                let run = try_join3(
                    bare_source(&mut s_k, n),
                    bare_kernel(&mut k_s, &mut k_t),
                    bare_sink(&mut t_k),
                );
                black_box(block_on(run).unwrap())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, double_buffering);
criterion_main!(benches);
