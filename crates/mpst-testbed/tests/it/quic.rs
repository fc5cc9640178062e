//! QUIC (quinn, as mpst-choreo's QUIC transport uses it) across the bed: a connection
//! between two hosts, addressed by host name, completes every stream over a link that
//! delays, jitters, drops, duplicates and reorders datagrams, and each endpoint sees the
//! other at the address its name has there.

use std::net::SocketAddr;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use mpst_testbed::{Impairment, TestBed};
use quinn::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use quinn::{ClientConfig, Endpoint, ServerConfig};

const PORT: u16 = 7001;
const STREAMS: usize = 20;
const PATIENCE: Duration = Duration::from_secs(30);

/// A current-thread runtime for a thread inside a host.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// The bytes of stream `i`.
fn payload(i: usize) -> Vec<u8> {
    (0..4096).map(|k| (k * 7 + i) as u8).collect()
}

#[test]
fn quic_streams_complete_over_an_impaired_link() {
    let Some(bed) = TestBed::builder()
        .host("alice")
        .host("bob")
        .link(
            "alice",
            "bob",
            Impairment::none()
                .delay(Duration::from_millis(5))
                .jitter(Duration::from_millis(3))
                .loss(0.05)
                .duplicate(0.05)
                .reorder(0.1, Duration::from_millis(10)),
        )
        .udp_port(PORT)
        .seed(4)
        .build_or_skip("quic_streams_complete_over_an_impaired_link")
    else {
        return;
    };
    let certified = rcgen::generate_simple_self_signed(vec!["bob".to_string()]).unwrap();
    let cert: CertificateDer<'static> = certified.cert.der().clone();
    let key = PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der());

    // Bob: a QUIC server on the declared port, echoing every stream.
    let (ready_tx, ready_rx) = mpsc::channel();
    let server = bed.host("bob").spawn_thread({
        let cert = cert.clone();
        move || {
            runtime().block_on(async move {
                let config =
                    ServerConfig::with_single_cert(vec![cert], PrivateKeyDer::Pkcs8(key)).unwrap();
                let endpoint = Endpoint::server(config, ([0, 0, 0, 0], PORT).into()).unwrap();
                ready_tx.send(()).unwrap();
                let work = async {
                    let connection = endpoint.accept().await.unwrap().await.unwrap();
                    for _ in 0..STREAMS {
                        let (mut send, mut recv) = connection.accept_bi().await.unwrap();
                        let data = recv.read_to_end(1 << 20).await.unwrap();
                        send.write_all(&data).await.unwrap();
                        send.finish().unwrap();
                    }
                    let remote = connection.remote_address();
                    connection.closed().await;
                    remote
                };
                tokio::time::timeout(PATIENCE, work)
                    .await
                    .expect("bob's side in time")
            })
        }
    });
    ready_rx.recv_timeout(PATIENCE).unwrap();

    // Alice: a client on the same port (as a QUIC transport endpoint), dialling bob by
    // the address his name has on her host.
    let bob_there = SocketAddr::from((bed.host("alice").resolve("bob").unwrap(), PORT));
    let client = bed.host("alice").spawn_thread(move || {
        runtime().block_on(async move {
            let mut roots = quinn::rustls::RootCertStore::empty();
            roots.add(cert).unwrap();
            let mut endpoint = Endpoint::client(([0, 0, 0, 0], PORT).into()).unwrap();
            endpoint.set_default_client_config(
                ClientConfig::with_root_certificates(Arc::new(roots)).unwrap(),
            );
            let work = async {
                let connection = endpoint.connect(bob_there, "bob").unwrap().await.unwrap();
                let mut intact = 0;
                for i in 0..STREAMS {
                    let (mut send, mut recv) = connection.open_bi().await.unwrap();
                    send.write_all(&payload(i)).await.unwrap();
                    send.finish().unwrap();
                    if recv.read_to_end(1 << 20).await.unwrap() == payload(i) {
                        intact += 1;
                    }
                }
                connection.close(0u32.into(), b"done");
                endpoint.wait_idle().await;
                intact
            };
            tokio::time::timeout(PATIENCE, work)
                .await
                .expect("alice's side in time")
        })
    });
    let intact = client.join().unwrap().unwrap();
    let seen_from = server.join().unwrap().unwrap();
    assert_eq!(intact, STREAMS, "every stream echoed intact");
    let alice_there = SocketAddr::from((bed.host("bob").resolve("alice").unwrap(), PORT));
    assert_eq!(
        seen_from, alice_there,
        "bob sees alice where her name points"
    );
    let stats = bed.link("alice", "bob").stats();
    assert!(
        stats.outbound.dropped + stats.inbound.dropped > 0,
        "the link dropped nothing: {stats:?}"
    );
}
