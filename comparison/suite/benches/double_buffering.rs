//! Double buffering (§4.1): two buffers of `n` elements through the kernel, every
//! implementation, both runtimes.

mod common;

use comparison::double_buffering::{bare, ferrite, mpstthree, ours, ours_spsc, rumpsteak, sesh};

/// Buffer sizes from the paper's range (5 000 to 25 000).
const SIZES: [usize; 3] = [5_000, 15_000, 25_000];

fn main() {
    let mut criterion = common::criterion();
    let runtimes = common::Runtimes::new();
    let mut group = criterion.benchmark_group("double_buffering");
    for n in SIZES {
        runtimes.bench(&mut group, "ours", n, || ours::run(n, false));
        runtimes.bench(&mut group, "ours-optimised", n, || ours::run(n, true));
        runtimes.bench(&mut group, "ours-spsc", n, || ours_spsc::run(n, false));
        runtimes.bench(&mut group, "bare", n, || bare::run(n, false));
        runtimes.bench(&mut group, "bare-optimised", n, || bare::run(n, true));
        runtimes.bench(&mut group, "rumpsteak", n, || rumpsteak::run(n, false));
        runtimes.bench(&mut group, "rumpsteak-optimised", n, || {
            rumpsteak::run(n, true)
        });
        runtimes.bench(&mut group, "ferrite", n, || ferrite::run(n));
        common::bench_sync(&mut group, "sesh", "threads", n, || sesh::run(n));
        common::bench_sync(&mut group, "mpstthree", "threads", n, || mpstthree::run(n));
    }
    group.finish();
    criterion.final_summary();
}
