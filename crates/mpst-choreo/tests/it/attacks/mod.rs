//! Attacks on the network transports from plain sockets on loopback, as an outsider would
//! make them (issue 22): a stranger that claims a role, forges or replays messages, sends
//! a future session's message early, holds partial frames or many connections, rebinds a
//! dead QUIC peer's port, lies about or withholds a TCP lane's acknowledgements; and a
//! crashed peer. Each test is named after its attack and checks that the real peers bind
//! the real values and that nothing of the stranger's is bound.

use crate::common;

mod acks;
mod forging;
mod limits;
mod peers;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
use mpst_choreo::transport::{Envelope, EventKind, InMemory};
use mpst_choreo::{
    ChoreoError, Choreography, Endpoint, EndpointConfig, Key, Located, Op, Recorder, Result,
    RoleName, RoleSet, Site, Token, Transport, roles,
};
use mpst_choreo_paper::concurrent_send::{self, ConcurrentSend, Costs};
use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::timeout;
use tokio_util::codec::{FramedWrite, LengthDelimitedCodec};

use common::{Deployment, LIMIT, refused_at_least, role};

roles! { pub struct A; pub struct B; }

/// `A` passes one number to `B`.
#[derive(Clone, Copy)]
struct Pass(u32);

impl Choreography<Located<u32, B>> for Pass {
    type Roles = RoleSet![A, B];
    async fn run(self, op: &Op<Self::Roles>) -> Result<Located<u32, B>> {
        op.comm(A, B, &op.locally(A, |_| self.0)).await
    }
}

/// The frames of the TCP transport before issue 22, as a stranger writes them.
#[derive(Serialize)]
enum OldWire {
    Hello {
        from: RoleName,
        to: RoleName,
        lanes: u32,
    },
    Message(Envelope),
}

fn frame(wire: &OldWire) -> Bytes {
    Bytes::from(postcard::to_stdvec(wire).unwrap())
}

/// Connects to `addr` and writes `frames` length-delimited, as the old transport did;
/// keeps the connection open (the returned stream) so that nothing depends on its end.
async fn stranger(
    addr: SocketAddr,
    frames: &[Bytes],
) -> FramedWrite<TcpStream, LengthDelimitedCodec> {
    let stream = TcpStream::connect(addr).await.unwrap();
    let mut sink = FramedWrite::new(stream, LengthDelimitedCodec::new());
    for frame in frames {
        // The refusing side may have closed already: what matters is what it binds.
        if sink.send(frame.clone()).await.is_err() {
            break;
        }
    }
    sink
}

/// The keys each communication of `choreography` uses in session `n`, recorded from a
/// run in memory: `(from, to, key)` for each value received.
async fn keys_of<Ch, X>(choreography: Ch, n: u64) -> Vec<(RoleName, RoleName, Key)>
where
    Ch: Choreography<X> + Clone + 'static,
    X: Send + 'static,
{
    let recorder = Arc::new(Recorder::new());
    let transport = Arc::new(InMemory::new(Ch::Roles::names()));
    let mut runs = Vec::new();
    for name in Ch::Roles::names() {
        let (transport, observer) = (transport.clone(), Some(recorder.clone() as _));
        let endpoint =
            Endpoint::with_config(transport, name, EndpointConfig::default(), observer).unwrap();
        let choreography = choreography.clone();
        runs.push(async move { endpoint.run_session(n, choreography).await.map(drop) });
    }
    for run in futures::future::join_all(runs).await {
        run.unwrap();
    }
    recorder
        .events()
        .into_iter()
        .filter(|e| e.kind == EventKind::Received)
        .map(|e| (e.from, e.to, e.key))
        .collect()
}

/// The key of the communication `from` -> `to` in session `n`.
async fn key_from<Ch, X>(choreography: Ch, n: u64, from: &str, to: &str) -> Key
where
    Ch: Choreography<X> + Clone + 'static,
    X: Send + 'static,
{
    let keys = keys_of(choreography, n).await;
    let found = keys
        .into_iter()
        .find(|(f, t, _)| f.as_str() == from && t.as_str() == to);
    found.expect("the choreography has this communication").2
}

/// Binds a listener per role on loopback (the transports start later, so a stranger can
/// connect first).
async fn listeners(roles: &[RoleName]) -> Vec<(RoleName, TcpListener, SocketAddr)> {
    let mut out = Vec::new();
    for role in roles {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        out.push((role.clone(), listener, addr));
    }
    out
}

/// Starts a TCP transport per listener, each connected to all the others.
async fn start(
    deployment: &Deployment,
    listeners: Vec<(RoleName, TcpListener, SocketAddr)>,
    config: impl Fn(&Deployment, &RoleName) -> TcpConfig,
) -> Vec<Arc<TcpTransport>> {
    let addrs: Vec<(RoleName, SocketAddr)> =
        listeners.iter().map(|(r, _, a)| (r.clone(), *a)).collect();
    let starting = listeners.into_iter().map(|(role, listener, _)| {
        let peers: Vec<_> = addrs.iter().filter(|(r, _)| *r != role).cloned().collect();
        let config = config(deployment, &role);
        TcpTransport::start(role, listener, peers, config)
    });
    let started = timeout(LIMIT, futures::future::try_join_all(starting)).await;
    started
        .unwrap()
        .unwrap()
        .into_iter()
        .map(Arc::new)
        .collect()
}

/// Runs session `n` of `choreography` at every role over `transports` (in the order of
/// `Ch::Roles`) and returns each role's result.
async fn run_all<Ch, X>(endpoints: &[Endpoint], n: u64, choreography: Ch) -> Vec<Result<X>>
where
    Ch: Choreography<X> + Clone + 'static,
    X: Send + 'static,
{
    let runs = endpoints
        .iter()
        .map(|e| e.run_session(n, choreography.clone()));
    timeout(LIMIT, futures::future::join_all(runs))
        .await
        .unwrap()
}

/// What `B` holds after a run of [`Pass`] (the second role's result).
fn at_b(results: Vec<Result<Located<u32, B>>>) -> Option<u32> {
    let b = results.into_iter().nth(1).expect("two roles");
    b.expect("B's run").into_local()
}

fn endpoints(transports: &[Arc<TcpTransport>], config: EndpointConfig) -> Vec<Endpoint> {
    transports
        .iter()
        .map(|t| Endpoint::with_config(t.clone(), t.role().clone(), config, None).unwrap())
        .collect()
}

/// Whether the server closes `stream` (end of stream or an error) within [`LIMIT`].
async fn closed_by_server(stream: &mut TcpStream) -> bool {
    let mut buf = [0u8; 1024];
    let read = async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => continue,
            }
        }
    };
    timeout(LIMIT, read).await.is_ok()
}
