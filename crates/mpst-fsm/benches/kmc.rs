//! Criterion benchmarks of the k-MC checker on the four families of PPoPP 2022 §4.2
//! (`mpst_fsm::families`), next to asynchronous subtyping on the same instances.
//!
//! `kmc/<family>/<n>` checks the optimised system at the least bound it needs
//! (computed once, outside the measurement); `kmc-k/k_buffering/<n>` uses the generous
//! bound `k = n + 1`; `subtype/<family>/<n>` checks every optimised machine against its
//! projection. `kmc-scaling/<family>/<n>` checks the optimised system at sizes up to
//! the ring of 1,000 roles and 10,000-buffering (time only; peak memory per size is
//! measured by `examples/kmc_scaling.rs`). Run: `cargo bench -p mpst-fsm --bench kmc`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
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

/// How the check's time grows with `n`, at the least bound of each family.
fn scaling(c: &mut Criterion) {
    /// A family's name, generator, sizes and least bound at a size.
    type Scaled = (
        &'static str,
        fn(usize) -> Instance,
        &'static [usize],
        fn(usize) -> usize,
    );
    let families: [Scaled; 4] = [
        ("ring", families::ring, &[250, 500, 1000], |_| 1),
        ("nested_choice", families::nested_choice, &[4, 5, 6], |_| 1),
        (
            "k_buffering",
            families::k_buffering,
            &[1000, 3000, 10_000],
            |n| n.div_ceil(2),
        ),
        ("stream", families::stream, &[1000, 3000, 10_000], |n| {
            n.div_ceil(2)
        }),
    ];
    for (name, make, sizes, bound) in families {
        let mut group = c.benchmark_group(format!("kmc-scaling/{name}"));
        group.sample_size(10);
        for &n in sizes {
            let system = make(n).optimised_system();
            let k = bound(n);
            assert!(check_kmc(&system, k).expect("well-formed").is_kmc());
            group.bench_with_input(BenchmarkId::from_parameter(n), &system, |b, system| {
                b.iter(|| check_kmc(system, k).expect("a well-formed system").is_kmc())
            });
        }
        group.finish();
    }
}

criterion_group!(benches, stream, nested_choice, ring, k_buffering, scaling);
criterion_main!(benches);
