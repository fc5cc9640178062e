//! Dialling and accepting between real peers: host names, retries until the peer is up,
//! deadlines that cannot overflow, errors that keep the attempts, one connection per pair
//! decided by the library, several connections per pair and restarted peers, identities
//! loaded from files.

use crate::support;

use std::time::Duration;

use mpst_wire::{Expected, Node, Peer, Refusal, WireConfig, WireErrorKind, deadline_after};
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_name_is_resolved_and_a_deadline_of_duration_max_does_not_overflow() {
    assert!(deadline_after(Duration::MAX).is_none());
    let pki = pki();
    let (_, mut acceptor) = pair(Mode::Tls, &pki).await;
    let at = format!("localhost:{}", acceptor.local_addr().port());
    let a = Node::new(
        config("A", Mode::Tls, &pki)
            .peer("B", at)
            .connect_timeout(Duration::MAX),
    )
    .unwrap();
    real_peer_connects(&a, &mut acceptor).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dialling_nobody_retries_until_the_deadline_and_keeps_the_attempts() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let at = free.local_addr().unwrap().to_string();
    drop(free);
    let a = Node::new(WireConfig::new(PROTOCOL, "A").insecure_plaintext()).unwrap();
    let error = a
        .dial_at("B", &at, deadline_after(Duration::from_millis(300)))
        .await
        .unwrap_err();
    assert_eq!(error.peer, Peer::Expected("B".into()));
    let WireErrorKind::NotConnected {
        address,
        attempts,
        errors,
    } = &error.kind
    else {
        panic!("{error}");
    };
    assert_eq!(address, &at);
    assert!(*attempts >= 2, "{error}");
    assert!(!errors.is_empty() && errors.len() <= mpst_wire::dial::KEPT_ATTEMPTS);
    assert!(errors.iter().all(|e| e.target.contains(&at)), "{errors:?}");
    assert!(error.to_string().contains("attempts; last:"), "{error}");
    let unresolvable = a
        .dial_at(
            "B",
            "no-such-host.invalid:1",
            deadline_after(Duration::from_millis(200)),
        )
        .await
        .unwrap_err();
    assert!(
        unresolvable.to_string().contains("cannot resolve"),
        "{unresolvable}"
    );
}

/// The dialler keeps trying until its deadline, not only until the next full pause would
/// cross it: with a 1 s deadline the old rule gave up after about 0.68 s (10 ms doubling:
/// the pause after the attempt at 630 ms would have ended past 1 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dialler_uses_its_whole_connect_deadline() {
    // A port that closes every connection at once: each attempt fails fast and is retried.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = listener.local_addr().unwrap().to_string();
    let closing = tokio::spawn(async move {
        let mut seen = 0u32;
        while let Ok((stream, _)) = listener.accept().await {
            drop(stream);
            seen += 1;
        }
        seen
    });
    let a = Node::new(WireConfig::new(PROTOCOL, "A").insecure_plaintext()).unwrap();
    let timeout = Duration::from_secs(1);
    let start = tokio::time::Instant::now();
    let error = a
        .dial_at("B", &at, deadline_after(timeout))
        .await
        .unwrap_err();
    let elapsed = start.elapsed();
    closing.abort();
    assert!(elapsed >= timeout, "gave up after {elapsed:?}: {error}");
    let WireErrorKind::NotConnected { attempts, .. } = &error.kind else {
        panic!("{error}");
    };
    assert!(*attempts >= 2, "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_may_start_in_any_order() {
    let pki = pki();
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let at = free.local_addr().unwrap();
    drop(free);
    let a = Node::new(config("A", Mode::Tls, &pki).peer("B", at.to_string())).unwrap();
    let dialling = tokio::spawn(async move { a.dial("B").await });
    let b = Node::new(config("B", Mode::Tls, &pki).listen(at.to_string())).unwrap();
    let mut acceptor = b.bind(Expected::new().peer("A", 1)).await.unwrap();
    let accepted = acceptor.next().await.unwrap();
    let dialled = dialling.await.unwrap().unwrap();
    assert_eq!(dialled.run_id(), accepted.run_id());
}

async fn three_roles_pairwise(mode: Mode) {
    let pki = pki();
    let mut nodes = Vec::new();
    let mut acceptors = Vec::new();
    let mut addresses = Vec::new();
    for role in ["A", "B", "C"] {
        let node = Node::new(config(role, mode, &pki)).unwrap();
        // Bind first with every peer admitted, to learn the ports.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        addresses.push((role, listener.local_addr().unwrap().to_string()));
        acceptors.push(listener);
        nodes.push(node);
    }
    let mut tasks = Vec::new();
    for ((role, _), listener) in addresses.clone().into_iter().zip(acceptors) {
        let mut config = config(role, mode, &pki);
        for (peer, at) in &addresses {
            if *peer != role {
                config = config.peer(*peer, at.clone());
            }
        }
        let node = Node::new(config).unwrap();
        tasks.push(tokio::spawn(async move {
            let mut acceptor = node.accept_on(listener, node.pairwise_expected()).unwrap();
            let connections = node.connect_pairwise(Some(&mut acceptor)).await.unwrap();
            connections
                .into_iter()
                .map(|(peer, c)| (role, peer, c.run_id(), c.is_authenticated()))
                .collect::<Vec<_>>()
        }));
    }
    let mut seen = Vec::new();
    for task in tasks {
        seen.extend(task.await.unwrap());
    }
    assert_eq!(seen.len(), 6);
    for (role, peer, run, authenticated) in &seen {
        assert_eq!(*authenticated, mode == Mode::Tls);
        let other = seen
            .iter()
            .find(|(r, p, _, _)| r == peer && p == role)
            .unwrap();
        assert_eq!(other.2, *run, "{role} and {peer} agree on the run id");
    }
    drop(nodes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_connection_per_pair_the_library_decides_who_dials_tls() {
    three_roles_pairwise(Mode::Tls).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_connection_per_pair_the_library_decides_who_dials_plaintext() {
    three_roles_pairwise(Mode::Plain).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_connections_per_pair_and_a_restarted_peer_are_accepted() {
    let pki = pki();
    let b = Node::new(config("B", Mode::Tls, &pki)).unwrap();
    let lanes = Expected::new().peer("A", 4);
    let mut acceptor = b.bind(lanes.clone()).await.unwrap();
    let at = acceptor.local_addr().to_string();
    let a = Node::new(config("A", Mode::Tls, &pki).peer("B", at)).unwrap();
    let dials = futures::future::try_join_all((0..4).map(|_| a.dial("B")));
    let (dialled, accepted) =
        tokio::join!(dials, acceptor.wait_for(&lanes, deadline_after(CONNECT)));
    let (dialled, accepted) = (dialled.unwrap(), accepted.unwrap());
    assert_eq!((dialled.len(), accepted.len()), (4, 4));
    let mut runs: Vec<_> = accepted.iter().map(|c| c.run_id()).collect();
    runs.sort_by_key(|r| *r.as_bytes());
    runs.dedup();
    assert_eq!(runs.len(), 4, "every connection has its own run id");
    // A restarts and connects again: the long-running acceptor takes it.
    let again =
        Node::new(config("A", Mode::Tls, &pki).peer("B", acceptor.local_addr().to_string()))
            .unwrap();
    let (dialled, accepted) = tokio::join!(again.dial("B"), acceptor.next());
    assert_eq!(dialled.unwrap().run_id(), accepted.unwrap().run_id());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exclusive_acceptor_refuses_a_second_connection_of_a_role() {
    let pki = pki();
    let b = Node::new(config("B", Mode::Tls, &pki)).unwrap();
    let mut acceptor = b
        .bind(Expected::new().peer("A", 1).exclusive())
        .await
        .unwrap();
    let a = Node::new(config("A", Mode::Tls, &pki).peer("B", acceptor.local_addr().to_string()))
        .unwrap();
    let (first, _accepted) = tokio::join!(a.dial("B"), acceptor.next());
    first.unwrap();
    let error = a.dial("B").await.unwrap_err();
    assert!(
        matches!(&error.kind, WireErrorKind::Refused(Refusal::Duplicate { role }) if role == "A"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_peer_is_named_at_the_deadline_with_the_strangers_seen() {
    let pki = pki();
    let (_, mut acceptor) = pair(Mode::Plain, &pki).await;
    let mut stats = acceptor.watch_stats();
    let mut stranger = tokio::net::TcpStream::connect(acceptor.local_addr())
        .await
        .unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut stranger, b"nonsense")
        .await
        .unwrap();
    stats_until(&mut stats, |s| s.refused >= 1).await;
    let wanted = Expected::new().peer("A", 1);
    let error = acceptor
        .wait_for(&wanted, deadline_after(Duration::from_millis(100)))
        .await
        .unwrap_err();
    assert_eq!(error.peer, Peer::Expected("A".into()));
    assert!(
        error
            .to_string()
            .contains("not dialled by it; last: 127.0.0.1:"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identities_written_by_certs_load_from_a_shared_toml_file() {
    let dir = std::env::temp_dir().join(format!("mpst-wire-certs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let roles = vec!["A".to_owned(), "B".to_owned()];
    let written = mpst_wire::certs::write_deployment(&dir.join("certs"), PROTOCOL, &roles).unwrap();
    assert_eq!(written.len(), 6);
    let again =
        mpst_wire::certs::write_deployment(&dir.join("certs"), PROTOCOL, &roles).unwrap_err();
    assert!(again.to_string().contains("exists already"), "{again}");
    let toml = format!(
        "protocol = \"{PROTOCOL}\"\nconnect_timeout = \"60s\"\n[roles]\nA = \"127.0.0.1:0\"\nB = \"127.0.0.1:0\"\n\
         [security]\nca = \"certs/ca.pem\"\ncert = \"certs/{{role}}.pem\"\nkey = \"certs/{{role}}.key\"\n"
    );
    let file = dir.join("deployment.toml");
    std::fs::write(&file, toml).unwrap();
    let b = Node::new(WireConfig::from_file(&file, Some("B")).unwrap()).unwrap();
    let mut acceptor = b.bind(Expected::new().peer("A", 1)).await.unwrap();
    let a_config = WireConfig::from_file(&file, Some("A"))
        .unwrap()
        .peer("B", acceptor.local_addr().to_string());
    let a = Node::new(a_config).unwrap();
    real_peer_connects(&a, &mut acceptor).await;
    // A certificate of another role is refused when the node is made.
    let wrong = WireConfig::new(PROTOCOL, "A").identity_files(
        dir.join("certs/ca.pem"),
        dir.join("certs/B.pem"),
        dir.join("certs/B.key"),
    );
    let error = Node::new(wrong).unwrap_err();
    assert!(
        error.to_string().contains("does not name role A"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
