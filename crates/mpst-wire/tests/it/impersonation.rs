//! Impersonators and replayers: a certificate for another role, a certificate from
//! another CA, no certificate, and bytes recorded from a real connection replayed into a
//! new one. None is admitted; refusals name what the certificate says against what was
//! claimed, never blame the claimed role; the real peer still connects.

use crate::support;

use mpst_wire::certs::Deployment;
use mpst_wire::{Node, Peer, Refusal, WireErrorKind};
use support::*;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn impersonation_with_another_roles_certificate_is_refused_naming_both() {
    let pki = pki();
    let (a, mut acceptor) = pair(Mode::Tls, &pki).await;
    let mut stats = acceptor.watch_stats();
    // C holds a genuine certificate for C and claims to be A.
    let impostor =
        Node::new(config("C", Mode::Tls, &pki).peer("B", acceptor.local_addr().to_string()))
            .unwrap();
    // Dial as C but say "A" in the hello: the node's own role is C, so build the hello by
    // hand over TLS with C's identity.
    let error = dial_claiming(&impostor, &pki, "A", acceptor.local_addr()).await;
    assert_eq!(
        error,
        Refusal::Certificate {
            claimed: "A".into(),
            certified: "role C".into()
        }
    );
    let s = stats_until(&mut stats, |s| s.refused >= 1).await;
    assert_eq!(s.accepted, 0);
    let failure = &acceptor.recent_failures()[0];
    assert!(
        failure
            .error
            .starts_with("unauthenticated peer at 127.0.0.1:")
            && failure.error.contains("claiming role A")
            && failure.error.contains("the certificate names role C"),
        "{failure:?}"
    );
    real_peer_connects(&a, &mut acceptor).await;
}

/// Runs TLS with `node`'s identity to `at`, then a hello claiming `claimed`; the refusal.
async fn dial_claiming(
    node: &Node,
    _pki: &Deployment,
    claimed: &str,
    at: std::net::SocketAddr,
) -> Refusal {
    use mpst_wire::codec::decode_body;
    use mpst_wire::hello::{Hello, Reply, encode_hello, read_frame};
    let mpst_wire::Security::MutualTls(identity) = node.security() else {
        panic!("TLS node expected");
    };
    let tcp = TcpStream::connect(at).await.unwrap();
    let connector = tokio_rustls::TlsConnector::from(identity.client_config());
    let name = mpst_wire::Identity::server_name("B", PROTOCOL).unwrap();
    let mut tls = connector
        .connect(name, tcp)
        .await
        .expect("TLS with a genuine certificate");
    let hello = Hello {
        protocol: PROTOCOL.into(),
        from: claimed.into(),
        to: "B".into(),
        field: Vec::new(),
        nonce: [1; 32],
    };
    tls.write_all(&encode_hello(&hello).unwrap()).await.unwrap();
    let body = read_frame(&mut tls, 65536)
        .await
        .expect("the refusal is read");
    match decode_body::<Reply>(&body).unwrap() {
        Reply::Refuse(refusal) => refusal,
        Reply::Accept { .. } => panic!("the impostor was accepted"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn impersonation_with_untrusted_certificate_fails_tls_and_names_only_the_address() {
    let pki = pki();
    let (a, mut acceptor) = pair(Mode::Tls, &pki).await;
    let mut stats = acceptor.watch_stats();
    // A certificate for A, from another CA.
    let rogue = Deployment::generate(PROTOCOL, ["A"]).unwrap();
    let impostor = Node::new(
        mpst_wire::WireConfig::new(PROTOCOL, "A")
            .peer("B", acceptor.local_addr().to_string())
            .mutual_tls(rogue.identity("A")),
    )
    .unwrap();
    let error = impostor.dial("B").await.unwrap_err();
    // The impostor does not trust B either: TLS fails, on both sides.
    assert!(matches!(error.kind, WireErrorKind::Tls(_)), "{error}");
    let s = stats_until(&mut stats, |s| s.failed >= 1).await;
    assert_eq!(s.accepted, 0);
    let failure = &acceptor.recent_failures()[0];
    assert!(
        failure
            .error
            .starts_with("unauthenticated peer at 127.0.0.1:"),
        "{failure:?}"
    );
    assert!(!failure.error.contains("role A"), "{failure:?}");
    real_peer_connects(&a, &mut acceptor).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn impersonation_of_the_acceptor_is_refused_by_the_dialler() {
    // C listens where A expects B: A's TLS refuses C's certificate (it names C, not B).
    let pki = pki();
    let c = Node::new(config("C", Mode::Tls, &pki)).unwrap();
    let _acceptor_c = c
        .bind(mpst_wire::Expected::new().peer("A", 1))
        .await
        .unwrap();
    let at = _acceptor_c.local_addr().to_string();
    let a = Node::new(config("A", Mode::Tls, &pki).peer("B", at)).unwrap();
    let error = a.dial("B").await.unwrap_err();
    assert!(matches!(error.kind, WireErrorKind::Tls(_)), "{error}");
    assert!(error.to_string().contains("not valid for name"), "{error}");
    assert!(
        matches!(error.peer, Peer::Unauthenticated { .. }),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn impersonation_without_certificate_fails_tls() {
    let pki = pki();
    let (a, mut acceptor) = pair(Mode::Tls, &pki).await;
    let mut stats = acceptor.watch_stats();
    // A TLS client that trusts the CA but presents no certificate.
    let mut roots = mpst_wire::rustls::RootCertStore::empty();
    for cert in rustls_pem(pki.authority.cert_pem()) {
        roots.add(cert).unwrap();
    }
    let client =
        mpst_wire::rustls::ClientConfig::builder_with_provider(mpst_wire::identity::provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(client));
    let tcp = TcpStream::connect(acceptor.local_addr()).await.unwrap();
    let name = mpst_wire::Identity::server_name("B", PROTOCOL).unwrap();
    // TLS 1.3: the client may finish its side; the server then refuses the missing
    // certificate, and nothing from this client is ever accepted.
    if let Ok(mut tls) = connector.connect(name, tcp).await {
        let _ = tls.write_all(b"hello?").await;
        let mut buffer = Vec::new();
        let _ = tokio::io::AsyncReadExt::read_to_end(&mut tls, &mut buffer).await;
        assert!(buffer.is_empty());
    }
    let s = stats_until(&mut stats, |s| s.failed >= 1).await;
    assert_eq!(s.accepted, 0);
    real_peer_connects(&a, &mut acceptor).await;
}

fn rustls_pem(pem: &str) -> Vec<mpst_wire::rustls::pki_types::CertificateDer<'static>> {
    use mpst_wire::rustls::pki_types::pem::PemObject;
    mpst_wire::rustls::pki_types::CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<Result<_, _>>()
        .unwrap()
}

async fn replay(mode: Mode) {
    let pki = pki();
    let (_, mut acceptor) = pair(mode, &pki).await;
    let mut stats = acceptor.watch_stats();
    // A real connection through a recording proxy, with an application frame after it.
    let (proxy, recorded) = recording_proxy(acceptor.local_addr()).await;
    let a = Node::new(config("A", mode, &pki).peer("B", proxy)).unwrap();
    let (dialled, accepted) = tokio::join!(a.dial("B"), acceptor.next());
    let (dialled, accepted) = (dialled.unwrap(), accepted.unwrap());
    let recorded_run = accepted.run_id();
    let mut stream = dialled.into_stream();
    stream.write_all(&[0, 0, 0, 1, 42]).await.unwrap();
    stream.flush().await.unwrap();
    let (mut accepted_stream, _) = accepted.into_parts();
    let mut frame = [0u8; 5];
    tokio::io::AsyncReadExt::read_exact(&mut accepted_stream, &mut frame)
        .await
        .unwrap();
    assert_eq!(frame, [0, 0, 0, 1, 42]);
    let bytes = recorded.lock().unwrap().clone();
    // In plaintext the frame is there in clear; under TLS, only ciphertext.
    assert_eq!(bytes.ends_with(&[0, 0, 0, 1, 42]), mode == Mode::Plain);
    // The attacker replays every recorded byte into a new connection.
    let mut replayer = TcpStream::connect(acceptor.local_addr()).await.unwrap();
    replayer.write_all(&bytes).await.unwrap();
    let _ = read_to_close(&mut replayer).await;
    let s = stats_until(&mut stats, |s| s.failed + s.refused >= 1).await;
    assert_eq!(s.accepted, 1, "the replay is not accepted");
    let failure = &acceptor.recent_failures()[0];
    let expected = match mode {
        Mode::Plain => "a replay",
        Mode::Tls => "TLS handshake failed",
    };
    assert!(failure.error.contains(expected), "{failure:?}");
    // A fresh real connection gets a fresh run id.
    let a =
        Node::new(config("A", mode, &pki).peer("B", acceptor.local_addr().to_string())).unwrap();
    let (dialled, accepted) = tokio::join!(a.dial("B"), acceptor.next());
    let accepted = accepted.unwrap();
    assert_eq!(dialled.unwrap().run_id(), accepted.run_id());
    assert_ne!(accepted.run_id(), recorded_run);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_of_recorded_connection_is_refused_plaintext() {
    replay(Mode::Plain).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_of_recorded_connection_is_refused_tls() {
    replay(Mode::Tls).await;
}
