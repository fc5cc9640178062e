//! Errors of the TCP transport: every failure names the peer and says what went wrong —
//! on a route (I/O, framing, decoding, the receive time-out), or while connecting (the
//! network layer's [`WireErrorKind`]: refusals, TLS, deadlines, identities).

use std::error::Error as StdError;
use std::fmt;
use std::io;
use std::time::Duration;

use mpst_wire::{FrameError, Peer, Refusal, WireError, WireErrorKind};

/// A failure of the TCP transport, with the peer role it concerns.
#[derive(Debug)]
pub struct NetError {
    /// The peer role the failure concerns: its name as in the configuration once it is
    /// proved (mutual TLS), expected or connected; the remote address in brackets for a
    /// connection that has not proved its role — a refusal never names the role a
    /// connection merely claims.
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
    /// Part of a frame arrived, then nothing more within the idle time-out.
    IdleTimeout(Duration),
    /// A send waited for the peer to take buffered bytes, and it took none of them
    /// within the idle time-out (the peer is cut off, or stopped reading).
    SendTimeout(Duration),
    /// Labels sent to the peer stayed unacknowledged, and the peer said nothing at all
    /// (no label, no acknowledgement) for the idle time-out: it is cut off (a
    /// partition, a relay that stopped forwarding) or stopped reading, however much TCP
    /// buffered.
    Unacknowledged {
        /// Labels written out and not acknowledged.
        labels: u64,
        /// The idle time-out the peer's silence exceeded.
        timeout: Duration,
    },
    /// The peer closed the connection while labels sent to it were unacknowledged (seen
    /// while waiting for every label to be acknowledged).
    ClosedUnacknowledged {
        /// Labels not acknowledged.
        labels: u64,
    },
    /// The peer acknowledged more labels than were sent to it: a protocol error (a
    /// forged or broken acknowledgement).
    Overacknowledged {
        /// The count the peer acknowledged.
        acknowledged: u64,
        /// Labels sent so far.
        sent: u64,
    },
    /// Connecting failed in the network layer: a refusal (read from the other side,
    /// [`WireErrorKind::Refused`], or made by this side, [`WireErrorKind::Refusing`]), a
    /// TLS failure, a peer not connected before the deadline
    /// ([`WireErrorKind::NotConnected`]), an identity that cannot be used, ...
    Wire(WireErrorKind),
    /// The configuration is not usable.
    Config(String),
}

impl NetError {
    /// An error about `peer`.
    pub fn new(peer: impl Into<String>, kind: NetErrorKind) -> Self {
        Self {
            peer: peer.into(),
            kind,
        }
    }

    /// The handshake's refusal, when this error is one (read from the other side or
    /// made by this side).
    pub fn refusal(&self) -> Option<&Refusal> {
        match &self.kind {
            NetErrorKind::Wire(WireErrorKind::Refused(r) | WireErrorKind::Refusing(r)) => Some(r),
            _ => None,
        }
    }

    /// Whether the peer is gone: the connection was closed, truncated or reset.
    pub fn is_disconnected(&self) -> bool {
        match &self.kind {
            NetErrorKind::Closed
            | NetErrorKind::ClosedUnacknowledged { .. }
            | NetErrorKind::Truncated { .. }
            | NetErrorKind::Wire(WireErrorKind::Closed) => true,
            NetErrorKind::Io(e) | NetErrorKind::Wire(WireErrorKind::Io(e)) => {
                mpst_wire::error::is_disconnect(e.kind())
            }
            _ => false,
        }
    }
}

/// How an error names a peer: its role when proved, expected or local; its address in
/// brackets when it proved nothing.
fn peer_name(peer: &Peer) -> String {
    match peer {
        Peer::Authenticated(role) | Peer::Expected(role) | Peer::Local(role) => role.clone(),
        Peer::Unauthenticated { address, .. } => format!("[{address}]"),
    }
}

impl From<WireError> for NetError {
    fn from(error: WireError) -> Self {
        NetError::new(peer_name(&error.peer), NetErrorKind::Wire(error.kind))
    }
}

impl From<FrameError> for NetErrorKind {
    fn from(error: FrameError) -> Self {
        match error {
            FrameError::Io(e) => NetErrorKind::Io(e),
            FrameError::TooLarge { length, limit } => NetErrorKind::FrameTooLarge { length, limit },
            FrameError::Decode(e) => NetErrorKind::Decode(e),
            FrameError::TrailingBytes { count } => NetErrorKind::TrailingBytes { count },
            FrameError::Truncated { buffered } => NetErrorKind::Truncated { buffered },
            FrameError::Encode(e) => NetErrorKind::Encode(e),
            other => NetErrorKind::Io(io::Error::other(other.to_string())),
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
            NetErrorKind::IdleTimeout(d) => {
                write!(f, "stuck in the middle of a frame for {d:?}")
            }
            NetErrorKind::SendTimeout(d) => {
                write!(f, "took none of the bytes sent to it for {d:?}")
            }
            NetErrorKind::Unacknowledged { labels, timeout } => write!(
                f,
                "acknowledged none of the last {labels} labels sent to it and said nothing \
                 for {timeout:?} (cut off, or not reading)"
            ),
            NetErrorKind::ClosedUnacknowledged { labels } => write!(
                f,
                "connection closed with {labels} labels sent to it unacknowledged"
            ),
            NetErrorKind::Overacknowledged { acknowledged, sent } => write!(
                f,
                "protocol error: acknowledged {acknowledged} labels of the {sent} sent to it"
            ),
            NetErrorKind::Wire(e) => write!(f, "{e}"),
            NetErrorKind::Config(e) => write!(f, "configuration: {e}"),
        }
    }
}

impl StdError for NetError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match &self.kind {
            NetErrorKind::Io(e) => Some(e),
            NetErrorKind::Decode(e) | NetErrorKind::Encode(e) => Some(e),
            NetErrorKind::Wire(e) => e.source(),
            _ => None,
        }
    }
}
