//! TCP transport (feature `tcp`): each role listens on one address and opens several
//! connections to every peer, spreading envelopes over them round-robin, so messages to
//! one peer really can overtake each other. Frames are length-delimited (tokio-util's
//! codec) postcard values, with a size limit; every bad frame is an error, never a panic.
//!
//! Each process makes its role's transport and an [`Endpoint`](crate::Endpoint) on it;
//! here both roles run in one process:
//!
//! ```
//! use std::sync::Arc;
//! use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
//! use mpst_choreo::{Choreography, Endpoint, Located, Op, Result, Role, Roles, roles};
//!
//! roles! { pub struct Client; pub struct Server; }
//!
//! struct Double(u32);
//!
//! impl Choreography<Located<u32, Client>> for Double {
//!     type Roles = Roles![Client, Server];
//!     async fn run(self, op: &Op<Self::Roles>) -> Result<Located<u32, Client>> {
//!         let x = op.comm(Client, Server, &op.locally(Client, |_| self.0)).await?;
//!         let y = op.locally(Server, |un| un.unwrap(&x) * 2);
//!         op.comm(Server, Client, &y).await
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
//! let client = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let server = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let (at_c, at_s) = (client.local_addr()?, server.local_addr()?);
//! let (c, s) = tokio::try_join!(
//!     TcpTransport::start(Client::name(), client, [(Server::name(), at_s)], TcpConfig::default()),
//!     TcpTransport::start(Server::name(), server, [(Client::name(), at_c)], TcpConfig::default()),
//! )?;
//! let (c, s) = (Arc::new(c), Arc::new(s));
//! let (ec, es) = (Endpoint::new(c.clone(), Client::name())?, Endpoint::new(s.clone(), Server::name())?);
//! let (y, _) = tokio::try_join!(ec.run(Double(21)), es.run(Double(21)))?;
//! assert_eq!(y.into_local(), Some(42));
//! tokio::join!(c.close(), s.close()); // flush before exiting
//! # Ok(())
//! # }
//! ```

use std::collections::{HashMap, HashSet};
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::SinkExt;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::{Arrivals, DEFAULT_MAX_FRAME, Delivery, Hold, IncomingSlot, encode, io_error};
use crate::role::RoleName;
use crate::transport::{Envelope, Incoming, Transport, TransportCause, TransportError};

mod accept;
mod setup;

use accept::{Counters, Ctx};
use setup::{Conn, Frame, Setup};

/// How a [`TcpTransport`] connects and what it accepts.
#[derive(Clone)]
pub struct TcpConfig {
    /// Connections opened to each peer (at least one is); envelopes go round-robin.
    pub connections_per_peer: usize,
    /// The largest frame sent or accepted, in bytes.
    pub max_frame_len: usize,
    /// How long to keep retrying connections to peers that are not listening yet.
    pub connect_deadline: Duration,
    /// The pause between two connection attempts.
    pub retry_interval: Duration,
    /// How long a connection may take to be set up (greeting and answer); a connection
    /// that has not finished by then is closed and counted as refused.
    pub handshake_timeout: Duration,
    /// How long a frame that has begun to arrive may take to be whole; a lane whose
    /// frame stalls longer is closed. Between frames a lane may idle indefinitely.
    pub frame_timeout: Duration,
    /// Connections being set up at once; more are closed at once and counted as refused.
    pub max_handshakes: usize,
    /// Connections held at once, set up or not; more are closed at once.
    pub max_connections: usize,
    /// The program both ends must run (e.g. the choreography's name); a peer greeting
    /// with another is refused.
    pub program: String,
    /// Holds chosen envelopes back before they are written (fault injection for tests).
    pub hold: Option<Hold>,
}

impl TcpConfig {
    /// Plain TCP: no peer proves its role, so anyone who can reach the port can speak
    /// for a role and forge its messages. For loopback measurements and networks where
    /// every host is trusted, never across a network you do not control.
    pub fn insecure_plaintext() -> Self {
        TcpConfig {
            connections_per_peer: 4,
            max_frame_len: DEFAULT_MAX_FRAME,
            connect_deadline: Duration::from_secs(10),
            retry_interval: Duration::from_millis(20),
            handshake_timeout: Duration::from_secs(10),
            frame_timeout: Duration::from_secs(30),
            max_handshakes: 64,
            max_connections: 1024,
            program: String::new(),
            hold: None,
        }
    }
}

impl std::fmt::Debug for TcpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TcpConfig")
            .field("connections_per_peer", &self.connections_per_peer)
            .field("max_frame_len", &self.max_frame_len)
            .field("connect_deadline", &self.connect_deadline)
            .field("retry_interval", &self.retry_interval)
            .field("handshake_timeout", &self.handshake_timeout)
            .field("frame_timeout", &self.frame_timeout)
            .field("max_handshakes", &self.max_handshakes)
            .field("max_connections", &self.max_connections)
            .field("program", &self.program)
            .field("hold", &self.hold.is_some())
            .finish()
    }
}

/// What a [`TcpTransport`] has refused so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    /// Connections closed before any envelope of theirs was read: over a cap, too slow
    /// to set up, or refused by the set-up (wrong program or role, no peer's role, not
    /// authenticated).
    pub connections_refused: u64,
    /// Frames refused on set-up lanes: an envelope naming another sender than the lane's
    /// peer or another receiver than this role, or a frame of another run (a replay).
    pub envelopes_refused: u64,
    /// Failed `accept()` calls (each followed by a growing pause).
    pub accept_errors: u64,
}

/// One outgoing connection's queue: frames, each maybe held back first.
type Queue = mpsc::UnboundedSender<(Option<BoxFuture<'static, ()>>, Bytes)>;

struct Lane {
    queue: Queue,
    run: u64,
}

struct Lanes {
    lanes: Vec<Lane>,
    next: AtomicUsize,
}

/// A role's end of a TCP network: connections to every peer, and the stream of
/// envelopes addressed to it.
pub struct TcpTransport {
    role: RoleName,
    local: SocketAddr,
    max_frame_len: usize,
    hold: Option<Hold>,
    peers: Mutex<HashMap<RoleName, Lanes>>,
    slot: IncomingSlot,
    writers: Mutex<Vec<JoinHandle<()>>>,
    acceptor: JoinHandle<()>,
    arrivals: Arrivals,
    peer_names: Vec<RoleName>,
    connect_deadline: Duration,
    counters: Arc<Counters>,
}

impl TcpTransport {
    /// Binds `listen`, then connects to every peer (see [`TcpTransport::start`]).
    pub async fn bind(
        role: RoleName,
        listen: SocketAddr,
        peers: impl IntoIterator<Item = (RoleName, SocketAddr)>,
        config: TcpConfig,
    ) -> Result<Self, TransportError> {
        let listener = TcpListener::bind(listen)
            .await
            .map_err(|e| io_error(&role, e.kind(), format!("cannot listen on {listen}: {e}")))?;
        Self::start(role, listener, peers, config).await
    }

    /// Accepts peers on `listener` and opens `connections_per_peer` connections to each
    /// peer, retrying until `connect_deadline` while a peer is not listening yet, so roles
    /// may start in any order. Fails naming the first peer that could not be reached (or
    /// that refused, with its reason).
    pub async fn start(
        role: RoleName,
        listener: TcpListener,
        peers: impl IntoIterator<Item = (RoleName, SocketAddr)>,
        config: TcpConfig,
    ) -> Result<Self, TransportError> {
        let local = listener
            .local_addr()
            .map_err(|e| io_error(&role, e.kind(), format!("no local address: {e}")))?;
        let peers: Vec<(RoleName, SocketAddr)> = peers.into_iter().collect();
        let (delivery, slot) = IncomingSlot::new(role.clone());
        let arrivals = Arrivals::new();
        let counters = Arc::new(Counters::default());
        let ctx = Ctx {
            role: role.clone(),
            program: config.program.clone(),
            peers: peers.iter().map(|(p, _)| p.clone()).collect::<HashSet<_>>(),
            max_frame_len: config.max_frame_len,
            handshake_timeout: config.handshake_timeout,
            frame_timeout: config.frame_timeout,
            delivery: delivery.clone(),
            arrivals: arrivals.clone(),
            counters: counters.clone(),
            handshakes: Arc::new(Semaphore::new(config.max_handshakes.max(1))),
            connections: Arc::new(Semaphore::new(config.max_connections.max(1))),
        };
        let acceptor = tokio::spawn(accept::accept(listener, Arc::new(ctx)));
        let lanes_per_peer = config.connections_per_peer.clamp(1, u32::MAX as usize);
        let mut peer_names = Vec::new();
        let deadline = later(config.connect_deadline);
        let timing = (deadline, config.retry_interval, config.handshake_timeout);
        let mut lanes_of = HashMap::new();
        let mut writers = Vec::new();
        for (peer, addr) in peers {
            peer_names.push(peer.clone());
            let hello = Setup::Hello {
                version: setup::VERSION,
                program: config.program.clone(),
                from: role.clone(),
                to: peer.clone(),
                lanes: lanes_per_peer as u32,
            };
            let mut lanes = Vec::new();
            for _ in 0..lanes_per_peer {
                let dialled = setup::dial(&peer, addr, timing, &hello).await;
                let (mut conn, run) = dialled.inspect_err(|_| acceptor.abort())?;
                setup::set_limit(&mut conn, config.max_frame_len);
                let (queue, queued) = mpsc::unbounded_channel();
                let writing = write(conn, queued, peer.clone(), run, delivery.clone());
                writers.push(tokio::spawn(writing));
                lanes.push(Lane { queue, run });
            }
            let next = AtomicUsize::new(0);
            lanes_of.insert(peer, Lanes { lanes, next });
        }
        Ok(TcpTransport {
            role,
            local,
            max_frame_len: config.max_frame_len,
            hold: config.hold,
            peers: Mutex::new(lanes_of),
            slot,
            writers: Mutex::new(writers),
            acceptor,
            arrivals,
            peer_names,
            connect_deadline: config.connect_deadline,
            counters,
        })
    }

    /// The address this role listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The role this transport serves.
    pub fn role(&self) -> &RoleName {
        &self.role
    }

    /// What this transport has refused so far.
    pub fn stats(&self) -> TcpStats {
        let load = |n: &std::sync::atomic::AtomicU64| n.load(Ordering::Relaxed);
        TcpStats {
            connections_refused: load(&self.counters.connections_refused),
            envelopes_refused: load(&self.counters.envelopes_refused),
            accept_errors: load(&self.counters.accept_errors),
        }
    }

    /// Writes every queued envelope, says goodbye on every connection and waits until all
    /// is written; then waits (at most `connect_deadline`) until every peer has opened
    /// all its connections to this role, so that a role which finishes early does not
    /// stop listening while a late peer is still connecting. Envelopes sent afterwards are
    /// refused. Call it before the process exits, or queued envelopes may be lost.
    pub async fn close(&self) {
        drop(std::mem::take(
            &mut *self.peers.lock().unwrap_or_else(|p| p.into_inner()),
        ));
        let writers = std::mem::take(&mut *self.writers.lock().unwrap_or_else(|p| p.into_inner()));
        for writer in writers {
            let _ = writer.await;
        }
        self.arrivals
            .all(&self.peer_names, self.connect_deadline)
            .await;
    }
}

impl Drop for TcpTransport {
    /// Queued envelopes are still written (each connection's writer finishes its queue
    /// and says goodbye); accepting goes on in the background until every peer has
    /// connected or `connect_deadline` passes (at once without a tokio runtime). A process
    /// about to exit should [`close`](TcpTransport::close) instead, which waits for both.
    fn drop(&mut self) {
        let acceptor = self.acceptor.abort_handle();
        let (arrivals, peers) = (self.arrivals.clone(), std::mem::take(&mut self.peer_names));
        let deadline = self.connect_deadline;
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    arrivals.all(&peers, deadline).await;
                    acceptor.abort();
                });
            }
            Err(_) => acceptor.abort(),
        }
    }
}

impl Transport for TcpTransport {
    fn send(&self, envelope: Envelope) -> BoxFuture<'_, Result<(), TransportError>> {
        let result = self.enqueue(envelope);
        Box::pin(futures::future::ready(result))
    }

    fn incoming(&self, role: &RoleName) -> Result<Incoming, TransportError> {
        self.slot.take(role)
    }
}

impl TcpTransport {
    fn enqueue(&self, envelope: Envelope) -> Result<(), TransportError> {
        let hold = self.hold.as_ref().and_then(|hold| hold(&envelope));
        let peer = envelope.to.clone();
        let peers = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        let lanes = peers.get(&peer).ok_or_else(|| {
            io_error(
                &peer,
                ErrorKind::NotConnected,
                "no connection to this role (not a peer, or the transport is closed)",
            )
        })?;
        let i = lanes.next.fetch_add(1, Ordering::Relaxed) % lanes.lanes.len();
        let lane = &lanes.lanes[i];
        let frame = Frame::Message {
            run: lane.run,
            envelope,
        };
        let frame = encode(&peer, &frame, self.max_frame_len)?;
        lane.queue.send((hold, frame.into())).map_err(|_| {
            io_error(
                &peer,
                ErrorKind::BrokenPipe,
                "the connection failed earlier",
            )
        })
    }
}

/// Now plus `wait`, or a year from now if that overflows (a configuration may say
/// `Duration::MAX`).
fn later(wait: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(wait)
        .unwrap_or_else(|| now + Duration::from_secs(365 * 24 * 3600))
}

/// Writes one connection's queue in order, batching what is queued into one flush; on
/// the queue's end (the transport closed), says goodbye and shuts the connection down.
async fn write(
    mut sink: Conn,
    mut queue: mpsc::UnboundedReceiver<(Option<BoxFuture<'static, ()>>, Bytes)>,
    peer: RoleName,
    run: u64,
    delivery: Delivery,
) {
    let failed = |e: std::io::Error| {
        let lost = format!("write failed: {e}");
        let _ = delivery.send(Err(TransportError::new(peer.clone(), TransportCause::Lost(lost))));
    };
    while let Some((hold, frame)) = queue.recv().await {
        if let Some(hold) = hold {
            if let Err(e) = SinkExt::<Bytes>::flush(&mut sink).await {
                return failed(e);
            }
            hold.await;
        }
        if let Err(e) = sink.feed(frame).await {
            return failed(e);
        }
        if queue.is_empty() {
            if let Err(e) = SinkExt::<Bytes>::flush(&mut sink).await {
                return failed(e);
            }
        }
    }
    if let Ok(bye) = postcard::to_stdvec(&Frame::Bye { run }) {
        let _ = sink.send(Bytes::from(bye)).await;
    }
    let _ = SinkExt::<Bytes>::close(&mut sink).await;
}
