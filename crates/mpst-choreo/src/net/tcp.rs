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

use std::collections::HashMap;
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::codec::{FramedRead, FramedWrite, LengthDelimitedCodec};

use super::{
    Arrivals, DEFAULT_MAX_FRAME, Delivery, Hold, IncomingSlot, Wire, decode, decode_error, encode,
    io_error,
};
use crate::role::RoleName;
use crate::transport::{Envelope, Incoming, Transport, TransportError};

/// How a [`TcpTransport`] connects.
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
    /// Holds chosen envelopes back before they are written (fault injection for tests).
    pub hold: Option<Hold>,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            connections_per_peer: 4,
            max_frame_len: DEFAULT_MAX_FRAME,
            connect_deadline: Duration::from_secs(10),
            retry_interval: Duration::from_millis(20),
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
            .field("hold", &self.hold.is_some())
            .finish()
    }
}

/// One outgoing connection's queue: frames, each maybe held back first.
type Lane = mpsc::UnboundedSender<(Option<BoxFuture<'static, ()>>, Bytes)>;

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
    /// may start in any order. Fails naming the first peer that could not be reached.
    pub async fn start(
        role: RoleName,
        listener: TcpListener,
        peers: impl IntoIterator<Item = (RoleName, SocketAddr)>,
        config: TcpConfig,
    ) -> Result<Self, TransportError> {
        let local = listener
            .local_addr()
            .map_err(|e| io_error(&role, e.kind(), format!("no local address: {e}")))?;
        let codec = LengthDelimitedCodec::builder()
            .max_frame_length(config.max_frame_len)
            .new_codec();
        let (delivery, slot) = IncomingSlot::new(role.clone());
        let arrivals = Arrivals::new();
        let accepting = accept(
            listener,
            role.clone(),
            codec.clone(),
            delivery.clone(),
            arrivals.clone(),
        );
        let acceptor = tokio::spawn(accepting);
        let lanes_per_peer = config.connections_per_peer.clamp(1, u32::MAX as usize);
        let mut peer_names = Vec::new();
        let deadline = later(config.connect_deadline);
        let mut lanes_of = HashMap::new();
        let mut writers = Vec::new();
        for (peer, addr) in peers {
            peer_names.push(peer.clone());
            let mut lanes = Vec::new();
            for _ in 0..lanes_per_peer {
                let connected = connect(&peer, addr, deadline, config.retry_interval).await;
                let stream = connected.inspect_err(|_| acceptor.abort())?;
                let mut sink = FramedWrite::new(stream, codec.clone());
                let hello = Wire::Hello {
                    from: role.clone(),
                    to: peer.clone(),
                    lanes: lanes_per_peer as u32,
                };
                let hello = encode(&peer, &hello, config.max_frame_len)?;
                SinkExt::<Bytes>::send(&mut sink, hello.into())
                    .await
                    .map_err(|e| io_error(&peer, e.kind(), format!("greeting failed: {e}")))
                    .inspect_err(|_| acceptor.abort())?;
                let (lane, queue) = mpsc::unbounded_channel();
                writers.push(tokio::spawn(write(
                    sink,
                    queue,
                    peer.clone(),
                    delivery.clone(),
                )));
                lanes.push(lane);
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
        let frame = encode(&peer, &Wire::Message(envelope), self.max_frame_len)?;
        let peers = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        let lanes = peers.get(&peer).ok_or_else(|| {
            io_error(
                &peer,
                ErrorKind::NotConnected,
                "no connection to this role (not a peer, or the transport is closed)",
            )
        })?;
        let i = lanes.next.fetch_add(1, Ordering::Relaxed) % lanes.lanes.len();
        lanes.lanes[i].send((hold, frame.into())).map_err(|_| {
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

async fn connect(
    peer: &RoleName,
    addr: SocketAddr,
    deadline: Instant,
    retry: Duration,
) -> Result<TcpStream, TransportError> {
    loop {
        match TcpStream::connect(addr).await {
            Ok(stream) => {
                // Latency over throughput: small choreography messages go out at once.
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Err(e) if later(retry) >= deadline => {
                let message = format!("cannot connect to {addr} before the deadline: {e}");
                return Err(io_error(peer, e.kind(), message));
            }
            Err(_) => tokio::time::sleep(retry).await,
        }
    }
}

type Sink = FramedWrite<TcpStream, LengthDelimitedCodec>;

/// Writes one connection's queue in order, batching what is queued into one flush; on
/// the queue's end (the transport closed), says goodbye and shuts the connection down.
async fn write(
    mut sink: Sink,
    mut queue: mpsc::UnboundedReceiver<(Option<BoxFuture<'static, ()>>, Bytes)>,
    peer: RoleName,
    delivery: Delivery,
) {
    let failed = |e: std::io::Error| {
        let _ = delivery.send(Err(io_error(&peer, e.kind(), format!("write failed: {e}"))));
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
    if let Ok(bye) = postcard::to_stdvec(&Wire::Bye) {
        let _ = sink.send(Bytes::from(bye)).await;
    }
    let _ = SinkExt::<Bytes>::close(&mut sink).await;
}

async fn accept(
    listener: TcpListener,
    role: RoleName,
    codec: LengthDelimitedCodec,
    delivery: Delivery,
    arrivals: Arrivals,
) {
    loop {
        match listener.accept().await {
            Ok((stream, addr)) => {
                let _ = stream.set_nodelay(true);
                let frames = FramedRead::new(stream, codec.clone());
                let reading = read(
                    frames,
                    addr,
                    role.clone(),
                    delivery.clone(),
                    arrivals.clone(),
                );
                tokio::spawn(reading);
            }
            Err(e) => {
                let error = io_error(&role, e.kind(), format!("accepting failed: {e}"));
                if delivery.send(Err(error)).is_err() {
                    return;
                }
            }
        }
    }
}

/// Reads one connection: its greeting, then envelopes until the goodbye. Every failure
/// (bad frame, wrong greeting, envelope for someone else, closed without goodbye) is
/// reported on the incoming stream and ends this connection only.
async fn read(
    mut frames: FramedRead<TcpStream, LengthDelimitedCodec>,
    addr: SocketAddr,
    role: RoleName,
    delivery: Delivery,
    arrivals: Arrivals,
) {
    let mut peer = RoleName::new(format!("the peer at {addr}"));
    let mut greeted = false;
    let failure = loop {
        let frame = match frames.next().await {
            Some(Ok(frame)) => frame,
            Some(Err(e)) => break io_error(&peer, e.kind(), format!("bad frame: {e}")),
            None => {
                let message = "the connection closed without a goodbye";
                break io_error(&peer, ErrorKind::UnexpectedEof, message);
            }
        };
        let wire = match decode(&frame) {
            Ok(wire) => wire,
            Err(message) => break decode_error(&peer, message),
        };
        match (greeted, wire) {
            (false, Wire::Hello { from, to, lanes }) if to == role => {
                arrivals.arrived(&from, lanes);
                peer = from;
                greeted = true;
            }
            (false, Wire::Hello { to, .. }) => {
                break decode_error(&peer, format!("greeted role {to}, but this is {role}"));
            }
            (false, _) => break decode_error(&peer, "the first frame is not a greeting"),
            (true, Wire::Message(envelope)) if envelope.to == role && envelope.from == peer => {
                if delivery.send(Ok(envelope)).is_err() {
                    return;
                }
            }
            (true, Wire::Message(envelope)) => {
                let message = format!(
                    "an envelope from {} to {} on the connection from {peer} to {role}",
                    envelope.from, envelope.to
                );
                break decode_error(&peer, message);
            }
            (true, Wire::Bye) => return,
            (true, Wire::Hello { .. }) => break decode_error(&peer, "a second greeting"),
        }
    };
    let _ = delivery.send(Err(failure));
}
