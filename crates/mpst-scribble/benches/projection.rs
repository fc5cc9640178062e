//! Projection cost on generated protocols (`mpst_scribble::gen`): one role and every
//! role, as the number of messages grows at fixed roles and as the roles grow.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mpst_scribble::generated::{message_count, sized};
use mpst_scribble::{check, project_fsm};

fn by_messages(c: &mut Criterion) {
    let mut group = c.benchmark_group("project_one_role_by_messages");
    for messages in [250, 500, 1000, 2000, 4000, 8000] {
        let p = sized(4, messages);
        let m = message_count(&p.body) as u64;
        group.throughput(Throughput::Elements(m));
        group.bench_with_input(BenchmarkId::from_parameter(m), &p, |b, p| {
            b.iter(|| project_fsm(p, "R2").expect("projects"))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("check_all_roles_by_messages");
    for messages in [250, 500, 1000, 2000, 4000, 8000] {
        let p = sized(4, messages);
        let m = message_count(&p.body) as u64;
        group.throughput(Throughput::Elements(m));
        group.bench_with_input(BenchmarkId::from_parameter(m), &p, |b, p| {
            b.iter(|| assert!(check(p).is_empty()))
        });
    }
    group.finish();
}

fn by_roles(c: &mut Criterion) {
    let mut group = c.benchmark_group("project_one_role_by_roles_2000_messages");
    for roles in [2, 4, 8, 16, 32] {
        let p = sized(roles, 2000);
        group.throughput(Throughput::Elements(message_count(&p.body) as u64));
        group.bench_with_input(BenchmarkId::from_parameter(roles), &p, |b, p| {
            b.iter(|| project_fsm(p, "R1").expect("projects"))
        });
    }
    group.finish();
}

criterion_group!(benches, by_messages, by_roles);
criterion_main!(benches);
