//! Identities for `mpst::net` on loopback: mutual TLS with certificates that name each
//! role, issued at test time (in memory, and as PEM files), a
//! peer whose certificate another authority issued, and an identity that names another
//! role than the one configured.

use std::path::PathBuf;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use mpst::net::certs::{Deployment, write_deployment};
use mpst::net::{Connections, NetConfig, NetError, NetErrorKind, WireErrorKind};

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
enum Label {
    Hello(String),
}

const PROTOCOL: &str = "hello/1";

/// A dials B; B is bound first so A knows where.
async fn pair(
    a: NetConfig,
    b: NetConfig,
) -> (Result<Connections, NetError>, Result<Connections, NetError>) {
    let b = b
        .listen("127.0.0.1:0")
        .peer_without_address("A")
        // B turns away a dialler whose TLS fails and waits on: its deadline is short.
        .connect_timeout(Duration::from_secs(2))
        .bind()
        .await
        .unwrap();
    let a = a
        .peer("B", b.local_addr().unwrap())
        .connect_timeout(Duration::from_secs(5));
    tokio::time::timeout(Duration::from_secs(10), async {
        tokio::join!(a.connect(), b.connect())
    })
    .await
    .expect("bounded")
}

async fn hello_both_ways(a: Connections, b: Connections) {
    let (mut a, mut b) = (a, b);
    let mut ab = a.route::<Label>("B").unwrap();
    let mut ba = b.route::<Label>("A").unwrap();
    ab.send(Label::Hello("over TLS".into())).await.unwrap();
    assert_eq!(
        ba.next().await.unwrap().unwrap(),
        Label::Hello("over TLS".into())
    );
    ba.send(Label::Hello("back".into())).await.unwrap();
    assert_eq!(
        ab.next().await.unwrap().unwrap(),
        Label::Hello("back".into())
    );
}

#[tokio::test]
async fn labels_travel_over_mutual_tls_with_role_certificates() {
    let pki = Deployment::generate(PROTOCOL, ["A", "B"]).unwrap();
    let a = NetConfig::new(PROTOCOL, "A").identity(pki.identity("A"));
    let b = NetConfig::new(PROTOCOL, "B").identity(pki.identity("B"));
    let (a, b) = pair(a, b).await;
    hello_both_ways(a.unwrap(), b.unwrap()).await;
}

/// A fresh directory under the system's temporary one, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("mpst-net-tls-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn identity_files_as_mpst_certs_writes_them_connect_from_toml() {
    let dir = TempDir::new("files");
    let roles = ["A".to_owned(), "B".to_owned()];
    write_deployment(&dir.0, PROTOCOL, &roles).unwrap();
    let text = |b: &str| {
        format!(
            "protocol = {PROTOCOL:?}\n[roles]\nA = \"127.0.0.1:0\"\nB = {b:?}\n\
             [security]\nca = {ca:?}\ncert = {cert:?}\nkey = {key:?}\n",
            ca = dir.0.join("ca.pem"),
            cert = dir.0.join("{role}.pem"),
            key = dir.0.join("{role}.key"),
        )
    };
    let b = NetConfig::from_toml(&text("127.0.0.1:0"), "B").unwrap();
    let b = b.bind().await.unwrap();
    let b_at = b.local_addr().unwrap().to_string();
    let a = NetConfig::from_toml(&text(&b_at), "A").unwrap();
    let (a, b) = tokio::time::timeout(Duration::from_secs(10), async {
        tokio::join!(a.connect(), b.connect())
    })
    .await
    .expect("bounded");
    hello_both_ways(a.unwrap(), b.unwrap()).await;
}

#[tokio::test]
async fn a_peer_whose_certificate_another_authority_issued_is_refused() {
    let (pki, rogue) = (
        Deployment::generate(PROTOCOL, ["A", "B"]).unwrap(),
        Deployment::generate(PROTOCOL, ["A", "B"]).unwrap(),
    );
    // B presents a certificate of another authority: A refuses it, naming B by address.
    let a = NetConfig::new(PROTOCOL, "A").identity(pki.identity("A"));
    let b = NetConfig::new(PROTOCOL, "B").identity(rogue.identity("B"));
    let (a, b) = pair(a, b).await;
    let error = a.unwrap_err();
    assert!(
        matches!(error.kind, NetErrorKind::Wire(WireErrorKind::Tls(_))),
        "{error}"
    );
    assert!(
        error.to_string().contains("TLS handshake failed"),
        "{error}"
    );
    // B turned the connection away and waited for a real A until its deadline.
    let error = b.unwrap_err();
    assert_eq!(error.peer, "A");
    assert!(
        matches!(
            error.kind,
            NetErrorKind::Wire(WireErrorKind::NotConnected { .. })
        ),
        "{error}"
    );
}

#[tokio::test]
async fn an_identity_for_another_role_is_a_configuration_error() {
    let pki = Deployment::generate(PROTOCOL, ["A", "B"]).unwrap();
    let error = NetConfig::new(PROTOCOL, "A")
        .identity(pki.identity("B"))
        .peer("B", "127.0.0.1:9")
        .connect()
        .await
        .unwrap_err();
    assert_eq!(error.peer, "A");
    assert!(
        matches!(error.kind, NetErrorKind::Wire(WireErrorKind::Identity(_))),
        "{error}"
    );
    assert!(
        error.to_string().contains("does not name role A"),
        "{error}"
    );
}
