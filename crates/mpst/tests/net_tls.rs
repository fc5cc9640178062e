//! TLS for `mpst::net` on loopback, with certificates generated at test time (rcgen): a
//! session over TLS, a peer whose certificate is not trusted, and mutual TLS.

use std::sync::Arc;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use mpst::net::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use mpst::net::rustls::server::WebPkiClientVerifier;
use mpst::net::rustls::{ClientConfig, RootCertStore, ServerConfig};
use mpst::net::{rustls, Config, Connections, NetError, NetErrorKind, TlsConfig};
use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
enum Label {
    Hello(String),
}

/// A certificate authority that signs certificates for 127.0.0.1.
struct Authority {
    certificate: rcgen::Certificate,
    key: KeyPair,
}

/// A certificate chain and its private key.
struct Identity {
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
}

impl Authority {
    fn new() -> Self {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let certificate = params.self_signed(&key).unwrap();
        Self { certificate, key }
    }

    fn issue(&self) -> Identity {
        let key = KeyPair::generate().unwrap();
        let params = CertificateParams::new(vec!["127.0.0.1".to_owned()]).unwrap();
        let leaf = params
            .signed_by(&key, &self.certificate, &self.key)
            .unwrap();
        Identity {
            chain: vec![leaf.der().clone()],
            key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        }
    }

    fn roots(&self) -> RootCertStore {
        let mut roots = RootCertStore::empty();
        roots.add(self.certificate.der().clone()).unwrap();
        roots
    }
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A role that trusts `trusts`, presents `identity` as a server and, if given,
/// `client_identity` as a client; `require_clients` asks diallers for certificates.
fn tls(
    trusts: &Authority,
    identity: Identity,
    client_identity: Option<Identity>,
    require_clients: bool,
) -> TlsConfig {
    let client = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(trusts.roots());
    let client = match client_identity {
        Some(id) => client.with_client_auth_cert(id.chain, id.key).unwrap(),
        None => client.with_no_client_auth(),
    };
    let server = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap();
    let server = if require_clients {
        let verifier =
            WebPkiClientVerifier::builder_with_provider(Arc::new(trusts.roots()), provider())
                .build()
                .unwrap();
        server.with_client_cert_verifier(verifier)
    } else {
        server.with_no_client_auth()
    };
    let server = server
        .with_single_cert(identity.chain, identity.key)
        .unwrap();
    TlsConfig::new(Arc::new(client), Arc::new(server))
}

/// A dials B, both over TLS.
async fn pair(
    a: TlsConfig,
    b: TlsConfig,
) -> (Result<Connections, NetError>, Result<Connections, NetError>) {
    let any = "127.0.0.1:0".parse().unwrap();
    let b = Config::new("hello/1", "B")
        .listen(any)
        .peer_without_address("A")
        .tls(b);
    // B turns away a dialler whose TLS fails and waits on: its deadline is short.
    let b = b
        .connect_timeout(Duration::from_secs(2))
        .bind()
        .await
        .unwrap();
    let a = Config::new("hello/1", "A")
        .peer("B", b.local_addr().unwrap())
        .tls(a);
    let a = a.connect_timeout(Duration::from_secs(5));
    tokio::time::timeout(Duration::from_secs(10), async {
        tokio::join!(a.connect(), b.connect())
    })
    .await
    .expect("bounded")
}

fn tls_error(result: Result<Connections, NetError>) -> NetError {
    match result {
        Err(error) => error,
        Ok(_) => panic!("expected a failed connection"),
    }
}

/// The acceptor's time-out after turning away the only dialler: it names the role it
/// waited for and carries why the dialler was turned away (named by its address).
fn turned_away(result: Result<Connections, NetError>) -> String {
    let error = tls_error(result);
    assert_eq!(error.peer, "A");
    match error.kind {
        NetErrorKind::ConnectTimeout {
            last: Some(last), ..
        } => last.to_string(),
        other => panic!("expected a time-out, got {other:?}"),
    }
}

#[tokio::test]
async fn labels_travel_over_tls() {
    let ca = Authority::new();
    let (a, b) = pair(
        tls(&ca, ca.issue(), None, false),
        tls(&ca, ca.issue(), None, false),
    )
    .await;
    let mut ab = a.unwrap().route::<Label>("B").unwrap();
    let mut ba = b.unwrap().route::<Label>("A").unwrap();
    ab.send(Label::Hello("over TLS".into())).await.unwrap();
    let got = ba.next().await.unwrap().unwrap();
    assert_eq!(got, Label::Hello("over TLS".into()));
    ba.send(Label::Hello("back".into())).await.unwrap();
    assert_eq!(
        ab.next().await.unwrap().unwrap(),
        Label::Hello("back".into())
    );
}

#[tokio::test]
async fn a_peer_with_an_untrusted_certificate_is_refused() {
    let (ca, rogue) = (Authority::new(), Authority::new());
    // B presents a certificate of another authority: A refuses it.
    let (a, b) = pair(
        tls(&ca, ca.issue(), None, false),
        tls(&ca, rogue.issue(), None, false),
    )
    .await;
    let error = tls_error(a);
    assert_eq!(error.peer, "B");
    assert!(matches!(error.kind, NetErrorKind::Tls(_)), "{error}");
    assert!(
        error.to_string().contains("TLS handshake failed"),
        "{error}"
    );
    let last = turned_away(b);
    assert!(last.contains("TLS handshake failed"), "{last}");
}

#[tokio::test]
async fn mutual_tls_refuses_a_dialler_without_a_certificate() {
    let ca = Authority::new();
    let b = || tls(&ca, ca.issue(), None, true);
    let (a, b_side) = pair(tls(&ca, ca.issue(), None, false), b()).await;
    let last = turned_away(b_side);
    assert!(last.contains("peer [127.0.0.1:"), "{last}");
    assert!(last.contains("TLS handshake failed"), "{last}");
    // With TLS 1.3 the dialler learns of it on its first read, after its own handshake.
    let error = tls_error(a);
    assert_eq!(error.peer, "B");
    // With a certificate of the authority, the dialler is let in.
    let (a, b_side) = pair(tls(&ca, ca.issue(), Some(ca.issue()), false), b()).await;
    let mut ab = a.unwrap().route::<Label>("B").unwrap();
    ab.send(Label::Hello("it's me".into())).await.unwrap();
    let mut ba = b_side.unwrap().route::<Label>("A").unwrap();
    assert_eq!(
        ba.next().await.unwrap().unwrap(),
        Label::Hello("it's me".into())
    );
}
