//! Network transports (features `tcp` and `quic`): what they share — the wire format, the
//! frame-size limit, the fault-injection hook, the hand-over of what arrives to the
//! endpoint's inbox, and error helpers.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[cfg(feature = "testing")]
use futures::future::BoxFuture;
#[cfg(feature = "quic")]
use serde::{Deserialize, Serialize};
use tokio::sync::{SetOnce, watch};

use crate::role::RoleName;
#[cfg(any(feature = "quic", feature = "testing"))]
use crate::transport::Envelope;
use crate::transport::{Inbox, TransportCause, TransportError};

#[cfg_attr(docsrs, doc(cfg(feature = "quic")))]
#[cfg(feature = "quic")]
pub mod quic;
#[cfg_attr(docsrs, doc(cfg(feature = "stages")))]
#[cfg(feature = "stages")]
pub mod stages;
/// Without the feature the marks are empty functions, compiled away.
#[cfg(all(feature = "tcp", not(feature = "stages")))]
pub(crate) mod stages;
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

/// Where a network transport's tasks hand what arrives for its role: the endpoint's
/// [`Inbox`] once one is attached, which files each envelope into the mailbox right
/// there, in the reader's task, and wakes the receive waiting for it (no task between).
/// Until an endpoint attaches, readers wait before delivering their first envelope (so a
/// peer is held back by TCP's or QUIC's flow control, nothing piles up here), and
/// failures are kept, the latest [`EARLY_FAILURES`].
#[derive(Clone)]
pub(crate) struct Delivery(Arc<Slot>);

struct Slot {
    role: RoleName,
    inbox: SetOnce<Inbox>,
    /// Failures reported before the endpoint attached, oldest first.
    early: Mutex<VecDeque<TransportError>>,
}

/// How many failures are kept for an endpoint that has not attached yet.
pub(crate) const EARLY_FAILURES: usize = 64;

impl Delivery {
    pub(crate) fn new(role: RoleName) -> Self {
        Delivery(Arc::new(Slot {
            role,
            inbox: SetOnce::new(),
            early: Mutex::default(),
        }))
    }

    fn early(&self) -> std::sync::MutexGuard<'_, VecDeque<TransportError>> {
        self.0.early.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Attaches the endpoint's inbox to this transport's role; once. Failures reported
    /// so far are delivered to it first.
    pub(crate) fn attach(&self, role: &RoleName, inbox: Inbox) -> Result<(), TransportError> {
        if *role != self.0.role {
            return Err(TransportError::new(
                role.clone(),
                TransportCause::Unavailable(format!(
                    "this transport serves role {}, not {role}",
                    self.0.role
                )),
            ));
        }
        let mut early = self.early();
        if self.0.inbox.set(inbox).is_err() {
            return Err(TransportError::new(
                role.clone(),
                TransportCause::Unavailable("the incoming stream was already taken".into()),
            ));
        }
        if let Some(inbox) = self.0.inbox.get() {
            for failure in early.drain(..) {
                inbox.deliver(Err(failure));
            }
        }
        Ok(())
    }

    /// The endpoint's inbox, once one is attached.
    pub(crate) async fn inbox(&self) -> Inbox {
        self.0.inbox.wait().await.clone()
    }

    /// Reports a failure to the endpoint, or keeps it (the latest [`EARLY_FAILURES`])
    /// until one attaches.
    pub(crate) fn fail(&self, failure: TransportError) {
        if let Some(inbox) = self.0.inbox.get() {
            inbox.deliver(Err(failure));
            return;
        }
        let mut early = self.early();
        // Attaching sets the inbox while holding `early`: look again under the lock.
        match self.0.inbox.get() {
            Some(inbox) => {
                inbox.deliver(Err(failure));
            }
            None => {
                if early.len() == EARLY_FAILURES {
                    early.pop_front();
                }
                early.push_back(failure);
            }
        }
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
