//! Errors of the TCP transport: every failure names the peer and says what went wrong
//! (I/O, framing, decoding, time-outs, the handshake, the configuration).

use std::error::Error as StdError;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

/// A failure of the TCP transport, with the peer role it concerns.
#[derive(Debug)]
pub struct NetError {
    /// The peer role the failure concerns (its name as in the configuration, once it
    /// is known or proved), or the remote address in brackets for a connection that has
    /// not proved its role: a refusal never names the role a connection merely claims.
    pub peer: String,
    /// What went wrong.
    pub kind: NetErrorKind,
}

/// What went wrong on a connection.
#[derive(Debug)]
#[non_exhaustive]
pub enum NetErrorKind {
    /// The socket failed (e.g. the connection was reset).
    Io(io::Error),
    /// The connection is closed: sending after the route failed, was aborted, or saw the
    /// peer close it.
    Closed,
    /// The peer closed the connection in the middle of a frame.
    Truncated {
        /// How many bytes of the unfinished frame had arrived.
        buffered: usize,
    },
    /// A frame's length prefix exceeds the configured limit (sending or receiving).
    FrameTooLarge {
        /// The announced (or encoded) length in bytes.
        length: usize,
        /// The configured limit.
        limit: usize,
    },
    /// A frame did not decode as a label of the protocol.
    Decode(postcard::Error),
    /// A frame decoded, but bytes were left over after the label.
    TrailingBytes {
        /// How many bytes were left over.
        count: usize,
    },
    /// A label could not be encoded.
    Encode(postcard::Error),
    /// Nothing arrived from the peer within the receive time-out.
    ReceiveTimeout(Duration),
    /// The peer could not be reached before the connection deadline.
    ConnectTimeout {
        /// The address that was dialled or listened on.
        address: SocketAddr,
        /// The last error seen while trying, if any.
        last: Option<io::Error>,
    },
    /// The handshake refused the connection.
    Handshake(HandshakeError),
    /// The TLS handshake failed (feature `tls`), e.g. the peer's certificate is not
    /// trusted, or the peer presented none where one is required.
    Tls(io::Error),
    /// The configuration is not usable.
    Config(String),
}

/// Why a handshake refused a connection. Both sides see the same reason.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, thiserror::Error)]
#[non_exhaustive]
pub enum HandshakeError {
    /// The first bytes were not an `mpst` handshake of this wire version.
    #[error("not an mpst peer of this wire version")]
    NotMpst,
    /// The peers run different protocols (or versions of one).
    #[error("protocol {theirs:?} is not {ours:?}")]
    Protocol {
        /// The protocol this side runs.
        ours: String,
        /// The protocol the other side runs.
        theirs: String,
    },
    /// The dialler claims to be a role the acceptor does not know or does not expect to
    /// dial it.
    #[error("role {claimed} is unknown or not expected to connect here")]
    UnknownRole {
        /// The role claimed.
        claimed: String,
    },
    /// The dialler wanted to reach another role than the one that answered.
    #[error("wanted role {wanted} but {answered} answered")]
    WrongRole {
        /// The role that answered.
        answered: String,
        /// The role the dialler wanted.
        wanted: String,
    },
    /// The connection proved one role (its certificate) but claimed another.
    #[error("the connection proved role {proved} but claimed {claimed}")]
    Impersonation {
        /// The role the connection's certificate names.
        proved: String,
        /// The role its hello claimed.
        claimed: String,
    },
    /// A role connected twice.
    #[error("role {role} connected twice")]
    Duplicate {
        /// The role that connected twice.
        role: String,
    },
    /// The peer's session type fingerprint is not the one this side expects of that role.
    #[error("role {role} runs another session type (fingerprint {received}, expected {expected})")]
    Fingerprint {
        /// The role whose fingerprint differs.
        role: String,
        /// The fingerprint expected (hex).
        expected: String,
        /// The fingerprint received (hex).
        received: String,
    },
    /// The other side refused the connection for this reason.
    #[error("the other side refused: {0}")]
    Refused(Box<HandshakeError>),
}

impl NetError {
    /// An error about `peer`.
    pub fn new(peer: impl Into<String>, kind: NetErrorKind) -> Self {
        Self {
            peer: peer.into(),
            kind,
        }
    }

    /// Whether the peer is gone: the connection was closed, truncated or reset.
    pub fn is_disconnected(&self) -> bool {
        match &self.kind {
            NetErrorKind::Closed | NetErrorKind::Truncated { .. } => true,
            NetErrorKind::Io(e) => matches!(
                e.kind(),
                io::ErrorKind::ConnectionReset
                    | io::ErrorKind::ConnectionAborted
                    | io::ErrorKind::BrokenPipe
                    | io::ErrorKind::UnexpectedEof
            ),
            _ => false,
        }
    }
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "peer {}: ", self.peer)?;
        match &self.kind {
            NetErrorKind::Io(e) => write!(f, "I/O error: {e}"),
            NetErrorKind::Closed => write!(f, "connection closed"),
            NetErrorKind::Truncated { buffered } => {
                write!(
                    f,
                    "connection closed in the middle of a frame ({buffered} bytes received)"
                )
            }
            NetErrorKind::FrameTooLarge { length, limit } => {
                write!(
                    f,
                    "frame of {length} bytes exceeds the limit of {limit} bytes"
                )
            }
            NetErrorKind::Decode(e) => write!(f, "malformed frame: {e}"),
            NetErrorKind::TrailingBytes { count } => {
                write!(f, "malformed frame: {count} bytes after the label")
            }
            NetErrorKind::Encode(e) => write!(f, "could not encode a label: {e}"),
            NetErrorKind::ReceiveTimeout(d) => write!(f, "nothing received within {d:?}"),
            NetErrorKind::ConnectTimeout { address, last } => {
                write!(f, "not connected at {address} before the deadline")?;
                match last {
                    Some(e) => write!(f, " (last error: {e})"),
                    None => Ok(()),
                }
            }
            NetErrorKind::Handshake(e) => write!(f, "handshake refused: {e}"),
            NetErrorKind::Tls(e) => write!(f, "TLS handshake failed: {e}"),
            NetErrorKind::Config(e) => write!(f, "configuration: {e}"),
        }
    }
}

impl StdError for NetError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match &self.kind {
            NetErrorKind::Io(e) | NetErrorKind::Tls(e) => Some(e),
            NetErrorKind::Decode(e) | NetErrorKind::Encode(e) => Some(e),
            NetErrorKind::ConnectTimeout { last: Some(e), .. } => Some(e),
            NetErrorKind::Handshake(e) => Some(e),
            _ => None,
        }
    }
}
