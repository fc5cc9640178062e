//! What the two benchmarks with a pair of seeded cost series share — concurrent producers
//! ([`crate::producers`]) and concurrent send ([`crate::send`]): the costs, and the run of
//! one implementation under open-loop load from the first request to the last answer.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use mpst_choreo::Choreography;
use tokio::time::Instant;

use crate::drive::{Implementation, start_roles};
use crate::load::{Recorder, Schedule, Spec, run_bounded, uniform_costs, until_answered};

/// Two series of `n` costs each, uniform in 0–5 ms: the first from `seed`, the second
/// from `seed + 1`.
pub fn uniform_pair(seed: u64, n: u64) -> [Arc<Vec<Duration>>; 2] {
    let max = Duration::from_millis(5);
    [seed, seed.wrapping_add(1)].map(|seed| Arc::new(uniform_costs(seed, n, max)))
}

/// What a run left behind.
pub struct Finished {
    /// Every answer, by series.
    pub recorder: Recorder,
    /// When the run ended (the last answer, or the bound).
    pub end: Instant,
    /// How many choreography sessions failed (none for the actors).
    pub failures: u64,
}

/// Runs one implementation at `spec.rate` requests per second, `spec.requests()` requests,
/// recording the answers of `series`. The actors are started by `actors(recorder,
/// requests)`; for the choreographies, `sessions(recorder, in_order)` gives the function
/// that makes session `i`, and only the roles of `starters` (every role when `None`)
/// wait for a session's due time ([`start_roles`]). Returns once every request is
/// answered or the bound is up.
pub fn run<Ch, X, M, A, F>(
    imp: Implementation,
    spec: &Spec,
    (series, starters): (&[&'static str], Option<&'static [&'static str]>),
    actors: A,
    sessions: impl FnOnce(Recorder, bool) -> M,
) -> Finished
where
    Ch: Choreography<X> + 'static,
    X: Send + 'static,
    M: Fn(u64) -> Ch + Send + Sync + 'static,
    A: FnOnce(Recorder, u64) -> F,
    F: Future<Output = ()>,
{
    let n = spec.requests();
    let mut result = None;
    let end = run_bounded(spec, || async {
        let schedule = Schedule::new(spec);
        let recorder = Recorder::new(schedule, n, series);
        let deadline = schedule.start + spec.bound();
        let mut failures = None;
        if imp == Implementation::Actors {
            actors(recorder.clone(), n).await;
        } else {
            let in_order = imp == Implementation::InOrder;
            let make = sessions(recorder.clone(), in_order);
            let due = move |i| schedule.at(i);
            failures = Some(start_roles(spec.net, n, in_order, make, (due, starters)).await);
        }
        until_answered(&recorder, deadline).await;
        result = Some((recorder, failures.map_or(0, |f| f.count())));
    });
    let (recorder, failures) = result.expect("the run finished");
    Finished {
        recorder,
        end,
        failures,
    }
}
