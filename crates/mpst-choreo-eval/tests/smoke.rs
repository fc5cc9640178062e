//! Smoke tests: each benchmark, each implementation, at one small rate for a fraction of
//! a second; every request is answered and the statistics are well formed. No timing is
//! asserted (the machine is shared); the full evaluation is `cargo run --release`.

use mpst_choreo_eval::drive::Implementation;
use mpst_choreo_eval::load::{Spec, Summary};
use mpst_choreo_eval::producers;

fn spec(rate: f64) -> Spec {
    Spec {
        rate,
        duration: 0.25,
        warmup: 0.0,
        drain: 5.0,
        seed: 7,
    }
}

fn well_formed(s: &Summary, requests: u64) {
    assert_eq!(s.requests, requests);
    assert_eq!(s.answered, requests, "every request answered: {s:?}");
    assert!(s.median_ms > 0.0 && s.median_ms <= s.p99_ms, "{s:?}");
    assert!(s.throughput_rps > 0.0, "{s:?}");
    assert_eq!(s.buckets.iter().map(|b| b.1).sum::<u64>(), requests);
}

#[test]
fn producers_answer_every_request() {
    for imp in Implementation::ALL {
        let spec = spec(40.0);
        let (summary, failures) = producers::run(imp, &spec);
        assert_eq!(failures, 0, "{imp:?}");
        well_formed(&summary, 2 * spec.requests());
    }
}
