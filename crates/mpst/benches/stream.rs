//! Streaming (PPoPP 2022 Section 4.1): a source sends `n` values to a sink, each after the
//! sink says it is ready, then `stop`. Three implementations in one criterion group:
//! `typed` (the projected session types), `typed_unrolled` (the source sends its first 5
//! values before waiting, the paper's optimisation) and `bare` (the same protocol written
//! by hand on the same `mpst::channel::Unbounded<Label>` channels, no session types).
//! The roles and channels are created once and reused by every session, so the timings
//! are of the sessions only. See `BENCHMARKS.md`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use futures::executor::block_on;
use futures::future::try_join;
use futures::{SinkExt, StreamExt};
use mpst::channel::Unbounded;
use mpst::{session, try_session, Branch, End, Error, Message, Receive, Role, Roles, Select, Send};

type Channel = Unbounded<Label>;

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
struct Value(i64);
struct Stop;

#[session]
type Source = Receive<T, Ready, Select<T, SourceChoice>>;

#[session]
#[allow(dead_code)] // a `Select` choice: only its type is used
enum SourceChoice {
    Value(Value, Source),
    Stop(Stop, End),
}

#[session]
type Sink = Send<S, Ready, Branch<S, SinkChoice>>;

#[session]
enum SinkChoice {
    Value(Value, Sink),
    Stop(Stop, End),
}

#[session]
type UnrolledSource =
    Send<T, Value, Send<T, Value, Send<T, Value, Send<T, Value, Send<T, Value, UnrolledLoop>>>>>;

#[session]
type UnrolledLoop = Receive<T, Ready, Select<T, UnrolledChoice>>;

#[session]
#[allow(dead_code)] // a `Select` choice: only its type is used
enum UnrolledChoice {
    Value(Value, UnrolledLoop),
    Stop(Stop, Drain),
}

#[session]
type Drain = Receive<
    T,
    Ready,
    Receive<T, Ready, Receive<T, Ready, Receive<T, Ready, Receive<T, Ready, End>>>>,
>;

async fn source(role: &mut S, n: i64) -> Result<(), Error> {
    try_session(role, |mut s: Source<'_, S>| async move {
        for i in 0..n {
            let (Ready, t) = s.receive().await?;
            s = t.select(Value(i)).await?;
        }
        let (Ready, t) = s.receive().await?;
        Ok(((), t.select(Stop).await?))
    })
    .await
}

/// Needs `n >= 5`.
async fn unrolled_source(role: &mut S, n: i64) -> Result<(), Error> {
    try_session(role, |s: UnrolledSource<'_, S>| async move {
        let s = s
            .send(Value(0))
            .await?
            .send(Value(1))
            .await?
            .send(Value(2))
            .await?;
        let mut s = s.send(Value(3)).await?.send(Value(4)).await?;
        for i in 5..n {
            let (Ready, t) = s.receive().await?;
            s = t.select(Value(i)).await?;
        }
        let (Ready, t) = s.receive().await?;
        let s = t.select(Stop).await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, end) = s.receive().await?;
        Ok(((), end))
    })
    .await
}

async fn sink(role: &mut T) -> Result<i64, Error> {
    try_session(role, |mut s: Sink<'_, T>| async move {
        let mut sum = 0;
        loop {
            match s.send(Ready).await?.branch().await? {
                SinkChoice::Value(Value(v), next) => {
                    sum += v;
                    s = next;
                }
                SinkChoice::Stop(Stop, end) => return Ok((sum, end)),
            }
        }
    })
    .await
}

/// The hand-written twin's error for a message the protocol does not allow.
fn unexpected(role: &'static str) -> Error {
    Error::other(format!("{role}: unexpected label"))
}

/// The hand-written twin's error for a closed channel.
fn closed(role: &'static str) -> Error {
    Error::other(format!("{role}: channel closed"))
}

async fn bare_source(channel: &mut Channel, n: i64) -> Result<(), Error> {
    for i in 0..n {
        match channel.next().await {
            Some(Label::Ready(Ready)) => {}
            Some(_) => return Err(unexpected("source")),
            None => return Err(closed("source")),
        }
        channel
            .send(Label::Value(Value(i)))
            .await
            .map_err(Error::other)?;
    }
    match channel.next().await {
        Some(Label::Ready(Ready)) => {}
        Some(_) => return Err(unexpected("source")),
        None => return Err(closed("source")),
    }
    channel.send(Label::Stop(Stop)).await.map_err(Error::other)
}

async fn bare_sink(channel: &mut Channel) -> Result<i64, Error> {
    let mut sum = 0;
    loop {
        channel
            .send(Label::Ready(Ready))
            .await
            .map_err(Error::other)?;
        match channel.next().await {
            Some(Label::Value(Value(v))) => sum += v,
            Some(Label::Stop(Stop)) => return Ok(sum),
            Some(_) => return Err(unexpected("sink")),
            None => return Err(closed("sink")),
        }
    }
}

fn stream(c: &mut Criterion) {
    let mut group = c.benchmark_group("stream");
    let Roles(mut s, mut t) = Roles::default();
    let (mut bare_s, mut bare_t) = mpst::channel::unbounded::<Label>();
    for n in (10..=50).step_by(10) {
        let expected = n * (n - 1) / 2;
        // Every implementation computes the same thing before it is timed.
        let typed = block_on(try_join(source(&mut s, n), sink(&mut t)))
            .unwrap()
            .1;
        let unrolled = block_on(try_join(unrolled_source(&mut s, n), sink(&mut t)))
            .unwrap()
            .1;
        let bare = block_on(try_join(
            bare_source(&mut bare_s, n),
            bare_sink(&mut bare_t),
        ));
        assert_eq!(
            (typed, unrolled, bare.unwrap().1),
            (expected, expected, expected)
        );

        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("typed", n), &n, |b, &n| {
            b.iter(|| black_box(block_on(try_join(source(&mut s, n), sink(&mut t))).unwrap()))
        });
        group.bench_with_input(BenchmarkId::new("typed_unrolled", n), &n, |b, &n| {
            b.iter(|| {
                black_box(block_on(try_join(unrolled_source(&mut s, n), sink(&mut t))).unwrap())
            })
        });
        group.bench_with_input(BenchmarkId::new("bare", n), &n, |b, &n| {
            b.iter(|| {
                let run = try_join(bare_source(&mut bare_s, n), bare_sink(&mut bare_t));
                black_box(block_on(run).unwrap())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, stream);
criterion_main!(benches);
