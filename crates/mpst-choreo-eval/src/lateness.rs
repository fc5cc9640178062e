//! The timer-lateness trace of concurrent send: the benchmark itself (seeded 0–5 ms
//! costs, open loop), each implementation, with a [`Probe`] on which `ks` and `cs` note
//! how late each session started (its due time to the service's code running) and how
//! late each work's sleep woke (its deadline to the task running again). From the notes,
//! the `key` latency that costs plus lateness alone would give, beside the measured one:
//! what is left is the hops `ks` → `s` → `c`, which `c` measures itself too: the
//! `key delivery` series is the time from `ks`'s work done to `key`'s arrival at `c`
//! (every hop and task switch between them; in order it includes waiting for `txt`,
//! since `s` forwards `key` after it).

use std::collections::HashMap;
use std::time::Duration;

use serde::Serialize;

use crate::clock::Probe;
use crate::drive::Implementation;
use crate::load::Spec;
use crate::send::{self, Costs};

/// The lateness series, in report order: the four that sum to a session's lateness,
/// then each work's split into the timer's firing and the handoff to the task, then
/// `key`'s delivery from `ks` to `c`.
pub const SERIES: [&str; 9] = [
    "ks start",
    "ks work",
    "cs start",
    "cs work",
    "ks fire",
    "ks handoff",
    "cs fire",
    "cs handoff",
    "key delivery",
];

/// Median, p99 and mean of one lateness series (ms).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    /// Median (ms).
    pub median_ms: f64,
    /// 99th percentile (ms).
    pub p99_ms: f64,
    /// Mean (ms).
    pub mean_ms: f64,
}

/// One run's lateness, over the sessions sent after the warm-up.
#[derive(Clone, Debug, Serialize)]
pub struct Lateness {
    /// The implementation traced.
    pub implementation: Implementation,
    /// Sessions counted (after the warm-up, every series noted).
    pub sessions: u64,
    /// Per series of [`SERIES`], in that order.
    pub series: Vec<(String, Stats)>,
    /// Median of `key` if only costs and lateness counted: `ks start` + `ks` cost + `ks
    /// work` out of order and for actors; in order, the larger of that and the same sum
    /// for `cs` (the server forwards `key` only after `txt`).
    pub predicted_key_ms: f64,
    /// Median of `key` from the costs alone (no lateness, no hops), same sessions: `ks`'s
    /// cost, or in order the larger of both costs.
    pub cost_key_ms: f64,
    /// The `key` median measured in the same run.
    pub key_ms: f64,
    /// Sessions that failed (choreographies only).
    pub failures: u64,
}

fn stats(mut v: Vec<f64>) -> Stats {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| {
        v.get(((v.len().max(1) - 1) as f64 * q).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    Stats {
        median_ms: at(0.5),
        p99_ms: at(0.99),
        mean_ms: v.iter().sum::<f64>() / v.len().max(1) as f64,
    }
}

/// Runs the benchmark once for `imp` with the probe on.
pub fn trace(imp: Implementation, spec: &Spec) -> Lateness {
    let n = spec.requests();
    let probe = Probe::on();
    let costs = Costs::uniform(spec.seed, n).noted(probe.clone());
    let (key, _, failures) = send::run_with_costs(imp, spec, costs.clone());
    let mut noted: HashMap<(u64, &str), Duration> = HashMap::new();
    for (i, what, late) in probe.notes() {
        noted.entry((i, what)).or_insert(late);
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let first = (spec.warmup * spec.rate).ceil() as u64;
    let mut series: [Vec<f64>; SERIES.len()] = Default::default();
    let mut predicted = Vec::new();
    let mut ideal = Vec::new();
    for i in first..n {
        let late: Option<Vec<Duration>> = SERIES
            .iter()
            .map(|w| noted.get(&(i, *w)).copied())
            .collect();
        let Some(late) = late else {
            continue;
        };
        for (s, l) in series.iter_mut().zip(&late) {
            s.push(ms(*l));
        }
        let (ck, ct) = (costs.key[i as usize], costs.txt[i as usize]);
        let (ks, cs) = (late[0] + ck + late[1], late[2] + ct + late[3]);
        let in_order = imp == Implementation::InOrder;
        predicted.push(ms(if in_order { ks.max(cs) } else { ks }));
        ideal.push(ms(if in_order { ck.max(ct) } else { ck }));
    }
    Lateness {
        implementation: imp,
        sessions: predicted.len() as u64,
        series: SERIES
            .iter()
            .zip(series)
            .map(|(w, v)| (w.to_string(), stats(v)))
            .collect(),
        predicted_key_ms: stats(predicted).median_ms,
        cost_key_ms: stats(ideal).median_ms,
        key_ms: key.median_ms,
        failures,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 40 requests/s for `duration` seconds, every session counted.
    fn small(duration: f64) -> Spec {
        Spec::small(40.0, duration)
    }

    #[test]
    fn every_session_of_every_implementation_notes_every_series() {
        for imp in Implementation::ALL {
            let spec = small(0.5);
            let l = trace(imp, &spec);
            assert_eq!(l.failures, 0, "{l:?}");
            assert_eq!(l.sessions, spec.requests(), "{l:?}");
            let names: Vec<&str> = l.series.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names, SERIES, "{l:?}");
            // Costs alone are positive for some session, so the prediction is too.
            assert!(l.predicted_key_ms > 0.0 && l.key_ms > 0.0, "{l:?}");
            // A key's delivery is a part of its latency, after its work.
            let delivery = &l.series[SERIES.len() - 1].1;
            assert!(delivery.median_ms > 0.0, "{l:?}");
            assert!(delivery.median_ms < l.key_ms, "{l:?}");
        }
    }

    #[test]
    fn a_probe_left_off_notes_nothing() {
        let spec = small(0.25);
        let costs = Costs::uniform(spec.seed, spec.requests());
        let probe = costs.probe.clone();
        let (key, _, failures) = send::run_with_costs(Implementation::OutOfOrder, &spec, costs);
        assert_eq!((failures, key.answered), (0, spec.requests()));
        assert!(probe.notes().is_empty());
    }
}
