//! Turns measurements into the report's tables: throughput per (implementation, runtime,
//! size), and the ratios ours/bare and ours/peer with the goal check.

use crate::catalogue::{self, Variant};
use crate::results::Measurement;

/// Runtime names in display order.
pub const RUNTIMES: [&str; 4] = ["multi-thread", "current-thread", "threads", "sequential"];

/// Measurements of one protocol.
pub struct Protocol<'a> {
    /// The protocol's measurements.
    pub measurements: Vec<&'a Measurement>,
}

/// A row of ratios: a label and one ratio per size (`None` where a side is missing).
pub struct RatioRow {
    /// What is compared, e.g. `ours / bare (multi-thread)`.
    pub label: String,
    /// The ratio of throughputs per size, in the order of [`Protocol::sizes`].
    pub ratios: Vec<Option<f64>>,
    /// The lowest ratio that still meets the goal (1.0 against peers, 0.9 against bare).
    pub goal: f64,
}

impl<'a> Protocol<'a> {
    /// The measurements of protocol `id`.
    pub fn new(all: &'a [Measurement], id: &str) -> Self {
        Self {
            measurements: all.iter().filter(|m| m.group == id).collect(),
        }
    }

    /// The sizes measured, ascending.
    pub fn sizes(&self) -> Vec<usize> {
        let mut sizes: Vec<usize> = self.measurements.iter().map(|m| m.size).collect();
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    /// The (implementation, runtime) pairs measured, in catalogue and runtime order;
    /// implementations the catalogue does not know come last.
    pub fn rows(&self) -> Vec<(String, String)> {
        let rank = |m: &Measurement| {
            let implementation = catalogue::IMPLEMENTATIONS
                .iter()
                .position(|i| i.id == m.implementation);
            let runtime = RUNTIMES.iter().position(|r| *r == m.runtime);
            (
                implementation.unwrap_or(usize::MAX),
                runtime.unwrap_or(usize::MAX),
            )
        };
        let mut rows: Vec<(_, String, String)> = self
            .measurements
            .iter()
            .map(|m| (rank(m), m.implementation.clone(), m.runtime.clone()))
            .collect();
        rows.sort();
        rows.dedup();
        rows.into_iter().map(|(_, i, r)| (i, r)).collect()
    }

    /// The measurement of `implementation` on `runtime` at `size`.
    pub fn get(&self, implementation: &str, runtime: &str, size: usize) -> Option<&'a Measurement> {
        self.measurements
            .iter()
            .copied()
            .find(|m| m.implementation == implementation && m.runtime == runtime && m.size == size)
    }

    fn ratio_row(
        &self,
        label: String,
        ours: (&str, &str),
        other: (&str, &str),
        goal: f64,
    ) -> Option<RatioRow> {
        let ratios: Vec<Option<f64>> = self
            .sizes()
            .into_iter()
            .map(|n| {
                Some(
                    self.get(ours.0, ours.1, n)?.throughput()
                        / self.get(other.0, other.1, n)?.throughput(),
                )
            })
            .collect();
        ratios.iter().any(Option::is_some).then_some(RatioRow {
            label,
            ratios,
            goal,
        })
    }

    /// ours / bare, same message order and runtime (goal: at least 0.9).
    pub fn versus_bare(&self) -> Vec<RatioRow> {
        let mut rows = Vec::new();
        for runtime in ["multi-thread", "current-thread"] {
            for (ours, bare) in [("ours", "bare"), ("ours-optimised", "bare-optimised")] {
                let label = format!("{ours} / {bare} ({runtime})");
                rows.extend(self.ratio_row(label, (ours, runtime), (bare, runtime), 0.9));
            }
        }
        rows
    }

    /// ours / each peer, same message order; same runtime for async peers, each of our
    /// runtimes against thread-based or sequential peers (goal: at least 1.0).
    pub fn versus_peers(&self) -> Vec<RatioRow> {
        let mut rows = Vec::new();
        let peers = catalogue::IMPLEMENTATIONS
            .iter()
            .filter(|i| !i.id.starts_with("ours") && !i.id.starts_with("bare"));
        for peer in peers {
            let ours = if peer.variant == Variant::Optimised {
                "ours-optimised"
            } else {
                "ours"
            };
            for ours_runtime in ["multi-thread", "current-thread"] {
                for peer_runtime in RUNTIMES {
                    let same = peer_runtime == ours_runtime;
                    let unmanaged = peer_runtime == "threads" || peer_runtime == "sequential";
                    if !(same || unmanaged) {
                        continue;
                    }
                    let label = if same {
                        format!("{ours} / {} ({ours_runtime})", peer.id)
                    } else {
                        format!("{ours} ({ours_runtime}) / {} ({peer_runtime})", peer.id)
                    };
                    rows.extend(self.ratio_row(
                        label,
                        (ours, ours_runtime),
                        (peer.id, peer_runtime),
                        1.0,
                    ));
                }
            }
        }
        rows
    }
}

/// Where a ratio row misses its goal: `(label, size, ratio)`.
pub fn misses<'r>(rows: &'r [RatioRow], sizes: &[usize]) -> Vec<(&'r str, usize, f64)> {
    rows.iter()
        .flat_map(|row| {
            row.ratios.iter().zip(sizes).filter_map(move |(r, &n)| {
                r.filter(|&r| r < row.goal)
                    .map(|r| (row.label.as_str(), n, r))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(implementation: &str, runtime: &str, size: usize, median_ns: f64) -> Measurement {
        Measurement {
            group: "stream".into(),
            implementation: implementation.into(),
            runtime: runtime.into(),
            size,
            median_ns,
            median_ci_ns: (median_ns, median_ns),
            best_ns: median_ns,
        }
    }

    #[test]
    fn ratios_compare_like_with_like_and_flag_misses() {
        let all = vec![
            m("ours", "multi-thread", 10, 100.0),
            m("bare", "multi-thread", 10, 80.0),
            m("sesh", "threads", 10, 1000.0),
            m("rumpsteak", "multi-thread", 10, 90.0),
            m("rumpsteak", "current-thread", 10, 50.0),
        ];
        let protocol = Protocol::new(&all, "stream");
        assert_eq!(protocol.sizes(), vec![10]);
        let bare = protocol.versus_bare();
        assert_eq!(bare.len(), 1, "only the pair measured on both sides");
        assert!((bare[0].ratios[0].unwrap() - 0.8).abs() < 1e-9);
        let peers = protocol.versus_peers();
        let labels: Vec<&str> = peers.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "ours / rumpsteak (multi-thread)",
                "ours (multi-thread) / sesh (threads)"
            ]
        );
        let missed = misses(&peers, &protocol.sizes());
        assert_eq!(missed.len(), 1);
        assert_eq!(missed[0].0, "ours / rumpsteak (multi-thread)");
        assert_eq!(misses(&bare, &protocol.sizes()).len(), 1, "0.8 < 0.9");
    }

    #[test]
    fn rows_follow_the_catalogue() {
        let all = vec![
            m("sesh", "threads", 1, 1.0),
            m("ours", "current-thread", 1, 1.0),
            m("ours", "multi-thread", 1, 1.0),
        ];
        let rows = Protocol::new(&all, "stream").rows();
        let rows: Vec<(&str, &str)> = rows.iter().map(|(i, r)| (i.as_str(), r.as_str())).collect();
        assert_eq!(
            rows,
            [
                ("ours", "multi-thread"),
                ("ours", "current-thread"),
                ("sesh", "threads")
            ]
        );
    }
}
