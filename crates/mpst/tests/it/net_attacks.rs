//! `mpst::net` attacked from plain sockets on loopback, as an outsider would: strangers
//! that connect first with garbage, idle sockets, plaintext on a TLS port, wrong roles,
//! certificates of another role or another authority, or hundreds of connections;
//! refusals that must be read; peers that stop or close. Each test binds 127.0.0.1:0, is
//! bounded in time, and asserts that the real peers still connect and run (or fail
//! naming the right peer, with the reason). Roles prove themselves with mutual TLS and
//! certificates issued at test time, as deployed.

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use mpst::net::certs::Deployment;
use mpst::net::{
    BoundRole, Connections, Fingerprint, Identity, NetConfig, NetError, NetErrorKind, Refusal,
    TcpRoute, WireErrorKind,
};
use mpst_wire::hello::{self, Hello, Reply};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
enum Label {
    Ping(u32),
}

const PROTOCOL: &str = "ping/1";
const BOUND: Duration = Duration::from_secs(30);

async fn bounded<T>(body: impl Future<Output = T>) -> T {
    timeout(BOUND, body).await.expect("test timed out")
}

fn any_port() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// A CA and certificates for A, B and C of `ping/1`.
fn pki() -> Deployment {
    Deployment::generate(PROTOCOL, ["A", "B", "C"]).unwrap()
}

/// One deployment for the tests that need no other.
fn shared() -> &'static Deployment {
    static PKI: std::sync::OnceLock<Deployment> = std::sync::OnceLock::new();
    PKI.get_or_init(pki)
}

/// `role` proving itself with its certificate of the shared deployment.
fn config(role: &str) -> NetConfig {
    config_in(shared(), role)
}

/// `role` proving itself with its certificate of `pki`.
fn config_in(pki: &Deployment, role: &str) -> NetConfig {
    NetConfig::new(PROTOCOL, role)
        .identity(pki.identity(role))
        .connect_timeout(Duration::from_secs(10))
}

/// B, bound and listening for A.
async fn listening_b(b: NetConfig) -> (BoundRole, SocketAddr) {
    let b = b.listen(any_port()).bind().await.unwrap();
    let address = b.local_addr().unwrap();
    (b, address)
}

/// The real A dials B at `b_at` while B connects; both must succeed and a label must go
/// through.
async fn real_peers_connect(a: NetConfig, b: BoundRole, b_at: SocketAddr) {
    let b = tokio::spawn(b.connect());
    real_a_gets_in(a, b_at, b, "B connects despite the stranger").await;
}

/// The real A dials B at `b_at`, where B is connecting (`b`, still accepting after
/// whatever a stranger did); both must succeed and a label must go through.
async fn real_a_gets_in(
    a: NetConfig,
    b_at: SocketAddr,
    b: tokio::task::JoinHandle<Result<Connections, NetError>>,
    why: &str,
) {
    let mut a = a.peer("B", b_at).connect().await.expect("A connects");
    let mut b = b.await.unwrap().expect(why);
    let mut ab = a.route::<Label>("B").unwrap();
    let mut ba = b.route::<Label>("A").unwrap();
    ab.send(Label::Ping(7)).await.unwrap();
    assert_eq!(ba.next().await.unwrap().unwrap(), Label::Ping(7));
}

/// The refusal a connecting side read from the other side.
fn refused(result: Result<Connections, NetError>) -> (String, Refusal) {
    match result {
        Err(NetError {
            peer,
            kind: NetErrorKind::Wire(WireErrorKind::Refused(reason)),
        }) => (peer, reason),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn stranger_first_with_garbage_does_not_stop_the_real_peer() {
    bounded(async {
        let pki = pki();
        let (b, b_at) = listening_b(config_in(&pki, "B").peer_without_address("A")).await;
        let mut stranger = TcpStream::connect(b_at).await.unwrap();
        stranger
            .write_all(b"\xff\xff\xff\xffGET / HTTP/1.1\r\n\r\n")
            .await
            .unwrap();
        real_peers_connect(config_in(&pki, "A"), b, b_at).await;
    })
    .await;
}

#[tokio::test]
async fn stranger_idle_connection_is_closed_and_does_not_stop_the_real_peer() {
    bounded(async {
        let pki = pki();
        let b = config_in(&pki, "B")
            .peer_without_address("A")
            .handshake_timeout(Duration::from_millis(300));
        let (b, b_at) = listening_b(b).await;
        let mut idle = TcpStream::connect(b_at).await.unwrap();
        let b = tokio::spawn(b.connect());
        // The idle socket is closed by B once its handshake time-out passes...
        let mut byte = [0; 1];
        let read = timeout(Duration::from_secs(5), idle.read(&mut byte)).await;
        assert!(
            matches!(read, Ok(Ok(0) | Err(_))),
            "an idle stranger is closed after the handshake time-out: {read:?}"
        );
        // ...and B is still waiting for the real A, which gets in.
        real_a_gets_in(
            config_in(&pki, "A"),
            b_at,
            b,
            "B connects despite the idle stranger",
        )
        .await;
    })
    .await;
}

#[tokio::test]
async fn stranger_claiming_a_wrong_role_is_refused_and_does_not_stop_the_real_peer() {
    bounded(async {
        let pki = pki();
        let (b, b_at) = listening_b(config_in(&pki, "B").peer_without_address("A")).await;
        let b = tokio::spawn(b.connect());
        // C holds a genuine certificate, but is no peer of B: refused, it reads why, and
        // B keeps accepting.
        let stranger = config_in(&pki, "C").peer("B", b_at).connect().await;
        let (peer, reason) = refused(stranger);
        assert_eq!(peer, "B");
        assert_eq!(
            reason,
            Refusal::UnknownRole {
                claimed: "C".into()
            }
        );
        real_a_gets_in(
            config_in(&pki, "A"),
            b_at,
            b,
            "B connects despite the stranger",
        )
        .await;
    })
    .await;
}

#[tokio::test]
async fn stranger_plaintext_client_on_tls_port_is_refused_and_does_not_stop_the_real_peer() {
    bounded(async {
        let pki = pki();
        let (b, b_at) = listening_b(config_in(&pki, "B").peer_without_address("A")).await;
        let b = tokio::spawn(b.connect());
        let plain = NetConfig::new(PROTOCOL, "A")
            .insecure_plaintext()
            .connect_timeout(Duration::from_secs(2))
            .peer("B", b_at)
            .connect()
            .await;
        assert!(plain.is_err(), "a plaintext A is not let in");
        real_a_gets_in(
            config_in(&pki, "A"),
            b_at,
            b,
            "B connects despite the plaintext stranger",
        )
        .await;
    })
    .await;
}

#[tokio::test]
async fn impersonation_with_the_certificate_of_another_role_is_refused() {
    bounded(async {
        let pki = pki();
        let (b, b_at) = listening_b(config_in(&pki, "B").peer_without_address("A")).await;
        let b = tokio::spawn(b.connect());
        // M holds C's genuine certificate and key, and says it is A.
        let connector = tokio_rustls::TlsConnector::from(pki.identity("C").client_config());
        let tcp = TcpStream::connect(b_at).await.unwrap();
        let name = Identity::server_name("B", PROTOCOL).unwrap();
        let mut tls = connector.connect(name, tcp).await.unwrap();
        let claim = Hello {
            protocol: PROTOCOL.into(),
            from: "A".into(),
            to: "B".into(),
            field: Vec::new(),
            nonce: [7; 32],
        };
        let frame = hello::encode_hello(&claim).unwrap();
        hello::write_frame(&mut tls, &frame).await.unwrap();
        let body = hello::read_frame(&mut tls, hello::MAX_HANDSHAKE_FRAME)
            .await
            .unwrap();
        let reply: Reply = postcard::from_bytes(&body).unwrap();
        assert!(
            matches!(&reply, Reply::Refuse(Refusal::Certificate { claimed, .. }) if claimed == "A"),
            "{reply:?}"
        );
        // The real A still gets in.
        real_a_gets_in(
            config_in(&pki, "A"),
            b_at,
            b,
            "B connects despite the impersonator",
        )
        .await;
    })
    .await;
}

#[tokio::test]
async fn impersonation_with_a_certificate_of_another_authority_is_refused() {
    bounded(async {
        let (pki, rogue) = (pki(), pki());
        let (b, b_at) = listening_b(config_in(&pki, "B").peer_without_address("A")).await;
        let b = tokio::spawn(b.connect());
        // A certificate for A, from a CA B does not trust (nor does it trust B's).
        let forged = config_in(&rogue, "A").peer("B", b_at).connect().await;
        match forged {
            Err(NetError {
                peer,
                kind: NetErrorKind::Wire(WireErrorKind::Tls(_)),
            }) => assert!(peer.starts_with("[127.0.0.1:"), "B proved nothing: {peer}"),
            other => panic!("expected a TLS failure, got {other:?}"),
        }
        real_a_gets_in(
            config_in(&pki, "A"),
            b_at,
            b,
            "B connects despite the forger",
        )
        .await;
    })
    .await;
}

#[tokio::test]
async fn stranger_500_connections_do_not_stop_the_real_peer() {
    bounded(async {
        let (b, b_at) = listening_b(config("B").peer_without_address("A")).await;
        let b = tokio::spawn(b.connect());
        let mut strangers = Vec::new();
        for i in 0..500u32 {
            let mut s = TcpStream::connect(b_at).await.unwrap();
            // Half stay idle, half send the start of a frame that never ends.
            if i % 2 == 0 {
                let _ = s.write_all(&[0, 0, 0x10, 0, 1, 2, 3]).await;
            }
            strangers.push(s);
        }
        real_a_gets_in(config("A"), b_at, b, "B connects despite 500 strangers").await;
        drop(strangers);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_is_read_by_the_refused_peer() {
    bounded(async {
        let (b, b_at) = listening_b(config("B").peer_without_address("A")).await;
        let b = tokio::spawn(b.connect());
        // 200 times in a row, C (a genuine role, but no peer of B) is refused and reads
        // why — never a reset — and B keeps accepting.
        for round in 0..200 {
            let (peer, reason) = refused(config("C").peer("B", b_at).connect().await);
            assert_eq!(peer, "B", "round {round}");
            assert_eq!(
                reason,
                Refusal::UnknownRole {
                    claimed: "C".into()
                },
                "round {round}"
            );
        }
        real_a_gets_in(config("A"), b_at, b, "B connects after 200 refusals").await;
    })
    .await;
}

#[tokio::test]
async fn a_proved_peer_of_another_session_type_is_refused_and_both_sides_say_why_at_once() {
    bounded(async {
        // B would wait a minute for A; the real A proves its role but runs another
        // session type, so waiting longer cannot help: both sides fail at once, and the
        // refused A reads the reason.
        let b = config("B")
            .peer_without_address("A")
            .expect("A", Fingerprint::of_bytes(b"A v1"))
            .connect_timeout(Duration::from_secs(60));
        let (b, b_at) = listening_b(b).await;
        let b = tokio::spawn(b.connect());
        let a = config("A").fingerprint(Fingerprint::of_bytes(b"A v2"));
        let (peer, reason) = refused(a.peer("B", b_at).connect().await);
        assert_eq!(peer, "B");
        assert!(
            matches!(&reason, Refusal::Application(text)
                if text.contains("role A runs another session type")),
            "{reason}"
        );
        let error = match b.await.unwrap() {
            Err(error) => error,
            Ok(_) => panic!("B connected to an incompatible A"),
        };
        assert_eq!(error.peer, "A");
        assert!(
            matches!(&error.kind, NetErrorKind::Wire(WireErrorKind::Refusing(Refusal::Application(text)))
                if text.contains("role A runs another session type")),
            "{error}"
        );
    })
    .await;
}

#[tokio::test]
async fn connect_timeout_of_duration_max_does_not_overflow() {
    bounded(async {
        let b = config("B")
            .peer_without_address("A")
            .connect_timeout(Duration::MAX)
            .receive_timeout(Duration::MAX);
        let (b, b_at) = listening_b(b).await;
        let a = config("A").connect_timeout(Duration::MAX);
        real_peers_connect(a, b, b_at).await;
    })
    .await;
}

/// Two connected routes, A to B and B to A, with B's configuration.
async fn routes(b: NetConfig) -> (TcpRoute<Label>, TcpRoute<Label>) {
    let (b, b_at) = listening_b(b.peer_without_address("A")).await;
    let b = tokio::spawn(b.connect());
    let mut a = config("A").peer("B", b_at).connect().await.unwrap();
    let mut b = b.await.unwrap().unwrap();
    (a.route("B").unwrap(), b.route("A").unwrap())
}

#[tokio::test]
async fn a_stopped_peer_fails_its_peers_within_the_default_receive_timeout() {
    let (a, mut b) = bounded(routes(config("B"))).await;
    // A is stopped: its socket stays open, nothing comes. With the clock paused, the
    // runtime jumps to the next timer as soon as nothing else can happen: B's receive
    // time-out if there is one, else the test's bound.
    tokio::time::pause();
    let started = tokio::time::Instant::now();
    let bound = mpst::net::DEFAULT_RECEIVE_TIMEOUT + Duration::from_secs(1);
    {
        let error = match timeout(bound, b.next()).await {
            Ok(Some(Err(error))) => error,
            other => panic!("expected a receive time-out, got {other:?}"),
        };
        assert_eq!(error.peer, "A");
        assert!(
            matches!(error.kind, NetErrorKind::ReceiveTimeout(d)
                if d == mpst::net::DEFAULT_RECEIVE_TIMEOUT),
            "{error}"
        );
        assert!(started.elapsed() >= mpst::net::DEFAULT_RECEIVE_TIMEOUT);
        drop(a);
    }
}

#[tokio::test]
async fn a_closed_connection_fails_pending_receives_at_once_with_its_text() {
    bounded(async {
        // A receive time-out far beyond the test's bound: only the closed socket can end
        // the pending receive in time.
        let b = config("B").receive_timeout(Duration::from_secs(3600));
        let (a, mut b) = routes(b).await;
        let pending = tokio::spawn(async move { b.next().await });
        let raw = a.into_inner().unwrap();
        #[allow(deprecated)] // linger 0 does not block on drop
        raw.tcp().set_linger(Some(Duration::ZERO)).unwrap();
        drop(raw);
        let error = match pending.await.unwrap() {
            Some(Err(error)) => error,
            other => panic!("expected the reset, got {other:?}"),
        };
        assert_eq!(error.peer, "A");
        assert!(error.is_disconnected(), "{error}");
        let text = error.to_string();
        assert!(
            text.contains("peer A") && text.to_lowercase().contains("reset"),
            "{text}"
        );
    })
    .await;
}

/// A proxy from a fresh loopback port to `target` for one connection: copies both ways
/// and returns the bytes the client sent, once it closed.
async fn recording_proxy(target: SocketAddr) -> (SocketAddr, tokio::task::JoinHandle<Vec<u8>>) {
    let listener = tokio::net::TcpListener::bind(any_port()).await.unwrap();
    let at = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let (client, _) = listener.accept().await.unwrap();
        let server = TcpStream::connect(target).await.unwrap();
        let (mut client_read, mut client_write) = client.into_split();
        let (mut server_read, mut server_write) = server.into_split();
        let back = tokio::spawn(async move {
            let _ = tokio::io::copy(&mut server_read, &mut client_write).await;
        });
        let mut recorded = Vec::new();
        let mut buffer = [0; 4096];
        while let Ok(n @ 1..) = client_read.read(&mut buffer).await {
            recorded.extend_from_slice(&buffer[..n]);
            if server_write.write_all(&buffer[..n]).await.is_err() {
                break;
            }
        }
        let _ = server_write.shutdown().await;
        let _ = back.await;
        recorded
    });
    (at, task)
}

#[tokio::test]
async fn replay_of_a_recorded_plaintext_run_binds_nothing() {
    bounded(async {
        // Plain TCP, where nothing but the hello's fresh nonces stands in the way.
        let plain = |role: &str| {
            NetConfig::new(PROTOCOL, role)
                .insecure_plaintext()
                .peer_without_address("A")
                .connect_timeout(Duration::from_secs(1))
        };
        let (b, b_at) = listening_b(plain("B")).await;
        let b = tokio::spawn(b.connect());
        let (proxy_at, recorded) = recording_proxy(b_at).await;
        let a = NetConfig::new(PROTOCOL, "A").insecure_plaintext();
        let mut a = a.peer("B", proxy_at).connect().await.unwrap();
        let mut b = b.await.unwrap().unwrap();
        a.route::<Label>("B")
            .unwrap()
            .send(Label::Ping(9))
            .await
            .unwrap();
        let got = b.route::<Label>("A").unwrap().next().await;
        assert_eq!(got.unwrap().unwrap(), Label::Ping(9));
        drop(a);
        let recorded = recorded.await.unwrap();
        assert!(
            recorded.len() > 40,
            "the hello, the confirmation and Ping(9)"
        );
        // The same bytes, replayed into a fresh run of B: the confirmation echoes the
        // old run's nonce, so B refuses it and never reads Ping(9).
        let (fresh, fresh_at) = listening_b(plain("B")).await;
        let fresh = tokio::spawn(fresh.connect());
        let mut replay = TcpStream::connect(fresh_at).await.unwrap();
        replay.write_all(&recorded).await.unwrap();
        let mut answer = Vec::new();
        let _ = timeout(Duration::from_secs(5), replay.read_to_end(&mut answer)).await;
        let error = match fresh.await.unwrap() {
            Err(error) => error,
            Ok(_) => panic!("a replayed run was admitted"),
        };
        assert_eq!(error.peer, "A", "{error}");
        assert!(
            matches!(
                error.kind,
                NetErrorKind::Wire(WireErrorKind::NotConnected { .. })
            ),
            "{error}"
        );
        assert!(error.to_string().contains("replay"), "{error}");
    })
    .await;
}
