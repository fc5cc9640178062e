//! The closed-loop profile of concurrent send: the same three implementations as
//! [`crate::send`], driven the same way ([`crate::drive::start_roles_gated`], the actors'
//! services), but with zero computation and no sleeps, one session at a time: session
//! `i + 1` opens when `c` has both values of session `i`. What remains of the `key`
//! latency is the fixed overhead of each implementation (tasks, wake-ups, hops), which
//! the open-loop benchmark adds to its 0–5 ms costs; under callgrind (one thread) the
//! same run counts instructions, polls and spawns per session.

use std::time::Duration;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::clock::Probe;
use crate::drive::{Implementation, Net, start_roles_gated};
use crate::load::{Recorder, Schedule};
use crate::send::{Costs, session, spawn_actors};

/// The `key` latency of one implementation at zero cost.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SendProfile {
    /// The implementation profiled.
    pub implementation: Implementation,
    /// Sessions run (one at a time).
    pub sessions: u64,
    /// Tokio worker threads (1: a current-thread runtime).
    pub threads: usize,
    /// Sessions that did not deliver both values within the bound (then the run stops).
    pub unanswered: u64,
    /// Median `key` latency (µs) from the session's opening to `key` at `c`.
    pub key_median_us: f64,
    /// 99th percentile of the same (µs).
    pub key_p99_us: f64,
    /// Wall time per session (µs), opening to both values at `c`.
    pub session_mean_us: f64,
}

/// Runs `sessions` zero-cost concurrent-send sessions of `imp`, one at a time, on a
/// fresh runtime with `threads` workers; each session gets at most `bound` to deliver.
pub fn concurrent_send(
    imp: Implementation,
    sessions: u64,
    threads: usize,
    bound: Duration,
) -> SendProfile {
    let mut builder = if threads <= 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(threads);
        b
    };
    let runtime = builder.enable_all().build().expect("a tokio runtime");
    let profile = runtime.block_on(closed_loop(imp, sessions, threads, bound));
    runtime.shutdown_background();
    profile
}

async fn closed_loop(
    imp: Implementation,
    sessions: u64,
    threads: usize,
    bound: Duration,
) -> SendProfile {
    let costs = Costs::zero(sessions);
    let start = Instant::now();
    // Every request is "due" at `start`; the opening of each session is subtracted below.
    let schedule = Schedule {
        start,
        interval: Duration::ZERO,
    };
    let recorder = Recorder::new(schedule, sessions, &["key", "txt"]);
    let (open, opened) = tokio::sync::watch::channel(0u64);
    let services = if imp == Implementation::Actors {
        Some(spawn_actors(&costs, &recorder).await)
    } else {
        let (rec, in_order) = (recorder.clone(), imp == Implementation::InOrder);
        let make = move |i| {
            let zero = (Duration::ZERO, Duration::ZERO);
            session(i, zero, rec.clone(), in_order, Probe::default())
        };
        let gate = move |_: &mpst_choreo::RoleName, i: u64| {
            let mut opened = opened.clone();
            Some(async move {
                let _ = opened.wait_for(|&n| n > i).await;
            })
        };
        start_roles_gated(Net::Memory, sessions, in_order, make, gate, None).await;
        None
    };
    let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).expect("bounds");
    let mut unanswered = 0;
    let mut done = 0;
    for i in 0..sessions {
        let opening = start.elapsed();
        match &services {
            Some(services) => services.request(i),
            None => {
                open.send_replace(i + 1);
            }
        }
        let answered = recorder.wait_for_answers(2 * (i + 1));
        if tokio::time::timeout(bound, answered).await.is_err() {
            unanswered = sessions - i;
            break;
        }
        done += 1;
        if let Some(key) = recorder.latency("key", i) {
            let us = key.saturating_sub(opening).as_micros() as u64;
            hist.saturating_record(us.max(1));
        }
    }
    let elapsed = start.elapsed().as_secs_f64() * 1e6;
    SendProfile {
        implementation: imp,
        sessions,
        threads,
        unanswered,
        key_median_us: hist.value_at_quantile(0.5) as f64,
        key_p99_us: hist.value_at_quantile(0.99) as f64,
        session_mean_us: elapsed / done.max(1) as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_implementation_delivers_every_session_one_at_a_time() {
        for imp in Implementation::ALL {
            for threads in [1, 2] {
                let p = concurrent_send(imp, 50, threads, Duration::from_secs(10));
                assert_eq!(p.unanswered, 0, "{p:?}");
                assert!(
                    p.key_median_us >= 1.0 && p.key_median_us <= p.key_p99_us,
                    "{p:?}"
                );
                assert!(p.session_mean_us > 0.0, "{p:?}");
            }
        }
    }
}
