//! Criterion benchmarks of the k-MC checker on the four families of PPoPP 2022 §4.2
//! (`mpst_fsm::families`), next to asynchronous subtyping on the same instances.
//!
//! `kmc/<family>/<n>` checks the optimised system at the least bound it needs
//! (computed once, outside the measurement); `kmc-k/k_buffering/<n>` uses the generous
//! bound `k = n + 1`; `subtype/<family>/<n>` checks every optimised machine against its
//! projection. Run: `cargo bench -p mpst-fsm --bench kmc`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use mpst_fsm::families::{self, Instance};
use mpst_fsm::kmc::{check_kmc, least_k};
use mpst_fsm::subtype::is_subtype;

fn bench_family(c: &mut Criterion, name: &str, sizes: &[usize], make: fn(usize) -> Instance) {
    let mut group = c.benchmark_group(format!("kmc/{name}"));
    for &n in sizes {
        let instance = make(n);
        let system = instance.optimised_system();
        let k = least_k(&system, n + 2).expect("a well-formed system");
        assert!(k.is_kmc(), "{name} {n}: {k}");
        let k = k.k;
        group.bench_with_input(BenchmarkId::from_parameter(n), &system, |b, system| {
            b.iter(|| check_kmc(system, k).expect("a well-formed system").is_kmc())
        });
    }
    group.finish();
    let mut group = c.benchmark_group(format!("subtype/{name}"));
    for &n in sizes {
        let instance = make(n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &instance, |b, instance| {
            b.iter(|| {
                instance
                    .checks()
                    .into_iter()
                    .all(|(opt, proj)| is_subtype(opt, proj, instance.visits).is_ok())
            })
        });
    }
    group.finish();
}

fn stream(c: &mut Criterion) {
    bench_family(c, "stream", &[10, 50, 100], families::stream);
}

fn nested_choice(c: &mut Criterion) {
    bench_family(c, "nested_choice", &[1, 3, 5], families::nested_choice);
}

fn ring(c: &mut Criterion) {
    bench_family(c, "ring", &[2, 10, 24, 30], families::ring);
}

fn k_buffering(c: &mut Criterion) {
    bench_family(c, "k_buffering", &[1, 10, 50, 100], families::k_buffering);
    let mut group = c.benchmark_group("kmc-k/k_buffering");
    for n in [10, 100] {
        let system = families::k_buffering(n).optimised_system();
        group.bench_with_input(BenchmarkId::from_parameter(n), &system, |b, system| {
            b.iter(|| {
                check_kmc(system, n + 1)
                    .expect("a well-formed system")
                    .is_kmc()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, stream, nested_choice, ring, k_buffering);
criterion_main!(benches);
