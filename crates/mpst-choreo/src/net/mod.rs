//! Network transports (features `tcp` and `quic`): what they share — the wire format, the
//! frame-size limit, the fault-injection hook and error helpers.

use std::collections::HashMap;
#[cfg(feature = "testing")]
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use futures::StreamExt;
#[cfg(feature = "testing")]
use futures::future::BoxFuture;
#[cfg(feature = "quic")]
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, watch};

use crate::role::RoleName;
use crate::transport::{Envelope, Incoming, TransportCause, TransportError};

#[cfg_attr(docsrs, doc(cfg(feature = "quic")))]
#[cfg(feature = "quic")]
pub mod quic;
#[cfg_attr(docsrs, doc(cfg(feature = "tcp")))]
#[cfg(feature = "tcp")]
pub mod tcp;

/// The largest frame a network transport sends or accepts unless configured otherwise:
/// 16 MiB.
pub const DEFAULT_MAX_FRAME: usize = 16 * 1024 * 1024;

/// Decides, for each envelope sent, whether to hold it back until a future completes: a
/// fault-injection hook for tests (a delayed packet that the test releases when it
/// wants). `None` sends the envelope at once. Only with the `testing` feature (test hooks,
/// not for production).
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
#[cfg(feature = "testing")]
pub type Hold = Arc<dyn Fn(&Envelope) -> Option<BoxFuture<'static, ()>> + Send + Sync>;

/// What travels on a QUIC stream: one envelope, or a goodbye that tells a clean close
/// from a lost peer.
#[cfg(feature = "quic")]
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Wire {
    /// One message.
    Message(Envelope),
    /// The sender will send nothing more on this connection.
    Bye,
}

/// Where transport tasks deliver what arrives (and errors) to the role: bounded, so a
/// peer faster than the endpoint is held back (its connection stops being read) instead
/// of queueing without limit.
pub(crate) type Delivery = mpsc::Sender<Result<Envelope, TransportError>>;

/// How many envelopes (and errors) may wait between the transport and the endpoint.
pub(crate) const DELIVERY_CAPACITY: usize = 1024;

/// A role's incoming stream, until its endpoint takes it.
pub(crate) struct IncomingSlot {
    role: RoleName,
    rx: Mutex<Option<mpsc::Receiver<Result<Envelope, TransportError>>>>,
}

impl IncomingSlot {
    pub(crate) fn new(role: RoleName) -> (Delivery, Self) {
        let (tx, rx) = mpsc::channel(DELIVERY_CAPACITY);
        let rx = Mutex::new(Some(rx));
        (tx, IncomingSlot { role, rx })
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

/// Decodes a whole frame: trailing bytes are an error too, not ignored.
#[cfg(feature = "quic")]
pub(crate) fn decode(bytes: &[u8]) -> Result<Wire, String> {
    match postcard::take_from_bytes::<Wire>(bytes) {
        Ok((wire, [])) => Ok(wire),
        Ok((_, rest)) => Err(format!(
            "{} bytes after the message in a frame of {}",
            rest.len(),
            bytes.len()
        )),
        Err(e) => Err(format!("undecodable frame of {} bytes: {e}", bytes.len())),
    }
}

/// The encoding of `wire`, checked against the frame-size limit.
#[cfg(feature = "quic")]
pub(crate) fn encode<W: Serialize>(
    peer: &RoleName,
    wire: &W,
    max: usize,
) -> Result<Vec<u8>, TransportError> {
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

/// Which peers have connected, over how many of the connections they announced: a role
/// that has finished waits for late peers before it stops listening (or its process
/// exits), so that their connection attempts are not refused.
#[derive(Clone)]
pub(crate) struct Arrivals(watch::Sender<HashMap<RoleName, (u32, u32)>>);

impl Arrivals {
    pub(crate) fn new() -> Self {
        Arrivals(watch::Sender::new(HashMap::new()))
    }

    /// `peer` connected once, announcing `lanes` connections in all.
    pub(crate) fn arrived(&self, peer: &RoleName, lanes: u32) {
        self.0.send_modify(|seen| {
            let entry = seen.entry(peer.clone()).or_insert((0, lanes));
            entry.0 += 1;
            entry.1 = lanes;
        });
    }

    /// Waits (at most `deadline`) until every one of `peers` has opened all its
    /// connections; says whether they all did.
    pub(crate) async fn all(&self, peers: &[RoleName], deadline: Duration) -> bool {
        let mut seen = self.0.subscribe();
        let done = seen.wait_for(|seen| {
            peers
                .iter()
                .all(|p| seen.get(p).is_some_and(|&(count, lanes)| count >= lanes))
        });
        matches!(tokio::time::timeout(deadline, done).await, Ok(Ok(_)))
    }
}
