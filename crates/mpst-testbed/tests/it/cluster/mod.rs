//! Helpers of the choreography tests across hosts: one host per role, each role's
//! transport (TCP or QUIC, mutual TLS with its certificate of one deployment) and
//! endpoint made on a runtime whose threads live in its host, peers addressed by the
//! addresses their host names resolve to *inside* the dialling host, and an observer of
//! the order in which envelopes are sent and arrive.

#![allow(dead_code)]

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::StreamExt;
use mpst_choreo::net::quic::{QuicConfig, QuicTransport};
use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
use mpst_choreo::transport::{Envelope, InMemory, Incoming, TransportError};
use mpst_choreo::{
    ChoreoError, Choreography, Endpoint, EndpointConfig, Key, RoleName, RoleSet, Runner, Transport,
};
use mpst_testbed::{Impairment, TestBed};
use tokio::runtime::Runtime;
use tokio::time::timeout;

/// The TCP port every role listens on (relayed on every link).
pub const TCP_PORT: u16 = 7300;
/// The UDP port every role's QUIC endpoint binds (relayed on every link).
pub const UDP_PORT: u16 = 7301;
/// The program the role certificates name.
pub const PROGRAM: &str = "hosts";
/// How long connecting, a batch of sessions or closing may take at most.
pub const LIMIT: Duration = Duration::from_secs(30);

/// The host of `role`: its name in lower case (a DNS label).
pub fn host_of(role: &RoleName) -> String {
    role.as_str().to_ascii_lowercase()
}

/// A bed with one host per role, every pair linked with `link`, TCP and UDP relayed.
pub fn bed(test: &str, roles: &[RoleName], link: Impairment, seed: u64) -> Option<TestBed> {
    let mut builder = TestBed::builder();
    for role in roles {
        builder = builder.host(&host_of(role));
    }
    builder
        .full_mesh(link)
        .tcp_port(TCP_PORT)
        .udp_port(UDP_PORT)
        .seed(seed)
        .build_or_skip(test)
}

/// The addresses `names` have on `host`, as a program there resolves them: `getent
/// hosts` run inside the host (its `/etc/hosts` is the bed's). mpst-choreo's transports
/// take socket addresses, and a thread that merely entered the host's network namespace
/// reads the root's `/etc/hosts`, so names are resolved by a process in the host.
pub fn resolve_in(bed: &TestBed, host: &str, names: &[String]) -> Vec<IpAddr> {
    let mut command = bed.host(host).command("getent");
    command
        .arg("hosts")
        .args(names)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let output = bed
        .host(host)
        .spawn(&mut command)
        .expect("getent starts")
        .wait_output(Duration::from_secs(10))
        .expect("getent finishes");
    assert!(
        output.status.success(),
        "{host} cannot resolve {names:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let table: HashMap<&str, IpAddr> = text
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let addr = words.next()?.parse().ok()?;
            Some((words.next()?, addr))
        })
        .collect();
    names
        .iter()
        .map(|name| {
            *table
                .get(name.as_str())
                .unwrap_or_else(|| panic!("{host}: getent gave no address for {name}: {text}"))
        })
        .collect()
}

/// One role's network end.
pub enum Net {
    /// TCP lanes with mutual TLS.
    Tcp(Arc<TcpTransport>),
    /// QUIC with the role certificates.
    Quic(Arc<QuicTransport>),
}

impl Net {
    fn transport(&self) -> Arc<dyn Transport> {
        match self {
            Net::Tcp(t) => t.clone(),
            Net::Quic(t) => t.clone(),
        }
    }

    async fn close(&self) {
        match self {
            Net::Tcp(t) => t.close().await,
            Net::Quic(t) => t.close(Duration::from_secs(5)).await,
        }
    }
}

/// One role on its host: the host's runtime, the transport and the endpoint.
pub struct Node {
    /// The role.
    pub role: RoleName,
    runtime: Runtime,
    net: Arc<Net>,
    endpoint: Arc<Endpoint>,
}

/// Every role of a choreography, each on its own host, connected.
pub struct Cluster {
    /// The roles, in the choreography's order.
    pub nodes: Vec<Node>,
}

/// How a cluster connects.
#[derive(Clone)]
pub struct Setup {
    /// QUIC instead of TCP.
    pub quic: bool,
    /// The endpoints' configuration.
    pub config: EndpointConfig,
    /// Observes the order of envelopes at every role, if set.
    pub order: Option<Arc<OrderLog>>,
}

impl Setup {
    /// TCP (or QUIC) with the default configuration.
    pub fn new(quic: bool) -> Self {
        Setup {
            quic,
            config: EndpointConfig::default(),
            order: None,
        }
    }
}

/// Connects every role of `roles` on its host of `bed`, peers addressed by host name.
pub fn connect(bed: &TestBed, roles: &[RoleName], setup: &Setup) -> Cluster {
    let names: Vec<&str> = roles.iter().map(RoleName::as_str).collect();
    let pki = mpst_wire::certs::Deployment::generate(PROGRAM, names).expect("certificates");
    let port = if setup.quic { UDP_PORT } else { TCP_PORT };
    let mut starting = Vec::new();
    for role in roles {
        let host = bed.host(&host_of(role));
        let others: Vec<&RoleName> = roles.iter().filter(|r| *r != role).collect();
        let hosts: Vec<String> = others.iter().map(|r| host_of(r)).collect();
        let addrs = resolve_in(bed, host.name(), &hosts);
        for (name, addr) in hosts.iter().zip(&addrs) {
            assert_eq!(Some(*addr), host.resolve(name).map(IpAddr::V4), "{name}");
        }
        let peers: Vec<(RoleName, SocketAddr)> = others
            .into_iter()
            .cloned()
            .zip(addrs.into_iter().map(|a| SocketAddr::new(a, port)))
            .collect();
        let runtime = host.runtime(1).expect("a runtime in the host");
        let identity = pki.identity(role.as_str());
        let (name, setup) = (role.clone(), setup.clone());
        let namespace = host.namespace().to_string();
        let started = runtime.spawn(async move {
            let role = name;
            assert!(mpst_testbed::thread_in_namespace(&namespace));
            let net = timeout(LIMIT, start(&role, peers, identity, setup.quic))
                .await
                .map_err(|_| format!("{role}: not connected within {LIMIT:?}"))?
                .map_err(|e| format!("{role}: {e}"))?;
            let mut transport = net.transport();
            if let Some(log) = &setup.order {
                transport = Arc::new(Watched {
                    inner: transport,
                    log: log.clone(),
                });
            }
            let endpoint = Endpoint::with_config(transport, role.clone(), setup.config, None)
                .map_err(|e| format!("{role}: {e}"))?;
            Ok::<_, String>((Arc::new(net), Arc::new(endpoint)))
        });
        starting.push((role.clone(), runtime, started));
    }
    let nodes = starting
        .into_iter()
        .map(|(role, runtime, started)| {
            let (net, endpoint) = futures::executor::block_on(started)
                .expect("the start task")
                .unwrap_or_else(|e| panic!("{e}"));
            Node {
                role,
                runtime,
                net,
                endpoint,
            }
        })
        .collect();
    Cluster { nodes }
}

async fn start(
    role: &RoleName,
    peers: Vec<(RoleName, SocketAddr)>,
    identity: mpst_wire::Identity,
    quic: bool,
) -> Result<Net, TransportError> {
    if quic {
        let socket = std::net::UdpSocket::bind(("0.0.0.0", UDP_PORT)).map_err(|e| {
            TransportError::new(role.clone(), mpst_choreo::transport::TransportCause::Io(e))
        })?;
        let config = QuicConfig::default();
        let t = QuicTransport::start(role.clone(), socket, &identity, PROGRAM, peers, config);
        return Ok(Net::Quic(Arc::new(t.await?)));
    }
    let listen = SocketAddr::from(([0, 0, 0, 0], TCP_PORT));
    let config = TcpConfig::mutual_tls(PROGRAM, identity);
    let t = TcpTransport::bind(role.clone(), listen, peers, config).await?;
    Ok(Net::Tcp(Arc::new(t)))
}

/// What one role's sessions gave: a report of each result, or its error.
pub type Outcomes = Vec<Result<Option<String>, ChoreoError>>;

impl Cluster {
    /// Runs the sessions `(number, choreography)` at every role at once (each role on its
    /// host's runtime); each role's outcomes, in role order.
    pub fn run<Ch, X>(
        &self,
        sessions: &[(u64, Ch)],
        report: fn(X) -> Option<String>,
    ) -> Vec<(RoleName, Outcomes)>
    where
        Ch: Choreography<X> + Clone + 'static,
        X: Send + 'static,
    {
        let tasks: Vec<_> = self
            .nodes
            .iter()
            .map(|node| {
                let (endpoint, sessions) = (node.endpoint.clone(), sessions.to_vec());
                let role = node.role.clone();
                node.runtime.spawn(async move {
                    let runs = sessions.into_iter().map(|(n, ch)| {
                        let endpoint = &endpoint;
                        async move { endpoint.run_session(n, ch).await.map(report) }
                    });
                    let all = futures::future::join_all(runs);
                    timeout(LIMIT, all)
                        .await
                        .unwrap_or_else(|_| panic!("{role}: sessions hang past {LIMIT:?}"))
                })
            })
            .collect();
        self.nodes
            .iter()
            .zip(tasks)
            .map(|(node, task)| {
                let outcomes = futures::executor::block_on(task)
                    .unwrap_or_else(|e| panic!("{}: {e}", node.role));
                (node.role.clone(), outcomes)
            })
            .collect()
    }

    /// Closes every transport (flushing what is queued), each within [`LIMIT`].
    pub fn close(self) {
        let closing: Vec<_> = self
            .nodes
            .iter()
            .map(|node| {
                let net = node.net.clone();
                node.runtime
                    .spawn(async move { timeout(LIMIT, net.close()).await.is_ok() })
            })
            .collect();
        for (node, closed) in self.nodes.iter().zip(closing) {
            let closed = futures::executor::block_on(closed).expect("the close task");
            assert!(closed, "{}: close hangs", node.role);
        }
    }
}

/// The reports of every role that holds a result after one in-memory run of `ch`
/// (`InMemory`, every role in this process), in role order.
pub fn in_memory<Ch, X>(ch: Ch, report: fn(X) -> Option<String>) -> Vec<String>
where
    Ch: Choreography<X> + Clone + 'static,
    X: Send + 'static,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let transport = Arc::new(InMemory::new(Ch::Roles::names()));
        let outputs = timeout(LIMIT, Runner::new(transport).run(ch))
            .await
            .expect("in memory in time");
        outputs
            .into_iter()
            .filter_map(|(role, x)| report(x.unwrap_or_else(|e| panic!("{role}: {e}"))))
            .collect()
    })
}

/// The order envelopes were handed to the network and arrived in, per sender and
/// receiver (one log for every role of a cluster: they share this process).
#[derive(Default)]
pub struct OrderLog {
    sent: Mutex<HashMap<(RoleName, RoleName), Vec<Key>>>,
    arrived: Mutex<HashMap<(RoleName, RoleName), Vec<Key>>>,
}

impl OrderLog {
    fn note(log: &Mutex<HashMap<(RoleName, RoleName), Vec<Key>>>, e: &Envelope) {
        let mut log = log.lock().unwrap_or_else(|p| p.into_inner());
        let pair = (e.from.clone(), e.to.clone());
        log.entry(pair).or_default().push(e.key.clone());
    }

    /// Envelopes that arrived after one sent later than them on the same pair of roles
    /// (overtaken on the way).
    pub fn overtaken(&self) -> usize {
        let sent = self.sent.lock().unwrap_or_else(|p| p.into_inner());
        let arrived = self.arrived.lock().unwrap_or_else(|p| p.into_inner());
        let mut overtaken = 0;
        for (pair, keys) in arrived.iter() {
            let Some(order) = sent.get(pair) else {
                continue;
            };
            let index: HashMap<&Key, usize> =
                order.iter().enumerate().map(|(i, k)| (k, i)).collect();
            let mut latest = None;
            for key in keys {
                let Some(&i) = index.get(key) else { continue };
                match latest {
                    Some(l) if i < l => overtaken += 1,
                    _ => latest = Some(i),
                }
            }
        }
        overtaken
    }

    /// Envelopes that arrived, in all.
    pub fn arrivals(&self) -> usize {
        let arrived = self.arrived.lock().unwrap_or_else(|p| p.into_inner());
        arrived.values().map(Vec::len).sum()
    }
}

/// A transport that notes what is sent and what arrives in an [`OrderLog`].
struct Watched {
    inner: Arc<dyn Transport>,
    log: Arc<OrderLog>,
}

impl Transport for Watched {
    /// Noted once the inner transport has taken the envelope (queued on its lane or
    /// stream), the order in which it goes out.
    fn send(&self, envelope: Envelope) -> BoxFuture<'_, Result<(), TransportError>> {
        let noted = Envelope {
            payload: Vec::new(),
            ..envelope.clone()
        };
        let sent = self.inner.send(envelope);
        Box::pin(async move {
            let result = sent.await;
            if result.is_ok() {
                OrderLog::note(&self.log.sent, &noted);
            }
            result
        })
    }

    fn incoming(&self, role: &RoleName) -> Result<Incoming, TransportError> {
        let log = self.log.clone();
        let incoming = self.inner.incoming(role)?;
        Ok(incoming
            .inspect(move |item| {
                if let Ok(envelope) = item {
                    OrderLog::note(&log.arrived, envelope);
                }
            })
            .boxed())
    }
}

/// The peer a failed communication names as lost or silent, if it names one.
pub fn peer_named(error: &ChoreoError) -> Option<&RoleName> {
    match error {
        ChoreoError::Timeout { from, .. } | ChoreoError::PeerLost { from, .. } => Some(from),
        ChoreoError::Transport(e) => Some(&e.peer),
        _ => None,
    }
}
