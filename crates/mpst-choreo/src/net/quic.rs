//! QUIC transport (feature `quic`, over `quinn`): one unidirectional stream per message,
//! so a delayed or lost packet holds back only its own message — no head-of-line
//! blocking. Both ends prove their roles with the deployment's certificates (the same
//! `mpst-wire` identities as TCP's mutual TLS): a server's certificate must name the
//! role dialled, a client's must name one of this role's peers. Clients are never
//! admitted by their source address.

use std::collections::HashMap;
use std::future::Future;
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use mpst_wire::Identity;
use mpst_wire::rustls::pki_types::CertificateDer;
use quinn::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use quinn::{ClientConfig, Connection, ConnectionError, Endpoint, ServerConfig, VarInt};
use tokio::task::{JoinHandle, JoinSet};

mod from_wire;
mod sending;

use sending::Sending;

#[cfg(feature = "testing")]
use super::Hold;
use super::{Arrivals, DEFAULT_MAX_FRAME, Delivery, Wire, decode, decode_error, encode, io_error};
use crate::role::RoleName;
use crate::transport::{Envelope, Inbox, Transport, TransportCause, TransportError, done};

/// How a [`QuicTransport`] connects.
#[derive(Clone)]
pub struct QuicConfig {
    /// The largest message sent or accepted, in bytes.
    pub max_frame_length: usize,
    /// How long to keep trying to reach peers that are not up yet.
    pub connect_timeout: Duration,
    /// Streams a peer may have open towards this role at once.
    pub max_concurrent_streams: u32,
    /// How long a dropped transport waits for its peers to read everything it sent.
    pub linger: Duration,
    /// How long a connection may go without a packet from its peer (QUIC's idle time-out;
    /// each end sends a keep-alive every third of it, at most every 5 s, which the peer
    /// acknowledges): a peer silent for longer is lost — its receives fail, and so does
    /// the next send to it, also for a role that only sends. The shorter of the two ends'
    /// values applies. `Duration::MAX`: never.
    pub idle_timeout: Duration,
    /// Holds chosen envelopes back halfway through their stream (fault injection for
    /// tests: the first half is on the wire, the rest waits).
    #[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
    #[cfg(feature = "testing")]
    pub hold: Option<Hold>,
}

impl Default for QuicConfig {
    fn default() -> Self {
        QuicConfig {
            max_frame_length: DEFAULT_MAX_FRAME,
            connect_timeout: Duration::from_secs(10),
            max_concurrent_streams: 1024,
            linger: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            #[cfg(feature = "testing")]
            hold: None,
        }
    }
}

impl std::fmt::Debug for QuicConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = f.debug_struct("QuicConfig");
        out.field("max_frame_length", &self.max_frame_length)
            .field("connect_timeout", &self.connect_timeout)
            .field("max_concurrent_streams", &self.max_concurrent_streams)
            .field("linger", &self.linger)
            .field("idle_timeout", &self.idle_timeout);
        #[cfg(feature = "testing")]
        out.field("hold", &self.hold.is_some());
        out.finish()
    }
}

/// A role's end of a QUIC network: one endpoint (client and server at once), one
/// connection to each peer, a fresh stream for every message.
pub struct QuicTransport {
    role: RoleName,
    endpoint: Endpoint,
    connections: Mutex<HashMap<RoleName, Connection>>,
    linger: Duration,
    max_frame_length: usize,
    #[cfg(feature = "testing")]
    hold: Option<Hold>,
    delivery: Delivery,
    sending: Mutex<Sending>,
    acceptor: JoinHandle<()>,
    arrivals: Arrivals,
    peer_names: Vec<RoleName>,
    /// The connections peers opened to this role.
    accepted: Accepted,
    /// Connections refused: no certificate of the deployment naming one of the peers.
    refused: Arc<AtomicU64>,
}

type Accepted = Arc<Mutex<Vec<Connection>>>;

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl QuicTransport {
    /// Serves on `socket` as `identity` (a certificate of the deployment's CA naming this
    /// role of `program`) and connects to every peer before `connect_timeout` (QUIC
    /// retransmits its handshake, so peers may start in any order). A peer's certificate
    /// must name its role of `program`. Peers are given as `SocketAddr`s or `"host:port"`
    /// strings (looked up when connecting); a client whose certificate names none of the
    /// peers, or that has none from the CA, is refused and counted, whatever its address.
    pub async fn start(
        role: RoleName,
        socket: UdpSocket,
        identity: &Identity,
        program: &str,
        peers: impl IntoIterator<Item = (RoleName, impl ToString)>,
        config: QuicConfig,
    ) -> Result<Self, TransportError> {
        let peers: HashMap<RoleName, String> = peers
            .into_iter()
            .map(|(peer, addr)| (peer, addr.to_string()))
            .collect();
        let bad = |what: &str, e: &dyn std::fmt::Display| {
            io_error(&role, ErrorKind::InvalidInput, format!("{what}: {e}"))
        };
        let mut transport = quinn::TransportConfig::default();
        // A time-out beyond QUIC's range (2^62 ms) is none.
        let idle = quinn::IdleTimeout::try_from(config.idle_timeout).ok();
        transport
            .max_concurrent_uni_streams(VarInt::from_u32(config.max_concurrent_streams))
            .max_idle_timeout(idle)
            .keep_alive_interval(Some(keep_alive(config.idle_timeout)));
        let transport = Arc::new(transport);
        let server = QuicServerConfig::try_from((*identity.server_config()).clone())
            .map_err(|e| bad("the identity does not suit QUIC", &e))?;
        let mut server = ServerConfig::with_crypto(Arc::new(server));
        server.transport_config(transport.clone());
        let client = QuicClientConfig::try_from((*identity.client_config()).clone())
            .map_err(|e| bad("the identity does not suit QUIC", &e))?;
        let mut client = ClientConfig::new(Arc::new(client));
        client.transport_config(transport);
        let runtime = Arc::new(quinn::TokioRuntime);
        let mut endpoint = Endpoint::new(Default::default(), Some(server), socket, runtime)
            .map_err(|e| io_error(&role, e.kind(), format!("cannot open the endpoint: {e}")))?;
        endpoint.set_default_client_config(client);

        let delivery = Delivery::new(role.clone());
        let max = config.max_frame_length;
        let arrivals = Arrivals::new();
        let accepted = Accepted::default();
        let refused = Arc::new(AtomicU64::new(0));
        let admission = Admission {
            program: program.to_string(),
            peers: peers.keys().cloned().collect(),
            refused: refused.clone(),
        };
        let acceptor = tokio::spawn(accept(
            endpoint.clone(),
            (role.clone(), admission),
            max,
            delivery.clone(),
            (arrivals.clone(), Arc::clone(&accepted)),
        ));
        let peer_names: Vec<RoleName> = peers.keys().cloned().collect();
        let connecting = peers.iter().map(|(peer, addr)| {
            let endpoint = endpoint.clone();
            async move {
                let failed = |e: &dyn std::fmt::Display| {
                    let message = format!("cannot connect to {addr}: {e}");
                    io_error(peer, ErrorKind::ConnectionRefused, message)
                };
                let name = mpst_wire::names::subject_name(peer.as_str(), program)
                    .map_err(|e| failed(&e))?;
                let connecting = async {
                    // A host name is looked up when connecting (QUIC retransmits its
                    // handshake itself; there is no dial loop to look it up again).
                    let resolved = tokio::net::lookup_host(addr.as_str()).await;
                    let target = resolved
                        .map_err(|e| failed(&e))?
                        .next()
                        .ok_or_else(|| failed(&"the name has no address"))?;
                    let connecting = endpoint.connect(target, &name).map_err(|e| failed(&e))?;
                    connecting.await.map_err(|e| failed(&e))
                };
                match tokio::time::timeout(config.connect_timeout, connecting).await {
                    Ok(Ok(connection)) => Ok((peer.clone(), connection)),
                    Ok(Err(e)) => Err(e),
                    Err(_) => Err(failed(&"no handshake before the deadline")),
                }
            }
        });
        let connections = futures::future::try_join_all(connecting)
            .await
            .inspect_err(|_| acceptor.abort())?
            .into_iter()
            .collect();
        Ok(QuicTransport {
            role,
            endpoint,
            connections: Mutex::new(connections),
            linger: config.linger,
            max_frame_length: config.max_frame_length,
            #[cfg(feature = "testing")]
            hold: config.hold,
            delivery,
            sending: Mutex::new(Sending::start()),
            acceptor,
            arrivals,
            peer_names,
            accepted,
            refused,
        })
    }

    /// How many connections were refused: clients without a certificate of the
    /// deployment naming one of this role's peers.
    pub fn connections_refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// The role this transport serves.
    pub fn role(&self) -> &RoleName {
        &self.role
    }

    /// The address this role's endpoint is bound to.
    pub fn local_addr(&self) -> Result<SocketAddr, TransportError> {
        self.endpoint
            .local_addr()
            .map_err(|e| io_error(&self.role, e.kind(), format!("no local address: {e}")))
    }

    /// Waits until every message sent has been received by its peer, then says goodbye on
    /// every connection and waits (at most `linger`) for the peers to close them: a peer
    /// closes only once it has read every stream, so nothing sent is lost. Messages sent
    /// afterwards are refused. Dropping the transport does the same in the background
    /// (lingering [`QuicConfig::linger`]).
    pub async fn close(&self, linger: Duration) {
        self.goodbye(linger).await;
    }

    /// Takes what is in flight and the connections, and returns the future that finishes
    /// the sends and says goodbye.
    fn goodbye(&self, linger: Duration) -> impl Future<Output = ()> + Send + 'static {
        let task = {
            let mut sending = lock(&self.sending);
            sending.queue = None; // the in-flight task finishes what it holds, then ends
            sending.task.take()
        };
        let connections =
            std::mem::take(&mut *self.connections.lock().unwrap_or_else(|p| p.into_inner()));
        let (max, delivery) = (self.max_frame_length, self.delivery.clone());
        let (arrivals, peers) = (self.arrivals.clone(), self.peer_names.clone());
        let accepted = Arc::clone(&self.accepted);
        let endpoint = self.endpoint.clone();
        async move {
            if let Some(task) = task {
                let _ = task.await;
            }
            // A late peer must find this endpoint still serving.
            arrivals.all(&peers, linger).await;
            let goodbyes = connections.into_iter().map(|(peer, connection)| {
                let delivery = delivery.clone();
                async move {
                    let said = async {
                        let bye = encode(&peer, &Wire::Bye, max)?;
                        let mut stream =
                            connection.open_uni().await.map_err(|e| lost(&peer, &e))?;
                        stream.write_all(&bye).await.map_err(|e| lost(&peer, &e))?;
                        stream.finish().map_err(|e| lost(&peer, &e))
                    };
                    if let Err(e) = said.await {
                        delivery.fail(e);
                        return;
                    }
                    let _ = tokio::time::timeout(linger, connection.closed()).await;
                    connection.close(VarInt::from_u32(0), b"done");
                }
            });
            futures::future::join_all(goodbyes).await;
            // This role is done: tell the peers' connections to it, so that none waits
            // for a process that is gone.
            for connection in lock(&accepted).drain(..) {
                connection.close(VarInt::from_u32(0), b"done");
            }
            // The close frames must leave before the process may exit (waiting for the
            // whole draining period is not needed, hence the short bound).
            let idle = endpoint.wait_idle();
            let _ = tokio::time::timeout(linger.min(Duration::from_millis(500)), idle).await;
        }
    }
}

/// How often an idle connection sends a keep-alive: a third of the idle time-out, at
/// least every 5 s and at most every 10 ms.
fn keep_alive(idle_timeout: Duration) -> Duration {
    (idle_timeout / 3).clamp(Duration::from_millis(10), Duration::from_secs(5))
}

fn lost(peer: &RoleName, e: &dyn std::fmt::Display) -> TransportError {
    io_error(
        peer,
        ErrorKind::ConnectionAborted,
        format!("send failed: {e}"),
    )
}

impl Drop for QuicTransport {
    /// What was sent is still delivered, late peers may still connect, then the
    /// connections close and accepting stops (in the background, if a tokio runtime is
    /// still there; at once otherwise).
    fn drop(&mut self) {
        let goodbye = self.goodbye(self.linger);
        let acceptor = self.acceptor.abort_handle();
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    goodbye.await;
                    acceptor.abort();
                });
            }
            Err(_) => acceptor.abort(),
        }
    }
}

impl Transport for QuicTransport {
    fn send(&self, envelope: Envelope) -> BoxFuture<'static, Result<(), TransportError>> {
        done(self.send_inline(envelope))
    }

    /// Each stream's reader files its envelope into `inbox` itself.
    fn attach(&self, role: &RoleName, inbox: Inbox) -> Result<(), TransportError> {
        self.delivery.attach(role, inbox)
    }
}

/// Who may connect: the peers, by the roles their certificates name.
struct Admission {
    program: String,
    peers: Vec<RoleName>,
    refused: Arc<AtomicU64>,
}

impl Admission {
    /// The peer `connection`'s certificate (verified against the CA by the handshake)
    /// names, if it names one.
    fn peer_of(&self, connection: &Connection) -> Option<RoleName> {
        let certs = connection.peer_identity()?;
        let certs = certs.downcast::<Vec<CertificateDer<'static>>>().ok()?;
        self.peers
            .iter()
            .find(|peer| Identity::check_peer(&certs, peer.as_str(), &self.program).is_ok())
            .cloned()
    }

    fn refuse(&self, delivery: &Delivery, from: SocketAddr, why: String) {
        self.refused.fetch_add(1, Ordering::Relaxed);
        let stranger = RoleName::new(format!("the peer at {from}"));
        let refused = TransportError::new(stranger, TransportCause::Refused(why));
        // Counted; before an endpoint attaches, only the latest reports are kept.
        delivery.fail(refused);
    }
}

async fn accept(
    endpoint: Endpoint,
    (role, admission): (RoleName, Admission),
    max: usize,
    delivery: Delivery,
    (arrivals, accepted): (Arrivals, Accepted),
) {
    let admission = Arc::new(admission);
    while let Some(incoming) = endpoint.accept().await {
        let from = incoming.remote_address();
        let (role, delivery, arrivals) = (role.clone(), delivery.clone(), arrivals.clone());
        let (accepted, admission) = (Arc::clone(&accepted), Arc::clone(&admission));
        tokio::spawn(async move {
            let connection = match incoming.await {
                Ok(connection) => connection,
                Err(e) => {
                    return admission.refuse(&delivery, from, format!("handshake failed: {e}"));
                }
            };
            let Some(peer) = admission.peer_of(&connection) else {
                connection.close(VarInt::from_u32(1), b"no certificate of a peer");
                let why = "its certificate names none of this role's peers".to_string();
                return admission.refuse(&delivery, from, why);
            };
            lock(&accepted).push(connection.clone());
            arrivals.arrived(&peer, 1);
            serve(connection, peer, role, max, delivery).await
        });
    }
}

/// Reads every stream of one connection, each in its own task (a slow stream holds back
/// no other), until the peer's goodbye; then closes the connection once every stream
/// opened before the goodbye is read. A connection lost before the goodbye is an error.
async fn serve(
    connection: Connection,
    peer: RoleName,
    role: RoleName,
    max: usize,
    delivery: Delivery,
) {
    let mut reading = JoinSet::new();
    let mut bye = false;
    loop {
        tokio::select! {
            accepted = connection.accept_uni(), if !bye => {
                let mut stream = match accepted {
                    Ok(stream) => stream,
                    Err(ConnectionError::LocallyClosed) => return,
                    Err(e) => {
                        let lost = format!("connection lost before the goodbye: {e}");
                        delivery.fail(TransportError::new(peer.clone(), TransportCause::Lost(lost)));
                        return;
                    }
                };
                let (peer, role, delivery) = (peer.clone(), role.clone(), delivery.clone());
                reading.spawn(async move { read(&mut stream, &peer, &role, max, &delivery).await });
            }
            Some(done) = reading.join_next() => {
                bye |= matches!(done, Ok(true));
            }
            else => break,
        }
        if bye && reading.is_empty() {
            break;
        }
    }
    connection.close(VarInt::from_u32(0), b"bye");
}

/// Reads one stream: files its envelope into the endpoint's inbox here, in this task (the
/// endpoint wakes the receive waiting for it), or reports what is wrong with it; says
/// whether it was the goodbye. Until an endpoint attaches, what was read waits here.
async fn read(
    stream: &mut quinn::RecvStream,
    peer: &RoleName,
    role: &RoleName,
    max: usize,
    delivery: &Delivery,
) -> bool {
    let received = match stream.read_to_end(max).await {
        Ok(bytes) => match decode(&bytes) {
            Ok(Wire::Bye) => return true,
            Ok(Wire::Message(envelope)) if envelope.from == *peer && envelope.to == *role => {
                Ok(envelope)
            }
            Ok(Wire::Message(envelope)) => Err(decode_error(
                peer,
                format!(
                    "an envelope from {} to {} on the connection from {peer} to {role}",
                    envelope.from, envelope.to
                ),
            )),
            Err(message) => Err(decode_error(peer, message)),
        },
        Err(e) => Err(io_error(
            peer,
            ErrorKind::InvalidData,
            format!("bad stream: {e}"),
        )),
    };
    delivery.inbox().await.deliver(received);
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_alives_come_three_times_per_idle_time_out_within_bounds() {
        let ms = Duration::from_millis;
        assert_eq!(keep_alive(Duration::from_secs(3)), Duration::from_secs(1));
        assert_eq!(keep_alive(Duration::from_secs(30)), Duration::from_secs(5));
        assert_eq!(keep_alive(Duration::MAX), Duration::from_secs(5));
        assert_eq!(keep_alive(Duration::ZERO), ms(10));
        assert_eq!(keep_alive(ms(15)), ms(10));
    }
}
