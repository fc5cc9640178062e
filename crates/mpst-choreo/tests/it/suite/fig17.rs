//! Figure 17, `mpst_choreo_paper`'s definition: ConcurrentClients invokes the procedure
//! ConcurrentSend2(ks, cs, s, c) for two clients concurrently (tokens next(0) and
//! next(1) of the paper are the two call sites here). Keys and contents for both clients
//! travel on the same role pairs.

use std::sync::Arc;

use mpst_choreo::{EndpointConfig, RoleName, RoleSet, Transport};
use mpst_choreo_paper::clients::{self, ConcurrentClients, Params};

use super::{Outcome, all_ok, at, expect, outcome, runner};

pub fn roles() -> Vec<RoleName> {
    clients::Roles::names()
}

pub async fn check(transport: Arc<dyn Transport>, config: EndpointConfig, seed: u64) -> Outcome {
    let params = Params {
        clients: (2 * seed, 2 * seed + 1),
        costs: clients::Costs::default(),
    };
    let out = runner(transport, config)
        .run(ConcurrentClients(params))
        .await;
    outcome((|| {
        all_ok(&out)?;
        let (c1, c2) = clients::expected(&params);
        expect("c1", at(&out, "C1")?.0.clone().into_local(), c1)?;
        expect("c2", at(&out, "C2")?.1.clone().into_local(), c2)
    })())
}
