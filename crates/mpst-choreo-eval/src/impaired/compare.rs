//! The impaired runs summed up: `impaired_links` (each cell's key median over every
//! round's sessions, its saturation over the offered loads) and the key's comparisons
//! between implementations with their bootstrap intervals.

use super::{Cell, Comparison, HOPS, Links, Measured, SEND, SERVING, stats};
use crate::drive::Implementation;

/// The latencies of `key` of `imp`'s `benchmark` runs at `delay_ms`, round after round:
/// its A/A control runs when `control`, its other runs otherwise.
fn pooled(
    runs: &[Measured],
    (delay_ms, benchmark): (u64, &str),
    imp: Implementation,
    control: bool,
) -> Vec<f64> {
    let mut chosen: Vec<&Measured> = runs
        .iter()
        .filter(|m| m.delay_ms == delay_ms && m.benchmark == benchmark)
        .filter(|m| m.implementation == imp && m.control == control)
        .collect();
    chosen.sort_by_key(|m| m.round);
    chosen
        .iter()
        .flat_map(|m| m.key_ms.iter().copied())
        .collect()
}

/// The key's [`Comparison`]s of `runs`, by delay and benchmark ([`SEND`], [`HOPS`]).
pub fn compare(runs: &[Measured], seed: u64) -> Vec<Comparison> {
    let mut keys: Vec<(u64, &str)> = runs
        .iter()
        .filter(|m| m.benchmark == SEND || m.benchmark == HOPS)
        .map(|m| (m.delay_ms, m.benchmark.as_str()))
        .collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|(delay_ms, benchmark)| {
            let of = |imp| pooled(runs, (delay_ms, benchmark), imp, false);
            let (o, a, i) = (
                of(Implementation::OutOfOrder),
                of(Implementation::Actors),
                of(Implementation::InOrder),
            );
            let control = pooled(runs, (delay_ms, benchmark), Implementation::Actors, true);
            let same = o.len() == a.len() && o.len() == i.len() && !o.is_empty();
            // The control counts only when it ran the same sessions as the others.
            let actors_over_actors =
                (control.len() == a.len()).then(|| stats::ratio(&a, &control, seed));
            same.then(|| Comparison {
                delay_ms,
                benchmark: benchmark.to_string(),
                sessions: o.len(),
                out_of_order_over_actors: stats::ratio(&o, &a, seed),
                out_of_order_minus_actors_ms: stats::difference(&o, &a, seed),
                in_order_minus_out_of_order_ms: stats::difference(&i, &o, seed),
                actors_over_actors,
            })
        })
        .collect()
}

/// The `impaired_links` object of `runs`: the key median over every round's sessions
/// (the last run's own median when the runs kept no latencies, as when read back).
pub fn summarise(runs: &[Measured]) -> Links {
    let mut links = Links::new();
    for m in runs.iter().filter(|m| !m.control) {
        let cell = links
            .entry(m.delay_ms.to_string())
            .or_default()
            .entry(m.implementation.name().to_string())
            .or_insert(Cell {
                key_median_ms: 0.0,
                saturation_rps: 0.0,
            });
        if m.benchmark == SEND {
            let mut all = pooled(runs, (m.delay_ms, SEND), m.implementation, false);
            cell.key_median_ms = if all.is_empty() {
                m.summary.median_ms
            } else {
                stats::median(&mut all)
            };
        } else if m.benchmark == SERVING {
            cell.saturation_rps = cell.saturation_rps.max(m.summary.throughput_rps);
        }
    }
    links
}
