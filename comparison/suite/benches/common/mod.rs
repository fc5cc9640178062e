//! Shared set-up of the three benchmarks: short criterion settings (the whole suite must
//! fit in ~15 minutes on a shared 2-core machine), the two tokio runtimes, and helpers that
//! register one benchmark per (implementation, runtime, size).
//!
//! Benchmark ids are `<group>/<implementation>/<runtime>/<size>`; the `report` binary reads
//! them back from `target/criterion/**/new/benchmark.json`.

use std::future::Future;
use std::time::Duration;

use comparison::Result;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput};
use tokio::runtime::{Builder, Runtime};

/// Criterion with few samples and short warm-up and measurement times.
pub fn criterion() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .without_plots()
        .configure_from_args()
}

/// The runtimes every async implementation runs on: tokio's multi-threaded scheduler (one
/// worker per core) and its current-thread scheduler.
pub struct Runtimes {
    runtimes: [(&'static str, Runtime); 2],
}

impl Runtimes {
    /// Builds both runtimes.
    pub fn new() -> Self {
        let multi = Builder::new_multi_thread()
            .build()
            .expect("multi-thread runtime");
        let current = Builder::new_current_thread()
            .build()
            .expect("current-thread runtime");
        Self {
            runtimes: [("multi-thread", multi), ("current-thread", current)],
        }
    }

    /// Registers `run` once per runtime as `<name>/<runtime>` at size `n`.
    pub fn bench<F, Fut>(
        &self,
        group: &mut BenchmarkGroup<'_, WallTime>,
        name: &str,
        n: usize,
        run: F,
    ) where
        F: Fn() -> Fut,
        Fut: Future<Output = Result>,
    {
        for (runtime, rt) in &self.runtimes {
            rt.block_on(run())
                .unwrap_or_else(|e| panic!("{name} on {runtime} at {n}: {e}"));
            group.throughput(Throughput::Elements(n as u64));
            group.bench_function(BenchmarkId::new(format!("{name}/{runtime}"), n), |b| {
                b.to_async(rt)
                    .iter(|| async { run().await.expect("checked run") });
            });
        }
    }
}

/// Registers a run that manages its own threads (or none) as `<name>/<how>` at size `n`.
pub fn bench_sync(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    how: &str,
    n: usize,
    run: impl Fn() -> Result,
) {
    run().unwrap_or_else(|e| panic!("{name} at {n}: {e}"));
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(BenchmarkId::new(format!("{name}/{how}"), n), |b| {
        b.iter(|| run().expect("checked run"));
    });
}
