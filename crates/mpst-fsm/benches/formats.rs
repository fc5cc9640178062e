//! Criterion benchmarks of the FSM formats: DOT writing and reading on machines of
//! growing size (a ring of states, each with a send and a receive choice).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mpst_fsm::format::{parse_dot, write_dot, write_petrify};
use mpst_fsm::{Action, Fsm, Message, Payload};

/// `n` states in a ring; state `i` sends `next(x: i32)` to the following state and
/// receives `back(String)` to the one before.
fn ring(n: usize) -> Fsm {
    let mut fsm = Fsm::new("k");
    for _ in 1..n {
        fsm.add_state();
    }
    for i in 0..n {
        let next = Message::with_payloads("next", vec![Payload::named("x", "i32")]);
        let back = Message::with_payloads("back", vec![Payload::new("String")]);
        fsm.add_transition(i, Action::send("s", next), (i + 1) % n)
            .expect("fresh label");
        fsm.add_transition(i, Action::receive("t", back), (i + n - 1) % n)
            .expect("fresh label");
    }
    fsm
}

fn dot(c: &mut Criterion) {
    let mut group = c.benchmark_group("dot");
    for n in [100, 1_000, 10_000] {
        let fsm = ring(n);
        let text = write_dot(&fsm);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("write", n), &fsm, |b, fsm| {
            b.iter(|| write_dot(fsm))
        });
        group.bench_with_input(BenchmarkId::new("parse", n), &text, |b, text| {
            b.iter(|| parse_dot(text).expect("own output parses"))
        });
        group.bench_with_input(BenchmarkId::new("petrify", n), &fsm, |b, fsm| {
            b.iter(|| write_petrify(std::slice::from_ref(fsm)))
        });
    }
    group.finish();
}

criterion_group!(benches, dot);
criterion_main!(benches);
