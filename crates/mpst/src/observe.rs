//! The `tracing` feature: a span per session and an event per send and receive, with
//! the role, the peer, the label and the protocol state, for any `tracing` subscriber.
//!
//! Without the feature this module and every call to it are compiled out: the steps
//! are the same code as before (see `try_session` and `future`).

use std::any::type_name;
use std::fmt;

use crate::Role;

/// The target of every span and event, to filter on (`RUST_LOG=mpst=debug`).
pub(crate) const TARGET: &str = "mpst";

/// A session type's name as errors print it (`Send<B, Add, Receive<B, Sum, End>>`),
/// computed only when a subscriber records it.
struct Short(&'static str, &'static str);

impl fmt::Display for Short {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::state_name::short(self.0, self.1))
    }
}

/// The span of one session of type `S` run by the role `R`: `session{role, session}`,
/// at level INFO.
#[inline]
pub(crate) fn session<R: Role, S>() -> tracing::Span {
    tracing::info_span!(
        target: TARGET,
        "session",
        role = R::NAME,
        session = %Short(type_name::<S>(), R::NAME),
    )
}

/// `R` sent `label` to `P` in the state `Here`: an event `send` at level DEBUG.
#[inline]
pub(crate) fn sent<R: Role, P: Role, Here>(label: &'static str) {
    tracing::debug!(
        target: TARGET,
        role = R::NAME,
        peer = P::NAME,
        label,
        state = %Short(type_name::<Here>(), R::NAME),
        "send"
    );
}

/// `R` received `label` from `P` in the state `Here`: an event `receive` at level DEBUG.
#[inline]
pub(crate) fn received<R: Role, P: Role, Here>(label: &'static str) {
    tracing::debug!(
        target: TARGET,
        role = R::NAME,
        peer = P::NAME,
        label,
        state = %Short(type_name::<Here>(), R::NAME),
        "receive"
    );
}
