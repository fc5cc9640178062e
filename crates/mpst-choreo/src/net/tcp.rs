//! TCP transport (feature `tcp`) over `mpst-wire`: each role listens on one address and
//! opens several connections (lanes) to every peer, spreading envelopes over them
//! round-robin, so messages to one peer really can overtake each other. Every lane is set
//! up by `mpst-wire` — mutual TLS with a certificate naming the role (or, only when asked
//! for by name, [`TcpConfig::insecure_plaintext`]), a versioned hello carrying the
//! protocol, the lane version and the lane count, fresh nonces that give the lane its
//! run — before any
//! envelope crosses it. Frames are `mpst-wire`'s length-prefixed postcard values, each
//! tagged with the lane's run; an envelope whose sender is not the lane's authenticated
//! peer, or a frame of another run, is refused and counted ([`TcpStats`]). The accepting
//! end of every lane acknowledges what it read back on the lane, and a lane whose messages
//! go unacknowledged, with no word from the peer for [`TcpConfig::idle_timeout`], fails
//! naming the peer: a role that only sends learns of a lost peer at its next send.
//!
//! Each process makes its role's transport and an [`Endpoint`](crate::Endpoint) on it;
//! here both roles run in one process:
//!
//! ```
//! use std::sync::Arc;
//! use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
//! use mpst_choreo::{Choreography, Endpoint, Located, Op, Result, Role, RoleSet, roles};
//!
//! roles! { pub struct Client; pub struct Server; }
//!
//! struct Double(u32);
//!
//! impl Choreography<Located<u32, Client>> for Double {
//!     type Roles = RoleSet![Client, Server];
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
//! // A CA and one certificate per role, made in memory (`mpst_wire::certs::write_deployment` writes them to files).
//! let pki = mpst_wire::certs::Deployment::generate("double", ["Client", "Server"])?;
//! let config = |role: &str| TcpConfig::mutual_tls("double", pki.identity(role));
//! let (c, s) = tokio::try_join!(
//!     TcpTransport::start(Client::name(), client, [(Server::name(), at_s)], config("Client")),
//!     TcpTransport::start(Server::name(), server, [(Client::name(), at_c)], config("Server")),
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
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use mpst_wire::{AcceptStats, Expected, Identity, Node, Security, WireConfig};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::task::JoinHandle;

#[cfg(feature = "testing")]
use super::Hold;
use super::stages::{self, Stage};
use super::{Arrivals, DEFAULT_MAX_FRAME, Delivery, io_error};
use crate::role::RoleName;
use crate::transport::{Envelope, Inbox, Transport, TransportError, done};

mod accept;
mod from_wire;
mod inline;
mod write;

use accept::{Ctx, Frame, Lanes as LaneCount, wire_error};

/// How a [`TcpTransport`] connects and what it accepts.
#[derive(Clone)]
pub struct TcpConfig {
    /// How lanes are secured: mutual TLS with this role's identity, or (named so)
    /// insecure plaintext.
    pub security: Security,
    /// The protocol every role runs (e.g. the choreography's name, with a version): the
    /// protocol of the `mpst-wire` hello, and of the role certificates. A peer running
    /// another is refused. (`WireConfig`'s and `mpst::net::NetConfig`'s `protocol`.)
    pub protocol: String,
    /// Connections opened to each peer (at least one is); envelopes go round-robin.
    pub connections_per_peer: usize,
    /// The largest frame sent or accepted, in bytes.
    pub max_frame_length: usize,
    /// How long to keep dialling peers that are not listening yet (`Duration::MAX`: no
    /// deadline).
    pub connect_timeout: Duration,
    /// How long a lane may take to be set up (TLS and hello); a connection that has not
    /// finished by then is closed and counted as refused.
    pub handshake_timeout: Duration,
    /// How long a transfer may stall, both ways: a frame that has begun to arrive must be
    /// whole within it (between frames a lane may idle indefinitely), and while messages
    /// sent to a peer are unacknowledged, the peer must acknowledge something within it
    /// (the accepting end of every lane tells the dialler what it read, at most every
    /// eighth of this time-out, between 50 ms and 1 s). A lane that breaks either bound fails naming the peer: its receives fail
    /// and so does the next send to it — also for a role that only sends, whose messages
    /// a partition would otherwise let pile up in TCP's buffers unnoticed.
    pub idle_timeout: Duration,
    /// Connections being set up at once; more are closed at once and counted as refused.
    pub max_pending_handshakes: usize,
    /// Set-up connections held at once; more are closed at once and counted as refused.
    /// Besides, a peer may hold at most twice `connections_per_peer` lanes open (every
    /// role should use the same `connections_per_peer`).
    pub max_connections: usize,
    /// Holds chosen envelopes back before they are written (fault injection for tests).
    #[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
    #[cfg(feature = "testing")]
    pub hold: Option<Hold>,
}

impl TcpConfig {
    /// Mutual TLS: this role proves itself with `identity` (a certificate issued by the
    /// deployment's CA naming this role of `protocol`, e.g. written by
    /// `mpst certs --name PROTOCOL`) and admits only peers whose certificates name their
    /// roles.
    pub fn mutual_tls(protocol: impl Into<String>, identity: Identity) -> Self {
        Self::with_security(protocol.into(), Security::MutualTls(identity))
    }

    /// Plain TCP: no peer proves its role, so anyone who can reach the port can speak
    /// for a role and forge its messages (replayed bytes are still refused). For loopback
    /// measurements and networks where every host is trusted, never across a network you
    /// do not control. The protocol is `choreography`; set [`TcpConfig::protocol`] to
    /// tell protocols apart.
    pub fn insecure_plaintext() -> Self {
        Self::with_security("choreography".into(), Security::InsecurePlaintext)
    }

    fn with_security(protocol: String, security: Security) -> Self {
        TcpConfig {
            security,
            protocol,
            connections_per_peer: 4,
            max_frame_length: DEFAULT_MAX_FRAME,
            connect_timeout: Duration::from_secs(10),
            handshake_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            max_pending_handshakes: 64,
            max_connections: 1024,
            #[cfg(feature = "testing")]
            hold: None,
        }
    }
}

impl std::fmt::Debug for TcpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let security = match &self.security {
            Security::MutualTls(_) => "mutual TLS",
            Security::InsecurePlaintext => "insecure plaintext",
        };
        let mut out = f.debug_struct("TcpConfig");
        out.field("security", &security)
            .field("protocol", &self.protocol)
            .field("connections_per_peer", &self.connections_per_peer)
            .field("max_frame_length", &self.max_frame_length)
            .field("connect_timeout", &self.connect_timeout)
            .field("handshake_timeout", &self.handshake_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_pending_handshakes", &self.max_pending_handshakes)
            .field("max_connections", &self.max_connections);
        #[cfg(feature = "testing")]
        out.field("hold", &self.hold.is_some());
        out.finish()
    }
}

/// What a [`TcpTransport`] has refused so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    /// Connections closed before any envelope of theirs was read: refused by the
    /// set-up (not authenticated, a certificate for another role, a wrong protocol or
    /// role, a replayed handshake), failed (garbage, TLS errors, too slow), or over a cap.
    pub connections_refused: u64,
    /// Frames refused on set-up lanes: an envelope naming another sender than the lane's
    /// authenticated peer or another receiver than this role, or a frame of another run.
    pub envelopes_refused: u64,
    /// Failed `accept()` calls (each followed by a growing pause).
    pub accept_errors: u64,
}

/// One outgoing connection's queue: frames, each maybe held back first.
type Queue = mpsc::UnboundedSender<write::Queued>;

struct Lane {
    /// Where sends write frames themselves (plaintext lanes; dropped before the queue,
    /// so that the writer, seeing the queue end, holds the last of it).
    direct: Option<Arc<inline::Direct>>,
    queue: Queue,
    run: u64,
    /// Why the lane's writer failed, once it did.
    failed: write::Failed,
    /// The lane's local port (for the `stages` probe).
    port: u16,
}

struct Lanes {
    lanes: Vec<Lane>,
    next: AtomicUsize,
}

/// A role's end of a TCP network: lanes to every peer, and the stream of envelopes
/// addressed to it.
pub struct TcpTransport {
    role: RoleName,
    local: SocketAddr,
    max_frame_length: usize,
    #[cfg(feature = "testing")]
    hold: Option<Hold>,
    peers: Mutex<HashMap<RoleName, Lanes>>,
    delivery: Delivery,
    writers: Mutex<Vec<JoinHandle<()>>>,
    acceptor: JoinHandle<()>,
    arrivals: Arrivals,
    peer_names: Vec<RoleName>,
    connect_timeout: Duration,
    accepted: watch::Receiver<AcceptStats>,
    ctx: Arc<Ctx>,
}

impl TcpTransport {
    /// Binds `listen` (a `SocketAddr` or `"host:port"`), then connects to every peer (see
    /// [`TcpTransport::start`]).
    pub async fn bind(
        role: RoleName,
        listen: impl tokio::net::ToSocketAddrs + std::fmt::Display,
        peers: impl IntoIterator<Item = (RoleName, impl ToString)>,
        config: TcpConfig,
    ) -> Result<Self, TransportError> {
        let shown = listen.to_string();
        let listener = TcpListener::bind(listen)
            .await
            .map_err(|e| io_error(&role, e.kind(), format!("cannot listen on {shown}: {e}")))?;
        Self::start(role, listener, peers, config).await
    }

    /// Accepts peers on `listener` and opens `connections_per_peer` lanes to each peer,
    /// dialling with back-off until `connect_timeout` while a peer is not listening yet,
    /// so roles may start in any order. Peers are `SocketAddr`s or `"host:port"` strings;
    /// a host name is looked up again on each retry. Fails naming the first peer that could not be
    /// reached (or that refused, with its reason).
    pub async fn start(
        role: RoleName,
        listener: TcpListener,
        peers: impl IntoIterator<Item = (RoleName, impl ToString)>,
        config: TcpConfig,
    ) -> Result<Self, TransportError> {
        let local = listener
            .local_addr()
            .map_err(|e| io_error(&role, e.kind(), format!("no local address: {e}")))?;
        let peers: Vec<(RoleName, String)> = peers
            .into_iter()
            .map(|(peer, addr)| (peer, addr.to_string()))
            .collect();
        let lanes = config
            .connections_per_peer
            .clamp(1, accept::MAX_LANES as usize) as u32;
        let mut wire = WireConfig::new(config.protocol.clone(), role.as_str())
            .listen(local.to_string())
            .security(config.security.clone())
            .connect_timeout(config.connect_timeout)
            .handshake_timeout(config.handshake_timeout)
            .idle_timeout(config.idle_timeout)
            .max_pending_handshakes(config.max_pending_handshakes.max(1))
            .max_frame_length(config.max_frame_length);
        for (peer, addr) in &peers {
            wire = wire.peer(peer.as_str(), addr.as_str());
        }
        let node = Node::new(wire)
            .map_err(wire_error)?
            .with_application(LaneCount(lanes));
        let expected = peers
            .iter()
            .fold(Expected::new(), |e, (peer, _)| e.peer(peer.as_str(), lanes));
        let accepting = node.accept_on(listener, expected).map_err(wire_error)?;
        let delivery = Delivery::new(role.clone());
        let arrivals = Arrivals::new();
        let ctx = Arc::new(Ctx::new(
            role.clone(),
            &config,
            delivery.clone(),
            arrivals.clone(),
            Arc::new(Semaphore::new(config.max_connections.max(1))),
        ));
        let accepted = accepting.watch_stats();
        let acceptor = tokio::spawn(accept::take(accepting, ctx.clone()));
        let deadline = mpst_wire::deadline_after(config.connect_timeout);
        let mut peer_names = Vec::new();
        let mut lanes_of = HashMap::new();
        let mut writers = Vec::new();
        for (peer, addr) in peers {
            peer_names.push(peer.clone());
            let mut lanes_to = Vec::new();
            let address = addr;
            for _ in 0..lanes {
                let dialled = node.dial_at(peer.as_str(), &address, deadline);
                let connection = dialled
                    .await
                    .map_err(wire_error)
                    .inspect_err(|_| acceptor.abort())?;
                let run = connection.run_id().as_u64();
                let (queue, queued) = mpsc::unbounded_channel();
                let failed = write::Failed::default();
                let mut port = 0;
                let (stream, direct) = match connection.into_stream() {
                    mpst_wire::Stream::Plain(tcp) => {
                        port = tcp.local_addr().map_or(0, |a| a.port());
                        let (reader, writer) = tcp.into_split();
                        let direct = inline::Direct::new(writer);
                        (write::Lane::Plain(reader, direct.clone()), Some(direct))
                    }
                    tls => (write::Lane::Tls(tls), None),
                };
                let writing = write::write(write::Writer {
                    stream,
                    queue: queued,
                    peer: peer.clone(),
                    run,
                    delivery: delivery.clone(),
                    timeout: config.idle_timeout,
                    failed: failed.clone(),
                });
                writers.push(tokio::spawn(writing));
                lanes_to.push(Lane {
                    direct,
                    queue,
                    run,
                    failed,
                    port,
                });
            }
            let next = AtomicUsize::new(0);
            lanes_of.insert(
                peer,
                Lanes {
                    lanes: lanes_to,
                    next,
                },
            );
        }
        Ok(TcpTransport {
            role,
            local,
            max_frame_length: config.max_frame_length,
            #[cfg(feature = "testing")]
            hold: config.hold,
            peers: Mutex::new(lanes_of),
            delivery,
            writers: Mutex::new(writers),
            acceptor,
            arrivals,
            peer_names,
            connect_timeout: config.connect_timeout,
            accepted,
            ctx,
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
        let accepted = *self.accepted.borrow();
        self.ctx.stats(accepted)
    }

    /// Writes every queued envelope, says goodbye on every lane and waits until the peer
    /// has acknowledged all of it and closed the lane (at most `idle_timeout` of silence;
    /// a lane that fails so is reported to the endpoint); then waits (at most
    /// `connect_timeout`) until every peer has opened all its lanes to this role, so that
    /// a role which finishes early does not stop listening while a late peer is still
    /// connecting. Envelopes sent afterwards are refused. Call it before the process
    /// exits, or queued envelopes may be lost.
    pub async fn close(&self) {
        drop(std::mem::take(
            &mut *self.peers.lock().unwrap_or_else(|p| p.into_inner()),
        ));
        let writers = std::mem::take(&mut *self.writers.lock().unwrap_or_else(|p| p.into_inner()));
        for writer in writers {
            let _ = writer.await;
        }
        self.arrivals
            .all(&self.peer_names, self.connect_timeout)
            .await;
    }
}

impl Drop for TcpTransport {
    /// Queued envelopes are still written (each lane's writer finishes its queue and says
    /// goodbye); accepting goes on in the background until every peer has connected or
    /// `connect_timeout` passes (at once without a tokio runtime). A process about to
    /// exit should [`close`](TcpTransport::close) instead, which waits for both.
    fn drop(&mut self) {
        let acceptor = self.acceptor.abort_handle();
        let (arrivals, peers) = (self.arrivals.clone(), std::mem::take(&mut self.peer_names));
        let deadline = self.connect_timeout;
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
    fn send(&self, envelope: Envelope) -> BoxFuture<'static, Result<(), TransportError>> {
        done(self.enqueue(envelope))
    }

    /// Each lane's reader files what it reads into `inbox` itself.
    fn attach(&self, role: &RoleName, inbox: Inbox) -> Result<(), TransportError> {
        self.delivery.attach(role, inbox)
    }
}

impl TcpTransport {
    /// The test hook's hold on `envelope` (never one without the `testing` feature).
    fn held(&self, envelope: &Envelope) -> Option<BoxFuture<'static, ()>> {
        #[cfg(feature = "testing")]
        {
            self.hold.as_ref().and_then(|hold| hold(envelope))
        }
        #[cfg(not(feature = "testing"))]
        {
            let _ = envelope;
            None
        }
    }

    fn enqueue(&self, envelope: Envelope) -> Result<(), TransportError> {
        let hold = self.held(&envelope);
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
        stages::mark(Stage::SendCalled, &envelope, lane.port);
        let message = Frame::Message {
            run: lane.run,
            envelope,
        };
        let frame = mpst_wire::codec::encode_frame(&message, self.max_frame_length)
            .map_err(|e| io_error(&peer, ErrorKind::InvalidInput, format!("cannot send: {e}")))?;
        let queued = std::cell::Cell::new(false);
        let queue = |item| {
            queued.set(true);
            lane.queue
                .send(item)
                .map_err(|_| write::failed_earlier(&peer, &lane.failed))
        };
        let sent = match &lane.direct {
            Some(direct) => direct.send((hold, frame), queue),
            None => queue((hold, frame)),
        };
        if let Frame::Message { envelope, .. } = &message {
            let stage = if queued.get() {
                Stage::Queued
            } else {
                Stage::Written
            };
            stages::mark(stage, envelope, lane.port);
        }
        sent
    }
}
