//! The one error type of the network layer: [`WireError`] names the peer it concerns as
//! authenticated (its role proved by a certificate), unauthenticated (its remote address,
//! with the role it merely claimed), or expected (a role that never connected) — so a
//! refusal never blames the role a stranger claimed.

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::codec::FrameError;

/// Who an error is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Peer {
    /// A peer whose role was proved (mutual TLS: its certificate names this role).
    Authenticated(String),
    /// A peer whose role is not proved: a stranger before or during the handshake, or any
    /// peer in insecure plaintext mode.
    Unauthenticated {
        /// Its remote address.
        address: SocketAddr,
        /// The role it claimed in its hello, if it got that far (not believed).
        claimed: Option<String>,
    },
    /// A role this side expected (dialled, or waited for) that it did not get.
    Expected(String),
    /// This side itself (its configuration, its listener).
    Local(String),
}

impl Peer {
    /// The role, when it is authenticated, expected or local; `None` for a stranger.
    pub fn role(&self) -> Option<&str> {
        match self {
            Peer::Authenticated(role) | Peer::Expected(role) | Peer::Local(role) => Some(role),
            Peer::Unauthenticated { .. } => None,
        }
    }

    /// The peer at `address`, nothing claimed yet.
    pub fn stranger(address: SocketAddr) -> Self {
        Peer::Unauthenticated {
            address,
            claimed: None,
        }
    }
}

impl fmt::Display for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Peer::Authenticated(role) => write!(f, "peer {role} (authenticated)"),
            Peer::Unauthenticated {
                address,
                claimed: None,
            } => write!(f, "unauthenticated peer at {address}"),
            Peer::Unauthenticated {
                address,
                claimed: Some(role),
            } => write!(
                f,
                "unauthenticated peer at {address} (claiming role {role})"
            ),
            Peer::Expected(role) => write!(f, "peer {role}"),
            Peer::Local(role) => write!(f, "role {role}"),
        }
    }
}

/// A failure of the network layer, with the peer it concerns.
#[derive(Debug)]
pub struct WireError {
    /// Who the failure is about.
    pub peer: Peer,
    /// What went wrong.
    pub kind: WireErrorKind,
}

/// One failed connection attempt while dialling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// What was dialled (`host:port`, or the resolved address).
    pub target: String,
    /// Why it failed.
    pub error: String,
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WireErrorKind {
    /// The socket failed.
    #[error("I/O error: {0}")]
    Io(io::Error),
    /// A frame was malformed, oversized or truncated.
    #[error("{0}")]
    Frame(FrameError),
    /// The TLS handshake failed (an untrusted certificate, none where one is required,
    /// a certificate for another role, or not TLS at all).
    #[error("TLS handshake failed: {0}")]
    Tls(io::Error),
    /// The other side refused this connection, for this reason.
    #[error("refused by the other side: {0}")]
    Refused(Refusal),
    /// This side refused the connection, for this reason (the other side was told).
    #[error("refused: {0}")]
    Refusing(Refusal),
    /// The handshake did not finish within the handshake time-out.
    #[error("handshake not finished within {0:?}")]
    HandshakeTimeout(Duration),
    /// The peer could not be connected before the connection deadline.
    #[error("not connected before the deadline ({})", attempts_text(.attempts, .errors))]
    NotConnected {
        /// Where it was dialled (`host:port`), or where this side listened.
        address: String,
        /// How many connection attempts were made (0 when waiting to be dialled).
        attempts: u32,
        /// The errors of the last attempts (at most [`KEPT_ATTEMPTS`](crate::dial::KEPT_ATTEMPTS)).
        errors: Vec<Attempt>,
    },
    /// Nothing arrived from the peer within the receive time-out.
    #[error("nothing received within {0:?}")]
    ReceiveTimeout(Duration),
    /// The connection carried no traffic (or a partial frame) for the idle time-out.
    #[error("idle (or stuck in a frame) for {0:?}")]
    IdleTimeout(Duration),
    /// The connection is closed.
    #[error("connection closed")]
    Closed,
    /// The configuration is not usable.
    #[error("configuration: {0}")]
    Config(String),
    /// An identity (CA, certificate or key) could not be loaded, issued or used.
    #[error("identity: {0}")]
    Identity(String),
}

fn attempts_text(attempts: &u32, errors: &[Attempt]) -> String {
    let mut text = match attempts {
        0 => "not dialled by it".to_owned(),
        1 => "1 attempt".to_owned(),
        n => format!("{n} attempts"),
    };
    if let Some(last) = errors.last() {
        text.push_str(&format!("; last: {}: {}", last.target, last.error));
    }
    text
}

/// Why a handshake refused a connection. It travels in the refusal, so both sides see
/// the same reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The first bytes were not an `mpst` hello.
    #[error("not an mpst peer (bad magic or malformed hello)")]
    NotMpst,
    /// The peers speak different wire versions.
    #[error("wire version {theirs} is not {ours}")]
    Version {
        /// The version of the refusing side.
        ours: u16,
        /// The version the other side spoke.
        theirs: u16,
    },
    /// The peers run different protocols (or versions of one).
    #[error("protocol {theirs:?} is not {ours:?}")]
    Protocol {
        /// The protocol of the refusing side.
        ours: String,
        /// The protocol the other side runs.
        theirs: String,
    },
    /// The dialler wanted another role than the one that answered.
    #[error("wanted role {wanted} but {answered} answered")]
    WrongRole {
        /// The role that answered.
        answered: String,
        /// The role the dialler wanted.
        wanted: String,
    },
    /// The dialler claims a role the acceptor does not accept connections from.
    #[error("role {claimed} is unknown or not expected to connect here")]
    UnknownRole {
        /// The role claimed.
        claimed: String,
    },
    /// A role connected more often than it may.
    #[error("role {role} already has all its connections")]
    Duplicate {
        /// The role.
        role: String,
    },
    /// The peer's certificate does not name the role it claims.
    #[error("the certificate names {certified} but the peer claimed role {claimed}")]
    Certificate {
        /// The role claimed in the hello.
        claimed: String,
        /// What the certificate names (roles, or a description).
        certified: String,
    },
    /// A handshake message that belongs to another connection: the dialler's
    /// confirmation does not echo the acceptor's nonce, or the acceptor's final word
    /// does not carry this connection's transcript (bytes recorded elsewhere, replayed).
    #[error("a handshake message does not belong to this connection's nonces (a replay?)")]
    Replay,
    /// A plaintext peer reached a port that accepts mutual TLS only.
    #[error("this port accepts mutual TLS only, and the peer spoke plaintext")]
    TlsRequired,
    /// The application refused the peer (e.g. another session type's fingerprint).
    #[error("{0}")]
    Application(String),
}

impl WireError {
    /// An error about `peer`.
    pub fn new(peer: Peer, kind: WireErrorKind) -> Self {
        Self { peer, kind }
    }

    /// A configuration error of `role`.
    pub fn config(role: &str, message: impl fmt::Display) -> Self {
        Self::new(
            Peer::Local(role.to_owned()),
            WireErrorKind::Config(message.to_string()),
        )
    }

    /// An identity error of `role`.
    pub fn identity(role: &str, message: impl fmt::Display) -> Self {
        Self::new(
            Peer::Local(role.to_owned()),
            WireErrorKind::Identity(message.to_string()),
        )
    }

    /// The refusal, when this error is one (sent or received).
    pub fn refusal(&self) -> Option<&Refusal> {
        match &self.kind {
            WireErrorKind::Refused(r) | WireErrorKind::Refusing(r) => Some(r),
            _ => None,
        }
    }

    /// Whether the peer is gone: the connection was closed, truncated or reset.
    pub fn is_disconnected(&self) -> bool {
        match &self.kind {
            WireErrorKind::Closed | WireErrorKind::Frame(FrameError::Truncated { .. }) => true,
            WireErrorKind::Io(e) | WireErrorKind::Frame(FrameError::Io(e)) => {
                is_disconnect(e.kind())
            }
            _ => false,
        }
    }
}

/// Whether an I/O error kind means the other side closed or reset the connection.
pub fn is_disconnect(kind: io::ErrorKind) -> bool {
    matches!(
        kind,
        io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::UnexpectedEof
    )
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.peer, self.kind)
    }
}

impl std::error::Error for WireError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            WireErrorKind::Io(e) | WireErrorKind::Tls(e) => Some(e),
            WireErrorKind::Frame(e) => Some(e),
            WireErrorKind::Refused(e) | WireErrorKind::Refusing(e) => Some(e),
            _ => None,
        }
    }
}
