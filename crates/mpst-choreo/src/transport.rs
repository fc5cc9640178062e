//! The transport contract: what a choreography endpoint needs from a network (sending
//! an envelope, and delivering what arrives straight into the endpoint's [`Inbox`]).
//! Envelopes carry an integrity key, so a transport may reorder, delay or duplicate
//! them; nothing here assumes FIFO delivery.

use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use serde::{Deserialize, Serialize};

use crate::key::Key;
use crate::role::RoleName;

pub mod chaos;
mod inbox;
pub mod memory;

pub use chaos::{Chaos, ChaosConfig, ChaosStats};
pub(crate) use inbox::done;
pub use inbox::{Deliver, Inbox};
pub use memory::InMemory;

/// One message between two roles: a postcard-encoded payload (a value, or the label of a
/// selection) and the integrity key that says which communication it belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    /// The sending role.
    pub from: RoleName,
    /// The receiving role.
    pub to: RoleName,
    /// The integrity key of the communication.
    pub key: Key,
    /// The postcard encoding of the communicated value.
    pub payload: Vec<u8>,
}

/// Why a transport failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportCause {
    /// The connection or channel to the peer is closed.
    #[error("closed")]
    Closed,
    /// An I/O error.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// Bytes from the peer could not be decoded into an envelope.
    #[error("cannot decode: {0}")]
    Decode(String),
    /// The connection to or from the peer was lost before its goodbye (it crashed, or
    /// its writes failed): the endpoint fails the receives waiting for it at once.
    #[error("lost: {0}")]
    Lost(String),
    /// A connection was refused before it was authenticated (a stranger, a bad
    /// handshake, a wrong role, over the connection cap, too slow): nothing of it was
    /// delivered. The error's peer is the remote address, never the role it claimed.
    #[error("refused: {0}")]
    Refused(String),
    /// The role is not served by this transport, or its incoming stream was already taken.
    #[error("{0}")]
    Unavailable(String),
}

/// A transport failure: which peer, and why.
#[derive(Debug, thiserror::Error)]
#[error("transport to or from {peer}: {cause}")]
pub struct TransportError {
    /// The peer (or, for an incoming stream, the local role) concerned.
    pub peer: RoleName,
    /// The cause.
    #[source]
    pub cause: TransportCause,
}

impl TransportError {
    /// A transport error about `peer`.
    pub fn new(peer: RoleName, cause: TransportCause) -> Self {
        Self { peer, cause }
    }
}

/// The stream of envelopes addressed to one role (see [`Transport::incoming`]).
pub type Incoming = BoxStream<'static, Result<Envelope, TransportError>>;

/// A network for choreographies. Implementations may reorder, delay or duplicate
/// envelopes (integrity keys make that safe); a lost envelope surfaces as a receive
/// timeout at the endpoint.
pub trait Transport: Send + Sync + 'static {
    /// Sends one envelope to `envelope.to`. Completes once the envelope is handed to the
    /// network: it must not wait for the receiver to consume it. The future owns what it
    /// needs (it is `'static`), so that a send which cannot complete at once can be
    /// polled later without holding the transport borrowed.
    fn send(&self, envelope: Envelope) -> BoxFuture<'static, Result<(), TransportError>>;

    /// From now on hands everything addressed to `role` to `inbox`: the transport calls
    /// [`Inbox::deliver`] for each envelope as it arrives (in memory, in the sender's
    /// task; over a network, in the connection's reader), and for each failure it sees,
    /// so the receive waiting for the envelope is woken directly, with no task between.
    /// Called once per role by its endpoint; a second call may fail with
    /// [`TransportCause::Unavailable`]. A transport that will deliver nothing more drops
    /// the inbox (the endpoint's waiting receives then fail with
    /// [`ChoreoError::Closed`](crate::ChoreoError::Closed)).
    fn attach(&self, role: &RoleName, inbox: Inbox) -> Result<(), TransportError>;

    /// The envelopes addressed to `role` as a stream, for tools and tests that read raw
    /// envelopes: [`Transport::attach`] with an [`Inbox::stream`] (which queues what is
    /// not read).
    fn incoming(&self, role: &RoleName) -> Result<Incoming, TransportError> {
        let (inbox, stream) = Inbox::stream();
        self.attach(role, inbox)?;
        Ok(stream)
    }
}

impl<T: Transport + ?Sized> Transport for Arc<T> {
    fn send(&self, envelope: Envelope) -> BoxFuture<'static, Result<(), TransportError>> {
        (**self).send(envelope)
    }

    fn attach(&self, role: &RoleName, inbox: Inbox) -> Result<(), TransportError> {
        (**self).attach(role, inbox)
    }
}

/// What happened to a communication, as reported to an [`Observer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// The sender handed the envelope to the transport.
    Sent,
    /// The receiver bound the value to its communication.
    Received,
    /// The receiver refused a delivery: a duplicate of a key already delivered, or a late
    /// message of a session that has finished at the receiver.
    DuplicateRefused,
}

/// One communication event, reported to an [`Observer`] by an endpoint.
#[derive(Clone, Debug)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// The sending role.
    pub from: RoleName,
    /// The receiving role.
    pub to: RoleName,
    /// The integrity key (its site prints as `file:line:col` where known).
    pub key: Key,
    /// The label: the communicated value's type name (`std::any::type_name`), or
    /// `select:` followed by the choice's debug text for selections.
    pub label: String,
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} {} -> {} [{}] {}",
            self.kind, self.from, self.to, self.label, self.key
        )
    }
}

/// Receives communication events, e.g. to record a global trace and check it against a
/// protocol. Called synchronously from the endpoint: keep it quick.
pub trait Observer: Send + Sync + 'static {
    /// Called once for each event.
    fn observe(&self, event: &Event);
}

/// An observer that keeps every event in memory.
#[derive(Default)]
pub struct Recorder(std::sync::Mutex<Vec<Event>>);

impl Recorder {
    /// An empty recorder.
    pub fn new() -> Self {
        Self::default()
    }

    /// The events recorded so far, in the order they were observed.
    pub fn events(&self) -> Vec<Event> {
        match self.0.lock() {
            Ok(events) => events.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}

impl Observer for Recorder {
    fn observe(&self, event: &Event) {
        match self.0.lock() {
            Ok(mut events) => events.push(event.clone()),
            Err(poisoned) => poisoned.into_inner().push(event.clone()),
        }
    }
}
