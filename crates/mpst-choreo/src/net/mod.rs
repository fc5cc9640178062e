//! Network transports (features `tcp` and `quic`): what they share — the wire format, the
//! frame-size limit, the fault-injection hook and error helpers.

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::role::RoleName;
use crate::transport::{Envelope, Incoming, TransportCause, TransportError};

#[cfg(feature = "quic")]
pub mod quic;
#[cfg(feature = "tcp")]
pub mod tcp;

/// The largest frame a network transport sends or accepts unless configured otherwise:
/// 16 MiB.
pub const DEFAULT_MAX_FRAME: usize = 16 * 1024 * 1024;

/// Decides, for each envelope sent, whether to hold it back until a future completes: a
/// fault-injection hook for tests (a delayed packet that the test releases when it
/// wants). `None` sends the envelope at once.
pub type Hold = Arc<dyn Fn(&Envelope) -> Option<BoxFuture<'static, ()>> + Send + Sync>;

/// What travels on a connection or stream: a greeting naming both ends (TCP), envelopes,
/// and a goodbye that tells a clean close from a lost peer.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Wire {
    /// First frame of every TCP connection.
    Hello {
        /// The connecting role.
        from: RoleName,
        /// The role it wants to reach.
        to: RoleName,
    },
    /// One message.
    Message(Envelope),
    /// The sender will send nothing more on this connection.
    Bye,
}

/// The sending half of a role's incoming stream.
pub(crate) type Inbox = mpsc::UnboundedSender<Result<Envelope, TransportError>>;

/// The receiving half, until the endpoint takes it.
pub(crate) struct Outbox {
    role: RoleName,
    rx: Mutex<Option<mpsc::UnboundedReceiver<Result<Envelope, TransportError>>>>,
}

impl Outbox {
    pub(crate) fn new(role: RoleName) -> (Inbox, Self) {
        let (tx, rx) = mpsc::unbounded_channel();
        let rx = Mutex::new(Some(rx));
        (tx, Outbox { role, rx })
    }

    /// The incoming stream of this transport's role; once.
    pub(crate) fn take(&self, role: &RoleName) -> Result<Incoming, TransportError> {
        if *role != self.role {
            return Err(TransportError::new(
                role.clone(),
                TransportCause::Unavailable(format!(
                    "this transport serves role {}, not {role}",
                    self.role
                )),
            ));
        }
        let taken = self.rx.lock().unwrap_or_else(|p| p.into_inner()).take();
        let rx = taken.ok_or_else(|| {
            TransportError::new(
                role.clone(),
                TransportCause::Unavailable("the incoming stream was already taken".into()),
            )
        })?;
        Ok(
            futures::stream::unfold(rx, |mut rx| async { rx.recv().await.map(|e| (e, rx)) })
                .boxed(),
        )
    }
}

/// A transport error about `peer` with an I/O cause.
pub(crate) fn io_error(
    peer: &RoleName,
    kind: std::io::ErrorKind,
    message: impl Into<String>,
) -> TransportError {
    TransportError::new(
        peer.clone(),
        TransportCause::Io(std::io::Error::new(kind, message.into())),
    )
}

/// A transport error about `peer` whose bytes make no sense.
pub(crate) fn decode_error(peer: &RoleName, message: impl Into<String>) -> TransportError {
    TransportError::new(peer.clone(), TransportCause::Decode(message.into()))
}

/// The encoding of `wire`, checked against the frame-size limit.
pub(crate) fn encode(peer: &RoleName, wire: &Wire, max: usize) -> Result<Vec<u8>, TransportError> {
    let bytes = postcard::to_stdvec(wire).map_err(|e| {
        io_error(
            peer,
            std::io::ErrorKind::InvalidInput,
            format!("cannot encode: {e}"),
        )
    })?;
    if bytes.len() > max {
        return Err(io_error(
            peer,
            std::io::ErrorKind::InvalidInput,
            format!(
                "a frame of {} bytes exceeds the limit of {max} bytes",
                bytes.len()
            ),
        ));
    }
    Ok(bytes)
}
