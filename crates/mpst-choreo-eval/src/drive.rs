//! Driving a choreography under open-loop load: one [`Endpoint`] per role on one
//! in-memory transport; session `i` of every role starts when it is due. Out of order,
//! each role starts every session on schedule and runs them concurrently, all in the
//! role's one task (no task per session: `run_session` is polled where it is called);
//! in order, each
//! role runs its sessions one after the other (session `i` starts when `i - 1` has
//! finished and `i` is due), as a blocking choreography's projection does.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::Poll;
use std::time::Duration;

use std::net::SocketAddr;

use futures::StreamExt;
use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
use mpst_choreo::transport::InMemory;
use mpst_choreo::{
    ChoreoError, Choreography, Endpoint, EndpointConfig, Observer, RoleName, RoleSet, Transport,
};
use tokio::net::TcpListener;
use tokio::time::Instant;

/// The three implementations compared by every benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Implementation {
    /// The in-order choreography (blocking `comm`, sessions one after the other).
    InOrder,
    /// The out-of-order choreography (`fcomm`, futures and integrity keys).
    OutOfOrder,
    /// Hand-written actors with `ractor`.
    Actors,
}

impl Implementation {
    /// All three, in report order.
    pub const ALL: [Implementation; 3] = [
        Implementation::InOrder,
        Implementation::OutOfOrder,
        Implementation::Actors,
    ];

    /// The name used in tables, plots and results.json.
    pub fn name(self) -> &'static str {
        match self {
            Implementation::InOrder => "in_order",
            Implementation::OutOfOrder => "out_of_order",
            Implementation::Actors => "actors",
        }
    }
}

/// Errors counted while driving sessions (a session that failed, e.g. timed out); the
/// first is printed on standard error.
#[derive(Clone, Debug, Default)]
pub struct Failures(Arc<AtomicU64>);

impl Failures {
    /// How many sessions failed.
    pub fn count(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    pub(crate) fn add(&self, role: &RoleName, session: u64, error: &ChoreoError) {
        if self.0.fetch_add(1, Ordering::Relaxed) == 0 {
            eprintln!("session {session} failed at {}: {error}", role.as_str());
        }
    }
}

/// The network the choreographies run on (the actors always use ractor's mailboxes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Net {
    /// `mpst_choreo::transport::InMemory`.
    #[default]
    Memory,
    /// `mpst_choreo::net::tcp` on 127.0.0.1, one listener per role, two connections per
    /// pair of roles.
    Tcp,
    /// Every role on its own host of an `mpst-testbed` bed (its own network namespace),
    /// `mpst_choreo::net::tcp` between hosts through the bed's impairment relay; the
    /// placement is the one [`crate::impaired::hosts::Placement::install`] installed.
    /// The actors then run networked too ([`crate::impaired::actors`]).
    Hosts,
}

/// One role's transport, and the runtime (of its host) its sessions must run on, if
/// not the caller's.
type Placed = (RoleName, Arc<dyn Transport>, Option<tokio::runtime::Handle>);

async fn transports(net: Net, names: &[RoleName]) -> Vec<Placed> {
    if net == Net::Memory {
        let memory: Arc<dyn Transport> = Arc::new(InMemory::new(names.to_vec()));
        return names
            .iter()
            .map(|n| (n.clone(), memory.clone(), None))
            .collect();
    }
    if net == Net::Hosts {
        return crate::impaired::hosts::transports(names).await;
    }
    let mut listeners = Vec::new();
    for name in names {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("a loopback port");
        let addr = listener.local_addr().expect("bound");
        listeners.push((name.clone(), listener, addr));
    }
    let addrs: Vec<(RoleName, SocketAddr)> =
        listeners.iter().map(|(n, _, a)| (n.clone(), *a)).collect();
    // Plaintext by explicit opt-in: every role runs in this process on loopback, and the
    // evaluation measures the choreographies, not TLS (the examples and tests use mutual
    // TLS).
    let config = TcpConfig {
        connections_per_peer: 2,
        ..TcpConfig::insecure_plaintext()
    };
    let starts = listeners.into_iter().map(|(name, listener, _)| {
        let peers: Vec<_> = addrs.iter().filter(|(n, _)| *n != name).cloned().collect();
        let config = config.clone();
        async move {
            let t = TcpTransport::start(name.clone(), listener, peers, config).await;
            (
                name,
                Arc::new(t.expect("loopback TCP connects")) as Arc<dyn Transport>,
                None,
            )
        }
    });
    futures::future::join_all(starts).await
}

/// Starts every role of `Ch` on a fresh transport of `net`: `sessions` sessions, the
/// `i`-th made by `make(i)` and due at `due(i)`; `in_order` chooses sequential sessions.
/// Only the roles of `starters` (every role when `None`) wait for a session's due time:
/// the others begin by waiting for a message, so they open their sessions ahead (out
/// of order, up to [`AHEAD`] at once; in order, each after the last), as the actors'
/// reactive roles take a message whenever it comes, and no timer's lateness at such a
/// role holds back a message that has already arrived.
/// Returns once the roles are connected; each role's sessions run in one spawned task
/// until done or the runtime ends.
pub async fn start_roles<Ch, X, M, D>(
    net: Net,
    sessions: u64,
    in_order: bool,
    make: M,
    (due, starters): (D, Option<&'static [&'static str]>),
) -> Failures
where
    Ch: Choreography<X> + 'static,
    X: Send + 'static,
    M: Fn(u64) -> Ch + Send + Sync + 'static,
    D: Fn(u64) -> Instant + Send + Sync + 'static,
{
    let gate = move |role: &RoleName, i| {
        let starts = starters.is_none_or(|s| s.contains(&role.as_str()));
        starts.then(|| crate::clock::sleep_until(due(i)))
    };
    start_roles_gated(net, sessions, in_order, make, gate, None).await
}

/// How many sessions a role that does not wait for due times keeps open at once (out of
/// order): enough that the next sessions are open before their messages come, few
/// enough that finishing one does not sift through hundreds of others' keys.
pub const AHEAD: usize = 16;

/// [`start_roles`] with session `i` started at role `r` once `gate(r, i)` completes
/// (`None`: as soon as fewer than [`AHEAD`] of its sessions run)
/// instead of at a due time (the closed-loop profile opens the gates one session at a
/// time), and every endpoint reporting to `observer` if there is one (the hop trace).
pub async fn start_roles_gated<Ch, X, M, G, F>(
    net: Net,
    sessions: u64,
    in_order: bool,
    make: M,
    gate: G,
    observer: Option<Arc<dyn Observer>>,
) -> Failures
where
    Ch: Choreography<X> + 'static,
    X: Send + 'static,
    M: Fn(u64) -> Ch + Send + Sync + 'static,
    G: Fn(&RoleName, u64) -> Option<F> + Send + Sync + 'static,
    F: std::future::Future<Output = ()> + Send,
{
    let names = Ch::Roles::names();
    let config = EndpointConfig {
        recv_timeout: Duration::from_secs(120),
        ..EndpointConfig::default()
    };
    let failures = Failures::default();
    let make = Arc::new(make);
    let gate = Arc::new(gate);
    for (name, transport, host) in transports(net, &names).await {
        let (make, gate, failures) = (make.clone(), gate.clone(), failures.clone());
        let observer = observer.clone();
        let host = host.unwrap_or_else(tokio::runtime::Handle::current);
        host.spawn(async move {
            // The endpoint is made inside the host's runtime (its transport's tasks live
            // there).
            let endpoint =
                Endpoint::with_config(transport, name, config, observer).expect("inside a runtime");
            let endpoint = Arc::new(endpoint);
            // Out of order, the role's sessions overlap in this one task: each is polled
            // here beside the gate of the next (no task spawned per session).
            let mut running = mpst_choreo::Sessions::new();
            for i in 0..sessions {
                let opened = gate(endpoint.role(), i);
                let reactive = opened.is_none();
                let opened = async move {
                    if let Some(opened) = opened {
                        opened.await;
                    }
                };
                tokio::pin!(opened);
                // A role that waits for due times registers the next one at once, as
                // the actors' schedule does before their service runs: registered after
                // the session's first sends, it woke the timer's thread about once more
                // a session, while the message was on its way (this crate's HOSTS.md).
                let due_now = !reactive && futures::poll!(opened.as_mut()).is_ready();
                // Then the sessions first: the one just started runs before the next
                // gate is waited for (and, when the next one is due already, every
                // session that completes at once is taken before it starts).
                if due_now {
                    while !running.is_empty()
                        && matches!(futures::poll!(running.next()), Poll::Ready(Some(())))
                    {
                    }
                } else {
                    loop {
                        tokio::select! {
                            biased;
                            Some(()) = running.next(), if !running.is_empty() => {}
                            () = &mut opened, if !reactive || running.len() < AHEAD => break,
                        }
                    }
                }
                let choreography = make(i);
                if in_order {
                    if let Err(e) = endpoint.run_session(i, choreography).await {
                        failures.add(endpoint.role(), i, &e);
                    }
                    continue;
                }
                let (failures, endpoint) = (failures.clone(), endpoint.clone());
                running.push(async move {
                    if let Err(e) = endpoint.run_session(i, choreography).await {
                        failures.add(endpoint.role(), i, &e);
                    }
                });
            }
            while running.next().await.is_some() {}
        });
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Probe;
    use crate::load::{Recorder, Schedule};

    /// The order in which a starting role waits for its next gate and runs the session
    /// just opened: the services note `"ks start"` / `"cs start"` on the probe when a
    /// session's body first runs, the gates note `"gate"` when first polled.
    #[tokio::test]
    async fn a_starting_role_waits_for_its_next_gate_before_running_the_session_just_due() {
        let n = 4;
        let probe = Probe::on();
        let schedule = Schedule {
            start: Instant::now(),
            interval: Duration::from_millis(5),
        };
        let recorder = Recorder::new(schedule, n, &["key", "txt"]);
        let (rec, p) = (recorder.clone(), probe.clone());
        let make = move |i| {
            let zero = (Duration::ZERO, Duration::ZERO);
            crate::send::session(i, zero, rec.clone(), false, p.clone())
        };
        let p = probe.clone();
        let gate = move |role: &RoleName, i: u64| {
            let p = p.clone();
            (role.as_str() == "KS").then_some(async move {
                p.note(i, "gate", std::time::Instant::now());
                crate::clock::sleep_until(schedule.at(i)).await;
            })
        };
        let failures = start_roles_gated(Net::Memory, n, false, make, gate, None).await;
        let answered = recorder.wait_for_answers(2 * n);
        tokio::time::timeout(Duration::from_secs(10), answered)
            .await
            .expect("every session answered");
        assert_eq!(failures.count(), 0);
        let notes: Vec<(u64, &str)> = probe
            .notes()
            .into_iter()
            .filter(|&(_, what, _)| what != "cs start")
            .map(|(i, what, _)| (i, what))
            .collect();
        let at = |note: (u64, &str)| notes.iter().position(|n| *n == note);
        for i in 0..n - 1 {
            let (next_gate, started) = (at((i + 1, "gate")), at((i, "ks start")));
            assert!(
                next_gate.is_some() && started.is_some() && next_gate < started,
                "expected gate {} polled before session {i} ran: {notes:?}",
                i + 1
            );
        }
    }
}
