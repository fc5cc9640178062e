//! Holding memory and connections: partial frames, idle and surplus connections, lanes
//! claiming one role, envelopes for sessions that never start.

use super::*;

#[tokio::test]
async fn stranger_holding_partial_frames_is_closed_after_the_idle_timeout() {
    let names = <RoleSet![A, B]>::names();
    let deployment = Deployment::new(&names);
    let short = |d: &Deployment, r: &RoleName| TcpConfig {
        handshake_timeout: Duration::from_millis(300),
        idle_timeout: Duration::from_millis(300),
        ..d.tcp(r)
    };
    let plaintext = |_: &Deployment, _: &RoleName| TcpConfig {
        handshake_timeout: Duration::from_millis(300),
        idle_timeout: Duration::from_millis(300),
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
    let names = <RoleSet![A, B]>::names();
    let transport = Arc::new(InMemory::new(names));
    let config = EndpointConfig {
        unclaimed_limit: 500,
        unclaimed_age: Duration::from_secs(5),
        ..EndpointConfig::default()
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
    let names = <RoleSet![A, B]>::names();
    let deployment = Deployment::new(&names);
    let capped = |d: &Deployment, r: &RoleName| TcpConfig {
        max_pending_handshakes: 8,
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
async fn stranger_claiming_a_role_in_plaintext_holds_at_most_twice_its_lanes() {
    let names = <RoleSet![A, B]>::names();
    let deployment = Deployment::new(&names);
    let one_lane = |_: &Deployment, _: &RoleName| TcpConfig {
        connections_per_peer: 1,
        protocol: common::PROGRAM.into(),
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
