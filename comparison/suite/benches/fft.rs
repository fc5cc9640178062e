//! FFT (§4.1): 8-point transforms of the `n` rows of an `n × 8` matrix by 8 roles, every
//! implementation, both runtimes; rustfft as the sequential reference.

mod common;

use std::sync::Arc;

use comparison::fft::{
    Problem, bare, ferrite, mpstthree, ours, ours_spsc, rumpsteak, rustfft, sesh,
};

/// Row counts from the paper's range (1 000 to 5 000).
const SIZES: [usize; 3] = [1_000, 3_000, 5_000];

fn main() {
    let mut criterion = common::criterion();
    let runtimes = common::Runtimes::new();
    let mut group = criterion.benchmark_group("fft");
    for n in SIZES {
        let problem = Arc::new(Problem::new(n));
        runtimes.bench(&mut group, "ours", n, || ours::run(problem.clone(), false));
        runtimes.bench(&mut group, "ours-spsc", n, || {
            ours_spsc::run(problem.clone(), false)
        });
        runtimes.bench(&mut group, "ours-optimised", n, || {
            ours::run(problem.clone(), true)
        });
        runtimes.bench(&mut group, "bare", n, || bare::run(problem.clone(), false));
        runtimes.bench(&mut group, "bare-optimised", n, || {
            bare::run(problem.clone(), true)
        });
        runtimes.bench(&mut group, "rumpsteak", n, || {
            rumpsteak::run(problem.clone())
        });
        runtimes.bench(&mut group, "ferrite", n, || ferrite::run(&problem));
        common::bench_sync(&mut group, "sesh", "threads", n, || sesh::run(&problem));
        common::bench_sync(&mut group, "mpstthree", "threads", n, || {
            mpstthree::run(&problem)
        });
        common::bench_sync(&mut group, "rustfft", "sequential", n, || {
            rustfft::run(&problem)
        });
    }
    group.finish();
    criterion.final_summary();
}
