//! `-- --impaired`: runs the plan on beds, then merges `impaired_links` into
//! `DIR/results.json` and writes the details (the caller re-renders the report).

use std::path::Path;
use std::time::Instant;

use super::{Plan, report};
use crate::report::Machine;

/// Why the impaired run did not produce results.
#[derive(Debug)]
pub enum Failed {
    /// This machine cannot host a bed (not root, no `ip`): the test bed's reason.
    Unavailable(String),
    /// Anything else.
    Other(String),
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failed::Unavailable(why) => write!(
                f,
                "--impaired needs root and iproute2 (it makes a network namespace per \
                 role): {why}"
            ),
            Failed::Other(why) => f.write_str(why),
        }
    }
}

/// Runs `plan` and merges its `impaired_links` into `dir/results.json`; `command` is
/// noted beside the numbers with the load average.
pub fn run(dir: &Path, plan: &Plan, command: &str) -> Result<(), Failed> {
    let before = Machine::now().load_average;
    let started = Instant::now();
    let outcome = super::run(plan).map_err(|e| match e {
        mpst_testbed::Error::Unavailable(_) => Failed::Unavailable(e.to_string()),
        e => Failed::Other(format!("the test bed: {e}")),
    })?;
    let details = report::Details {
        command: command.to_string(),
        wall_seconds: started.elapsed().as_secs_f64(),
        load_before: before,
        load_after: Machine::now().load_average,
        plan: serde_json::to_value(plan).map_err(|e| Failed::Other(e.to_string()))?,
        plan_text: plan.describe(),
        jitter: plan.jitter,
        send_cost_medians_ms: plan.send_cost_medians(),
        runs: outcome.runs,
        comparisons: outcome.comparisons,
    };
    report::merge(dir, &outcome.links, &details)
        .map_err(|e| Failed::Other(format!("writing {}: {e}", dir.display())))
}
