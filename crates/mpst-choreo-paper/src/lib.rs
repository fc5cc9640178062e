//! The Ozone paper's example choreographies, written once with `mpst-choreo` and shared by
//! everything that runs them: concurrent producers (Figure 1, [`producers`]), concurrent
//! send (Figures 2 and 15, [`concurrent_send`]), concurrent clients with procedure calls
//! (Figure 17, [`clients`]) and the model-serving pipeline of §5.3 ([`pipeline`]).
//!
//! Each comes in its out-of-order (Ozone) form, with non-blocking
//! [`Op::fcomm`](mpst_choreo::Op::fcomm), and an in-order twin, the same choreography
//! with blocking [`Op::comm`](mpst_choreo::Op::comm), chosen by a flag so that both forms
//! share every step but the communication operator.
//!
//! What differs between the users — mpst-choreo's tests and examples (tokio sleeps, so
//! tests run in virtual time), its benchmark (no work at all) and the evaluation (a
//! precise timer, lateness notes, latencies recorded on arrival) — is a *probe*: a trait
//! per choreography (`Services`, `Stages`) whose methods are the cost model's delays
//! (each service's work) and the observation points (a value arrived where it goes).
//! Its default methods do the examples' work ([`work`]), so an implementation names only
//! what it changes. Everything the roles communicate, and in which order, is here.
//!
//! Message types are named after the labels of the in-order twins' Scribble protocols
//! (`crates/mpst-choreo/examples/*.scr`), so a recorded run can be checked against them
//! (`mpst_choreo::conform`, feature `scribble`).
//!
//! The paper: "Ozone: Fully Out-of-Order Choreographies", Dan Plyukhin, Marco Peressotti
//! and Fabrizio Montesi, ECOOP 2024.

#![warn(missing_docs)]

use std::future::Future;
use std::time::Duration;

use mpst_choreo::{Located, Member, Op, Role, RoleSet};

pub mod clients;
pub mod concurrent_send;
pub mod pipeline;
pub mod producers;

/// Simulated work: sleeps for `cost` on tokio's clock (not at all when it is zero), so a
/// test on a paused clock runs it in virtual time.
pub async fn work(cost: Duration) {
    if !cost.is_zero() {
        tokio::time::sleep(cost).await;
    }
}

/// Runs the asynchronous `f` on a value located at `role`, at `role` only (elsewhere the
/// result is empty too): a local computation that takes time.
///
/// # Panics
///
/// As [`located`].
pub async fn compute_at<L, T, U, R, I, F>(
    op: &Op<L>,
    role: R,
    value: Located<T, R>,
    f: impl FnOnce(T) -> F,
) -> Located<U, R>
where
    L: RoleSet,
    R: Role + Member<L, I>,
    F: Future<Output = U>,
{
    match value.into_local() {
        Some(v) => Located::local(f(v).await),
        None => located(op, role, None),
    }
}

/// A value computed from values located at `role` (`Some` exactly there) as a value
/// located at `role`.
///
/// # Panics
///
/// Only where [`Unwrapper::unwrap`](mpst_choreo::Unwrapper::unwrap) does: if `value` is
/// `None` at `role` itself, because what it was computed from was smuggled out of
/// another role's run. Values made by the choreography always hold their value at their
/// role.
pub fn located<L, T, R, I>(op: &Op<L>, role: R, value: Option<T>) -> Located<T, R>
where
    L: RoleSet,
    R: Role + Member<L, I>,
{
    match value {
        Some(v) => Located::local(v),
        // `locally` runs its closure at `role` only, where the value is present.
        None => op.locally(role, |_| {
            panic!(
                "Located<_, {}> empty at its own role: made at another role",
                R::NAME
            )
        }),
    }
}
