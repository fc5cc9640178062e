//! Attacks on the network transports from plain sockets on loopback, as an outsider would
//! make them (issue 22): a stranger that claims a role, forges or replays messages, sends
//! a future session's message early, holds partial frames or many connections, rebinds a
//! dead QUIC peer's port; and a crashed peer. Each test is named after its attack and
//! checks that the real peers bind the real values and that nothing of the stranger's is
//! bound.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
use mpst_choreo::paper::concurrent_send::{self, ConcurrentSend, Costs};
use mpst_choreo::transport::{Envelope, EventKind, InMemory};
use mpst_choreo::{
    ChoreoError, Choreography, Config, Endpoint, Key, Located, Op, Recorder, Result, RoleName,
    RoleSet, Roles, Site, Token, Transport, roles,
};
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
    type Roles = Roles![A, B];
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
        let endpoint = Endpoint::with_config(transport, name, Config::default(), observer).unwrap();
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

fn endpoints(transports: &[Arc<TcpTransport>], config: Config) -> Vec<Endpoint> {
    transports
        .iter()
        .map(|t| Endpoint::with_config(t.clone(), t.role().clone(), config, None).unwrap())
        .collect()
}

/// The attack on the four-process `concurrent_send`: a stranger connects to `S`
/// first, says it is `KS` and sends the session-0 key message under the key computed
/// from the source. `C` must still get the real key, and nothing fails.
async fn forge_concurrent_send(claimed: &str) -> (Vec<Result<concurrent_send::Output>>, u64) {
    let choreography = ConcurrentSend {
        client: 7,
        costs: Costs::example(),
    };
    let key = key_from(choreography, 0, "KS", "S").await;
    let names = concurrent_send::Roles::names();
    let deployment = Deployment::new(&names);
    let bound = listeners(&names).await;
    let at_s = bound.iter().find(|(r, _, _)| r.as_str() == "S").unwrap().2;
    let forged = Envelope {
        from: RoleName::new(claimed),
        to: role("S"),
        key,
        payload: postcard::to_stdvec(&concurrent_send::Key("forged".into())).unwrap(),
    };
    let hello = OldWire::Hello {
        from: RoleName::new(claimed),
        to: role("S"),
        lanes: 1,
    };
    // The stranger writes and closes (ending its connection rather than waiting for the
    // handshake deadline).
    let mut sink = stranger(at_s, &[frame(&hello), frame(&OldWire::Message(forged))]).await;
    let _ = SinkExt::<Bytes>::close(&mut sink).await;
    let transports = start(&deployment, bound, Deployment::tcp).await;
    let endpoints = endpoints(&transports, Config::default());
    let results = run_all(&endpoints, 0, choreography).await;
    let s = &transports[names.iter().position(|r| r.as_str() == "S").unwrap()];
    let refused = refused_at_least(s, 1).await;
    for t in &transports {
        t.close().await;
    }
    (results, refused)
}

#[tokio::test]
async fn stranger_claiming_a_role_cannot_bind_a_forged_value() {
    let (results, refused) = forge_concurrent_send("KS").await;
    let at_c = results.into_iter().map(|r| r.unwrap().into_local());
    let at_c: Vec<_> = at_c.flatten().collect();
    assert_eq!(at_c, [concurrent_send::expected(7)]);
    assert!(refused >= 1, "the stranger's connection was not refused");
}

#[tokio::test]
async fn stranger_claiming_a_role_outside_the_key_does_not_fail_the_real_message() {
    let (results, refused) = forge_concurrent_send("Mallory").await;
    let mut at_c = Vec::new();
    for result in results {
        // Before issue 22: `S: message ... came from Mallory, expected KS`.
        at_c.extend(result.unwrap().into_local());
    }
    assert_eq!(at_c, [concurrent_send::expected(7)]);
    assert!(refused >= 1, "the stranger's connection was not refused");
}

/// A proxy between a dialler and `to` that records what the dialler writes on each
/// connection (and forwards both ways, so that any handshake completes).
async fn recording_proxy(
    to: SocketAddr,
) -> (SocketAddr, tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (record, recorded) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((inbound, _)) = listener.accept().await {
            let record = record.clone();
            tokio::spawn(async move {
                let Ok(outbound) = TcpStream::connect(to).await else {
                    return;
                };
                let (mut in_read, mut in_write) = inbound.into_split();
                let (mut out_read, mut out_write) = outbound.into_split();
                let back = tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut out_read, &mut in_write).await;
                });
                let mut bytes = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    match in_read.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            bytes.extend_from_slice(&buf[..n]);
                            if out_write.write_all(&buf[..n]).await.is_err() {
                                break;
                            }
                        }
                    }
                }
                let _ = out_write.shutdown().await;
                let _ = back.await;
                let _ = record.send(bytes);
            });
        }
    });
    (addr, recorded)
}

#[tokio::test]
async fn replay_of_recorded_bytes_into_a_fresh_run_binds_nothing() {
    let names = <Roles![A, B]>::names();
    let deployment = Deployment::new(&names);
    // Run 1: A reaches B through a proxy that records A's bytes.
    let mut bound = listeners(&names).await;
    let (proxy, mut recorded) = recording_proxy(bound[1].2).await;
    bound[1].2 = proxy;
    let transports = start(&deployment, bound, Deployment::tcp).await;
    let ends = endpoints(&transports, Config::default());
    let results = run_all(&ends, 0, Pass(1)).await;
    assert_eq!(at_b(results), Some(1));
    drop(ends);
    for t in &transports {
        t.close().await;
    }
    drop(transports);
    let lanes = TcpConfig::insecure_plaintext().connections_per_peer;
    let mut replays = Vec::new();
    while replays.len() < lanes {
        replays.push(timeout(LIMIT, recorded.recv()).await.unwrap().unwrap());
    }
    assert!(
        replays.iter().all(|r| !r.is_empty()),
        "nothing was recorded"
    );
    // Run 2, the same deployment afresh: the recorded bytes are replayed into B first.
    let bound = listeners(&names).await;
    let b_addr = bound[1].2;
    let mut held = Vec::new();
    for bytes in &replays {
        let mut stream = TcpStream::connect(b_addr).await.unwrap();
        let _ = stream.write_all(bytes).await;
        held.push(stream);
    }
    let transports = start(&deployment, bound, Deployment::tcp).await;
    let ends = endpoints(&transports, Config::default());
    let results = run_all(&ends, 0, Pass(2)).await;
    assert_eq!(at_b(results), Some(2));
    assert!(refused_at_least(&transports[1], 1).await >= 1);
}

#[tokio::test]
async fn future_session_message_from_a_stranger_is_never_bound() {
    let names = <Roles![A, B]>::names();
    let deployment = Deployment::new(&names);
    let key = key_from(Pass(0), 1, "A", "B").await;
    let bound = listeners(&names).await;
    let forged = Envelope {
        from: role("A"),
        to: role("B"),
        key,
        payload: postcard::to_stdvec(&666u32).unwrap(),
    };
    let hello = OldWire::Hello {
        from: role("A"),
        to: role("B"),
        lanes: 1,
    };
    let _held = stranger(
        bound[1].2,
        &[frame(&hello), frame(&OldWire::Message(forged))],
    )
    .await;
    let transports = start(&deployment, bound, Deployment::tcp).await;
    let ends = endpoints(&transports, Config::default());
    for (n, value) in [(0, 10), (1, 11)] {
        let results = run_all(&ends, n, Pass(value)).await;
        assert_eq!(at_b(results), Some(value));
    }
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

#[tokio::test]
async fn stranger_holding_partial_frames_is_closed_after_the_idle_timeout() {
    let names = <Roles![A, B]>::names();
    let deployment = Deployment::new(&names);
    let short = |d: &Deployment, r: &RoleName| TcpConfig {
        handshake_timeout: Duration::from_millis(300),
        frame_timeout: Duration::from_millis(300),
        ..d.tcp(r)
    };
    let plaintext = |_: &Deployment, _: &RoleName| TcpConfig {
        handshake_timeout: Duration::from_millis(300),
        frame_timeout: Duration::from_millis(300),
        ..TcpConfig::insecure_plaintext()
    };
    for config in [
        &short as &dyn Fn(&Deployment, &RoleName) -> TcpConfig,
        &plaintext,
    ] {
        let bound = listeners(&names).await;
        let b_addr = bound[1].2;
        let transports = start(&deployment, bound, config).await;
        // Before the greeting: a length prefix of 16 MiB and 1 MiB of it.
        let mut before = TcpStream::connect(b_addr).await.unwrap();
        let _ = before.write_all(&(16u32 << 20).to_be_bytes()).await;
        let _ = before.write_all(&vec![0u8; 1 << 20]).await;
        // After a plaintext greeting claiming A: the same.
        let hello = OldWire::Hello {
            from: role("A"),
            to: role("B"),
            lanes: 1,
        };
        let sink = stranger(b_addr, &[frame(&hello)]).await;
        let mut after = sink.into_inner();
        let _ = after.write_all(&((16u32 << 20) - 1).to_be_bytes()).await;
        let _ = after.write_all(&vec![0u8; 1 << 20]).await;
        assert!(
            closed_by_server(&mut before).await,
            "held before the greeting"
        );
        assert!(
            closed_by_server(&mut after).await,
            "held after the greeting"
        );
        drop(transports);
    }
}

#[tokio::test(start_paused = true)]
async fn unclaimed_keys_of_sessions_that_never_start_expire() {
    let names = <Roles![A, B]>::names();
    let transport = Arc::new(InMemory::new(names));
    let config = Config {
        unclaimed_limit: 500,
        unclaimed_age: Duration::from_secs(5),
        ..Config::default()
    };
    let b = Endpoint::with_config(transport.clone(), role("B"), config, None).unwrap();
    for n in 100..1100 {
        let envelope = Envelope {
            from: role("A"),
            to: role("B"),
            key: Key::new(Site::from_id(1), Token::session(n)),
            payload: vec![0; 100],
        };
        transport.send(envelope).await.unwrap();
    }
    // Let the endpoint file them all.
    tokio::time::sleep(Duration::from_millis(10)).await;
    let held = b.stats().keys_held;
    assert!(held <= 500, "{held} keys held, limit 500");
    assert!(held > 0, "nothing was filed");
    tokio::time::sleep(Duration::from_secs(6)).await;
    let stats = b.stats();
    assert_eq!(stats.keys_held, 0, "{stats:?}");
    assert_eq!(stats.unclaimed_dropped, 1000, "{stats:?}");
}

#[tokio::test]
async fn stranger_many_connections_are_capped() {
    let names = <Roles![A, B]>::names();
    let deployment = Deployment::new(&names);
    let capped = |d: &Deployment, r: &RoleName| TcpConfig {
        max_handshakes: 8,
        handshake_timeout: Duration::from_secs(600),
        ..d.tcp(r)
    };
    let bound = listeners(&names).await;
    let b_addr = bound[1].2;
    let transports = start(&deployment, bound, capped).await;
    let mut streams = Vec::new();
    for _ in 0..50 {
        streams.push(TcpStream::connect(b_addr).await.unwrap());
    }
    // Idle strangers beyond the cap are closed at once (long before the handshake
    // deadline of ten minutes).
    let mut closing: futures::stream::FuturesUnordered<_> = streams
        .into_iter()
        .map(|mut s| async move { closed_by_server(&mut s).await })
        .collect();
    let mut closed = 0;
    while closed < 42 {
        match closing.next().await {
            Some(true) => closed += 1,
            Some(false) | None => break,
        }
    }
    assert!(
        closed >= 42,
        "only {closed} of 50 idle strangers were closed"
    );
    assert!(refused_at_least(&transports[1], 42).await >= 42);
}

#[tokio::test]
async fn a_crashed_peer_fails_pending_receives_at_once_with_the_transport_error_text() {
    let names = <Roles![A, B]>::names();
    let deployment = Deployment::new(&names);
    let mut bound = listeners(&names).await;
    let (b_role, b_listener, b_addr) = bound.pop().unwrap();
    let (a_role, a_listener, a_addr) = bound.pop().unwrap();
    // A runs on a runtime of its own, which the test shuts down: a crash, no goodbye.
    let a_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let a_config = deployment.tcp(&a_role);
    let (started, a_started) = tokio::sync::oneshot::channel();
    a_runtime.spawn(async move {
        let a = TcpTransport::start(a_role, a_listener, [(role("B"), b_addr)], a_config).await;
        let a = Arc::new(a.unwrap());
        let _ = started.send(());
        // A never sends: it hangs until it crashes.
        std::future::pending::<()>().await;
        drop(a);
    });
    let b = TcpTransport::start(
        b_role,
        b_listener,
        [(role("A"), a_addr)],
        deployment.tcp(&role("B")),
    );
    let b = Arc::new(timeout(LIMIT, b).await.unwrap().unwrap());
    timeout(LIMIT, a_started).await.unwrap().unwrap();
    let config = Config {
        recv_timeout: Duration::from_secs(3600),
        ..Config::default()
    };
    let end_b = Endpoint::with_config(b.clone(), role("B"), config, None).unwrap();
    let waiting = tokio::spawn(async move { end_b.run(Pass(0)).await.map(drop) });
    a_runtime.shutdown_background();
    let err = timeout(LIMIT, waiting).await.unwrap().unwrap().unwrap_err();
    assert!(matches!(err, ChoreoError::PeerLost { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains("A"), "{text}");
    assert!(text.contains("closed") || text.contains("reset"), "{text}");
}

#[test]
fn a_default_receive_timeout_exists() {
    let timeout = Config::default().recv_timeout;
    assert!(
        timeout > Duration::ZERO && timeout <= Duration::from_secs(60),
        "{timeout:?}"
    );
}

#[tokio::test]
async fn stranger_with_garbage_idle_or_plaintext_connections_changes_nothing() {
    let names = <Roles![A, B]>::names();
    let deployment = Deployment::new(&names);
    let bound = listeners(&names).await;
    let b_addr = bound[1].2;
    let mut held = Vec::new();
    // Garbage, an idle socket, a plaintext greeting on a TLS port: all first.
    let mut garbage = TcpStream::connect(b_addr).await.unwrap();
    let _ = garbage.write_all(&[0xff; 64]).await;
    held.push(garbage);
    held.push(TcpStream::connect(b_addr).await.unwrap());
    let hello = OldWire::Hello {
        from: role("A"),
        to: role("B"),
        lanes: 1,
    };
    held.push(stranger(b_addr, &[frame(&hello)]).await.into_inner());
    let transports = start(&deployment, bound, Deployment::tcp).await;
    let ends = endpoints(&transports, Config::default());
    let results = run_all(&ends, 0, Pass(5)).await;
    assert!(results[0].is_ok());
    assert_eq!(at_b(results), Some(5));
}

#[tokio::test]
async fn quic_rebinding_a_dead_peers_port_is_refused() {
    use mpst_choreo::net::quic::{QuicConfig, QuicTransport};
    let names = [role("A"), role("B"), role("C")];
    let deployment = Deployment::new(&names);
    let sa = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let sb = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let (aa, ab) = (sa.local_addr().unwrap(), sb.local_addr().unwrap());
    // A runs on a runtime of its own, which the test shuts down: A dies.
    let a_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let ia = deployment.identity(&role("A"));
    let a = a_runtime.spawn(async move {
        let peers = [(role("B"), ab)];
        let a = QuicTransport::start(
            role("A"),
            sa,
            &ia,
            common::PROGRAM,
            peers,
            QuicConfig::default(),
        );
        let a = a.await.unwrap();
        std::future::pending::<()>().await;
        drop(a);
    });
    let ib = deployment.identity(&role("B"));
    let b = QuicTransport::start(
        role("B"),
        sb,
        &ib,
        common::PROGRAM,
        [(role("A"), aa)],
        QuicConfig::default(),
    );
    let b = timeout(LIMIT, b).await.unwrap().unwrap();
    let mut incoming = b.incoming(&role("B")).unwrap();
    a_runtime.shutdown_background();
    drop(a);
    // A stranger takes A's port: first with a certificate naming A from a CA of its own,
    // then with a real certificate of the deployment for C, a role that is no peer of B.
    let other = Deployment::new(&names);
    let attempts = [other.identity(&role("A")), deployment.identity(&role("C"))];
    for (i, identity) in attempts.iter().enumerate() {
        let socket = timeout(LIMIT, async {
            loop {
                match std::net::UdpSocket::bind(aa) {
                    Ok(socket) => return socket,
                    Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
                }
            }
        });
        let socket = socket.await.unwrap();
        let claimed = if i == 0 { role("A") } else { role("C") };
        let config = QuicConfig {
            connect_deadline: Duration::from_secs(2),
            linger: Duration::ZERO,
            ..QuicConfig::default()
        };
        let stranger = QuicTransport::start(
            claimed,
            socket,
            identity,
            common::PROGRAM,
            [(role("B"), ab)],
            config,
        );
        let started = timeout(LIMIT, stranger).await.unwrap();
        if let Ok(stranger) = started {
            // Its handshake may complete on its side; B must still admit nothing from it.
            let forged = Envelope {
                from: role("A"),
                to: role("B"),
                key: Key::new(Site::from_id(1), Token::session(0)),
                payload: vec![1],
            };
            let _ = stranger.send(forged).await;
            stranger.close(Duration::ZERO).await;
        }
        let counted = async {
            while b.connections_refused() < i as u64 + 1 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        timeout(LIMIT, counted).await.unwrap();
    }
    // B reported the refusals by address, and bound nothing.
    let mut reports = Vec::new();
    while let Ok(Some(item)) = timeout(Duration::from_millis(200), incoming.next()).await {
        reports.push(item);
    }
    assert!(reports.iter().all(|r| r.is_err()), "{reports:?}");
}

#[tokio::test]
async fn an_envelope_naming_another_sender_is_refused_counted_and_the_real_one_binds() {
    let names = <Roles![A, B]>::names();
    let key = key_from(Pass(0), 0, "A", "B").await;
    let transport = Arc::new(InMemory::new(names));
    let b = Endpoint::new(transport.clone(), role("B")).unwrap();
    let a = Endpoint::new(transport.clone(), role("A")).unwrap();
    let b = Arc::new(b);
    let waiting = tokio::spawn({
        let b = b.clone();
        async move { b.run(Pass(0)).await }
    });
    // B claims its key first; then Mallory's envelope with that key arrives.
    while b.stats().keys_held == 0 {
        tokio::task::yield_now().await;
    }
    let forged = Envelope {
        from: RoleName::new("Mallory"),
        to: role("B"),
        key,
        payload: postcard::to_stdvec(&666u32).unwrap(),
    };
    transport.send(forged).await.unwrap();
    while b.stats().wrong_sender_refused == 0 {
        tokio::task::yield_now().await;
    }
    timeout(LIMIT, a.run(Pass(9))).await.unwrap().unwrap();
    let got = timeout(LIMIT, waiting).await.unwrap().unwrap().unwrap();
    assert_eq!(got.into_local(), Some(9));
    assert_eq!(b.stats().wrong_sender_refused, 1);
}

#[tokio::test]
async fn stranger_claiming_a_role_in_plaintext_holds_at_most_twice_its_lanes() {
    let names = <Roles![A, B]>::names();
    let deployment = Deployment::new(&names);
    let one_lane = |_: &Deployment, _: &RoleName| TcpConfig {
        connections_per_peer: 1,
        program: common::PROGRAM.into(),
        ..TcpConfig::insecure_plaintext()
    };
    let bound = listeners(&names).await;
    let b_addr = bound[1].2.to_string();
    let transports = start(&deployment, bound, one_lane).await;
    // In plaintext anyone can claim A; A already holds one of its two lanes.
    let config = mpst_wire::WireConfig::new(common::PROGRAM, "A")
        .peer("B", b_addr.clone())
        .insecure_plaintext();
    let node = mpst_wire::Node::new(config)
        .unwrap()
        .with_application(common::OneLane);
    let mut held = Vec::new();
    for _ in 0..5 {
        if let Ok(connection) = node.dial_at("B", &b_addr, None).await {
            held.push(connection);
        }
    }
    assert!(refused_at_least(&transports[1], 4).await >= 4);
}

#[tokio::test]
async fn impersonation_with_a_non_peers_or_another_cas_certificate_binds_nothing() {
    let names = [role("A"), role("B"), role("C")];
    let deployment = Deployment::new(&names);
    let other_ca = Deployment::new(&names);
    let bound = listeners(&names[..2]).await;
    let b_addr = bound[1].2.to_string();
    // Before the real peers: a holder of C's certificate (a role of the deployment, but
    // no peer of B), then a holder of a certificate naming A from another CA.
    let forgers = [
        ("C", deployment.identity(&role("C"))),
        ("A", other_ca.identity(&role("A"))),
    ];
    let attempts = forgers.into_iter().map(|(claimed, identity)| {
        let config = mpst_wire::WireConfig::new(common::PROGRAM, claimed)
            .peer("B", b_addr.clone())
            .mutual_tls(identity);
        let node = mpst_wire::Node::new(config)
            .unwrap()
            .with_application(common::OneLane);
        let b_addr = b_addr.clone();
        async move { node.dial_at("B", &b_addr, None).await.map(drop) }
    });
    let b_start = {
        let (b_role, b_listener, _) = bound.into_iter().nth(1).unwrap();
        let config = deployment.tcp(&b_role);
        // B accepts while the forgers try; its own dial to A waits for A below.
        let a_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let a_addr = a_listener.local_addr().unwrap();
        let b = tokio::spawn(TcpTransport::start(
            b_role,
            b_listener,
            [(role("A"), a_addr)],
            config,
        ));
        (b, a_listener)
    };
    let results = futures::future::join_all(attempts).await;
    assert!(
        results.iter().all(Result::is_err),
        "a forger was admitted: {results:?}"
    );
    let (b, a_listener) = b_start;
    let b_addr = b_addr.parse().unwrap();
    let a = TcpTransport::start(
        role("A"),
        a_listener,
        [(role("B"), b_addr)],
        deployment.tcp(&role("A")),
    );
    let a = Arc::new(timeout(LIMIT, a).await.unwrap().unwrap());
    let b = Arc::new(timeout(LIMIT, b).await.unwrap().unwrap().unwrap());
    assert!(refused_at_least(&b, 2).await >= 2);
    let ends = endpoints(&[a, b], Config::default());
    let results = run_all(&ends, 0, Pass(3)).await;
    assert_eq!(at_b(results), Some(3));
}
