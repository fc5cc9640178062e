//! Figure 2 (and 15): concurrent send, `mpst_choreo_paper`'s definition. ks and cs send
//! key and txt to s, which forwards both to c in whichever order they arrive; both are
//! Strings, so only keys tell them apart.

use std::sync::Arc;

use mpst_choreo::{EndpointConfig, RoleName, RoleSet, Transport};
use mpst_choreo_paper::concurrent_send::{self, ConcurrentSend};

use super::{Outcome, all_ok, at, expect, outcome, runner};

pub fn roles() -> Vec<RoleName> {
    concurrent_send::Roles::names()
}

pub async fn check(transport: Arc<dyn Transport>, config: EndpointConfig, seed: u64) -> Outcome {
    let choreo = ConcurrentSend {
        client: seed,
        costs: concurrent_send::Costs::default(),
    };
    let out = runner(transport, config).run(choreo).await;
    outcome((|| {
        all_ok(&out)?;
        let want = concurrent_send::expected(seed);
        expect("c", at(&out, "C")?.clone().into_local(), want)
    })())
}
