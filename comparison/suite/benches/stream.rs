//! Stream (§4.1): `n` values from source to sink, every implementation, both runtimes.

mod common;

use comparison::stream::{bare, ferrite, mpstthree, ours, ours_spsc, rumpsteak, sesh};

/// The paper's range of stream lengths (10 to 50).
const SIZES: [usize; 3] = [10, 30, 50];

fn main() {
    let mut criterion = common::criterion();
    let runtimes = common::Runtimes::new();
    let mut group = criterion.benchmark_group("stream");
    for n in SIZES {
        runtimes.bench(&mut group, "ours", n, || ours::run(n, false));
        runtimes.bench(&mut group, "ours-optimised", n, || ours::run(n, true));
        runtimes.bench(&mut group, "ours-spsc", n, || ours_spsc::run(n, false));
        runtimes.bench(&mut group, "ours-spsc-optimised", n, || {
            ours_spsc::run(n, true)
        });
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
