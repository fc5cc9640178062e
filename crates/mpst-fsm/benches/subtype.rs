//! Criterion benchmarks of asynchronous subtyping on the paper's four families
//! (PPoPP 2022 §4.2, Fig. 7): one `is_subtype(optimised, projected, visits)` check per
//! iteration, machine compilation included. Run with
//! `cargo bench -p mpst-fsm --bench subtype`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use mpst_fsm::families::{Family, Instance};
use mpst_fsm::subtype::is_subtype;

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

criterion_group!(benches, families);
criterion_main!(benches);
