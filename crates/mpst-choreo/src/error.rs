//! The error type of choreographies: every failed communication is a value that says
//! what failed and where (key, site, peer), never a panic.
//!
//! [`ChoreoError`] is small (16 bytes on 64-bit targets, where its largest variant made
//! it 96): every `Result` the operators return, hold or poll is at least its size. Every
//! variant with data holds it boxed: in the structs of this module (named like their
//! variants, with the same fields) or, for [`ChoreoError::UnknownRole`], the name. They
//! are rare (a run that fails), so the box costs nothing on the path of a run that
//! succeeds. Their `Display` and `Debug` are the variant's own, as before they were boxed.

use std::fmt;
use std::time::Duration;

use crate::key::{Key, Site};
use crate::role::RoleName;
use crate::transport::TransportError;

/// Why a choreography (or one of its communications) failed.
///
/// The variants with data hold it boxed, so that every `Result` stays small (see the
/// [module](crate::error) docs): match them with `ChoreoError::Timeout(t)` and read
/// `t.role`, `t.key`, …, or with `ChoreoError::Timeout { .. }`. New kinds of failure may
/// be added (as [`ChoreoError::NoTimer`] was), so a `match` needs a last arm for the rest.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum ChoreoError {
    /// The transport failed.
    #[error(transparent)]
    Transport(Box<TransportError>),

    /// No message with the expected key arrived in time (it was lost, or its sender failed).
    #[error(transparent)]
    Timeout(Box<Timeout>),

    /// One integrity key was used by two communications at one role: two receives, two
    /// sends to one peer, or two sites whose identifiers collide.
    #[error(transparent)]
    KeyReused(Box<KeyReused>),

    /// A message with the right key came from a role other than the expected sender.
    /// Endpoints file envelopes by sender as well as key and refuse such deliveries
    /// (counted in [`crate::EndpointStats::wrong_sender_refused`]), so a receive never
    /// ends with it; it is kept for transports that bypass the mailbox.
    #[error(transparent)]
    WrongSender(Box<WrongSender>),

    /// A payload could not be encoded.
    #[error(transparent)]
    Encode(Box<Encode>),

    /// A payload could not be decoded as the expected type.
    #[error(transparent)]
    Decode(Box<Decode>),

    /// The endpoint stopped (its incoming stream ended, it was dropped, or the runtime
    /// that ran its task shut down) while a communication was pending.
    #[error(transparent)]
    Closed(Box<Closed>),

    /// The transport lost the expected sender (its connection closed without a goodbye,
    /// or failed) while a receive from it was pending: it fails at once, not at its
    /// timeout, with the transport error's text.
    #[error(transparent)]
    PeerLost(Box<PeerLost>),

    /// A task of the choreography (a pending send or forward) panicked or was cancelled.
    #[error(transparent)]
    Task(Box<Task>),

    /// A session number was run twice on one endpoint.
    #[error(transparent)]
    SessionReused(Box<SessionReused>),

    /// A receive would wait, but nothing could time it out: the endpoint's task that
    /// times receives out stopped before its first sleep, because its tokio runtime has
    /// no timer (built without `enable_time()` or `enable_all()`).
    #[error(transparent)]
    NoTimer(Box<NoTimer>),

    /// An endpoint was created outside a tokio runtime.
    #[error("an endpoint needs a tokio runtime: create it inside one")]
    NoRuntime,

    /// A role asked of a runner or transport is not part of it.
    #[error("no role {0} here")]
    UnknownRole(Box<RoleName>),
}

impl fmt::Debug for ChoreoError {
    /// As derived for the variants with their fields inline: a boxed variant shows as
    /// its details (`Timeout { role: .., .. }`), which are named like it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Transport(e) => f.debug_tuple("Transport").field(e).finish(),
            Self::Timeout(e) => e.fmt(f),
            Self::KeyReused(e) => e.fmt(f),
            Self::WrongSender(e) => e.fmt(f),
            Self::Encode(e) => e.fmt(f),
            Self::Decode(e) => e.fmt(f),
            Self::Closed(e) => e.fmt(f),
            Self::PeerLost(e) => e.fmt(f),
            Self::Task(e) => e.fmt(f),
            Self::SessionReused(e) => e.fmt(f),
            Self::NoTimer(e) => e.fmt(f),
            Self::NoRuntime => f.write_str("NoRuntime"),
            Self::UnknownRole(role) => f.debug_tuple("UnknownRole").field(role).finish(),
        }
    }
}

impl From<TransportError> for ChoreoError {
    fn from(e: TransportError) -> Self {
        Self::Transport(Box::new(e))
    }
}

/// The details of [`ChoreoError::Timeout`].
#[derive(Debug, thiserror::Error)]
#[error(
    "{role}: timed out after {after:?} waiting for {key} from {from}{}",
    dropped_hint(*unclaimed_dropped)
)]
pub struct Timeout {
    /// The receiving role.
    pub role: RoleName,
    /// The expected sender.
    pub from: RoleName,
    /// The key that never arrived.
    pub key: Key,
    /// The configured timeout.
    pub after: Duration,
    /// How many envelopes the receiving endpoint had dropped unclaimed when the receive
    /// timed out, to stay within its bounds ([`EndpointConfig::unclaimed_limit`],
    /// `unclaimed_bytes`, `unclaimed_age`; [`EndpointStats::unclaimed_dropped`]). Not 0:
    /// the awaited envelope may have been one of them, for instance when its sender ran
    /// more sessions ahead than the limit (the message says so).
    ///
    /// [`EndpointConfig::unclaimed_limit`]: crate::EndpointConfig::unclaimed_limit
    /// [`EndpointStats::unclaimed_dropped`]: crate::EndpointStats::unclaimed_dropped
    pub unclaimed_dropped: u64,
}

/// What a time-out adds when its endpoint dropped envelopes nobody had claimed.
fn dropped_hint(dropped: u64) -> String {
    if dropped == 0 {
        return String::new();
    }
    let envelopes = if dropped == 1 {
        "envelope"
    } else {
        "envelopes"
    };
    format!(
        " (this endpoint dropped {dropped} {envelopes} that no receive had claimed, to stay \
         within its unclaimed_limit, unclaimed_bytes and unclaimed_age: the awaited one may \
         be among them if its sender ran that far ahead; raise the bounds in \
         EndpointConfig or keep the sender fewer sessions ahead)"
    )
}

/// The details of [`ChoreoError::KeyReused`].
#[derive(Clone, Debug, thiserror::Error)]
#[error(
    "{role}: integrity key {key} used twice, first at {first}, again at {second} \
     (call a helper that communicates through #[track_caller], or give each use its own \
     call, iteration or session)"
)]
pub struct KeyReused {
    /// The role that noticed.
    pub role: RoleName,
    /// The key.
    pub key: Key,
    /// Where it was first used.
    pub first: Site,
    /// Where it was used again.
    pub second: Site,
}

/// The details of [`ChoreoError::WrongSender`].
#[derive(Debug, thiserror::Error)]
#[error("{role}: message {key} came from {got}, expected {expected}")]
pub struct WrongSender {
    /// The receiving role.
    pub role: RoleName,
    /// The key.
    pub key: Key,
    /// The sender the choreography names.
    pub expected: RoleName,
    /// The sender in the envelope.
    pub got: RoleName,
}

/// The details of [`ChoreoError::Encode`].
#[derive(Debug, thiserror::Error)]
#[error("{role}: cannot encode the value of {key}: {message}")]
pub struct Encode {
    /// The sending role.
    pub role: RoleName,
    /// The key.
    pub key: Key,
    /// The encoder's message.
    pub message: String,
}

/// The details of [`ChoreoError::Decode`].
#[derive(Debug, thiserror::Error)]
#[error("{role}: cannot decode the value of {key} from {from} as {ty}: {message}")]
pub struct Decode {
    /// The receiving role.
    pub role: RoleName,
    /// The sender.
    pub from: RoleName,
    /// The key.
    pub key: Key,
    /// The expected type.
    pub ty: &'static str,
    /// The decoder's message.
    pub message: String,
}

/// The details of [`ChoreoError::Closed`].
#[derive(Debug, thiserror::Error)]
#[error("{role}: endpoint closed while waiting for {key}")]
pub struct Closed {
    /// The role.
    pub role: RoleName,
    /// The pending key.
    pub key: Key,
}

/// The details of [`ChoreoError::NoTimer`].
#[derive(Debug, thiserror::Error)]
#[error(
    "{role}: the receive of {key} cannot time out, so it fails instead of waiting: the \
     endpoint's timer task stopped (is its tokio runtime built without timers? build it \
     with `enable_all()` or `enable_time()`)"
)]
pub struct NoTimer {
    /// The role.
    pub role: RoleName,
    /// The key the receive was for.
    pub key: Key,
}

/// The details of [`ChoreoError::SessionReused`].
#[derive(Debug, thiserror::Error)]
#[error("{role}: session {session} was already run on this endpoint")]
pub struct SessionReused {
    /// The role.
    pub role: RoleName,
    /// The session number.
    pub session: u64,
}

/// The details of [`ChoreoError::PeerLost`].
#[derive(Debug, thiserror::Error)]
#[error("{role}: lost {from} while waiting for {key}: {message}")]
pub struct PeerLost {
    /// The receiving role.
    pub role: RoleName,
    /// The sender that was lost.
    pub from: RoleName,
    /// The pending key.
    pub key: Key,
    /// The transport error's text.
    pub message: String,
}

/// The details of [`ChoreoError::Task`].
#[derive(Debug, thiserror::Error)]
#[error("{role}: a pending communication task failed: {message}")]
pub struct Task {
    /// The role.
    pub role: RoleName,
    /// What happened.
    pub message: String,
}

/// The result of choreography operations.
pub type Result<T, E = ChoreoError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Token;

    /// Every `Result` of the operators is at least this big: it stays at most 16 bytes.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn the_error_stays_small() {
        assert!(std::mem::size_of::<ChoreoError>() <= 16);
        assert!(std::mem::size_of::<Result<()>>() <= 16);
    }

    /// Boxing the details changed neither what a user reads (`Display`) nor what a
    /// failed `unwrap` prints (`Debug`: the variant's name and its fields).
    #[test]
    fn a_boxed_variant_displays_and_debugs_as_its_fields() {
        let key = Key::new(Site::from_id(7), Token::session(3));
        let timeout = ChoreoError::Timeout(Box::new(Timeout {
            role: RoleName::from("B"),
            from: RoleName::from("A"),
            key: key.clone(),
            after: Duration::from_secs(5),
            unclaimed_dropped: 0,
        }));
        assert_eq!(
            timeout.to_string(),
            format!("B: timed out after 5s waiting for {key} from A")
        );
        let debug = format!("{timeout:?}");
        assert!(debug.starts_with("Timeout { role: "), "{debug}");
        assert!(debug.contains("after: 5s"), "{debug}");
        let reused = ChoreoError::SessionReused(Box::new(SessionReused {
            role: RoleName::from("A"),
            session: 4,
        }));
        assert_eq!(
            reused.to_string(),
            "A: session 4 was already run on this endpoint"
        );
        assert!(format!("{reused:?}").starts_with("SessionReused { role: "));
        let unknown = ChoreoError::UnknownRole(Box::new(RoleName::from("C")));
        assert_eq!(unknown.to_string(), "no role C here");
    }
}
