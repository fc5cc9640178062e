//! Ring (CAMP; PPoPP 2022 Section 4.2): a token goes round `A -> B -> C -> A` for `laps`
//! laps, each role adding 1, then `A` sends `stop` round the ring. (The papers' ring never
//! ends; this finite variant lets one session be one timed run:
//! `rec X { choice at A { value A->B; value B->C; value C->A; continue X }
//!          or { stop A->B; stop B->C } }`.) Two implementations in one criterion group:
//! `typed` (the projected session types) and `bare` (the same protocol written by hand on
//! the same `mpst::channel::Spsc<Label>` channels). Roles and channels are created
//! once and reused by every session. See `BENCHMARKS.md`.

mod common;

use criterion::{BenchmarkId, Criterion, Throughput, black_box};
use futures::executor::block_on;
use futures::future::try_join3;
use futures::{SinkExt, StreamExt};
use mpst::channel::Spsc;
use mpst::{Branch, End, Error, Message, Receive, Role, Roles, Select, Send, session, try_session};

type Channel = Spsc<Label>;

#[derive(Roles)]
struct Roles(A, B, C);

#[derive(Role)]
#[message(Label)]
struct A(#[route(B)] Channel, #[route(C)] Channel);

#[derive(Role)]
#[message(Label)]
struct B(#[route(A)] Channel, #[route(C)] Channel);

#[derive(Role)]
#[message(Label)]
struct C(#[route(A)] Channel, #[route(B)] Channel);

#[derive(Message)]
enum Label {
    Value(Value),
    Stop(Stop),
}

struct Value(u64);
struct Stop;

#[session]
type RingA = Select<B, ChoiceA>;

#[session]
enum ChoiceA {
    Value(Value, Receive<C, Value, RingA>),
    Stop(Stop, End),
}

#[session]
type RingB = Branch<A, ChoiceB>;

#[session]
enum ChoiceB {
    Value(Value, Send<C, Value, RingB>),
    Stop(Stop, Send<C, Stop, End>),
}

#[session]
type RingC = Branch<B, ChoiceC>;

#[session]
enum ChoiceC {
    Value(Value, Send<A, Value, RingC>),
    Stop(Stop, End),
}

async fn ring_a(role: &mut A, laps: u64) -> Result<u64, Error> {
    try_session(role, |mut s: RingA<'_, A>| async move {
        let mut token = 0;
        for _ in 0..laps {
            let (Value(back), t) = s.select(Value(token + 1)).await?.receive().await?;
            token = back;
            s = t;
        }
        Ok((token, s.select(Stop).await?))
    })
    .await
}

async fn ring_b(role: &mut B) -> Result<(), Error> {
    try_session(role, |mut s: RingB<'_, B>| async move {
        loop {
            s = match s.branch().await? {
                ChoiceB::Value(Value(x), t) => t.send(Value(x + 1)).await?,
                ChoiceB::Stop(Stop, t) => return Ok(((), t.send(Stop).await?)),
            }
        }
    })
    .await
}

async fn ring_c(role: &mut C) -> Result<(), Error> {
    try_session(role, |mut s: RingC<'_, C>| async move {
        loop {
            s = match s.branch().await? {
                ChoiceC::Value(Value(x), t) => t.send(Value(x + 1)).await?,
                ChoiceC::Stop(Stop, end) => return Ok(((), end)),
            }
        }
    })
    .await
}

fn unexpected(role: &'static str) -> Error {
    Error::other(format!("{role}: unexpected label"))
}

fn closed(role: &'static str) -> Error {
    Error::other(format!("{role}: channel closed"))
}

async fn bare_a(a_b: &mut Channel, a_c: &mut Channel, laps: u64) -> Result<u64, Error> {
    let mut token = 0;
    for _ in 0..laps {
        a_b.send(Label::Value(Value(token + 1)))
            .await
            .map_err(Error::other)?;
        token = match a_c.next().await.and_then(Result::ok) {
            Some(Label::Value(Value(back))) => back,
            Some(_) => return Err(unexpected("A")),
            None => return Err(closed("A")),
        };
    }
    a_b.send(Label::Stop(Stop)).await.map_err(Error::other)?;
    Ok(token)
}

/// `B` and `C` of the hand-written ring: pass each value on plus one; `B` passes `stop` on.
async fn bare_forward(
    from: &mut Channel,
    to: &mut Channel,
    forward_stop: bool,
) -> Result<(), Error> {
    loop {
        match from.next().await.and_then(Result::ok) {
            Some(Label::Value(Value(x))) => to
                .send(Label::Value(Value(x + 1)))
                .await
                .map_err(Error::other)?,
            Some(Label::Stop(Stop)) if forward_stop => {
                return to.send(Label::Stop(Stop)).await.map_err(Error::other);
            }
            Some(Label::Stop(Stop)) => return Ok(()),
            None => return Err(closed("B or C")),
        }
    }
}

/// The implementations of this bench.
#[derive(Clone, Copy)]
enum Variant {
    Typed,
    Bare,
}

const VARIANTS: [(&str, Variant); 2] = [("typed", Variant::Typed), ("bare", Variant::Bare)];

/// Roles and channels, created once and reused by every session.
struct Fixture {
    roles: Roles,
    a_b: Channel,
    b_a: Channel,
    a_c: Channel,
    c_a: Channel,
    b_c: Channel,
    c_b: Channel,
}

impl Fixture {
    fn new() -> Self {
        let (a_b, b_a) = mpst::channel::spsc();
        let (a_c, c_a) = mpst::channel::spsc();
        let (b_c, c_b) = mpst::channel::spsc();
        Self {
            roles: Roles::default(),
            a_b,
            b_a,
            a_c,
            c_a,
            b_c,
            c_b,
        }
    }

    /// One session of `laps` laps; returns the token that came back to `A`.
    fn session(&mut self, variant: Variant, laps: u64) -> u64 {
        let Self {
            roles: Roles(a, b, c),
            a_b,
            b_a,
            a_c,
            c_a,
            b_c,
            c_b,
        } = self;
        let result = match variant {
            Variant::Typed => block_on(try_join3(ring_a(a, laps), ring_b(b), ring_c(c))),
            Variant::Bare => block_on(try_join3(
                bare_a(a_b, a_c, laps),
                bare_forward(b_a, b_c, true),
                bare_forward(c_b, c_a, false),
            )),
        };
        result.expect("the ring session failed").0
    }
}

fn ring(c: &mut Criterion) {
    let mut group = c.benchmark_group("ring");
    let mut fixture = Fixture::new();
    for laps in (10..=50).step_by(10) {
        group.throughput(Throughput::Elements(3 * laps));
        for (name, variant) in VARIANTS {
            // Every implementation computes the same thing before it is timed.
            assert_eq!(fixture.session(variant, laps), 3 * laps);
            group.bench_with_input(BenchmarkId::new(name, laps), &laps, |b, &laps| {
                b.iter(|| black_box(fixture.session(variant, laps)))
            });
        }
    }
    group.finish();
}

fn count(variant: &str, laps: u64, sessions: u64) -> Result<(), String> {
    let variant = common::variant(&VARIANTS, variant)?;
    let mut fixture = Fixture::new();
    for _ in 0..sessions {
        black_box(fixture.session(variant, laps));
    }
    Ok(())
}

fn main() {
    common::main(ring, count);
}
