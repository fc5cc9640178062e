//! The error type of choreographies: every failed communication is a value that says
//! what failed and where (key, site, peer), never a panic.

use std::time::Duration;

use crate::key::{Key, Site};
use crate::role::RoleName;
use crate::transport::TransportError;

/// Why a choreography (or one of its communications) failed.
///
/// Keys are boxed (`Box<Key>`) to keep the error small; they deref to [`Key`].
#[derive(Debug, thiserror::Error)]
pub enum ChoreoError {
    /// The transport failed.
    #[error(transparent)]
    Transport(#[from] TransportError),

    /// No message with the expected key arrived in time (it was lost, or its sender failed).
    #[error("{role}: timed out after {after:?} waiting for {key} from {from}")]
    Timeout {
        /// The receiving role.
        role: RoleName,
        /// The expected sender.
        from: RoleName,
        /// The key that never arrived.
        key: Box<Key>,
        /// The configured timeout.
        after: Duration,
    },

    /// One integrity key was used by two communications at one role: two receives, two
    /// sends to one peer, or two sites whose identifiers collide.
    #[error(
        "{role}: integrity key {key} used twice, first at {first}, again at {second} \
         (call a helper that communicates through #[track_caller], or give each use its own \
         call, iteration or session)"
    )]
    KeyReused {
        /// The role that noticed.
        role: RoleName,
        /// The key.
        key: Box<Key>,
        /// Where it was first used.
        first: Site,
        /// Where it was used again.
        second: Site,
    },

    /// A message with the right key came from a role other than the expected sender.
    /// Endpoints file envelopes by sender as well as key and refuse such deliveries
    /// (counted in [`crate::EndpointStats::wrong_sender_refused`]), so a receive never
    /// ends with it; it is kept for transports that bypass the mailbox.
    #[error("{role}: message {key} came from {got}, expected {expected}")]
    WrongSender {
        /// The receiving role.
        role: RoleName,
        /// The key.
        key: Box<Key>,
        /// The sender the choreography names.
        expected: RoleName,
        /// The sender in the envelope.
        got: RoleName,
    },

    /// A payload could not be encoded.
    #[error("{role}: cannot encode the value of {key}: {message}")]
    Encode {
        /// The sending role.
        role: RoleName,
        /// The key.
        key: Box<Key>,
        /// The encoder's message.
        message: String,
    },

    /// A payload could not be decoded as the expected type.
    #[error("{role}: cannot decode the value of {key} from {from} as {ty}: {message}")]
    Decode {
        /// The receiving role.
        role: RoleName,
        /// The sender.
        from: RoleName,
        /// The key.
        key: Box<Key>,
        /// The expected type.
        ty: &'static str,
        /// The decoder's message.
        message: String,
    },

    /// The endpoint stopped (its incoming stream ended or it was dropped) while a
    /// communication was pending.
    #[error("{role}: endpoint closed while waiting for {key}")]
    Closed {
        /// The role.
        role: RoleName,
        /// The pending key.
        key: Box<Key>,
    },

    /// The transport lost the expected sender (its connection closed without a goodbye,
    /// or failed) while a receive from it was pending: it fails at once, not at its
    /// timeout, with the transport error's text.
    #[error("{role}: lost {from} while waiting for {key}: {message}")]
    PeerLost {
        /// The receiving role.
        role: RoleName,
        /// The sender that was lost.
        from: RoleName,
        /// The pending key.
        key: Box<Key>,
        /// The transport error's text.
        message: String,
    },

    /// A task of the choreography (a pending send or forward) panicked or was cancelled.
    #[error("{role}: a pending communication task failed: {message}")]
    Task {
        /// The role.
        role: RoleName,
        /// What happened.
        message: String,
    },

    /// A session number was run twice on one endpoint.
    #[error("{role}: session {session} was already run on this endpoint")]
    SessionReused {
        /// The role.
        role: RoleName,
        /// The session number.
        session: u64,
    },

    /// An endpoint was created outside a tokio runtime.
    #[error("an endpoint needs a tokio runtime: create it inside one")]
    NoRuntime,

    /// A role asked of a runner or transport is not part of it.
    #[error("no role {0} here")]
    UnknownRole(RoleName),
}

/// The result of choreography operations.
pub type Result<T, E = ChoreoError> = std::result::Result<T, E>;
