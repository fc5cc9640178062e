//! One concurrent send run on the impaired bed: the hosts placed, the links' jitter
//! drawn per slot from the run's start, the key's latency of every measured session
//! and the relay's chunks between `s` and `c` counted.

use std::time::Duration;

use mpst_choreo::RoleName;
use mpst_testbed::TestBed;

use super::hosts::{self, Placement};
use super::{Plan, delay_and_jitter, measured_from};
use crate::drive::Implementation;
use crate::load::{Spec, Summary};
use crate::send;

/// What one concurrent send run gives ([`Measured`]'s fields of the same names).
pub(super) struct SendRun {
    pub(super) summary: Summary,
    pub(super) key_ms: Vec<f64>,
    pub(super) failures: u64,
    pub(super) chunks: (u64, u64),
}

/// One concurrent send run on `bed`: `costs` per request, the latencies of `key` kept.
pub(super) fn send_run(
    bed: &TestBed,
    roles: &[RoleName],
    plan: &Plan,
    delay_ms: u64,
    (imp, spec, costs): (Implementation, Spec, send::Costs),
) -> mpst_testbed::Result<SendRun> {
    let link = bed.link(&hosts::host_of("S"), &hosts::host_of("C"));
    let before = link.stats();
    let placed = Placement::new(bed, roles, plan.threads)?;
    if plan.jitter_slot_ms > 0.0 {
        let (delay, jitter) = delay_and_jitter(plan, delay_ms);
        let slots = mpst_testbed::Slots {
            epoch: placed.start().into_std(),
            slot: Duration::from_secs_f64(plan.jitter_slot_ms / 1e3),
            seed: plan.seed,
        };
        hosts::set_delay(bed, roles, delay, jitter, Some(slots));
    }
    let placed = placed.install();
    let run = send::run_recorded(imp, &spec, costs);
    drop(placed);
    let key = run.recorder.summary(&["key"], &spec, run.end);
    let ms = (measured_from(&spec) as u64..spec.requests())
        .map(|i| {
            let latency = run.recorder.latency("key", i);
            latency.map_or(f64::INFINITY, |l| l.as_secs_f64() * 1e3)
        })
        .collect();
    let after = link.stats();
    let chunks = (
        after.outbound.chunks - before.outbound.chunks,
        after.inbound.chunks - before.inbound.chunks,
    );
    Ok(SendRun {
        summary: key,
        key_ms: ms,
        failures: run.failures,
        chunks,
    })
}
