//! FFT (CAMP Fig. 7; PPoPP 2022 Section 4.1): eight processes compute the 8-point FFT of
//! every row of an `n x 8` matrix with the radix-2 butterfly network, each process holding
//! one column of `n` values and exchanging it with a partner in each of the three stages.
//! Two implementations in one criterion group, parameterised by the column length `n`:
//! `typed` (the projected session types, as in `examples/fft`) and `bare` (the same
//! exchanges written by hand on the same `mpst::channel::Spsc<Label>` channels). Roles
//! and channels are created once and reused by every session. See `BENCHMARKS.md`.

mod common;

use criterion::{black_box, BenchmarkId, Criterion, Throughput};
use futures::executor::block_on;
use futures::{SinkExt, StreamExt};
use mpst::channel::Spsc;
use mpst::{
    session, try_session, End, Error, FromState, Message, Receive, Role, Roles, Route, Send,
};
use num_complex::Complex64;

type Channel = Spsc<Label>;
type Column = Vec<Complex64>;

#[derive(Roles)]
struct Roles(P0, P1, P2, P3, P4, P5, P6, P7);

macro_rules! processes {
    ($($name:ident: $first:ident $second:ident $third:ident;)*) => {$(
        #[derive(Role)]
        #[message(Label)]
        struct $name(
            #[route($first)] Channel,
            #[route($second)] Channel,
            #[route($third)] Channel,
        );
    )*};
}

processes! {
    P0: P1 P2 P4;
    P1: P0 P3 P5;
    P2: P3 P0 P6;
    P3: P2 P1 P7;
    P4: P5 P6 P0;
    P5: P4 P7 P1;
    P6: P7 P4 P2;
    P7: P6 P5 P3;
}

#[derive(Message)]
enum Label {
    Value(Value),
}

struct Value(Column);

#[session]
type Fft0 = Send<
    P1,
    Value,
    Receive<
        P1,
        Value,
        Send<P2, Value, Receive<P2, Value, Send<P4, Value, Receive<P4, Value, End>>>>,
    >,
>;
#[session]
type Fft1 = Receive<
    P0,
    Value,
    Send<P0, Value, Send<P3, Value, Receive<P3, Value, Send<P5, Value, Receive<P5, Value, End>>>>>,
>;
#[session]
type Fft2 = Send<
    P3,
    Value,
    Receive<
        P3,
        Value,
        Receive<P0, Value, Send<P0, Value, Send<P6, Value, Receive<P6, Value, End>>>>,
    >,
>;
#[session]
type Fft3 = Receive<
    P2,
    Value,
    Send<P2, Value, Receive<P1, Value, Send<P1, Value, Send<P7, Value, Receive<P7, Value, End>>>>>,
>;
#[session]
type Fft4 = Send<
    P5,
    Value,
    Receive<
        P5,
        Value,
        Send<P6, Value, Receive<P6, Value, Receive<P0, Value, Send<P0, Value, End>>>>,
    >,
>;
#[session]
type Fft5 = Receive<
    P4,
    Value,
    Send<P4, Value, Send<P7, Value, Receive<P7, Value, Receive<P1, Value, Send<P1, Value, End>>>>>,
>;
#[session]
type Fft6 = Send<
    P7,
    Value,
    Receive<
        P7,
        Value,
        Receive<P4, Value, Send<P4, Value, Receive<P2, Value, Send<P2, Value, End>>>>,
    >,
>;
#[session]
type Fft7 = Receive<
    P6,
    Value,
    Send<P6, Value, Receive<P5, Value, Send<P5, Value, Receive<P3, Value, Send<P3, Value, End>>>>>,
>;

/// The twiddle factor of process `index` in the stage where partners differ by `half`.
fn twiddle(index: usize, half: usize) -> Complex64 {
    let j = (index % half) as f64;
    Complex64::from_polar(1.0, -std::f64::consts::PI * j / half as f64)
}

fn lower_output(lower: &[Complex64], upper: &[Complex64], w: Complex64) -> Column {
    lower.iter().zip(upper).map(|(&u, &t)| u + w * t).collect()
}

fn upper_output(lower: &[Complex64], upper: &[Complex64], w: Complex64) -> Column {
    lower.iter().zip(upper).map(|(&u, &t)| u - w * t).collect()
}

async fn lower<'r, R, P, N>(
    s: Send<'r, R, P, Value, Receive<'r, R, P, Value, N>>,
    mine: Column,
    w: Complex64,
) -> Result<(Column, N), Error>
where
    R: Route<P, Route = Channel> + Role<Message = Label>,
    P: Role,
    N: FromState<'r, Role = R>,
{
    let (Value(theirs), next) = s.send(Value(mine.clone())).await?.receive().await?;
    Ok((lower_output(&mine, &theirs, w), next))
}

async fn upper<'r, R, P, N>(
    s: Receive<'r, R, P, Value, Send<'r, R, P, Value, N>>,
    mine: Column,
    w: Complex64,
) -> Result<(Column, N), Error>
where
    R: Route<P, Route = Channel> + Role<Message = Label>,
    P: Role,
    N: FromState<'r, Role = R>,
{
    let (Value(theirs), s) = s.receive().await?;
    let next = s.send(Value(mine.clone())).await?;
    Ok((upper_output(&theirs, &mine, w), next))
}

macro_rules! process {
    ($($name:ident($role:ident, $session:ident, $index:literal): $s1:ident $s2:ident $s3:ident;)*) => {$(
        async fn $name(role: &mut $role, column: Column) -> Result<Column, Error> {
            try_session(role, |s: $session<'_, $role>| async move {
                let (column, s) = $s1(s, column, twiddle($index, 1)).await?;
                let (column, s) = $s2(s, column, twiddle($index, 2)).await?;
                let (column, end) = $s3(s, column, twiddle($index, 4)).await?;
                Ok((column, end))
            })
            .await
        }
    )*};
}

process! {
    fft0(P0, Fft0, 0): lower lower lower;
    fft1(P1, Fft1, 1): upper lower lower;
    fft2(P2, Fft2, 2): lower upper lower;
    fft3(P3, Fft3, 3): upper upper lower;
    fft4(P4, Fft4, 4): lower lower upper;
    fft5(P5, Fft5, 5): upper lower upper;
    fft6(P6, Fft6, 6): lower upper upper;
    fft7(P7, Fft7, 7): upper upper upper;
}

fn typed(roles: &mut Roles, [c0, c1, c2, c3, c4, c5, c6, c7]: [Column; 8]) -> [Column; 8] {
    let Roles(p0, p1, p2, p3, p4, p5, p6, p7) = roles;
    let outputs = block_on(async {
        futures::try_join!(
            fft0(p0, c0),
            fft1(p1, c1),
            fft2(p2, c2),
            fft3(p3, c3),
            fft4(p4, c4),
            fft5(p5, c5),
            fft6(p6, c6),
            fft7(p7, c7),
        )
    });
    let (o0, o1, o2, o3, o4, o5, o6, o7) = outputs.unwrap();
    [o0, o1, o2, o3, o4, o5, o6, o7]
}

/// The hand-written process `index`: in each stage, the lower partner sends then receives,
/// the upper one receives then sends, exactly as the session types prescribe.
async fn bare_process(
    index: usize,
    routes: &mut [Channel; 3],
    column: Column,
) -> Result<Column, Error> {
    let mut column = column;
    for (stage, route) in routes.iter_mut().enumerate() {
        let half = 1 << stage;
        let w = twiddle(index, half);
        if index & half == 0 {
            route
                .send(Label::Value(Value(column.clone())))
                .await
                .map_err(Error::other)?;
            let Some(Label::Value(Value(theirs))) = route.next().await.and_then(Result::ok) else {
                return Err(Error::other("bare FFT: channel closed"));
            };
            column = lower_output(&column, &theirs, w);
        } else {
            let Some(Label::Value(Value(theirs))) = route.next().await.and_then(Result::ok) else {
                return Err(Error::other("bare FFT: channel closed"));
            };
            route
                .send(Label::Value(Value(column.clone())))
                .await
                .map_err(Error::other)?;
            column = upper_output(&theirs, &column, w);
        }
    }
    Ok(column)
}

/// The channel ends of the hand-written processes: `routes[p][s]` goes to `p`'s partner in
/// stage `s`, created the way `#[derive(Roles)]` creates the typed ones (one pair per
/// pair of partners).
fn bare_routes() -> [[Channel; 3]; 8] {
    let mut ends: Vec<Vec<Channel>> = (0..8).map(|_| Vec::new()).collect();
    for stage in 0..3 {
        let half = 1 << stage;
        for lower in (0..8).filter(|p| p & half == 0) {
            let (mine, theirs) = mpst::channel::spsc();
            ends[lower].push(mine);
            ends[lower | half].push(theirs);
        }
    }
    let ends: Vec<[Channel; 3]> = ends
        .into_iter()
        .map(|e| {
            e.try_into()
                .unwrap_or_else(|_| unreachable!("three stages"))
        })
        .collect();
    ends.try_into()
        .unwrap_or_else(|_| unreachable!("eight processes"))
}

fn bare(
    routes: &mut [[Channel; 3]; 8],
    [c0, c1, c2, c3, c4, c5, c6, c7]: [Column; 8],
) -> [Column; 8] {
    let [r0, r1, r2, r3, r4, r5, r6, r7] = routes;
    let outputs = block_on(async {
        futures::try_join!(
            bare_process(0, r0, c0),
            bare_process(1, r1, c1),
            bare_process(2, r2, c2),
            bare_process(3, r3, c3),
            bare_process(4, r4, c4),
            bare_process(5, r5, c5),
            bare_process(6, r6, c6),
            bare_process(7, r7, c7),
        )
    });
    let (o0, o1, o2, o3, o4, o5, o6, o7) = outputs.unwrap();
    [o0, o1, o2, o3, o4, o5, o6, o7]
}

/// Input columns of length `n`, already in the bit-reversed order the processes start in.
fn columns(n: usize) -> [Column; 8] {
    std::array::from_fn(|p| {
        (0..n)
            .map(|r| {
                Complex64::new(
                    ((r * 8 + p) as f64 * 0.37).sin(),
                    (p as f64 - r as f64).cos(),
                )
            })
            .collect()
    })
}

/// The DFT of row `r` of the (bit-reversed) input by its definition, for the sanity check.
fn naive_row(input: &[Column; 8], r: usize) -> [Complex64; 8] {
    let reverse = |i: usize| ((i & 1) << 2) | (i & 2) | ((i & 4) >> 2);
    std::array::from_fn(|k| {
        (0..8)
            .map(|j| {
                let angle = -2.0 * std::f64::consts::PI * (j * k) as f64 / 8.0;
                input[reverse(j)][r] * Complex64::from_polar(1.0, angle)
            })
            .sum()
    })
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
    routes: [[Channel; 3]; 8],
}

impl Fixture {
    fn new() -> Self {
        Self {
            roles: Roles::default(),
            routes: bare_routes(),
        }
    }

    /// One session transforming `input`; returns the output columns.
    fn session(&mut self, variant: Variant, input: &[Column; 8]) -> [Column; 8] {
        match variant {
            Variant::Typed => typed(&mut self.roles, input.clone()),
            Variant::Bare => bare(&mut self.routes, input.clone()),
        }
    }
}

fn fft(c: &mut Criterion) {
    let mut group = c.benchmark_group("fft");
    let mut fixture = Fixture::new();
    for n in (1000..=5000).step_by(1000) {
        let input = columns(n);
        group.throughput(Throughput::Elements(n as u64));
        for (name, variant) in VARIANTS {
            // Every implementation computes the same thing before it is timed.
            let output = fixture.session(variant, &input);
            for r in [0, n / 2, n - 1] {
                let want = naive_row(&input, r);
                for k in 0..8 {
                    assert!((output[k][r] - want[k]).norm() < 1e-9 * (1.0 + want[k].norm()));
                }
            }
            group.bench_with_input(BenchmarkId::new(name, n), &input, |b, input| {
                b.iter(|| black_box(fixture.session(variant, input)))
            });
        }
    }
    group.finish();
}

fn count(variant: &str, n: u64, sessions: u64) -> Result<(), String> {
    let names = VARIANTS.map(|(name, _)| name);
    let (_, variant) = VARIANTS
        .into_iter()
        .find(|(name, _)| *name == variant)
        .ok_or_else(|| common::unknown(variant, &names))?;
    let input = columns(usize::try_from(n).map_err(|e| e.to_string())?);
    let mut fixture = Fixture::new();
    for _ in 0..sessions {
        black_box(fixture.session(variant, &input));
    }
    Ok(())
}

fn main() {
    common::main(fft, count);
}
