//! The hop trace of concurrent send: the benchmark itself (seeded 0–5 ms costs, open
//! loop) with an observer on every endpoint that timestamps each send and receive, so
//! the `key` latency of each choreography splits into its hops: the start (`ks`'s
//! scheduled wake-up and its work's lateness beyond its cost, to the key ready), the
//! send at `ks`, `ks` → `s`, the time `key` spends at `s`, `s` → `c`, and `c` recording
//! it. Actors have no observer (the lateness trace's `key delivery` compares the whole
//! span from the key ready to its arrival with theirs).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mpst_choreo::{Event, EventKind, Observer};
use serde::Serialize;
use tokio::time::Instant;

use crate::clock::Probe;
use crate::drive::{Implementation, Net, start_roles_gated};
use crate::load::{Recorder, Schedule, Spec, run_bounded, until_answered};
use crate::send::{Costs, session};

/// Median time (ms) of each hop of `key`, over the sessions after the warm-up.
#[derive(Clone, Debug, Serialize)]
pub struct Hops {
    /// The choreography traced.
    pub implementation: Implementation,
    /// Sessions counted (sent after the warm-up, every hop seen).
    pub sessions: u64,
    /// Due time to `ks`'s key ready, minus `ks`'s cost: waking for the session and the
    /// work.
    pub start_ms: f64,
    /// `ks`'s key ready (its work done) to `ks`'s send handed to the transport (and, in
    /// memory, filed at `s`): `ks`'s own part of the first hop.
    pub at_ks_ms: f64,
    /// `ks`'s send to `s`'s receive.
    pub ks_to_s_ms: f64,
    /// `s`'s receive to `s`'s send to `c` (in order: waiting for `txt` too).
    pub at_s_ms: f64,
    /// `s`'s send to `c`'s receive.
    pub s_to_c_ms: f64,
    /// `c`'s receive to the answer recorded.
    pub at_c_ms: f64,
    /// The `key` latency of the same sessions (median).
    pub key_ms: f64,
}

/// What happened to `key` in one session: (who, kind) → when.
type Stamps = HashMap<(u64, &'static str), Instant>;

#[derive(Default)]
struct Trace(Mutex<Stamps>);

impl Observer for Trace {
    fn observe(&self, e: &Event) {
        let now = Instant::now();
        if !e.label.ends_with("::Key") {
            return;
        }
        let Some(session) = e.key.token.frames().first().map(|f| f.index) else {
            return;
        };
        let what = match (e.kind, e.from.as_str(), e.to.as_str()) {
            (EventKind::Sent, "KS", _) => "ks sent",
            (EventKind::Received, "KS", _) => "s received",
            (EventKind::Sent, "S", _) => "s sent",
            (EventKind::Received, "S", _) => "c received",
            _ => return,
        };
        if let Ok(mut all) = self.0.lock() {
            all.entry((session, what)).or_insert(now);
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Runs the benchmark once for choreography `imp` (in order or out of order) with the
/// hop trace on.
pub fn trace(imp: Implementation, spec: &Spec) -> Hops {
    let n = spec.requests();
    let costs = Costs::uniform(spec.seed, n);
    let in_order = imp == Implementation::InOrder;
    // On, so that `ks` notes when its key is ready (and its lateness, unused here).
    let probe = Probe::on();
    let mut result = None;
    run_bounded(spec, || async {
        let schedule = Schedule::new(spec);
        let recorder = Recorder::new(schedule, n, &["key", "txt"]);
        let trace = Arc::new(Trace::default());
        let (rec, c, p) = (recorder.clone(), costs.clone(), probe.clone());
        let make = move |i: u64| {
            let cost = (c.key[i as usize], c.txt[i as usize]);
            session(i, cost, rec.clone(), in_order, p.clone())
        };
        let gate =
            move |_: &mpst_choreo::RoleName, i| Some(crate::clock::sleep_until(schedule.at(i)));
        let observer: Arc<dyn Observer> = trace.clone();
        start_roles_gated(Net::Memory, n, in_order, make, gate, Some(observer)).await;
        until_answered(&recorder, schedule.start + spec.bound()).await;
        result = Some((schedule, recorder, trace));
    });
    let Some((schedule, recorder, trace)) = result else {
        return empty(imp);
    };
    let stamps = match trace.0.lock() {
        Ok(s) => s.clone(),
        Err(_) => return empty(imp),
    };
    let warm = schedule.start + Duration::from_secs_f64(spec.warmup);
    let ms = |a: Instant, b: Instant| b.saturating_duration_since(a).as_secs_f64() * 1e3;
    let mut hops: [Vec<f64>; 7] = Default::default();
    for i in 0..n {
        let due = schedule.at(i);
        let at = |what| stamps.get(&(i, what)).copied();
        let (Some(t0), Some(t1), Some(t2), Some(t3), Some(t4), Some(latency)) = (
            probe.ready_at(i).map(Instant::from_std),
            at("ks sent"),
            at("s received"),
            at("s sent"),
            at("c received"),
            recorder.latency("key", i),
        ) else {
            continue;
        };
        if due < warm {
            continue;
        }
        let cost = costs.key[i as usize].as_secs_f64() * 1e3;
        let t5 = due + latency;
        hops[0].push(ms(due, t0) - cost);
        hops[1].push(ms(t0, t1));
        hops[2].push(ms(t1, t2));
        hops[3].push(ms(t2, t3));
        hops[4].push(ms(t3, t4));
        hops[5].push(ms(t4, t5));
        hops[6].push(ms(due, t5));
    }
    let sessions = hops[0].len() as u64;
    let [start, at_ks, ks_s, at_s, s_c, at_c, key] = hops.map(median);
    Hops {
        implementation: imp,
        sessions,
        start_ms: start,
        at_ks_ms: at_ks,
        ks_to_s_ms: ks_s,
        at_s_ms: at_s,
        s_to_c_ms: s_c,
        at_c_ms: at_c,
        key_ms: key,
    }
}

fn empty(imp: Implementation) -> Hops {
    Hops {
        implementation: imp,
        sessions: 0,
        start_ms: 0.0,
        at_ks_ms: 0.0,
        ks_to_s_ms: 0.0,
        at_s_ms: 0.0,
        s_to_c_ms: 0.0,
        at_c_ms: 0.0,
        key_ms: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hop_of_every_session_is_seen_in_both_forms() {
        for imp in [Implementation::InOrder, Implementation::OutOfOrder] {
            let spec = Spec::small(40.0, 0.5);
            let h = trace(imp, &spec);
            assert_eq!(h.sessions, spec.requests(), "{h:?}");
            let sum = h.start_ms + h.ks_to_s_ms + h.at_s_ms + h.s_to_c_ms + h.at_c_ms;
            assert!(h.key_ms > 0.0 && sum > 0.0, "{h:?}");
            // The key is ready before it is sent.
            assert!(h.at_ks_ms >= 0.0, "{h:?}");
        }
    }
}
