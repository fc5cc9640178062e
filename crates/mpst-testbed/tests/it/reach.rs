//! Hosts reach each other by host name, only through the relay, and the round trips
//! carry the configured delay.

use crate::common;

use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use common::{PROCESS_TIMEOUT, assert_exit, echo_server, ping, rtts};
use mpst_testbed::{Impairment, TestBed};

#[test]
fn hosts_reach_each_other_by_name_through_the_relay_only() {
    let Some(bed) = TestBed::builder()
        .host("alice")
        .host("bob")
        .host("carol")
        .full_mesh(Impairment::none())
        .tcp_port(7000)
        .build_or_skip("hosts_reach_each_other_by_name_through_the_relay_only")
    else {
        return;
    };
    let mut server = echo_server(&bed, "bob", 7000, 2);
    for client in ["alice", "carol"] {
        let out = ping(&bed, client, "bob:7000", 3, 100);
        assert_exit(&out, 0, client);
        assert_eq!(rtts(&out).len(), 3);
        let stats = bed.link(client, "bob").stats();
        assert_eq!(stats.connections, 1, "{client}: {stats:?}");
        // 3 pings of 100 bytes each way, all through the relay.
        assert_eq!(stats.outbound.bytes, 300, "{client}: {stats:?}");
        assert_eq!(stats.inbound.bytes, 300, "{client}: {stats:?}");
    }
    assert!(server.wait_timeout(PROCESS_TIMEOUT).unwrap().success());

    // Inside a host, the libc resolver reads the bed's hosts file.
    let alice = bed.host("alice");
    let getent = alice
        .command("getent")
        .args(["hosts", "bob"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&getent.stdout);
    let resolved = alice.resolve("bob").unwrap().to_string();
    assert!(text.starts_with(&resolved), "getent said {text:?}");
    assert_ne!(alice.resolve("bob"), Some(bed.host("bob").address()));

    let ns = alice.namespace().to_string();
    assert!(
        alice
            .run(move || mpst_testbed::thread_in_namespace(&ns))
            .unwrap()
    );
    assert!(!alice.is_current());

    // The real address of another host is not routed: nothing bypasses the relay.
    let bob_real = SocketAddr::from((bed.host("bob").address(), 7000));
    let direct = alice
        .run(move || TcpStream::connect_timeout(&bob_real, Duration::from_secs(2)))
        .unwrap();
    assert!(direct.is_err(), "alice reached bob's real address directly");
}

#[test]
fn one_way_delay_shows_in_every_round_trip() {
    let delay = Duration::from_millis(15);
    let jitter = Duration::from_millis(5);
    let Some(bed) = TestBed::builder()
        .host("alice")
        .host("bob")
        .link(
            "alice",
            "bob",
            Impairment::none().delay(delay).jitter(jitter),
        )
        .tcp_port(7000)
        .seed(11)
        .build_or_skip("one_way_delay_shows_in_every_round_trip")
    else {
        return;
    };
    let _server = echo_server(&bed, "bob", 7000, 1);
    let out = ping(&bed, "alice", "bob:7000", 10, 64);
    assert_exit(&out, 0, "ping");
    let rtts = rtts(&out);
    assert_eq!(rtts.len(), 10);
    // A lower bound, not a speed claim: each way waits at least delay - jitter.
    let floor = 2 * (delay - jitter).as_micros() as u64;
    for rtt in &rtts {
        assert!(
            *rtt >= floor,
            "a round trip of {rtt} us is under {floor} us: {rtts:?}"
        );
    }
}

#[test]
fn bandwidth_limit_bounds_a_transfer_from_below() {
    let rate = 128 * 1024;
    let Some(bed) = TestBed::builder()
        .host("alice")
        .host("bob")
        .link("alice", "bob", Impairment::none().bandwidth(rate))
        .tcp_port(7000)
        .build_or_skip("bandwidth_limit_bounds_a_transfer_from_below")
    else {
        return;
    };
    let _server = echo_server(&bed, "bob", 7000, 1);
    let size = 32 * 1024;
    let out = ping(&bed, "alice", "bob:7000", 1, size);
    assert_exit(&out, 0, "ping");
    // 32 KiB at 128 KiB/s take 250 ms to cross (the echo pipelines the way back, so
    // the round trip's bound is one crossing).
    let rtt = rtts(&out)[0];
    assert!(rtt >= 250_000, "32 KiB each way took {rtt} us at 128 KiB/s");
    assert_eq!(bed.link("alice", "bob").stats().outbound.bytes, size as u64);
}

#[test]
fn tasks_spawned_on_a_host_runtime_use_the_hosts_network() {
    let Some(bed) = TestBed::builder()
        .host("alice")
        .host("bob")
        .link("alice", "bob", Impairment::none())
        .tcp_port(7000)
        .build_or_skip("tasks_spawned_on_a_host_runtime_use_the_hosts_network")
    else {
        return;
    };
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let bob = bed.host("bob").runtime(2).unwrap();
    let alice = bed.host("alice").runtime(1).unwrap();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let bob_host = bed.host("bob").namespace().to_string();
    assert!(
        !bed.host("bob").is_current(),
        "the test's own thread is outside"
    );
    let server = bob.spawn(async move {
        assert!(mpst_testbed::thread_in_namespace(&bob_host));
        let listener = tokio::net::TcpListener::bind("0.0.0.0:7000").await?;
        ready_tx.send(()).unwrap();
        let (mut stream, _) = listener.accept().await?;
        let mut buf = [0u8; 5];
        stream.read_exact(&mut buf).await?;
        stream.write_all(&buf).await?;
        std::io::Result::Ok(())
    });
    ready_rx.recv_timeout(PROCESS_TIMEOUT).unwrap();
    // Only inside alice does bob's name lead anywhere: the relay is reachable from hosts.
    let bob_there = SocketAddr::from((bed.host("alice").resolve("bob").unwrap(), 7000));
    let alice_host = bed.host("alice").namespace().to_string();
    let client = alice.spawn(async move {
        // Never dial the bed's addresses from outside the bed.
        assert!(mpst_testbed::thread_in_namespace(&alice_host));
        let mut stream = tokio::net::TcpStream::connect(bob_there).await?;
        stream.write_all(b"hello").await?;
        let mut buf = [0u8; 5];
        stream.read_exact(&mut buf).await?;
        std::io::Result::Ok(buf)
    });
    let echoed = alice
        .block_on(async { tokio::time::timeout(PROCESS_TIMEOUT, client).await })
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(&echoed, b"hello");
    bob.block_on(server).unwrap().unwrap();
    assert_eq!(bed.link("alice", "bob").stats().outbound.bytes, 5);
}
