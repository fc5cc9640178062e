//! Forging, impersonating and replaying: strangers and impersonators that claim a role,
//! send a message under a key computed from the source (now or for a later session), or
//! replay bytes recorded from another run. The real values must bind; nothing else.

use super::*;

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
    let endpoints = endpoints(&transports, EndpointConfig::default());
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
    let names = <RoleSet![A, B]>::names();
    let deployment = Deployment::new(&names);
    // Run 1: A reaches B through a proxy that records A's bytes.
    let mut bound = listeners(&names).await;
    let (proxy, mut recorded) = recording_proxy(bound[1].2).await;
    bound[1].2 = proxy;
    let transports = start(&deployment, bound, Deployment::tcp).await;
    let ends = endpoints(&transports, EndpointConfig::default());
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
    let ends = endpoints(&transports, EndpointConfig::default());
    let results = run_all(&ends, 0, Pass(2)).await;
    assert_eq!(at_b(results), Some(2));
    assert!(refused_at_least(&transports[1], 1).await >= 1);
}

#[tokio::test]
async fn future_session_message_from_a_stranger_is_never_bound() {
    let names = <RoleSet![A, B]>::names();
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
    let ends = endpoints(&transports, EndpointConfig::default());
    for (n, value) in [(0, 10), (1, 11)] {
        let results = run_all(&ends, n, Pass(value)).await;
        assert_eq!(at_b(results), Some(value));
    }
}

#[tokio::test]
async fn stranger_with_garbage_idle_or_plaintext_connections_changes_nothing() {
    let names = <RoleSet![A, B]>::names();
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
    let ends = endpoints(&transports, EndpointConfig::default());
    let results = run_all(&ends, 0, Pass(5)).await;
    assert!(results[0].is_ok());
    assert_eq!(at_b(results), Some(5));
}

#[tokio::test]
async fn an_envelope_naming_another_sender_is_refused_counted_and_the_real_one_binds() {
    let names = <RoleSet![A, B]>::names();
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
    let b_addr: std::net::SocketAddr = b_addr.parse().unwrap();
    let a = TcpTransport::start(
        role("A"),
        a_listener,
        [(role("B"), b_addr)],
        deployment.tcp(&role("A")),
    );
    let a = Arc::new(timeout(LIMIT, a).await.unwrap().unwrap());
    let b = Arc::new(timeout(LIMIT, b).await.unwrap().unwrap().unwrap());
    assert!(refused_at_least(&b, 2).await >= 2);
    let ends = endpoints(&[a, b], EndpointConfig::default());
    let results = run_all(&ends, 0, Pass(3)).await;
    assert_eq!(at_b(results), Some(3));
}
