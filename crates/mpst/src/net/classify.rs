//! Reading a session's [`Error`] in network terms: did the peer go away (closed, reset,
//! aborted — however the socket said it), whichever step noticed first.

use crate::{Error, ReceiveErrorKind, SendError, SendErrorKind};

use super::any::AnyRouteError;
use super::error::NetError;

/// The [`NetError`] under a session error, if a TCP route caused it (directly, through an
/// [`AnyRoute`](super::AnyRoute), or through the flush before a receive).
pub fn net_error(error: &Error) -> Option<&NetError> {
    match error {
        Error::Send(e) => send_cause(e),
        Error::Receive(e) => match &e.kind {
            ReceiveErrorKind::Transport(cause) => downcast(cause.as_ref()),
            ReceiveErrorKind::Flush(send) => send_cause(send),
            _ => None,
        },
        _ => None,
    }
}

fn send_cause(error: &SendError) -> Option<&NetError> {
    match &error.kind {
        SendErrorKind::Transport(cause) => downcast(cause.as_ref()),
        _ => None,
    }
}

fn downcast<'e>(
    cause: &'e (dyn std::error::Error + Send + Sync + 'static),
) -> Option<&'e NetError> {
    if let Some(net) = cause.downcast_ref::<NetError>() {
        return Some(net);
    }
    match cause.downcast_ref::<AnyRouteError>() {
        Some(AnyRouteError::Net(net)) => Some(net),
        _ => None,
    }
}

/// Whether the session failed because the peer went away: the runtime's
/// [`Error::is_disconnected`], or a connection closed, truncated or reset under it
/// (which of these a socket reports depends on timing, e.g. whether a write raced the
/// peer's close).
pub fn is_disconnected(error: &Error) -> bool {
    error.is_disconnected()
        || match error {
            Error::Receive(e) => {
                matches!(&e.kind, ReceiveErrorKind::Flush(s) if matches!(s.kind, SendErrorKind::Disconnected))
            }
            _ => false,
        }
        || net_error(error).is_some_and(NetError::is_disconnected)
}
