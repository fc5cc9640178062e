//! The peers' side of the comparison: the definitions the three benchmarks of the PPoPP 2022
//! paper (§4.1) share — inputs, reference answers, checks — and their implementations with
//! sesh, ferrite-session, mpstthree (multicrusty), the published rumpsteak 0.1 and rustfft.
//!
//! It does not depend on `mpst`, so a change to our runtime does not rebuild the peers (the
//! `comparison` crate adds our implementations and the bare-channel ones on top).
//!
//! Every `run` function checks its own result against a reference computed independently
//! (a closed-form sum, the input buffers, a naive DFT) and returns [`Mismatch`] when it is
//! wrong, so a fast wrong answer cannot win a benchmark.

#![warn(missing_docs)]

pub mod double_buffering;
pub mod fft;
pub mod stream;

use std::error::Error;
use std::fmt;
use std::future::Future;

/// Errors of one run: a session error of the implementation, or a [`Mismatch`].
pub type BoxError = Box<dyn Error + Send + Sync>;

/// The result of one run.
pub type Result<T = (), E = BoxError> = std::result::Result<T, E>;

/// A run computed a wrong answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// Which implementation and benchmark, e.g. `"stream/sesh"`.
    pub what: &'static str,
    /// What went wrong, with the expected and actual values.
    pub detail: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: wrong result: {}", self.what, self.detail)
    }
}

impl Error for Mismatch {}

/// Returns `Ok` when `actual == expected`, else a [`Mismatch`] naming `what`.
pub fn check_eq<T: PartialEq + fmt::Debug>(what: &'static str, expected: T, actual: T) -> Result {
    if expected == actual {
        Ok(())
    } else {
        let detail = format!("expected {expected:?}, got {actual:?}");
        Err(Box::new(Mismatch { what, detail }))
    }
}

/// A thread-based implementation failed: its thread panicked or a peer hung up.
#[derive(Debug, Clone, PartialEq)]
pub struct Crashed(pub &'static str);

impl fmt::Display for Crashed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: a participant crashed", self.0)
    }
}

impl Error for Crashed {}

/// Spawns a role's future on the current tokio runtime so roles run in parallel on a
/// multi-threaded runtime (and interleave on a current-thread one).
pub fn spawn<T: Send + 'static>(
    what: &'static str,
    future: impl Future<Output = Result<T>> + Send + 'static,
) -> impl Future<Output = Result<T>> {
    let handle = tokio::spawn(future);
    async move {
        handle
            .await
            .map_err(|_| Box::new(Crashed(what)) as BoxError)?
    }
}

/// Joins a scoped thread, turning a panic into [`Crashed`].
pub fn join<T>(
    what: &'static str,
    handle: std::thread::ScopedJoinHandle<'_, Result<T>>,
) -> Result<T> {
    handle
        .join()
        .map_err(|_| Box::new(Crashed(what)) as BoxError)?
}

/// Receives the next message from a bare channel; a closed channel is [`Crashed`].
pub async fn receive_bare<M>(
    what: &'static str,
    route: &mut (impl futures::Stream<Item = M> + Unpin),
) -> Result<M> {
    use futures::StreamExt;
    route
        .next()
        .await
        .ok_or_else(|| Box::new(Crashed(what)) as BoxError)
}

/// A bare implementation received a label the protocol does not allow at this point.
pub fn unexpected(what: &'static str, expected: &'static str) -> BoxError {
    format!("{what}: unexpected label, expected {expected}").into()
}
