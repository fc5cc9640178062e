//! The paper's example choreographies as reusable values: concurrent producers
//! (Figure 1), concurrent send (Figures 2 and 15), concurrent clients with procedure calls
//! (Figure 17) and the model-serving pipeline of §5.3. Each comes in its out-of-order
//! (Ozone) form, with non-blocking [`Op::fcomm`](crate::Op::fcomm), and an in-order twin,
//! the same choreography with blocking [`Op::comm`](crate::Op::comm). Computation costs
//! are parameters (simulated with tokio sleeps), so tests can run them in virtual time
//! and benchmarks with real costs.
//!
//! Message types are named after the labels of the in-order twins' Scribble protocols
//! (`crates/mpst-choreo/examples/*.scr`), so a recorded run can be checked against them
//! (see `conform`, feature `scribble`).

use std::future::Future;
use std::time::Duration;

use crate::located::Located;
use crate::role::Role;

pub mod clients;
pub mod concurrent_send;
pub mod pipeline;
pub mod producers;

/// Simulated work: sleeps for `cost` (not at all when it is zero).
pub async fn work(cost: Duration) {
    if !cost.is_zero() {
        tokio::time::sleep(cost).await;
    }
}

/// Runs the asynchronous `f` on a value located at `R`, at `R` only (elsewhere the result
/// is empty too): a local computation that takes time.
pub async fn compute_at<T, U, R, F>(value: Located<T, R>, f: impl FnOnce(T) -> F) -> Located<U, R>
where
    R: Role,
    F: Future<Output = U>,
{
    match value.into_local() {
        Some(v) => Located::local(f(v).await),
        None => Located::remote(),
    }
}
