//! Loopback TCP (feature `tcp`): the stream and double-buffering protocols with
//! `mpst::net::TcpRoute`s against the limit, a hand-written tokio twin with the same
//! framing (tokio-util's `LengthDelimitedCodec`: 4-byte big-endian length) and the same
//! serialisation (postcard) of the same label enums, with no session types.
//!
//! * `tcp_stream/{mpst,tokio}/n`: the paper's stream, one round trip (`ready`, value) per
//!   value; with `n = 0` a session is exactly one round trip (`ready`, `stop`), so its
//!   time is the round-trip latency.
//! * `tcp_double_buffering/{mpst,tokio}/n`: two buffers of `n` integers from the source
//!   through the kernel to the sink, on two connections: throughput.
//!
//! Every role runs in one current-thread tokio runtime, joined into one future, on
//! connections (`TCP_NODELAY`, as `mpst::net` sets) opened once and reused by every
//! session. Each session's result is checked before timing. See `BENCHMARKS.md`.
//!
//! Both sides run over plain TCP (`TcpRoute::new` on a bare socket, as
//! `NetConfig::insecure_plaintext` would): the bench measures the session runtime and the
//! framing, not TLS, which a deployment adds on top (mutual TLS is `mpst::net`'s
//! default).

mod common;

use bytes::Bytes;
use criterion::{BenchmarkId, Criterion, Throughput, black_box};
use futures::{SinkExt, StreamExt};
use mpst::net::TcpRoute;
use mpst::{Branch, End, Error, Message, Receive, Role, Select, Send, session, try_session};
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;
use tokio_util::codec::{Framed, LengthDelimitedCodec};

// ---- labels, shared by both implementations ----

#[derive(Message, Serialize, Deserialize)]
enum Stream {
    Ready(Ready),
    Value(Value),
    Stop(Stop),
}

#[derive(Message, Serialize, Deserialize)]
enum Buffers {
    Ready(Ready),
    Copy(Copy),
}

#[derive(Serialize, Deserialize)]
struct Ready;
#[derive(Serialize, Deserialize)]
struct Value(i64);
#[derive(Serialize, Deserialize)]
struct Stop;
#[derive(Serialize, Deserialize)]
struct Copy(Vec<i32>);

// ---- stream with session types ----

type Route<L> = TcpRoute<L>;

#[derive(Role)]
#[message(Stream)]
struct Source(#[route(Consumer)] Route<Stream>);

#[derive(Role)]
#[message(Stream)]
struct Consumer(#[route(Source)] Route<Stream>);

#[session]
type Produce = Receive<Consumer, Ready, Select<Consumer, ProduceChoice>>;

#[session]
enum ProduceChoice {
    Value(Value, Produce),
    Stop(Stop, End),
}

#[session]
type Consume = Send<Source, Ready, Branch<Source, ConsumeChoice>>;

#[session]
enum ConsumeChoice {
    Value(Value, Consume),
    Stop(Stop, End),
}

async fn produce(role: &mut Source, n: i64) -> Result<(), Error> {
    try_session(role, |mut s: Produce<'_, Source>| async move {
        for i in 0..n {
            let (Ready, choice) = s.receive().await?;
            s = choice.select(Value(i)).await?;
        }
        let (Ready, choice) = s.receive().await?;
        Ok(((), choice.select(Stop).await?))
    })
    .await
}

async fn consume(role: &mut Consumer) -> Result<i64, Error> {
    try_session(role, |mut s: Consume<'_, Consumer>| async move {
        let mut sum = 0;
        loop {
            match s.send(Ready).await?.branch().await? {
                ConsumeChoice::Value(Value(v), next) => {
                    sum += v;
                    s = next;
                }
                ConsumeChoice::Stop(Stop, end) => return Ok((sum, end)),
            }
        }
    })
    .await
}

// ---- double buffering with session types (Listing 1, two iterations) ----

#[derive(Role)]
#[message(Buffers)]
struct S(#[route(K)] Route<Buffers>);

#[derive(Role)]
#[message(Buffers)]
struct K(#[route(S)] Route<Buffers>, #[route(T)] Route<Buffers>);

#[derive(Role)]
#[message(Buffers)]
struct T(#[route(K)] Route<Buffers>);

#[session]
type Fill = Receive<K, Ready, Send<K, Copy, Receive<K, Ready, Send<K, Copy, End>>>>;

#[session]
type Drain = Send<K, Ready, Receive<K, Copy, Send<K, Ready, Receive<K, Copy, End>>>>;

#[session]
type Kernel = Send<S, Ready, Receive<S, Copy, Receive<T, Ready, Send<T, Copy, KernelAgain>>>>;

#[session]
type KernelAgain = Send<S, Ready, Receive<S, Copy, Receive<T, Ready, Send<T, Copy, End>>>>;

fn fill(n: usize, round: i32) -> Vec<i32> {
    (0..n as i32).map(|i| i ^ round).collect()
}

fn sum(buffer: &[i32]) -> i64 {
    buffer.iter().map(|&x| i64::from(x)).sum()
}

async fn source(role: &mut S, n: usize) -> Result<(), Error> {
    try_session(role, |s: Fill<'_, S>| async move {
        let (Ready, s) = s.receive().await?;
        let s = s.send(Copy(fill(n, 0))).await?;
        let (Ready, s) = s.receive().await?;
        Ok(((), s.send(Copy(fill(n, 1))).await?))
    })
    .await
}

async fn kernel(role: &mut K) -> Result<(), Error> {
    try_session(role, |s: Kernel<'_, K>| async move {
        let (Copy(buffer), s) = s.send(Ready).await?.receive().await?;
        let (Ready, s) = s.receive().await?;
        let s = s.send(Copy(buffer)).await?;
        let (Copy(buffer), s) = s.send(Ready).await?.receive().await?;
        let (Ready, s) = s.receive().await?;
        Ok(((), s.send(Copy(buffer)).await?))
    })
    .await
}

async fn sink(role: &mut T) -> Result<i64, Error> {
    try_session(role, |s: Drain<'_, T>| async move {
        let (Copy(first), s) = s.send(Ready).await?.receive().await?;
        let (Copy(second), end) = s.send(Ready).await?.receive().await?;
        Ok((sum(&first) + sum(&second), end))
    })
    .await
}

// ---- the hand-written tokio twin: Framed + LengthDelimitedCodec + postcard ----

type Plain = Framed<TcpStream, LengthDelimitedCodec>;

async fn put<L: Serialize>(framed: &mut Plain, label: &L) -> Result<(), Error> {
    let bytes = postcard::to_allocvec(label).map_err(Error::other)?;
    framed.send(Bytes::from(bytes)).await.map_err(Error::other)
}

async fn get<L: DeserializeOwned>(framed: &mut Plain) -> Result<L, Error> {
    let frame = framed
        .next()
        .await
        .ok_or_else(|| Error::other("connection closed"))?
        .map_err(Error::other)?;
    postcard::from_bytes(&frame).map_err(Error::other)
}

fn unexpected() -> Error {
    Error::other("unexpected label")
}

async fn plain_produce(framed: &mut Plain, n: i64) -> Result<(), Error> {
    for i in 0..n {
        let Stream::Ready(Ready) = get(framed).await? else {
            return Err(unexpected());
        };
        put(framed, &Stream::Value(Value(i))).await?;
    }
    let Stream::Ready(Ready) = get(framed).await? else {
        return Err(unexpected());
    };
    put(framed, &Stream::Stop(Stop)).await
}

async fn plain_consume(framed: &mut Plain) -> Result<i64, Error> {
    let mut total = 0;
    loop {
        put(framed, &Stream::Ready(Ready)).await?;
        match get(framed).await? {
            Stream::Value(Value(v)) => total += v,
            Stream::Stop(Stop) => return Ok(total),
            Stream::Ready(_) => return Err(unexpected()),
        }
    }
}

async fn plain_copy(framed: &mut Plain) -> Result<Vec<i32>, Error> {
    match get(framed).await? {
        Buffers::Copy(Copy(buffer)) => Ok(buffer),
        Buffers::Ready(_) => Err(unexpected()),
    }
}

async fn plain_ready(framed: &mut Plain) -> Result<(), Error> {
    match get(framed).await? {
        Buffers::Ready(Ready) => Ok(()),
        Buffers::Copy(_) => Err(unexpected()),
    }
}

async fn plain_source(to_k: &mut Plain, n: usize) -> Result<(), Error> {
    for round in 0..2 {
        plain_ready(to_k).await?;
        put(to_k, &Buffers::Copy(Copy(fill(n, round)))).await?;
    }
    Ok(())
}

async fn plain_kernel(to_s: &mut Plain, to_t: &mut Plain) -> Result<(), Error> {
    for _ in 0..2 {
        put(to_s, &Buffers::Ready(Ready)).await?;
        let buffer = plain_copy(to_s).await?;
        plain_ready(to_t).await?;
        put(to_t, &Buffers::Copy(Copy(buffer))).await?;
    }
    Ok(())
}

async fn plain_sink(to_k: &mut Plain) -> Result<i64, Error> {
    let mut total = 0;
    for _ in 0..2 {
        put(to_k, &Buffers::Ready(Ready)).await?;
        total += sum(&plain_copy(to_k).await?);
    }
    Ok(total)
}

// ---- harness ----

/// Two ends of a loopback connection with `TCP_NODELAY`.
async fn connection() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let (dialled, accepted) = tokio::join!(TcpStream::connect(address), listener.accept());
    let (dialled, (accepted, _)) = (dialled.expect("connect"), accepted.expect("accept"));
    dialled.set_nodelay(true).expect("nodelay");
    accepted.set_nodelay(true).expect("nodelay");
    (dialled, accepted)
}

fn route<L>(stream: TcpStream, peer: &str) -> TcpRoute<L> {
    TcpRoute::new(stream, peer, mpst::net::DEFAULT_MAX_FRAME_LENGTH)
}

fn plain(stream: TcpStream) -> Plain {
    Framed::new(stream, LengthDelimitedCodec::new())
}

/// Connections and roles, opened once and reused by every session.
struct Fixture {
    runtime: Runtime,
    stream: (Source, Consumer),
    plain_stream: (Plain, Plain),
    buffers: (S, K, T),
    plain_buffers: (Plain, Plain, Plain, Plain),
}

impl Fixture {
    fn new() -> Self {
        // Timers too: each `TcpRoute` has a task that acknowledges every 50 ms.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .expect("runtime");
        let (stream, plain_stream, buffers, plain_buffers) = runtime.block_on(async {
            let (a, b) = connection().await;
            let stream = (Source(route(a, "Consumer")), Consumer(route(b, "Source")));
            let (a, b) = connection().await;
            let plain_stream = (plain(a), plain(b));
            let (sk, ks) = connection().await;
            let (kt, tk) = connection().await;
            let buffers = (
                S(route(sk, "K")),
                K(route(ks, "S"), route(kt, "T")),
                T(route(tk, "K")),
            );
            let (sk, ks) = connection().await;
            let (kt, tk) = connection().await;
            let plain_buffers = (plain(sk), plain(ks), plain(kt), plain(tk));
            (stream, plain_stream, buffers, plain_buffers)
        });
        Self {
            runtime,
            stream,
            plain_stream,
            buffers,
            plain_buffers,
        }
    }

    /// One stream session of `n` values; returns the consumer's sum.
    fn stream(&mut self, variant: Variant, n: i64) -> i64 {
        let (source, consumer) = &mut self.stream;
        let (a, b) = &mut self.plain_stream;
        let result = self.runtime.block_on(async {
            match variant {
                Variant::Mpst => futures::try_join!(produce(source, n), consume(consumer)),
                Variant::Tokio => futures::try_join!(plain_produce(a, n), plain_consume(b)),
            }
        });
        result.expect("the stream session failed").1
    }

    /// One double-buffering session with buffers of `n`; returns the sink's sum.
    fn double_buffering(&mut self, variant: Variant, n: usize) -> i64 {
        let (s, k, t) = &mut self.buffers;
        let (sk, ks, kt, tk) = &mut self.plain_buffers;
        let result = self.runtime.block_on(async {
            match variant {
                Variant::Mpst => futures::try_join!(source(s, n), kernel(k), sink(t)),
                Variant::Tokio => {
                    futures::try_join!(plain_source(sk, n), plain_kernel(ks, kt), plain_sink(tk))
                }
            }
        });
        result.expect("the double-buffering session failed").2
    }
}

/// The implementations of this bench.
#[derive(Clone, Copy)]
enum Variant {
    Mpst,
    Tokio,
}

const VARIANTS: [(&str, Variant); 2] = [("mpst", Variant::Mpst), ("tokio", Variant::Tokio)];

fn expected_buffers(n: usize) -> i64 {
    sum(&fill(n, 0)) + sum(&fill(n, 1))
}

fn tcp(c: &mut Criterion) {
    let mut fixture = Fixture::new();
    let mut group = c.benchmark_group("tcp_stream");
    for n in [0, 10, 50] {
        group.throughput(Throughput::Elements(n.max(1) as u64));
        for (name, variant) in VARIANTS {
            assert_eq!(fixture.stream(variant, n), n * (n - 1).max(0) / 2);
            group.bench_with_input(BenchmarkId::new(name, n), &n, |b, &n| {
                b.iter(|| black_box(fixture.stream(variant, n)))
            });
        }
    }
    group.finish();
    let mut group = c.benchmark_group("tcp_double_buffering");
    for n in [1000, 25_000] {
        group.throughput(Throughput::Bytes(
            (2 * n * std::mem::size_of::<i32>()) as u64,
        ));
        for (name, variant) in VARIANTS {
            assert_eq!(fixture.double_buffering(variant, n), expected_buffers(n));
            group.bench_with_input(BenchmarkId::new(name, n), &n, |b, &n| {
                b.iter(|| black_box(fixture.double_buffering(variant, n)))
            });
        }
    }
    group.finish();
}

/// `--count stream:VARIANT N SESSIONS` or `--count double_buffering:VARIANT N SESSIONS`.
fn count(which: &str, n: u64, sessions: u64) -> Result<(), String> {
    let names = [
        "stream:mpst",
        "stream:tokio",
        "double_buffering:mpst",
        "double_buffering:tokio",
    ];
    let unknown = || common::unknown(which, &names);
    let (protocol, name) = which.split_once(':').ok_or_else(unknown)?;
    let variant = common::variant(&VARIANTS, name).map_err(|_| unknown())?;
    let mut fixture = Fixture::new();
    for _ in 0..sessions {
        match protocol {
            "stream" => black_box(fixture.stream(variant, n as i64)),
            "double_buffering" => black_box(fixture.double_buffering(variant, n as usize)),
            _ => return Err(unknown()),
        };
    }
    Ok(())
}

fn main() {
    common::main(tcp, count);
}
