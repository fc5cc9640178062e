//! UDP (what QUIC rides on) through an impaired link: seeded drops at the configured
//! rate, duplicates, reordering, and a partition that drops everything until it heals.

mod common;

use std::collections::HashSet;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use common::eventually;
use mpst_testbed::{Impairment, TestBed};

const PORT: u16 = 7001;
const PATIENCE: Duration = Duration::from_secs(10);

fn two_hosts(test: &str, impairment: Impairment, seed: u64) -> Option<TestBed> {
    TestBed::builder()
        .host("alice")
        .host("bob")
        .link("alice", "bob", impairment)
        .udp_port(PORT)
        .seed(seed)
        .build_or_skip(test)
}

/// Bob's side: every datagram's first 4 bytes (a sequence number) go to the returned
/// channel, and the datagram is echoed if `echo`; stops when `stop` is set.
fn bob(bed: &TestBed, echo: bool, stop: Arc<AtomicBool>) -> mpsc::Receiver<u32> {
    let (ready_tx, ready_rx) = mpsc::channel();
    let (seen_tx, seen_rx) = mpsc::channel();
    bed.host("bob").spawn_thread(move || {
        let socket = UdpSocket::bind(("0.0.0.0", PORT)).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_millis(20)))
            .unwrap();
        ready_tx.send(()).unwrap();
        let mut buf = [0u8; 64];
        while !stop.load(Ordering::Relaxed) {
            match socket.recv_from(&mut buf) {
                Ok((4, from)) => {
                    let _ = seen_tx.send(u32::from_be_bytes(buf[..4].try_into().unwrap()));
                    if echo {
                        let _ = socket.send_to(&buf[..4], from);
                    }
                }
                _ => continue,
            }
        }
    });
    ready_rx.recv_timeout(PATIENCE).expect("bob binds");
    seen_rx
}

/// Alice's socket, made inside alice and connected to bob's name.
fn alice(bed: &TestBed) -> UdpSocket {
    let host = bed.host("alice");
    let socket = host.run(|| UdpSocket::bind("0.0.0.0:0")).unwrap().unwrap();
    socket
        .connect(SocketAddr::from((host.resolve("bob").unwrap(), PORT)))
        .unwrap();
    socket
}

/// |observed - n p| within 5 standard deviations of a binomial(n, p).
fn within_binomial(observed: u64, n: u64, p: f64) -> bool {
    let mean = n as f64 * p;
    let sigma = (n as f64 * p * (1.0 - p)).sqrt();
    (observed as f64 - mean).abs() <= 5.0 * sigma
}

#[test]
fn udp_drop_rate_is_within_a_binomial_bound_of_the_configured_rate() {
    let (n, p) = (400u32, 0.1);
    let Some(bed) = two_hosts(
        "udp_drop_rate_is_within_a_binomial_bound_of_the_configured_rate",
        Impairment::none().loss(p),
        3,
    ) else {
        return;
    };
    let stop = Arc::new(AtomicBool::new(false));
    let _seen = bob(&bed, true, stop.clone());
    let socket = alice(&bed);
    // One datagram at a time (the next after its echo or 20 ms), so no socket buffer
    // on the way ever overflows: every loss is the relay's.
    socket
        .set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let mut echoed = HashSet::new();
    let mut buf = [0u8; 64];
    for seq in 0..n {
        socket.send(&seq.to_be_bytes()).unwrap();
        while let Ok(4) = socket.recv(&mut buf) {
            let got = u32::from_be_bytes(buf[..4].try_into().unwrap());
            echoed.insert(got);
            if got == seq {
                break;
            }
        }
    }
    let link = bed.link("alice", "bob");
    // Late echoes: wait until every echo the relay delivered has been read.
    socket
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let settled = eventually(PATIENCE, || {
        if let Ok(4) = socket.recv(&mut buf) {
            echoed.insert(u32::from_be_bytes(buf[..4].try_into().unwrap()));
        }
        let s = link.stats();
        s.inbound.datagrams == s.outbound.delivered && echoed.len() as u64 == s.inbound.delivered
    });
    stop.store(true, Ordering::Relaxed);
    let stats = link.stats();
    assert!(
        settled,
        "echoes unaccounted for: {} read, {stats:?}",
        echoed.len()
    );
    assert_eq!(stats.outbound.datagrams, u64::from(n));
    assert!(
        within_binomial(stats.outbound.dropped, n.into(), p),
        "{} of {n} dropped at p = {p}",
        stats.outbound.dropped
    );
    assert!(within_binomial(
        stats.inbound.dropped,
        stats.inbound.datagrams,
        p
    ));
    let lost = u64::from(n) - echoed.len() as u64;
    let round_trip_loss = 1.0 - (1.0 - p) * (1.0 - p);
    assert!(
        within_binomial(lost, n.into(), round_trip_loss),
        "{lost} of {n} round trips lost, expected about {}",
        f64::from(n) * round_trip_loss
    );
}

#[test]
fn udp_duplicates_reorders_and_partitions() {
    let Some(bed) = two_hosts(
        "udp_duplicates_reorders_and_partitions",
        Impairment::none()
            .duplicate(0.3)
            .reorder(0.3, Duration::from_millis(20)),
        9,
    ) else {
        return;
    };
    let stop = Arc::new(AtomicBool::new(false));
    let seen = bob(&bed, false, stop.clone());
    let socket = alice(&bed);
    let link = bed.link("alice", "bob");
    for seq in 0..100u32 {
        socket.send(&seq.to_be_bytes()).unwrap();
    }
    let mut arrivals = Vec::new();
    let complete = eventually(PATIENCE, || {
        arrivals.extend(seen.try_iter());
        let s = link.stats().outbound;
        s.datagrams == 100
            && s.delivered == 100 + s.duplicated
            && arrivals.len() as u64 == s.delivered
    });
    let stats = link.stats().outbound;
    assert!(complete, "{} arrivals, {stats:?}", arrivals.len());
    assert_eq!(stats.dropped, 0);
    let unique: HashSet<u32> = arrivals.iter().copied().collect();
    assert_eq!(unique, (0..100).collect(), "every datagram arrives");
    assert!(stats.duplicated > 0 && arrivals.len() > 100, "{stats:?}");
    let inversions = arrivals.windows(2).filter(|w| w[1] < w[0]).count();
    assert!(inversions > 0, "no datagram was overtaken: {arrivals:?}");

    // A partition drops everything sent while it lasts.
    link.partition();
    for seq in 1000..1020u32 {
        socket.send(&seq.to_be_bytes()).unwrap();
    }
    let before = stats;
    assert!(eventually(PATIENCE, || link.stats().outbound.datagrams == 120));
    let during = link.stats().outbound;
    assert_eq!(during.dropped - before.dropped, 20, "{during:?}");
    link.heal();
    socket.send(&2000u32.to_be_bytes()).unwrap();
    let mut after = Vec::new();
    assert!(eventually(PATIENCE, || {
        after.extend(seen.try_iter());
        after.contains(&2000)
    }));
    assert!(
        after.iter().all(|s| !(1000..1020).contains(s)),
        "a datagram crossed the partition: {after:?}"
    );
    stop.store(true, Ordering::Relaxed);
}

#[test]
fn a_partition_in_flight_drops_delayed_datagrams() {
    let Some(bed) = two_hosts(
        "a_partition_in_flight_drops_delayed_datagrams",
        Impairment::none().delay(Duration::from_secs(1)),
        1,
    ) else {
        return;
    };
    let stop = Arc::new(AtomicBool::new(false));
    let seen = bob(&bed, false, stop.clone());
    let socket = alice(&bed);
    let link = bed.link("alice", "bob");
    socket.send(&7u32.to_be_bytes()).unwrap();
    // Wait until the relay holds it, then cut the link before its second is up.
    assert!(eventually(PATIENCE, || link.stats().outbound.datagrams == 1));
    link.partition();
    assert!(eventually(PATIENCE, || link.stats().outbound.dropped == 1));
    assert_eq!(
        seen.try_iter().count(),
        0,
        "a datagram crossed the partition"
    );
    assert_eq!(link.stats().outbound.delivered, 0);
    stop.store(true, Ordering::Relaxed);
}
