//! The paper's concurrent-send choreography (Figure 2, `mpst_choreo_paper`'s one
//! definition, with services that compute nothing) on the in-memory transport,
//! one session at a time at four endpoints driven by one current-thread runtime: the
//! blocking form (`comm`: `s` takes `key`, then `txt`, then forwards both) beside the
//! out-of-order form (`fcomm`: each value forwarded on arrival). The time per session is
//! the library's own cost of the path `ks` → `s` → `c` (no simulated work), the overhead
//! that the evaluation's `key` latency adds to its 0–5 ms costs.
//! `cargo bench -p mpst-choreo --bench concurrent_send`.

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use mpst_choreo::transport::InMemory;
use mpst_choreo::{Choreography, Endpoint, RoleName, RoleSet};
use mpst_choreo_paper::concurrent_send::{C, Roles, Send2, Services};

/// Services that compute nothing: `ks` sends 3, `cs` sends 4, at once.
#[derive(Clone, Copy)]
struct Numbers;

impl Services for Numbers {
    type Key = u64;
    type Txt = u64;

    async fn key(&self) -> u64 {
        3
    }

    async fn txt(&self) -> u64 {
        4
    }
}

/// One session of the paper's concurrent send; `out_of_order` chooses `fcomm` over
/// `comm`. Returns `key + txt` at `c`, 0 elsewhere.
fn session(out_of_order: bool) -> impl Choreography<u64, Roles = Roles> {
    Sum(Send2 {
        services: Numbers,
        role: C,
        in_order: !out_of_order,
    })
}

/// The sum of what `c` holds after the session.
struct Sum(Send2<Numbers, C>);

impl Choreography<u64> for Sum {
    type Roles = Roles;

    async fn run(self, op: &mpst_choreo::Op<Roles>) -> mpst_choreo::Result<u64> {
        let both = self.0.run(op).await?;
        Ok(both.into_local().map_or(0, |(k, t)| k + t))
    }
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let endpoints: Vec<Endpoint> = rt.block_on(async {
        let net = Arc::new(InMemory::new(Roles::names()));
        Roles::names()
            .into_iter()
            .map(|r: RoleName| Endpoint::new(net.clone(), r).expect("in a runtime"))
            .collect()
    });
    let mut group = c.benchmark_group("concurrent_send_session");
    for (name, out_of_order) in [("in_order_comm", false), ("out_of_order_fcomm", true)] {
        group.bench_function(name, |b| {
            b.to_async(&rt).iter(|| async {
                let runs = endpoints.iter().map(|e| e.run(session(out_of_order)));
                let outs = futures::future::join_all(runs).await;
                let sum: u64 = outs.into_iter().map(|o| o.expect("session ran")).sum();
                assert_eq!(sum, 7, "c received both values");
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
