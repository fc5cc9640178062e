//! Three adder (PPoPP 2022 Table 1): `A` and `B` exchange their numbers, both send them to
//! `C`, and `C` replies to both with the sum — one short session of six messages. Two
//! implementations in one criterion group: `typed` (the projected session types of
//! `examples/three_adder`, whose protocol file this bench includes) and
//! `bare` (the same protocol written by hand on the same `mpst::channel::Spsc<Label>`
//! channels). Roles and channels are created once; each iteration runs one session, so
//! this measures the fixed cost of a session (`try_session` and every step). See
//! `BENCHMARKS.md`.

mod common;

// The example's own protocol file: what the bench measures is what the example runs.
#[path = "../../../examples/three_adder/protocol.rs"]
mod protocol;

use criterion::{Criterion, black_box};
use futures::executor::block_on;
use futures::future::try_join3;
use futures::{SinkExt, StreamExt};
use mpst::{Error, try_session};
use protocol::{A, Add, AdderA, AdderB, AdderC, B, C, Channel, Label, Roles, Sum};

async fn adder_a(role: &mut A, x: i32) -> Result<i32, Error> {
    try_session(role, |s: AdderA<'_, A>| async move {
        let (Add(_), s) = s.send(Add(x)).await?.receive().await?;
        let (Sum(sum), end) = s.send(Add(x)).await?.receive().await?;
        Ok((sum, end))
    })
    .await
}

async fn adder_b(role: &mut B, y: i32) -> Result<i32, Error> {
    try_session(role, |s: AdderB<'_, B>| async move {
        let (Add(_), s) = s.receive().await?;
        let s = s.send(Add(y)).await?.send(Add(y)).await?;
        let (Sum(sum), end) = s.receive().await?;
        Ok((sum, end))
    })
    .await
}

async fn adder_c(role: &mut C) -> Result<i32, Error> {
    try_session(role, |s: AdderC<'_, C>| async move {
        let (Add(x), s) = s.receive().await?;
        let (Add(y), s) = s.receive().await?;
        let sum = x.wrapping_add(y);
        let end = s.send(Sum(sum)).await?.send(Sum(sum)).await?;
        Ok((sum, end))
    })
    .await
}

fn unexpected(role: &'static str) -> Error {
    Error::other(format!("{role}: unexpected label"))
}

fn closed(role: &'static str) -> Error {
    Error::other(format!("{role}: channel closed"))
}

async fn bare_add(channel: &mut Channel, role: &'static str) -> Result<i32, Error> {
    match channel.next().await.and_then(Result::ok) {
        Some(Label::Add(Add(x))) => Ok(x),
        Some(_) => Err(unexpected(role)),
        None => Err(closed(role)),
    }
}

async fn bare_sum(channel: &mut Channel, role: &'static str) -> Result<i32, Error> {
    match channel.next().await.and_then(Result::ok) {
        Some(Label::Sum(Sum(x))) => Ok(x),
        Some(_) => Err(unexpected(role)),
        None => Err(closed(role)),
    }
}

/// The hand-written roles: one channel end per peer, as the derived roles have.
struct Bare {
    a_b: Channel,
    a_c: Channel,
    b_a: Channel,
    b_c: Channel,
    c_a: Channel,
    c_b: Channel,
}

impl Bare {
    fn new() -> Self {
        let (a_b, b_a) = mpst::channel::spsc();
        let (a_c, c_a) = mpst::channel::spsc();
        let (b_c, c_b) = mpst::channel::spsc();
        Self {
            a_b,
            a_c,
            b_a,
            b_c,
            c_a,
            c_b,
        }
    }
}

async fn bare_a(a_b: &mut Channel, a_c: &mut Channel, x: i32) -> Result<i32, Error> {
    a_b.send(Label::Add(Add(x))).await.map_err(Error::other)?;
    bare_add(a_b, "A").await?;
    a_c.send(Label::Add(Add(x))).await.map_err(Error::other)?;
    bare_sum(a_c, "A").await
}

async fn bare_b(b_a: &mut Channel, b_c: &mut Channel, y: i32) -> Result<i32, Error> {
    bare_add(b_a, "B").await?;
    b_a.send(Label::Add(Add(y))).await.map_err(Error::other)?;
    b_c.send(Label::Add(Add(y))).await.map_err(Error::other)?;
    bare_sum(b_c, "B").await
}

async fn bare_c(c_a: &mut Channel, c_b: &mut Channel) -> Result<i32, Error> {
    let x = bare_add(c_a, "C").await?;
    let y = bare_add(c_b, "C").await?;
    let sum = x.wrapping_add(y);
    c_a.send(Label::Sum(Sum(sum))).await.map_err(Error::other)?;
    c_b.send(Label::Sum(Sum(sum))).await.map_err(Error::other)?;
    Ok(sum)
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
    bare: Bare,
}

impl Fixture {
    fn new() -> Self {
        Self {
            roles: Roles::default(),
            bare: Bare::new(),
        }
    }

    /// One session adding 2 and 3; returns the three sums.
    fn session(&mut self, variant: Variant) -> (i32, i32, i32) {
        let Self {
            roles: Roles(a, b, c),
            bare,
        } = self;
        let Bare {
            a_b,
            a_c,
            b_a,
            b_c,
            c_a,
            c_b,
        } = bare;
        let result = match variant {
            Variant::Typed => block_on(try_join3(adder_a(a, 2), adder_b(b, 3), adder_c(c))),
            Variant::Bare => block_on(try_join3(
                bare_a(a_b, a_c, 2),
                bare_b(b_a, b_c, 3),
                bare_c(c_a, c_b),
            )),
        };
        result.expect("the three-adder session failed")
    }
}

fn three_adder(c: &mut Criterion) {
    let mut group = c.benchmark_group("three_adder");
    let mut fixture = Fixture::new();
    for (name, variant) in VARIANTS {
        // Every implementation computes the same thing before it is timed.
        assert_eq!(fixture.session(variant), (5, 5, 5));
        group.bench_function(name, |b| b.iter(|| black_box(fixture.session(variant))));
    }
    group.finish();
}

fn count(variant: &str, _: u64, sessions: u64) -> Result<(), String> {
    let variant = common::variant(&VARIANTS, variant)?;
    let mut fixture = Fixture::new();
    for _ in 0..sessions {
        black_box(fixture.session(variant));
    }
    Ok(())
}

fn main() {
    common::main(three_adder, count);
}
