//! Driving a choreography under open-loop load: one [`Endpoint`] per role on one
//! in-memory transport; session `i` of every role starts when it is due. Out of order,
//! each role starts every session on schedule and runs them concurrently; in order, each
//! role runs its sessions one after the other (session `i` starts when `i - 1` has
//! finished and `i` is due), as a blocking choreography's projection does.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mpst_choreo::transport::InMemory;
use mpst_choreo::{Choreography, Config, Endpoint, RoleSet};
use tokio::time::Instant;

/// The three implementations compared by every benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
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

/// Errors counted while driving sessions (a session that failed, e.g. timed out).
#[derive(Clone, Debug, Default)]
pub struct Failures(Arc<AtomicU64>);

impl Failures {
    /// How many sessions failed.
    pub fn count(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    fn add(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// Starts every role of `Ch` on a fresh in-memory transport: `sessions` sessions, the
/// `i`-th made by `make(i)` and due at `due(i)`; `in_order` chooses sequential sessions.
/// Returns at once; the sessions run on spawned tasks until done or the runtime ends.
pub fn start_roles<Ch, X, M, D>(sessions: u64, in_order: bool, make: M, due: D) -> Failures
where
    Ch: Choreography<X> + 'static,
    X: Send + 'static,
    M: Fn(u64) -> Ch + Send + Sync + 'static,
    D: Fn(u64) -> Instant + Send + Sync + 'static,
{
    let names = Ch::Roles::names();
    let transport = Arc::new(InMemory::new(names.clone()));
    let config = Config {
        recv_timeout: Duration::from_secs(120),
        ..Config::default()
    };
    let failures = Failures::default();
    let make = Arc::new(make);
    let due = Arc::new(due);
    for name in names {
        let endpoint =
            Endpoint::with_config(transport.clone(), name, config, None).expect("inside a runtime");
        let endpoint = Arc::new(endpoint);
        let (make, due, failures) = (make.clone(), due.clone(), failures.clone());
        tokio::spawn(async move {
            for i in 0..sessions {
                tokio::time::sleep_until(due(i)).await;
                let choreography = make(i);
                if in_order {
                    if endpoint.run_session(i, choreography).await.is_err() {
                        failures.add();
                    }
                } else {
                    let (failures, endpoint) = (failures.clone(), endpoint.clone());
                    tokio::spawn(async move {
                        if endpoint.run_session(i, choreography).await.is_err() {
                            failures.add();
                        }
                    });
                }
            }
        });
    }
    failures
}
