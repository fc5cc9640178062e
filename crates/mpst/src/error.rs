//! Errors of a session: every failure is a value that names the role, the peer and what
//! went wrong.

use std::error::Error as StdError;
use std::fmt;

/// Any error a session can end with.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Sending to a peer failed.
    Send(SendError),
    /// Receiving from a peer failed.
    Receive(ReceiveError),
    /// The process itself gave up (see [`Error::other`]), e.g. to leave an infinite
    /// protocol.
    Other(Box<dyn StdError + Send + Sync + 'static>),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Send(e) => e.fmt(f),
            Error::Receive(e) => e.fmt(f),
            Error::Other(e) => write!(f, "session aborted: {e}"),
        }
    }
}

impl StdError for Error {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            Error::Send(e) => Some(e),
            Error::Receive(e) => Some(e),
            Error::Other(e) => Some(e.as_ref()),
        }
    }
}

impl From<SendError> for Error {
    fn from(e: SendError) -> Self {
        Error::Send(e)
    }
}

impl From<ReceiveError> for Error {
    fn from(e: ReceiveError) -> Self {
        Error::Receive(e)
    }
}

impl Error {
    /// An error of the process itself, for leaving a session early (the session's `End`
    /// cannot be produced, so the closure returns this instead).
    pub fn other(error: impl Into<Box<dyn StdError + Send + Sync + 'static>>) -> Self {
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

    /// Whether the failure is due to the peer's channel being closed (the peer dropped).
    pub fn is_disconnected(&self) -> bool {
        match self {
            Error::Send(e) => matches!(e.kind, SendErrorKind::Disconnected),
            Error::Receive(e) => matches!(e.kind, ReceiveErrorKind::Disconnected),
            Error::Other(_) => false,
        }
    }
}

/// Sending the label `label` from `role` to `peer` failed.
#[derive(Debug)]
pub struct SendError {
    /// The role that sent ([`Role::NAME`](crate::Role::NAME)).
    pub role: &'static str,
    /// The peer it sent to.
    pub peer: &'static str,
    /// The label that could not be sent.
    pub label: &'static str,
    /// Why.
    pub kind: SendErrorKind,
}

/// Why a send failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum SendErrorKind {
    /// The peer's end of the channel is gone (the peer dropped its role or its channel).
    Disconnected,
    /// The channel reported another error (e.g. an I/O error of a network sink).
    Channel(Box<dyn StdError + Send + Sync + 'static>),
}

impl SendErrorKind {
    /// Classifies a sink error: the in-memory channels' "receiver gone" errors become
    /// [`SendErrorKind::Disconnected`], anything else is kept as [`SendErrorKind::Channel`].
    pub fn from_sink_error<E: StdError + Send + Sync + 'static>(error: E) -> Self {
        let any: &dyn std::any::Any = &error;
        if let Some(e) = any.downcast_ref::<futures::channel::mpsc::SendError>() {
            if e.is_disconnected() {
                return SendErrorKind::Disconnected;
            }
        }
        SendErrorKind::Channel(Box::new(error))
    }
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "role {} could not send label {} to {}: ",
            self.role, self.label, self.peer
        )?;
        match &self.kind {
            SendErrorKind::Disconnected => write!(f, "{} disconnected", self.peer),
            SendErrorKind::Channel(e) => write!(f, "channel error: {e}"),
        }
    }
}

impl StdError for SendError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match &self.kind {
            SendErrorKind::Channel(e) => Some(e.as_ref()),
            SendErrorKind::Disconnected => None,
        }
    }
}

/// Receiving from `peer` at `role` failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiveError {
    /// The role that received ([`Role::NAME`](crate::Role::NAME)).
    pub role: &'static str,
    /// The peer it received from.
    pub peer: &'static str,
    /// Why.
    pub kind: ReceiveErrorKind,
}

/// Why a receive failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReceiveErrorKind {
    /// The channel from the peer ended (the peer dropped its role or its channel).
    Disconnected,
    /// A message arrived with a label the session type does not allow here.
    UnexpectedLabel {
        /// The label that arrived.
        received: &'static str,
        /// The labels the session type allows at this point.
        expected: &'static [&'static str],
    },
}

impl fmt::Display for ReceiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "role {} could not receive from {}: ",
            self.role, self.peer
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
        }
    }
}

impl StdError for ReceiveError {}
