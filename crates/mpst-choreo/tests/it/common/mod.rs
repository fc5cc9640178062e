//! Helpers shared by the transport tests.
#![allow(dead_code)]

use std::net::UdpSocket;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use mpst_choreo::net::Hold;
use mpst_choreo::net::quic::{QuicConfig, QuicTransport};
use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
use mpst_choreo::transport::{Envelope, InMemory, Inbox, Incoming, Transport, TransportError};
use mpst_choreo::{Key, RoleName, Site, Token};
use serde::Serialize;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// How long a test waits for anything that should happen.
pub const LIMIT: Duration = Duration::from_secs(10);

pub fn role(name: &'static str) -> RoleName {
    RoleName::from_static(name)
}

/// An envelope whose key's site is `site`, with `len` bytes of payload.
pub fn envelope(from: &'static str, to: &'static str, site: u64, len: usize) -> Envelope {
    Envelope {
        from: role(from),
        to: role(to),
        key: Key::new(Site::from_id(site), Token::root()),
        payload: vec![7; len],
    }
}

/// The site of the next envelope, within ten seconds.
pub async fn next(incoming: &mut Incoming) -> u64 {
    match tokio::time::timeout(Duration::from_secs(10), incoming.next()).await {
        Ok(Some(Ok(envelope))) => envelope.key.site.id(),
        other => panic!("no envelope: {other:?}"),
    }
}

/// The sites of the next `count` envelopes, sorted: for the tests in which messages may
/// overtake each other.
pub async fn next_sorted(incoming: &mut Incoming, count: usize) -> Vec<u64> {
    let mut sites = Vec::with_capacity(count);
    for _ in 0..count {
        sites.push(next(incoming).await);
    }
    sites.sort();
    sites
}

/// The next item of `incoming`, within [`LIMIT`], which must be an error.
pub async fn next_error(incoming: &mut Incoming) -> TransportError {
    match tokio::time::timeout(LIMIT, incoming.next()).await {
        Ok(Some(Err(error))) => error,
        other => panic!("no error: {other:?}"),
    }
}

/// Whether nothing at all (no envelope, no error, no end) comes out of `incoming` within
/// `wait`.
pub async fn quiet(incoming: &mut Incoming, wait: Duration) -> bool {
    tokio::time::timeout(wait, incoming.next()).await.is_err()
}

/// Holds back the envelopes of `sites` until the returned sender fires.
pub fn hold_sites(sites: &[u64]) -> (Hold, oneshot::Sender<()>) {
    let sites = sites.to_vec();
    hold_where(move |e| sites.contains(&e.key.site.id()))
}

/// Holds back the envelopes that `held` picks until the returned sender fires.
pub fn hold_where(
    held: impl Fn(&Envelope) -> bool + Send + Sync + 'static,
) -> (Hold, oneshot::Sender<()>) {
    let (release, released) = oneshot::channel::<()>();
    let released = futures::FutureExt::shared(async move {
        let _ = released.await;
    });
    let hold: Hold = Arc::new(move |e: &Envelope| held(e).then(|| Box::pin(released.clone()) as _));
    (hold, release)
}

/// Two TCP transports, `A` with `a` and `B` with `b`, connected to each other.
///
/// Both prove their roles with certificates of one deployment (mutual TLS), whatever
/// security `a` and `b` say.
pub async fn tcp_pair(a: TcpConfig, b: TcpConfig) -> (TcpTransport, TcpTransport) {
    tcp_pair_in(&Deployment::new(&[role("A"), role("B")]), a, b).await
}

/// [`tcp_pair`] in a given deployment.
pub async fn tcp_pair_in(
    deployment: &Deployment,
    mut a: TcpConfig,
    mut b: TcpConfig,
) -> (TcpTransport, TcpTransport) {
    (a.security, a.protocol) = (deployment.tcp(&role("A")).security, PROGRAM.into());
    (b.security, b.protocol) = (deployment.tcp(&role("B")).security, PROGRAM.into());
    let la = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let lb = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (aa, ab) = (la.local_addr().unwrap(), lb.local_addr().unwrap());
    let (a, b) = tokio::join!(
        TcpTransport::start(role("A"), la, [(role("B"), ab)], a),
        TcpTransport::start(role("B"), lb, [(role("A"), aa)], b),
    );
    (a.unwrap(), b.unwrap())
}

/// Two QUIC transports, `A` with `a` and `B` with `b`, with identities of one deployment,
/// connected to each other.
pub async fn quic_pair(a: QuicConfig, b: QuicConfig) -> (QuicTransport, QuicTransport) {
    let deployment = Deployment::new(&[role("A"), role("B")]);
    let (ia, ib) = (
        deployment.identity(&role("A")),
        deployment.identity(&role("B")),
    );
    let sa = UdpSocket::bind("127.0.0.1:0").unwrap();
    let sb = UdpSocket::bind("127.0.0.1:0").unwrap();
    let (aa, ab) = (sa.local_addr().unwrap(), sb.local_addr().unwrap());
    let (a, b) = tokio::join!(
        QuicTransport::start(role("A"), sa, &ia, PROGRAM, [(role("B"), ab)], a),
        QuicTransport::start(role("B"), sb, &ib, PROGRAM, [(role("A"), aa)], b),
    );
    (a.unwrap(), b.unwrap())
}

/// The greeting `from` → `to` on one lane (plaintext set-up, program ""), encoded as a
/// stranger would write it.
pub fn hello(from: &'static str, to: &'static str) -> Vec<u8> {
    let hello = Setup::Hello {
        version: 2,
        program: String::new(),
        from: role(from),
        to: role(to),
        lanes: 1,
    };
    postcard::to_stdvec(&hello).unwrap()
}

/// The TCP transport's set-up frames, as a stranger would write them.
#[derive(Serialize)]
pub enum Setup {
    Hello {
        version: u32,
        program: String,
        from: RoleName,
        to: RoleName,
        lanes: u32,
    },
    Accept {
        run: u64,
    },
}

/// A deployment of roles: a CA and one certificate per role, made in memory.
pub struct Deployment {
    pki: mpst_wire::certs::Deployment,
}

/// The program the test deployments run.
pub const PROGRAM: &str = "tests";

impl Deployment {
    /// Identities for `roles`.
    pub fn new(roles: &[RoleName]) -> Self {
        let names: Vec<&str> = roles.iter().map(RoleName::as_str).collect();
        let pki = mpst_wire::certs::Deployment::generate(PROGRAM, names).unwrap();
        Deployment { pki }
    }

    /// The identity of `role` in this deployment.
    pub fn identity(&self, role: &RoleName) -> mpst_wire::Identity {
        self.pki.identity(role.as_str())
    }

    /// The TCP configuration of `role` in this deployment: mutual TLS.
    pub fn tcp(&self, role: &RoleName) -> TcpConfig {
        TcpConfig::mutual_tls(PROGRAM, self.identity(role))
    }
}

/// Waits (at most [`LIMIT`]) until `t` has refused `n` connections; how many it refused
/// (0 if it never got there).
pub async fn refused_at_least(t: &TcpTransport, n: u64) -> u64 {
    let counted = async {
        loop {
            let now = t.stats().connections_refused;
            if now >= n {
                return now;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(LIMIT, counted).await.unwrap_or(0)
}

/// The hello's application field of a one-lane dialler (a stranger speaking the set-up):
/// lane version 2, then the lane count, little-endian.
pub struct OneLane;

impl mpst_wire::Application for OneLane {
    fn field(&self, _peer: &str) -> Vec<u8> {
        vec![2, 1, 0, 0, 0]
    }
}

/// The hello's application field of a dialler of lane version 1 (before acknowledgements:
/// the lane count alone).
pub struct VersionOneLane;

impl mpst_wire::Application for VersionOneLane {
    fn field(&self, _peer: &str) -> Vec<u8> {
        1u32.to_le_bytes().to_vec()
    }
}

/// An in-memory network on which every envelope sent by the role `slow` arrives one
/// second late (on tokio's paused clock: deterministic, no real waiting); the others
/// arrive at once.
pub struct Slow {
    /// The network underneath.
    pub inner: Arc<InMemory>,
    /// The role whose envelopes are late.
    pub slow: &'static str,
}

impl Transport for Slow {
    fn send(&self, envelope: Envelope) -> BoxFuture<'static, Result<(), TransportError>> {
        let inner = Arc::clone(&self.inner);
        let late = envelope.from.as_str() == self.slow;
        Box::pin(async move {
            if late {
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    let _ = inner.send(envelope).await;
                });
                Ok(())
            } else {
                inner.send(envelope).await
            }
        })
    }

    fn attach(&self, role: &RoleName, inbox: Inbox) -> Result<(), TransportError> {
        self.inner.attach(role, inbox)
    }
}
