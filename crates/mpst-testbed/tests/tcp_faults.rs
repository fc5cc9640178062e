//! TCP through an impaired link: a partition stalls a connection (and new ones) until it
//! heals, a reset breaks it, seeded loss stalls chunks without corrupting them and
//! seeded resets break connections.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use common::{assert_exit, echo_server, ping, rtts, PROCESS_TIMEOUT};
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
