//! What a connection's set-up costs on loopback: dial, (TLS,) hello, accept, confirm,
//! established — insecure plaintext beside mutual TLS in one run, so the two compare as a
//! ratio.
//! `cargo bench -p mpst-wire --bench handshake`.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use mpst_wire::certs::Deployment;
use mpst_wire::{Expected, Node, WireConfig};

fn setup(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let pki = Deployment::generate("bench/1", ["A", "B"]).expect("identities");
    let mut group = c.benchmark_group("connection set-up");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(5));
    for tls in [false, true] {
        let secure = |config: WireConfig, role: &str| {
            if tls {
                config.mutual_tls(pki.identity(role))
            } else {
                config.insecure_plaintext()
            }
        };
        let (a, mut acceptor) = runtime.block_on(async {
            let b = Node::new(secure(
                WireConfig::new("bench/1", "B").listen("127.0.0.1:0"),
                "B",
            ))
            .expect("B");
            let acceptor = b
                .bind(Expected::new().peer("A", u32::MAX))
                .await
                .expect("bind");
            let at = acceptor.local_addr().to_string();
            let a =
                Node::new(secure(WireConfig::new("bench/1", "A").peer("B", at), "A")).expect("A");
            (a, acceptor)
        });
        let name = if tls {
            "mutual TLS"
        } else {
            "insecure plaintext"
        };
        group.bench_function(name, |bencher| {
            bencher.iter(|| {
                runtime.block_on(async {
                    let (dialled, accepted) = tokio::join!(a.dial("B"), acceptor.next());
                    (dialled.expect("dialled"), accepted.expect("accepted"))
                })
            });
        });
    }
    group.finish();
}

criterion_group!(benches, setup);
criterion_main!(benches);
