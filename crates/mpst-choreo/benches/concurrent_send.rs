//! The concurrent-send choreography (the paper's Figure 2) on the in-memory transport,
//! one session at a time at four endpoints driven by one current-thread runtime: the
//! blocking form (`comm`: `s` takes `key`, then `txt`, then forwards both) beside the
//! out-of-order form (`fcomm`: each value forwarded on arrival). The time per session is
//! the library's own cost of the path `ks` → `s` → `c` (no simulated work), the overhead
//! that the evaluation's `key` latency adds to its 0–5 ms costs.
//! `cargo bench -p mpst-choreo --bench concurrent_send`.

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use mpst_choreo::transport::InMemory;
use mpst_choreo::{Choreography, Endpoint, Op, Result, RoleName, RoleSet, roles};

roles! {
    /// The key service.
    pub struct KS;
    /// The content service.
    pub struct CS;
    /// The server.
    pub struct S;
    /// The client.
    pub struct C;
}

type Four = RoleSet![KS, CS, S, C];

/// One session; `out_of_order` chooses `fcomm` over `comm`. Returns `key + txt` at `c`.
struct ConcurrentSend {
    out_of_order: bool,
}

impl Choreography<u64> for ConcurrentSend {
    type Roles = Four;

    async fn run(self, op: &Op<Four>) -> Result<u64> {
        let key = op.locally(KS, |_| 3u64);
        let txt = op.locally(CS, |_| 4u64);
        let both = if self.out_of_order {
            let key = op.fcomm(S, C, op.fcomm(KS, S, &key));
            let txt = op.fcomm(S, C, op.fcomm(CS, S, &txt));
            op.wait(C, op.join(C, key, txt)).await?
        } else {
            let key = op.comm(KS, S, &key).await?;
            let txt = op.comm(CS, S, &txt).await?;
            let key = op.comm(S, C, &key).await?;
            let txt = op.comm(S, C, &txt).await?;
            op.locally(C, |u| (*u.unwrap(&key), *u.unwrap(&txt)))
        };
        Ok(both.into_local().map_or(0, |(k, t)| k + t))
    }
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let endpoints: Vec<Endpoint> = rt.block_on(async {
        let net = Arc::new(InMemory::new(Four::names()));
        Four::names()
            .into_iter()
            .map(|r: RoleName| Endpoint::new(net.clone(), r).expect("in a runtime"))
            .collect()
    });
    let mut group = c.benchmark_group("concurrent_send_session");
    for (name, out_of_order) in [("in_order_comm", false), ("out_of_order_fcomm", true)] {
        group.bench_function(name, |b| {
            b.to_async(&rt).iter(|| async {
                let runs = endpoints
                    .iter()
                    .map(|e| e.run(ConcurrentSend { out_of_order }));
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
