//! Streaming (PPoPP 2022 Section 4.1): a source sends `n` values to a sink, each after the
//! sink says it is ready, then `stop`. Three implementations in one criterion group:
//! `typed` (the projected session types), `typed_unrolled` (the source sends its first 5
//! values before waiting, the paper's optimisation) and `bare` (the same protocol written
//! by hand on the same `mpst::channel::Spsc<Label>` channels, no session types).
//! The roles and channels are created once and reused by every session, so the timings
//! are of the sessions only. See `BENCHMARKS.md`.

mod common;

// The session-typed code, shared with `comparison/`: what both measure is the same.
#[path = "protocols/stream.rs"]
mod protocol;

use criterion::{BenchmarkId, Criterion, Throughput, black_box};
use futures::executor::block_on;
use futures::future::try_join;
use futures::{SinkExt, StreamExt};
use mpst::channel::Spsc;
use mpst::{End, Error, Receive, Select, Send, session, try_session};
use protocol::{Label, Ready, Roles, S, Stop, T, Value, sink, source};

type Channel = Spsc<Label>;
type Number = i64;

#[session]
type UnrolledSource =
    Send<T, Value, Send<T, Value, Send<T, Value, Send<T, Value, Send<T, Value, UnrolledLoop>>>>>;

#[session]
type UnrolledLoop = Receive<T, Ready, Select<T, UnrolledChoice>>;

#[session]
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

/// The session-typed sink's work: add up the values.
fn add(sum: i64, value: i64) -> i64 {
    sum + value
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
        match channel.next().await.and_then(Result::ok) {
            Some(Label::Ready(Ready)) => {}
            Some(_) => return Err(unexpected("source")),
            None => return Err(closed("source")),
        }
        channel
            .send(Label::Value(Value(i)))
            .await
            .map_err(Error::other)?;
    }
    match channel.next().await.and_then(Result::ok) {
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
        match channel.next().await.and_then(Result::ok) {
            Some(Label::Value(Value(v))) => sum += v,
            Some(Label::Stop(Stop)) => return Ok(sum),
            Some(_) => return Err(unexpected("sink")),
            None => return Err(closed("sink")),
        }
    }
}

/// The implementations of this bench.
#[derive(Clone, Copy)]
enum Variant {
    Typed,
    TypedUnrolled,
    Bare,
}

const VARIANTS: [(&str, Variant); 3] = [
    ("typed", Variant::Typed),
    ("typed_unrolled", Variant::TypedUnrolled),
    ("bare", Variant::Bare),
];

/// Roles and channels, created once and reused by every session.
struct Fixture {
    s: S,
    t: T,
    bare_s: Channel,
    bare_t: Channel,
}

impl Fixture {
    fn new() -> Self {
        let Roles(s, t) = Roles::default();
        let (bare_s, bare_t) = mpst::channel::spsc();
        Self {
            s,
            t,
            bare_s,
            bare_t,
        }
    }

    /// One session streaming `n` values; returns what the sink computed.
    fn session(&mut self, variant: Variant, n: i64) -> i64 {
        let Self {
            s,
            t,
            bare_s,
            bare_t,
        } = self;
        let result = match variant {
            Variant::Typed => block_on(try_join(source(s, 0..n), sink(t, 0, add))),
            Variant::TypedUnrolled => block_on(try_join(unrolled_source(s, n), sink(t, 0, add))),
            Variant::Bare => block_on(try_join(bare_source(bare_s, n), bare_sink(bare_t))),
        };
        result.expect("the stream session failed").1
    }
}

fn stream(c: &mut Criterion) {
    let mut group = c.benchmark_group("stream");
    let mut fixture = Fixture::new();
    for n in (10..=50).step_by(10) {
        group.throughput(Throughput::Elements(n as u64));
        for (name, variant) in VARIANTS {
            // Every implementation computes the same thing before it is timed.
            assert_eq!(fixture.session(variant, n), n * (n - 1) / 2);
            group.bench_with_input(BenchmarkId::new(name, n), &n, |b, &n| {
                b.iter(|| black_box(fixture.session(variant, n)))
            });
        }
    }
    group.finish();
}

fn count(variant: &str, n: u64, sessions: u64) -> Result<(), String> {
    let variant = common::variant(&VARIANTS, variant)?;
    if n < 5 {
        return Err("the unrolled source needs at least 5 values".to_owned());
    }
    let mut fixture = Fixture::new();
    for _ in 0..sessions {
        black_box(fixture.session(variant, n as i64));
    }
    Ok(())
}

fn main() {
    common::main(stream, count);
}
