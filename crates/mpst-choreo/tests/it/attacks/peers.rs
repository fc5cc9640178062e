//! Peers that die: a crashed TCP peer fails the receives waiting for it at once; a
//! process that takes a dead QUIC peer's port gets nothing in; receives time out by
//! default.

use super::*;

#[tokio::test]
async fn a_crashed_peer_fails_pending_receives_at_once_with_the_transport_error_text() {
    let names = <RoleSet![A, B]>::names();
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
    let config = EndpointConfig {
        recv_timeout: Duration::from_secs(3600),
        ..EndpointConfig::default()
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
    let timeout = EndpointConfig::default().recv_timeout;
    assert!(
        timeout > Duration::ZERO && timeout <= Duration::from_secs(60),
        "{timeout:?}"
    );
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
            connect_timeout: Duration::from_secs(2),
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
