//! A peer that lies about or withholds the acknowledgements a TCP lane carries back (the
//! accepting end's `Ack` frames): played by a bare `mpst-wire` acceptor that claims the
//! peer's role in plaintext, so the test writes every byte itself.

use super::*;

use mpst_wire::{Expected, Node, WireConfig};

/// The lane frames as the accepting end writes them (the same variants, in order, as the
/// transport's own).
#[derive(Serialize)]
#[allow(dead_code)]
enum LaneFrame {
    Message { run: u64, envelope: Envelope },
    Bye { run: u64 },
    Ack { run: u64, read: u64 },
}

/// `A`'s real transport (one lane, plaintext, `idle_timeout` as given) dialling a fake
/// `B`; the fake's side of the lane, once `A` has sent one envelope over it.
async fn a_dialling_a_fake_b(idle: Duration) -> (Arc<TcpTransport>, mpst_wire::Connection) {
    let fake = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = fake.local_addr().unwrap();
    let node = Node::new(WireConfig::new(common::PROGRAM, "B").insecure_plaintext())
        .unwrap()
        .with_application(common::OneLane);
    let mut acceptor = node.accept_on(fake, Expected::new().peer("A", 1)).unwrap();
    let config = TcpConfig {
        connections_per_peer: 1,
        protocol: common::PROGRAM.into(),
        idle_timeout: idle,
        ..TcpConfig::insecure_plaintext()
    };
    let own = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let started = TcpTransport::start(role("A"), own, [(role("B"), at)], config);
    let (a, lane) = tokio::join!(started, acceptor.next());
    let (a, mut lane) = (Arc::new(a.unwrap()), lane.unwrap());
    a.send(common::envelope("A", "B", 1, 8)).await.unwrap();
    let mut first = [0u8; 16];
    let read = timeout(LIMIT, lane.stream_mut().read(&mut first)).await;
    assert!(matches!(read, Ok(Ok(n)) if n > 0), "no envelope: {read:?}");
    (a, lane)
}

/// Sends from `a` to `B` until one fails (within `LIMIT`); the error.
async fn first_failed_send(a: &TcpTransport) -> mpst_choreo::transport::TransportError {
    let failing = async {
        for site in 2.. {
            if let Err(error) = a.send(common::envelope("A", "B", site, 8)).await {
                return error;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        unreachable!("sites do not run out")
    };
    timeout(LIMIT, failing)
        .await
        .expect("a send failed in time")
}

#[tokio::test]
async fn an_acknowledgement_of_more_than_was_sent_fails_the_lane_naming_the_peer() {
    let (a, mut lane) = a_dialling_a_fake_b(Duration::from_secs(30)).await;
    let run = lane.run_id().as_u64();
    let lie = LaneFrame::Ack { run, read: 1000 };
    let bytes = mpst_wire::codec::encode_frame(&lie, 1024).unwrap();
    lane.stream_mut().write_all(&bytes).await.unwrap();
    let error = first_failed_send(&a).await;
    assert_eq!(error.peer, role("B"), "{error}");
    assert!(
        error
            .to_string()
            .contains("acknowledged 1000 messages of the"),
        "{error}"
    );
}

#[tokio::test]
async fn a_peer_that_reads_but_never_acknowledges_fails_the_sender_at_its_idle_timeout() {
    let idle = Duration::from_millis(300);
    let (a, lane) = a_dialling_a_fake_b(idle).await;
    let started = tokio::time::Instant::now();
    // The fake keeps the lane open and reads on, saying nothing: as a peer behind a
    // partition looks to a proxy on the way.
    let reading = tokio::spawn(async move {
        let mut lane = lane;
        let mut buf = [0u8; 1024];
        while matches!(lane.stream_mut().read(&mut buf).await, Ok(n) if n > 0) {}
    });
    let error = first_failed_send(&a).await;
    assert_eq!(error.peer, role("B"), "{error}");
    assert!(
        error.to_string().contains("nothing acknowledged for 300ms"),
        "{error}"
    );
    assert!(started.elapsed() >= idle, "{:?}", started.elapsed());
    reading.abort();
}

#[tokio::test]
async fn an_acknowledgement_from_the_dialling_end_ends_its_lane_and_is_counted() {
    // B's real transport accepts; a fake A dials it (plaintext lets anyone claim A) and
    // writes an acknowledgement, which only an accepting end may send.
    let own = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let b_at = own.local_addr().unwrap().to_string();
    let nowhere = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let config = TcpConfig {
        connections_per_peer: 1,
        protocol: common::PROGRAM.into(),
        ..TcpConfig::insecure_plaintext()
    };
    let a_at = nowhere.local_addr().unwrap();
    let node = Node::new(WireConfig::new(common::PROGRAM, "A").insecure_plaintext())
        .unwrap()
        .with_application(common::OneLane);
    // B dials A too: the fake A's acceptor takes that lane and does nothing with it.
    let mut acceptor = node
        .accept_on(nowhere, Expected::new().peer("B", 1))
        .unwrap();
    let keep = tokio::spawn(async move { acceptor.next().await });
    let started = TcpTransport::start(role("B"), own, [(role("A"), a_at)], config);
    let dialled = node.dial_at("B", &b_at, None);
    let (b, lane) = tokio::join!(started, dialled);
    let (b, mut lane) = (b.unwrap(), lane.unwrap());
    let run = lane.run_id().as_u64();
    let ack = mpst_wire::codec::encode_frame(&LaneFrame::Ack { run, read: 0 }, 1024).unwrap();
    lane.stream_mut().write_all(&ack).await.unwrap();
    let counted = async {
        while b.stats().envelopes_refused == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    timeout(LIMIT, counted)
        .await
        .expect("the acknowledgement was refused");
    // The lane is closed: reading it ends.
    let mut buf = [0u8; 64];
    let ended = timeout(LIMIT, async {
        loop {
            match lane.stream_mut().read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    });
    ended.await.expect("B closed the lane");
    keep.abort();
}
