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

/// The span of one session of type `Session` run by the role `Me`: `session{role, session}`,
/// at level INFO.
#[inline]
pub(crate) fn session<Me: Role, Session>() -> tracing::Span {
    tracing::info_span!(
        target: TARGET,
        "session",
        role = Me::NAME,
        session = %Short(type_name::<Session>(), Me::NAME),
    )
}

/// `Me` sent `label` to `Peer` in the state `Here`: an event `send` at level DEBUG.
#[inline]
pub(crate) fn sent<Me: Role, Peer: Role, Here>(label: &'static str) {
    tracing::debug!(
        target: TARGET,
        role = Me::NAME,
        peer = Peer::NAME,
        label,
        state = %Short(type_name::<Here>(), Me::NAME),
        "send"
    );
}

/// `Me` received `label` from `Peer` in the state `Here`: an event `receive` at level DEBUG.
#[inline]
pub(crate) fn received<Me: Role, Peer: Role, Here>(label: &'static str) {
    tracing::debug!(
        target: TARGET,
        role = Me::NAME,
        peer = Peer::NAME,
        label,
        state = %Short(type_name::<Here>(), Me::NAME),
        "receive"
    );
}

/// `Me` received `label` from the peer named `peer` in the state `Here` (an `Offer`, whose
/// peer is known by name only): an event `receive` at level DEBUG.
#[inline]
pub(crate) fn received_from<Me: Role, Here>(peer: &'static str, label: &'static str) {
    tracing::debug!(
        target: TARGET,
        role = Me::NAME,
        peer,
        label,
        state = %Short(type_name::<Here>(), Me::NAME),
        "receive"
    );
}
