//! Criterion benchmarks of the k-MC checker.

use criterion::{criterion_group, criterion_main, Criterion};
use mpst_fsm::{check_kmc, LocalType, Message};

fn ping_pong(c: &mut Criterion) {
    let a = LocalType::send("b", Message::new("ping"), LocalType::End)
        .to_fsm("a")
        .expect("valid type");
    let b = LocalType::receive("a", Message::new("ping"), LocalType::End)
        .to_fsm("b")
        .expect("valid type");
    let system = [a, b];
    c.bench_function("kmc/ping", |bench| {
        bench.iter(|| check_kmc(&system, 1).expect("well-formed").is_kmc())
    });
}

criterion_group!(benches, ping_pong);
criterion_main!(benches);
