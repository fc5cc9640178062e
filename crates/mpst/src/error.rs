//! Errors of a session: every failure is a value that names the role, the peer, the
//! protocol state and what went wrong.

use std::error::Error as StdError;
use std::fmt;

use crate::channel::ChannelError;

/// A boxed error of a transport (an I/O error, a decode error, ...).
pub type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// Any error a session can end with. It displays as the send or receive error it
/// holds (which is also its [`source`](StdError::source)), or `session aborted: ...`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Sending to a peer failed.
    #[error("{0}")]
    Send(#[from] SendError),
    /// Receiving from a peer failed.
    #[error("{0}")]
    Receive(#[from] ReceiveError),
    /// The process itself gave up (see [`Error::other`]), e.g. to leave an infinite
    /// protocol.
    #[error("session aborted: {0}")]
    Other(#[source] BoxError),
}

/// The sends' futures fail with a boxed [`SendError`] (pointer-sized, so the session's
/// future stays small); `?` unboxes it into [`Error::Send`].
impl From<Box<SendError>> for Error {
    fn from(error: Box<SendError>) -> Self {
        Error::Send(*error)
    }
}

impl Error {
    /// An error of the process itself, for leaving a session early (the session's `End`
    /// cannot be produced, so the closure returns this instead).
    pub fn other(error: impl Into<BoxError>) -> Self {
        Error::Other(error.into())
    }

    /// The peer involved in the failed send or receive (`None` for [`Error::Other`]).
    pub fn peer(&self) -> Option<&'static str> {
        match self {
            Error::Send(e) => Some(e.peer),
            Error::Receive(e) => Some(e.peer),
            Error::Other(_) => None,
        }
    }

    /// Whether the failure is due to the peer's channel being closed (the peer's session
    /// failed or was cancelled, or the peer dropped its role).
    pub fn is_disconnected(&self) -> bool {
        match self {
            Error::Send(e) => matches!(e.kind, SendErrorKind::Disconnected),
            Error::Receive(e) => matches!(e.kind, ReceiveErrorKind::Disconnected),
            Error::Other(_) => false,
        }
    }

    /// Whether the failure is a deadline that passed (see [`crate::deadline`]).
    pub fn is_timeout(&self) -> bool {
        match self {
            Error::Send(e) => matches!(e.kind, SendErrorKind::TimedOut),
            Error::Receive(e) => matches!(e.kind, ReceiveErrorKind::TimedOut),
            Error::Other(e) => e.is::<crate::deadline::SessionTimedOut>(),
        }
    }
}

/// Sending from `role` to `peer` failed.
#[derive(Debug)]
pub struct SendError {
    /// The role that sent ([`Role::NAME`](crate::Role::NAME)).
    pub role: &'static str,
    /// The peer it sent to.
    pub peer: &'static str,
    /// The label that could not be sent; `None` when flushing earlier, buffered sends
    /// failed (before a receive or at `End`).
    pub label: Option<&'static str>,
    /// The protocol state: the full [`std::any::type_name`] of the session type at the
    /// failed step (`Display` shortens it, see [`SendError::state_name`]).
    pub state: &'static str,
    /// Why.
    pub kind: SendErrorKind,
}

/// Why a send failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum SendErrorKind {
    /// The peer's end of the channel is gone (the peer's session failed or was cancelled,
    /// or the peer dropped its role or its channel).
    Disconnected,
    /// The transport reported another error (e.g. an I/O error of a network sink, or an
    /// in-memory channel closed by an earlier failed session of this role).
    Transport(BoxError),
    /// The session's deadline passed while the send waited for the route to take the
    /// message (a full bounded channel, a slow transport).
    TimedOut,
}

impl SendErrorKind {
    /// Classifies a sink error: "receiver gone" errors of the in-memory channels become
    /// [`SendErrorKind::Disconnected`], anything else is kept as
    /// [`SendErrorKind::Transport`].
    pub fn from_sink_error<E: StdError + Send + Sync + 'static>(error: E) -> Self {
        let any: &dyn std::any::Any = &error;
        if let Some(ChannelError::Disconnected) = any.downcast_ref::<ChannelError>() {
            return SendErrorKind::Disconnected;
        }
        if let Some(e) = any.downcast_ref::<futures::channel::mpsc::SendError>() {
            if e.is_disconnected() {
                return SendErrorKind::Disconnected;
            }
        }
        SendErrorKind::Transport(Box::new(error))
    }
}

impl SendError {
    /// The protocol state as a person reads it: module paths, lifetimes and the role
    /// itself left out, nesting beyond two levels elided (`Send<B, Add, Receive<B, Sum,
    /// End>>`).
    pub fn state_name(&self) -> String {
        crate::state_name::short(self.state, self.role)
    }
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.label {
            Some(label) => write!(
                f,
                "role {} could not send label {label} to {}",
                self.role, self.peer
            )?,
            None => write!(
                f,
                "role {} could not flush its sends to {}",
                self.role, self.peer
            )?,
        }
        write!(f, " (at {}): ", self.state_name())?;
        match &self.kind {
            SendErrorKind::Disconnected => write!(f, "{} disconnected", self.peer),
            SendErrorKind::Transport(e) => write!(f, "transport error: {e}"),
            SendErrorKind::TimedOut => write!(f, "timed out"),
        }
    }
}

impl StdError for SendError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match &self.kind {
            SendErrorKind::Transport(e) => Some(e.as_ref()),
            SendErrorKind::Disconnected | SendErrorKind::TimedOut => None,
        }
    }
}

/// Receiving from `peer` at `role` failed.
#[derive(Debug)]
pub struct ReceiveError {
    /// The role that received ([`Role::NAME`](crate::Role::NAME)).
    pub role: &'static str,
    /// The peer it received from.
    pub peer: &'static str,
    /// The protocol state: the full [`std::any::type_name`] of the session type at the
    /// failed step (`Display` shortens it, see [`ReceiveError::state_name`]).
    pub state: &'static str,
    /// Why.
    pub kind: ReceiveErrorKind,
}

/// Why a receive failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ReceiveErrorKind {
    /// The channel from the peer ended (the peer's session failed or was cancelled, or the
    /// peer dropped its role or its channel).
    Disconnected,
    /// A message arrived with a label the session type does not allow here.
    UnexpectedLabel {
        /// The label that arrived.
        received: &'static str,
        /// The labels the session type allows at this point.
        expected: &'static [&'static str],
    },
    /// The transport failed to deliver the next message (an I/O or decode error, or an
    /// in-memory channel closed by an earlier failed session of this role).
    Transport(BoxError),
    /// Before waiting for the message, the role flushed its buffered sends, and that
    /// failed (the error names the peer the sends were for).
    Flush(Box<SendError>),
    /// No message arrived before the deadline (see [`crate::deadline`]).
    TimedOut,
}

impl ReceiveErrorKind {
    /// Classifies an error of a receiving route as [`ReceiveErrorKind::Transport`].
    pub fn from_stream_error<E: StdError + Send + Sync + 'static>(error: E) -> Self {
        ReceiveErrorKind::Transport(Box::new(error))
    }
}

impl ReceiveError {
    /// The protocol state as a person reads it (see [`SendError::state_name`]).
    pub fn state_name(&self) -> String {
        crate::state_name::short(self.state, self.role)
    }
}

impl fmt::Display for ReceiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "role {} could not receive from {} (at {}): ",
            self.role,
            self.peer,
            self.state_name()
        )?;
        match &self.kind {
            ReceiveErrorKind::Disconnected => write!(f, "{} disconnected", self.peer),
            ReceiveErrorKind::UnexpectedLabel { received, expected } => {
                write!(f, "unexpected label {received}, expected ")?;
                match expected {
                    [one] => write!(f, "{one}"),
                    many => write!(f, "one of {}", many.join(", ")),
                }
            }
            ReceiveErrorKind::Transport(e) => write!(f, "transport error: {e}"),
            ReceiveErrorKind::Flush(e) => write!(f, "{e}"),
            ReceiveErrorKind::TimedOut => write!(f, "timed out"),
        }
    }
}

impl StdError for ReceiveError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match &self.kind {
            ReceiveErrorKind::Transport(e) => Some(e.as_ref()),
            ReceiveErrorKind::Flush(e) => Some(e.as_ref()),
            _ => None,
        }
    }
}
