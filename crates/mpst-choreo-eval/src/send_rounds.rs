//! Concurrent send in alternating rounds: every implementation runs the benchmark once
//! per round, in an order that rotates each round (so none always runs first on a quiet
//! machine or right after the same neighbour); the statistics of `key` and `txt` pool
//! every round's sessions, and out of order's `key` median is compared with the actors'
//! session by session (a session has the same seeded costs in every implementation and
//! round), with a seeded bootstrap 95 % interval: one run's median moves by a few
//! hundredths of a millisecond from run to run, as much as the two differ.

use crate::drive::Implementation;
use crate::experiments::Point;
use crate::impaired::stats::{self, Interval};
use crate::load::{Spec, summary_of_runs};
use crate::open_loop::Finished;
use crate::send;

/// What the rounds measured.
#[derive(Debug)]
pub struct Rounds {
    /// `key` of each implementation (in [`Implementation::ALL`]'s order), every round's
    /// sessions pooled.
    pub key: Vec<Point>,
    /// `txt`, likewise.
    pub txt: Vec<Point>,
    /// Out of order's `key` median minus the actors', paired by session over the rounds
    /// (ms).
    pub out_of_order_minus_actors_key_ms: Interval,
}

/// The order of the implementations in round `r`: [`Implementation::ALL`] rotated by `r`.
pub fn order(r: usize) -> Vec<Implementation> {
    let mut all = Implementation::ALL.to_vec();
    let by = r % all.len();
    all.rotate_left(by);
    all
}

/// Runs `rounds` rounds (at least one) of concurrent send at `spec`, reporting each run
/// to `progress`; the bootstrap is seeded with `spec.seed`.
pub fn run(spec: &Spec, rounds: usize, progress: impl Fn(&str, Implementation, &Point)) -> Rounds {
    let mut runs: Vec<(Implementation, Finished)> = Vec::new();
    let costs = send::Costs::uniform(spec.seed, spec.requests());
    for r in 0..rounds.max(1) {
        for imp in order(r) {
            let finished = send::run_recorded(imp, spec, costs.clone());
            let point = |names: &[&str]| Point {
                implementation: imp,
                summary: finished.recorder.summary(names, spec, finished.end),
                failures: finished.failures,
                model_use: None,
            };
            progress("concurrent send: key", imp, &point(&["key"]));
            progress("concurrent send: txt", imp, &point(&["txt"]));
            runs.push((imp, finished));
        }
    }
    let pooled = |imp: Implementation, names: &[&str]| {
        let of = || runs.iter().filter(move |(i, _)| *i == imp).map(|(_, f)| f);
        Point {
            implementation: imp,
            summary: summary_of_runs(of().map(|f| (&f.recorder, f.end)), names, spec),
            failures: of().map(|f| f.failures).sum(),
            model_use: None,
        }
    };
    let key = Implementation::ALL
        .map(|imp| pooled(imp, &["key"]))
        .to_vec();
    let txt = Implementation::ALL
        .map(|imp| pooled(imp, &["txt"]))
        .to_vec();
    let (ooo, actors) = (
        sessions(&runs, Implementation::OutOfOrder, spec),
        sessions(&runs, Implementation::Actors, spec),
    );
    Rounds {
        key,
        txt,
        out_of_order_minus_actors_key_ms: stats::difference(&ooo, &actors, spec.seed),
    }
}

/// `key` of every session due after the warm-up (ms; unanswered: infinity), round by
/// round in the order the rounds ran, so that position `j` is the same session of the
/// same round for every implementation.
fn sessions(runs: &[(Implementation, Finished)], imp: Implementation, spec: &Spec) -> Vec<f64> {
    let first = (spec.warmup * spec.rate).ceil() as u64;
    runs.iter()
        .filter(|(i, _)| *i == imp)
        .flat_map(|(_, f)| {
            (first..spec.requests()).map(|i| {
                f.recorder
                    .latency("key", i)
                    .map_or(f64::INFINITY, |l| l.as_secs_f64() * 1e3)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_round_starts_with_the_next_implementation() {
        assert_eq!(order(0), Implementation::ALL.to_vec());
        assert_eq!(order(1)[0], Implementation::ALL[1]);
        assert_eq!(order(3), order(0));
        for r in 0..3 {
            let mut o = order(r);
            o.sort_by_key(|i| i.name());
            let mut all = Implementation::ALL.to_vec();
            all.sort_by_key(|i| i.name());
            assert_eq!(o, all, "every implementation runs once a round");
        }
    }

    #[test]
    fn rounds_pool_every_session_and_pair_them() {
        let spec = Spec::small(40.0, 0.25);
        let r = run(&spec, 2, |_, _, _| {});
        for p in r.key.iter().chain(&r.txt) {
            assert_eq!(p.failures, 0, "{p:?}");
            assert_eq!(
                p.summary.requests,
                2 * spec.requests(),
                "both rounds: {p:?}"
            );
            assert_eq!(p.summary.answered, 2 * spec.requests(), "{p:?}");
        }
        let d = r.out_of_order_minus_actors_key_ms;
        assert!(
            d.estimate.is_finite() && d.low <= d.estimate && d.estimate <= d.high,
            "{d:?}"
        );
    }
}
