//! One configuration for both runtimes: a TCP deployment built from `mpst-wire`'s
//! `WireConfig` (the builder, and a TOML text with the names `mpst::net` reads), with
//! peers given by host name (`localhost:PORT`, looked up on each dial) and mutual TLS.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
use mpst_choreo::{Choreography, Endpoint, EndpointConfig, RoleName, RoleSet};
use mpst_choreo_paper::producers;
use mpst_wire::WireConfig;
use mpst_wire::certs::Deployment;
use tokio::net::TcpListener;
use tokio::time::timeout;

const PROTOCOL: &str = "one-config/1";
const LIMIT: Duration = Duration::from_secs(30);

/// Runs the producers choreography, each role over the transport `connect` builds from
/// its listener; returns the reports of the roles that hold a result.
async fn run<F, Fut>(connect: F) -> Vec<String>
where
    F: Fn(RoleName, TcpListener, Vec<(RoleName, u16)>) -> Fut,
    Fut: std::future::Future<Output = TcpTransport>,
{
    let choreography = producers::ConcurrentProducers(producers::Params::example());
    let roles = <producers::ConcurrentProducers as Choreography<_>>::Roles::names();
    let mut listeners = Vec::new();
    for _ in &roles {
        listeners.push(TcpListener::bind("127.0.0.1:0").await.unwrap());
    }
    let ports: Vec<u16> = listeners
        .iter()
        .map(|l| l.local_addr().unwrap().port())
        .collect();
    let starts = roles.iter().zip(listeners).map(|(role, listener)| {
        let peers = roles
            .iter()
            .cloned()
            .zip(ports.iter().copied())
            .filter(|(peer, _)| peer != role)
            .collect();
        connect(role.clone(), listener, peers)
    });
    let transports = timeout(LIMIT, futures::future::join_all(starts))
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for transport in transports {
        let transport = Arc::new(transport);
        let role = transport.role().clone();
        let endpoint =
            Endpoint::with_config(transport.clone(), role, EndpointConfig::default(), None)
                .unwrap();
        tasks.push(tokio::spawn(async move {
            let result = endpoint.run(choreography).await;
            transport.close().await;
            result.unwrap()
        }));
    }
    let mut reports = Vec::new();
    for task in tasks {
        reports.extend(producers::report(
            timeout(LIMIT, task).await.unwrap().unwrap(),
        ));
    }
    reports
}

fn expected() -> Vec<String> {
    let (a, b) = producers::expected(&producers::Params::example());
    vec![format!("{a:?}"), format!("{b:?}")]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_choreography_runs_with_peers_named_by_host_name_from_one_wire_config() {
    let roles = <producers::ConcurrentProducers as Choreography<_>>::Roles::names();
    let pki = Deployment::generate(PROTOCOL, roles.iter().map(RoleName::as_str)).unwrap();
    let pki = &pki;
    let reports = run(|role, listener, peers| async move {
        let mut wire = WireConfig::new(PROTOCOL, role.as_str())
            .mutual_tls(pki.identity(role.as_str()))
            .connect_timeout(Duration::from_secs(20))
            .max_frame_length(1 << 20);
        for (peer, port) in peers {
            wire = wire.peer(peer.as_str(), format!("localhost:{port}"));
        }
        let tcp = TcpConfig::from_wire(&wire).unwrap();
        assert_eq!(tcp.protocol, PROTOCOL);
        assert_eq!(tcp.max_frame_length, 1 << 20);
        assert_eq!(tcp.connect_timeout, Duration::from_secs(20));
        TcpTransport::connect_on(listener, &wire).await.unwrap()
    })
    .await;
    assert_eq!(reports, expected());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_choreography_runs_from_one_toml_text_with_identity_files() {
    let roles = <producers::ConcurrentProducers as Choreography<_>>::Roles::names();
    let names: Vec<String> = roles.iter().map(|r| r.to_string()).collect();
    let dir = tempfile::tempdir().unwrap();
    mpst_wire::certs::write_deployment(dir.path(), PROTOCOL, &names).unwrap();
    let dir = dir.path().to_path_buf();
    let dir = &dir;
    let reports = run(|role, listener, peers| async move {
        let mut toml = format!(
            "protocol = \"{PROTOCOL}\"\nrole = \"{role}\"\nlisten = \"{}\"\n\
             connect_timeout = \"20s\"\nidle_timeout = \"5s\"\nmax_pending_handshakes = 8\n\
             max_frame_length = 65536\n[security]\nca = \"{ca}\"\ncert = \"{cert}\"\n\
             key = \"{key}\"\n[peers]\n",
            listener.local_addr().unwrap(),
            ca = dir.join("ca.pem").display(),
            cert = dir.join(format!("{role}.pem")).display(),
            key = dir.join(format!("{role}.key")).display(),
        );
        for (peer, port) in peers {
            toml.push_str(&format!("{peer} = \"localhost:{port}\"\n"));
        }
        let wire = WireConfig::from_toml(&toml).unwrap();
        let tcp = TcpConfig::from_wire(&wire).unwrap();
        assert_eq!(tcp.idle_timeout, Duration::from_secs(5));
        assert_eq!(tcp.max_pending_handshakes, 8);
        assert_eq!(tcp.max_frame_length, 65536);
        TcpTransport::connect_on(listener, &wire).await.unwrap()
    })
    .await;
    assert_eq!(reports, expected());
}

#[test]
fn a_wire_config_without_a_security_mode_is_refused_by_name() {
    let wire = WireConfig::new(PROTOCOL, "A").peer("B", "localhost:1");
    let err = TcpConfig::from_wire(&wire).unwrap_err();
    assert!(err.to_string().contains("insecure_plaintext"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quic_takes_its_settings_and_host_names_from_a_wire_config() {
    use mpst_choreo::net::quic::{QuicConfig, QuicTransport};
    use mpst_choreo::transport::Transport;
    let pki = Deployment::generate(PROTOCOL, ["A", "B"]).unwrap();
    let sockets = [
        std::net::UdpSocket::bind("127.0.0.1:0").unwrap(),
        std::net::UdpSocket::bind("127.0.0.1:0").unwrap(),
    ];
    let ports: Vec<u16> = sockets
        .iter()
        .map(|s| s.local_addr().unwrap().port())
        .collect();
    let starts = ["A", "B"]
        .into_iter()
        .zip(sockets)
        .enumerate()
        .map(|(i, (name, socket))| {
            let (peer, port) = if i == 0 {
                ("B", ports[1])
            } else {
                ("A", ports[0])
            };
            let wire = WireConfig::new(PROTOCOL, name)
                .mutual_tls(pki.identity(name))
                .peer(peer, format!("localhost:{port}"))
                .max_frame_length(4096);
            let quic = QuicConfig::from_wire(&wire);
            assert_eq!(quic.max_frame_length, 4096);
            let peers = vec![(
                RoleName::new(peer),
                wire.peer_address(peer).unwrap().to_string(),
            )];
            let identity = pki.identity(name);
            async move {
                QuicTransport::start(
                    RoleName::new(name),
                    socket,
                    &identity,
                    PROTOCOL,
                    peers,
                    quic,
                )
                .await
                .unwrap()
            }
        });
    let transports = timeout(LIMIT, futures::future::join_all(starts))
        .await
        .unwrap();
    let mut incoming = transports[1].incoming(&RoleName::new("B")).unwrap();
    transports[0]
        .send(common::envelope("A", "B", 5, 100))
        .await
        .unwrap();
    assert_eq!(common::next(&mut incoming).await, 5);
    // Past the configured max_frame_length, the sender refuses.
    let err = transports[0]
        .send(common::envelope("A", "B", 6, 8192))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("4096"), "{err}");
}
