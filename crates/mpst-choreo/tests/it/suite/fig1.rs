//! Figure 1: concurrent producers, `mpst_choreo_paper`'s definition. p1 and p2 send to
//! q, which computes on each value as it arrives and answers each producer.

use std::sync::Arc;

use mpst_choreo::{EndpointConfig, RoleName, RoleSet, Transport};
use mpst_choreo_paper::producers::{self, ConcurrentProducers, Params};

use super::{Outcome, all_ok, at, expect, outcome, runner};

pub fn roles() -> Vec<RoleName> {
    producers::Roles::names()
}

pub async fn check(transport: Arc<dyn Transport>, config: EndpointConfig, seed: u64) -> Outcome {
    let params = Params {
        items: (seed, seed + 1_000_000),
        costs: producers::Costs::default(),
    };
    let out = runner(transport, config)
        .run(ConcurrentProducers(params))
        .await;
    outcome((|| {
        all_ok(&out)?;
        let (a, b) = producers::expected(&params);
        expect("p1", at(&out, "P1")?.0.clone().into_local(), a)?;
        expect("p2", at(&out, "P2")?.1.clone().into_local(), b)
    })())
}
