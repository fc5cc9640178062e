//! TCP through an impaired link: a partition stalls a connection (and new ones) until it
//! heals, a reset breaks it, seeded loss stalls chunks without corrupting them, jitter
//! reorders messages across connections, and seeded resets break connections.

use crate::common;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use common::{PROCESS_TIMEOUT, assert_exit, echo_server, ping, rtts};
use mpst_testbed::{Host, Impairment, TestBed};

/// Long enough for any unimpaired round trip on a loaded machine; a partitioned one
/// never completes, so this bounds a negative check, not a speed.
const QUIET: Duration = Duration::from_millis(300);
/// The bound for a round trip that must complete.
const PATIENCE: Duration = Duration::from_secs(10);

fn two_hosts(test: &str, impairment: Impairment) -> Option<TestBed> {
    TestBed::builder()
        .host("alice")
        .host("bob")
        .link("alice", "bob", impairment)
        .tcp_port(7000)
        .seed(5)
        .build_or_skip(test)
}

/// A connection from `host` to bob's echo, made inside `host`.
fn connect(host: Host<'_>) -> TcpStream {
    let addr = SocketAddr::from((host.resolve("bob").unwrap(), 7000));
    let stream = host.run(move || TcpStream::connect(addr)).unwrap().unwrap();
    stream.set_nodelay(true).unwrap();
    stream
}

/// Reads exactly `n` bytes within `timeout`.
fn read_n(stream: &mut TcpStream, n: usize, timeout: Duration) -> std::io::Result<Vec<u8>> {
    stream.set_read_timeout(Some(timeout))?;
    let mut buf = vec![0; n];
    stream.read_exact(&mut buf)?;
    Ok(buf)
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

#[test]
fn partition_stalls_connections_until_it_heals_and_reset_breaks_them() {
    let Some(bed) = two_hosts(
        "partition_stalls_connections_until_it_heals_and_reset_breaks_them",
        Impairment::none(),
    ) else {
        return;
    };
    let mut server = echo_server(&bed, "bob", 7000, 3);
    let link = bed.link("alice", "bob");
    let mut s = connect(bed.host("alice"));
    s.write_all(b"one").unwrap();
    assert_eq!(read_n(&mut s, 3, PATIENCE).unwrap(), b"one");

    link.partition();
    assert!(link.is_partitioned());
    s.write_all(b"two").unwrap();
    let stalled = read_n(&mut s, 3, QUIET).unwrap_err();
    assert!(is_timeout(&stalled), "expected a stall, got {stalled:?}");
    // A connection opened during the partition is held too.
    let mut late = connect(bed.host("alice"));
    late.write_all(b"new").unwrap();
    assert!(is_timeout(&read_n(&mut late, 3, QUIET).unwrap_err()));

    link.heal();
    assert_eq!(read_n(&mut s, 3, PATIENCE).unwrap(), b"two");
    assert_eq!(read_n(&mut late, 3, PATIENCE).unwrap(), b"new");

    link.reset_connections();
    for stream in [&mut s, &mut late] {
        let broken = read_n(stream, 1, PATIENCE).unwrap_err();
        assert_eq!(broken.kind(), ErrorKind::ConnectionReset, "{broken:?}");
    }
    assert_eq!(link.stats().resets, 2, "both open connections were reset");

    // The link still carries new connections.
    let mut again = connect(bed.host("alice"));
    again.write_all(b"three").unwrap();
    assert_eq!(read_n(&mut again, 5, PATIENCE).unwrap(), b"three");
    drop(again);
    assert!(server.wait_timeout(PROCESS_TIMEOUT).unwrap().success());
}

#[test]
fn seeded_loss_stalls_chunks_but_delivers_every_byte() {
    let stall = Duration::from_millis(50);
    let Some(bed) = two_hosts(
        "seeded_loss_stalls_chunks_but_delivers_every_byte",
        Impairment::none().loss(0.5).stall(stall),
    ) else {
        return;
    };
    let _server = echo_server(&bed, "bob", 7000, 1);
    let out = ping(&bed, "alice", "bob:7000", 20, 64);
    // The ping checks every echoed byte, so exit 0 means nothing was corrupted.
    assert_exit(&out, 0, "ping");
    let rtts = rtts(&out);
    let stats = bed.link("alice", "bob").stats();
    let stalls = stats.outbound.stalled + stats.inbound.stalled;
    assert!(stalls > 0, "{stats:?}");
    let slow = rtts
        .iter()
        .filter(|&&r| r >= stall.as_micros() as u64)
        .count();
    assert!(slow > 0, "no round trip shows a stall: {rtts:?}");
    assert_eq!(stats.outbound.bytes, 20 * 64);
}

#[test]
fn seeded_resets_break_a_connection_with_a_reset() {
    let Some(bed) = two_hosts(
        "seeded_resets_break_a_connection_with_a_reset",
        Impairment::none().reset(1.0),
    ) else {
        return;
    };
    let mut server = echo_server(&bed, "bob", 7000, 1);
    let out = ping(&bed, "alice", "bob:7000", 5, 64);
    // Status 4: the peer closed or reset the connection.
    assert_exit(&out, 4, "ping over a resetting link");
    assert_eq!(bed.link("alice", "bob").stats().resets, 1);
    assert!(server.wait_timeout(PROCESS_TIMEOUT).unwrap().success());
}

#[test]
fn jitter_lets_a_later_message_on_another_connection_overtake() {
    let Some(bed) = two_hosts(
        "jitter_lets_a_later_message_on_another_connection_overtake",
        Impairment::none()
            .delay(Duration::from_millis(10))
            .jitter(Duration::from_millis(10)),
    ) else {
        return;
    };
    // Bob records, in arrival order, (connection, byte) from two connections.
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let (seen_tx, seen_rx) = std::sync::mpsc::channel::<(usize, u8)>();
    bed.host("bob").spawn_thread(move || {
        let listener = std::net::TcpListener::bind("0.0.0.0:7000").unwrap();
        ready_tx.send(()).unwrap();
        for id in 0..2 {
            let (mut stream, _) = listener.accept().unwrap();
            let seen = seen_tx.clone();
            std::thread::spawn(move || {
                let mut byte = [0u8; 1];
                while let Ok(1) = stream.read(&mut byte) {
                    let _ = seen.send((id, byte[0]));
                }
            });
        }
    });
    ready_rx.recv_timeout(PATIENCE).unwrap();
    let mut first = connect(bed.host("alice"));
    first.write_all(&[255]).unwrap();
    // Bob's first accepted connection is `first` once its byte has arrived.
    assert_eq!(seen_rx.recv_timeout(PATIENCE).unwrap(), (0, 255));
    let mut second = connect(bed.host("alice"));
    // Round i: byte i on `first`, then on `second`; the next round once both arrived (so
    // each byte is a chunk of its own and draws its own delay).
    let mut arrivals = Vec::new();
    let mut overtaken = 0;
    for i in 0..20u8 {
        first.write_all(&[i]).unwrap();
        second.write_all(&[i]).unwrap();
        let round = [
            seen_rx.recv_timeout(PATIENCE).unwrap(),
            seen_rx.recv_timeout(PATIENCE).unwrap(),
        ];
        let mut sorted = round;
        sorted.sort_unstable();
        assert_eq!(sorted, [(0, i), (1, i)], "round {i}");
        // With independent delays of 10 ± 10 ms, the later send sometimes arrives first.
        if round[0] == (1, i) {
            overtaken += 1;
        }
        arrivals.extend(round);
    }
    assert!(overtaken > 0, "no message overtook another: {arrivals:?}");
}

#[test]
fn isolating_a_host_cuts_its_links_only() {
    let Some(bed) = TestBed::builder()
        .host("alice")
        .host("bob")
        .host("carol")
        .full_mesh(Impairment::none())
        .tcp_port(7000)
        .build_or_skip("isolating_a_host_cuts_its_links_only")
    else {
        return;
    };
    let _bob = echo_server(&bed, "bob", 7000, 1);
    let _carol = echo_server(&bed, "carol", 7000, 1);
    let dial = |peer: &str| {
        let addr = SocketAddr::from((bed.host("alice").resolve(peer).unwrap(), 7000));
        bed.host("alice")
            .run(move || TcpStream::connect(addr))
            .unwrap()
            .unwrap()
    };
    let (mut to_bob, mut to_carol) = (dial("bob"), dial("carol"));
    let cut = bed.links_of("bob");
    assert_eq!(cut.len(), 2, "bob is linked to alice and carol");
    for link in &cut {
        link.partition();
    }
    assert!(bed.link("alice", "bob").is_partitioned());
    assert!(bed.link("carol", "bob").is_partitioned());
    assert!(!bed.link("alice", "carol").is_partitioned());
    to_bob.write_all(b"b").unwrap();
    to_carol.write_all(b"c").unwrap();
    assert_eq!(read_n(&mut to_carol, 1, PATIENCE).unwrap(), b"c");
    assert!(is_timeout(&read_n(&mut to_bob, 1, QUIET).unwrap_err()));
    for link in &cut {
        link.heal();
    }
    assert_eq!(read_n(&mut to_bob, 1, PATIENCE).unwrap(), b"b");
}
