//! Double buffering (PPoPP 2022 Sections 1 and 4.1): two iterations of the protocol of
//! Listing 1 (as in the paper's benchmark, so that both buffers fill and the session
//! ends), moving buffers of `n` integers from a source through a kernel to a sink. Three
//! implementations in one criterion group: `typed` (projected kernel), `typed_optimised`
//! (the kernel of Listing 3: two `ready`s up front) and `bare` (the projected protocol
//! written by hand on the same `mpst::channel::Spsc<Label>` channels). Roles and
//! channels are created once and reused by every session. See `BENCHMARKS.md`.

mod common;

// The session-typed code, shared with `comparison/`: what both measure is the same.
#[path = "protocols/double_buffering.rs"]
mod protocol;

use criterion::{BenchmarkId, Criterion, Throughput, black_box};
use futures::executor::block_on;
use futures::future::try_join3;
use futures::{SinkExt, StreamExt};
use mpst::Error;
use mpst::channel::Spsc;
use protocol::{Label, Ready, Roles, Value, kernel, optimised_kernel, sink, source};

type Channel = Spsc<Label>;

/// The source's work: fill a buffer of `n` integers.
fn fill(n: usize, round: i32) -> Vec<i32> {
    (0..n as i32).map(|i| i ^ round).collect()
}

/// The sink's work: read a whole buffer.
fn drain(buffer: &[i32]) -> i64 {
    buffer.iter().map(|&x| i64::from(x)).sum()
}

/// The session-typed sink's work: read each buffer as it arrives and free it, as the bare
/// sink does (holding the first while the second is filled would put two buffers in the
/// cache at once).
fn read(sum: i64, buffer: Vec<i32>) -> i64 {
    sum + drain(&buffer)
}

fn unexpected(role: &'static str) -> Error {
    Error::other(format!("{role}: unexpected label"))
}

fn closed(role: &'static str) -> Error {
    Error::other(format!("{role}: channel closed"))
}

async fn bare_ready(channel: &mut Channel, role: &'static str) -> Result<(), Error> {
    match channel.next().await.and_then(Result::ok) {
        Some(Label::Ready(Ready)) => Ok(()),
        Some(_) => Err(unexpected(role)),
        None => Err(closed(role)),
    }
}

async fn bare_value(channel: &mut Channel, role: &'static str) -> Result<Vec<i32>, Error> {
    match channel.next().await.and_then(Result::ok) {
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

/// The implementations of this bench.
#[derive(Clone, Copy)]
enum Variant {
    Typed,
    TypedOptimised,
    Bare,
}

const VARIANTS: [(&str, Variant); 3] = [
    ("typed", Variant::Typed),
    ("typed_optimised", Variant::TypedOptimised),
    ("bare", Variant::Bare),
];

/// Roles and channels, created once and reused by every session.
struct Fixture {
    roles: Roles,
    s_k: Channel,
    k_s: Channel,
    k_t: Channel,
    t_k: Channel,
}

impl Fixture {
    fn new() -> Self {
        let (s_k, k_s) = mpst::channel::spsc();
        let (k_t, t_k) = mpst::channel::spsc();
        Self {
            roles: Roles::default(),
            s_k,
            k_s,
            k_t,
            t_k,
        }
    }

    /// One session moving two buffers of `n` integers; returns what the sink computed.
    fn session(&mut self, variant: Variant, n: usize) -> i64 {
        let Self {
            roles: Roles(s, k, t),
            s_k,
            k_s,
            k_t,
            t_k,
        } = self;
        let result = match variant {
            Variant::Typed => block_on(try_join3(
                source(s, |round| fill(n, round as i32)),
                kernel(k),
                sink(t, 0, read),
            )),
            Variant::TypedOptimised => block_on(try_join3(
                source(s, |round| fill(n, round as i32)),
                optimised_kernel(k),
                sink(t, 0, read),
            )),
            Variant::Bare => block_on(try_join3(
                bare_source(s_k, n),
                bare_kernel(k_s, k_t),
                bare_sink(t_k),
            )),
        };
        result.expect("the double-buffering session failed").2
    }
}

fn double_buffering(c: &mut Criterion) {
    let mut group = c.benchmark_group("double_buffering");
    let mut fixture = Fixture::new();
    for n in (5000..=25000).step_by(5000) {
        let expected = drain(&fill(n, 0)) + drain(&fill(n, 1));
        group.throughput(Throughput::Elements(n as u64));
        for (name, variant) in VARIANTS {
            // Every implementation computes the same thing before it is timed.
            assert_eq!(fixture.session(variant, n), expected);
            group.bench_with_input(BenchmarkId::new(name, n), &n, |b, &n| {
                b.iter(|| black_box(fixture.session(variant, n)))
            });
        }
    }
    group.finish();
}

fn count(variant: &str, n: u64, sessions: u64) -> Result<(), String> {
    let variant = common::variant(&VARIANTS, variant)?;
    let n = usize::try_from(n).map_err(|e| e.to_string())?;
    let mut fixture = Fixture::new();
    for _ in 0..sessions {
        black_box(fixture.session(variant, n));
    }
    Ok(())
}

fn main() {
    common::main(double_buffering, count);
}
