//! Criterion benchmarks of asynchronous subtyping on the paper's four families
//! (PPoPP 2022 §4.2, Fig. 7): one `is_subtype(optimised, projected, visits)` check per
//! iteration, machine compilation included; and the witness trees of CONCUR 2019 through
//! `check` on that paper's parameterised family and on its tool's `snewex1 ≤ snewex2`.
//! Run with `cargo bench -p mpst-fsm --bench subtype`.

use criterion::{BenchmarkId, Criterion, black_box, criterion_group, criterion_main};
use mpst_fsm::families::{Family, Instance};
use mpst_fsm::subtype::{Options, check as verdict, is_subtype};
use mpst_fsm::{Fsm, LocalType};

fn sizes(family: Family) -> &'static [usize] {
    match family {
        Family::Stream | Family::KBuffering => &[0, 10, 20, 50, 100],
        Family::NestedChoice => &[1, 2, 3, 4, 5, 6],
        Family::Ring => &[2, 10, 20, 30],
    }
}

/// The check benchmarked: for the ring, one role (`r1`; all roles but `r0` are alike).
fn check(instance: &Instance) {
    let (optimised, projected) = instance.checks()[0];
    let stats = is_subtype(black_box(optimised), black_box(projected), instance.visits)
        .expect("the families' optimised FSMs are subtypes");
    black_box(stats);
}

fn families(c: &mut Criterion) {
    for family in Family::ALL {
        let mut group = c.benchmark_group(format!("subtype/{family}"));
        if family == Family::NestedChoice {
            group.sample_size(10);
        }
        for &n in sizes(family) {
            let instance = family.instance(n).expect("benchmark sizes are valid");
            group.bench_with_input(BenchmarkId::from_parameter(n), &instance, |b, i| {
                b.iter(|| check(i))
            });
        }
        group.finish();
    }
}

fn fsm(text: &str) -> Fsm {
    LocalType::parse(text)
        .expect("a valid local type")
        .to_fsm("r")
        .expect("a valid machine")
}

/// The CONCUR'19 family: `sends + 1` messages sent ahead per round against one in the
/// supertype, two labels received (as in `tests/it/subtype_concur19.rs`).
fn concur19_family(sends: usize) -> (Fsm, Fsm) {
    let seq: Vec<String> = (0..=sends).map(|i| format!("p!a{i}()")).collect();
    let rcv = "b0(). x, b1(). x";
    let branches: Vec<String> = (0..=sends)
        .map(|i| format!("a{i}(). p?{{{rcv}}}"))
        .collect();
    (
        fsm(&format!("rec x. {}. p?{{{rcv}}}", seq.join(". "))),
        fsm(&format!("rec x. p!{{{}}}", branches.join(", "))),
    )
}

fn witness_trees(c: &mut Criterion) {
    let mut group = c.benchmark_group("subtype/witness trees");
    group.sample_size(10);
    // The rules cannot prove these; a small step budget keeps their share small.
    let options = Options {
        max_steps: 1_000,
        ..Options::default()
    };
    let mut pairs: Vec<(String, (Fsm, Fsm))> = [1, 2, 4, 8]
        .iter()
        .map(|&n| (format!("family {n}"), concur19_family(n)))
        .collect();
    pairs.push((
        "snewex1".into(),
        (
            fsm("rec x. p!{x(). p?a(). x, z(). p?a(). x, y(). rec y. p?a(). p!{x(). p?a(). x, y(). y}}"),
            fsm("rec x. p?a(). p?a(). p!{x(). x, y(). x, z(). x}"),
        ),
    ));
    for (name, (sub, sup)) in &pairs {
        group.bench_function(name.as_str(), |b| {
            b.iter(|| black_box(verdict(black_box(sub), black_box(sup), &options)))
        });
    }
    group.finish();
}

criterion_group!(benches, families, witness_trees);
criterion_main!(benches);
