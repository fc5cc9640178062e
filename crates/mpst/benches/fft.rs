//! FFT (CAMP Fig. 7; PPoPP 2022 Section 4.1): eight processes compute the 8-point FFT of
//! every row of an `n x 8` matrix with the radix-2 butterfly network, each process holding
//! one column of `n` values and exchanging it with a partner in each of the three stages.
//! Two implementations in one criterion group, parameterised by the column length `n`:
//! `typed` (the projected session types of `examples/fft`, whose roles, labels, arithmetic
//! and session types this bench includes as they are) and `bare` (the same exchanges
//! written by hand on the same `mpst::channel::Spsc<Label>` channels). Roles and channels
//! are created once and reused by every session. See `BENCHMARKS.md`.

mod common;
// The example's own protocol files: what the bench measures is what the example runs.
#[path = "../../../examples/fft/projections.rs"]
mod projections;
// Helpers only the example's `main` and tests use (`reverse`, `run_tasks!`, ...).
#[allow(dead_code, unused_imports, unused_macros)]
#[path = "../../../examples/fft/protocol.rs"]
mod protocol;

use criterion::{BenchmarkId, Criterion, Throughput, black_box};
use futures::executor::block_on;
use futures::{SinkExt, StreamExt};
use mpst::{Error, try_session};
use num_complex::Complex64;
use projections::{Fft0, Fft1, Fft2, Fft3, Fft4, Fft5, Fft6, Fft7, upper};
use protocol::{Channel, Column, Label, Roles, Value};
use protocol::{P0, P1, P2, P3, P4, P5, P6, P7};
use protocol::{columns, input, lower, lower_output, rows, twiddle, upper_output};

// The example's eight processes; the macro also defines the example's `run`, which the
// sanity check below compares every implementation with.
protocol::processes_and_runs!();

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

/// The DFT of one row by its definition, for the sanity check.
fn naive_row(row: &[Complex64; 8]) -> [Complex64; 8] {
    std::array::from_fn(|k| {
        row.iter()
            .enumerate()
            .map(|(j, &x)| {
                x * Complex64::from_polar(1.0, -std::f64::consts::PI * (j * k) as f64 / 4.0)
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
        let matrix = input(n);
        let input = columns(&matrix);
        // The example's `run`, on roles of its own, is what every implementation computes.
        let want = block_on(run(&matrix)).unwrap();
        group.throughput(Throughput::Elements(n as u64));
        for (name, variant) in VARIANTS {
            // Every implementation computes the same thing before it is timed, and it is the
            // DFT of each row.
            let output = rows(fixture.session(variant, &input));
            for r in [0, n / 2, n - 1] {
                let naive = naive_row(&matrix[r]);
                for k in 0..8 {
                    assert!((output[r][k] - want[r][k]).norm() < 1e-9 * (1.0 + want[r][k].norm()));
                    assert!((output[r][k] - naive[k]).norm() < 1e-9 * (1.0 + naive[k].norm()));
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
    let variant = common::variant(&VARIANTS, variant)?;
    let input = columns(&input(usize::try_from(n).map_err(|e| e.to_string())?));
    let mut fixture = Fixture::new();
    for _ in 0..sessions {
        black_box(fixture.session(variant, &input));
    }
    Ok(())
}

fn main() {
    common::main(fft, count);
}
