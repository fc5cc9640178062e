//! The TCP transport: delivery and close, bad frames as errors, start in any order.
//! (Messages overtaking on several connections, and a single FIFO connection for
//! contrast: `head_of_line.rs`.)

use crate::common;

use std::time::Duration;

use bytes::Bytes;
use common::tcp_pair as pair;
use common::{LIMIT, envelope, hello, next, next_error, next_sorted, quiet, role};
use futures::{SinkExt, StreamExt};
use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
use mpst_choreo::transport::{Incoming, Transport, TransportCause};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::time::timeout;
use tokio_util::codec::{FramedWrite, LengthDelimitedCodec};

#[tokio::test]
async fn many_messages_arrive_once_each_and_close_flushes_them() {
    let (a, b) = timeout(LIMIT, pair(base(), base())).await.unwrap();
    let mut incoming = b.incoming(&role("B")).unwrap();
    for site in 0..500 {
        a.send(envelope("A", "B", site, 100)).await.unwrap();
    }
    a.close().await;
    let err = a.send(envelope("A", "B", 999, 1)).await.unwrap_err();
    assert_eq!(err.peer, role("B"));
    let got = next_sorted(&mut incoming, 500).await;
    assert_eq!(got, (0..500).collect::<Vec<_>>());
    // A said goodbye on every connection: no error follows.
    assert!(quiet(&mut incoming, Duration::from_millis(100)).await);
}

/// A plaintext lane's sends write their frames themselves while its writer has nothing
/// queued; a burst larger than the socket takes (64 × 256 KiB, with no yield between the
/// sends) leaves frames half written and queued behind each other, and every one must
/// still arrive whole and once, with small messages written directly again afterwards.
#[tokio::test]
async fn a_burst_beyond_the_socket_buffer_arrives_whole_then_small_messages_still_do() {
    let (a, b) = timeout(LIMIT, pair(base(), base())).await.unwrap();
    let mut incoming = b.incoming(&role("B")).unwrap();
    for site in 0..64 {
        a.send(envelope("A", "B", site, 256 * 1024)).await.unwrap();
    }
    let got = timeout(LIMIT, next_sorted(&mut incoming, 64))
        .await
        .unwrap();
    assert_eq!(got, (0..64).collect::<Vec<_>>());
    for site in 64..128 {
        a.send(envelope("A", "B", site, 10)).await.unwrap();
        assert_eq!(next(&mut incoming).await, site);
    }
    a.close().await;
    assert_eq!(b.stats().envelopes_refused, 0);
    assert!(quiet(&mut incoming, Duration::from_millis(100)).await);
}

#[tokio::test]
async fn an_oversized_envelope_is_refused_when_sent() {
    let config = TcpConfig {
        max_frame_length: 1024,
        ..TcpConfig::insecure_plaintext()
    };
    let (a, _b) = timeout(LIMIT, pair(config, TcpConfig::insecure_plaintext()))
        .await
        .unwrap();
    let err = a.send(envelope("A", "B", 1, 2048)).await.unwrap_err();
    assert_eq!(err.peer, role("B"));
    assert!(
        err.to_string().contains("exceeds the limit of 1024"),
        "{err}"
    );
    let err = a.send(envelope("A", "C", 1, 1)).await.unwrap_err();
    assert_eq!(err.peer, role("C"));
}

#[tokio::test]
async fn an_oversized_frame_is_an_error_at_the_receiver() {
    let small = TcpConfig {
        max_frame_length: 1024,
        ..TcpConfig::insecure_plaintext()
    };
    let (a, b) = timeout(LIMIT, pair(TcpConfig::insecure_plaintext(), small))
        .await
        .unwrap();
    let mut incoming = b.incoming(&role("B")).unwrap();
    a.send(envelope("A", "B", 1, 4096)).await.unwrap();
    let err = next_error(&mut incoming).await;
    assert_eq!(err.peer, role("A"));
    assert!(matches!(&err.cause, TransportCause::Decode(_)), "{err}");
    assert!(
        err.to_string().contains("exceeds the limit of 1024"),
        "{err}"
    );
}

/// A configuration for [`pair`], which sets the security itself (mutual TLS).
fn base() -> TcpConfig {
    TcpConfig::insecure_plaintext()
}

/// Connects to `b` as a stranger and writes raw frames.
async fn raw(addr: std::net::SocketAddr, frames: &[&[u8]]) {
    let stream = TcpStream::connect(addr).await.unwrap();
    let mut sink = FramedWrite::new(stream, LengthDelimitedCodec::new());
    for frame in frames {
        if sink.send(Bytes::copy_from_slice(frame)).await.is_err() {
            return; // Refused already.
        }
    }
    let _ = SinkExt::<Bytes>::close(&mut sink).await;
}

#[tokio::test]
async fn bad_bytes_from_a_stranger_are_refused_not_panics() {
    let (a, b) = timeout(LIMIT, pair(base(), base())).await.unwrap();
    let addr = b.local_addr();
    let mut incoming = b.incoming(&role("B")).unwrap();
    let (hello_c, hello_b) = (hello("A", "C"), hello("A", "B"));
    let cases: [Vec<&[u8]>; 4] = [
        vec![&[0xff, 0xff, 0xff]],
        vec![&hello_c],
        vec![&[1, 5]],
        vec![&hello_b, &[0; 64]],
    ];
    for (i, frames) in cases.into_iter().enumerate() {
        raw(addr, &frames).await;
        let n = i as u64 + 1;
        assert!(common::refused_at_least(&b, n).await >= n);
    }
    // A length prefix of 1 GiB: refused before anything is read.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut stream, &[0x40, 0, 0, 0, 1])
        .await
        .unwrap();
    assert!(common::refused_at_least(&b, 5).await >= 5);
    // Nothing of theirs reached B, and A still does.
    a.send(envelope("A", "B", 3, 1)).await.unwrap();
    assert_eq!(next(&mut incoming).await, 3);
}

/// A and B connected over mutual TLS, B's incoming stream, and another dialler holding A's
/// own identity whose hello carries `application` (a faulty or outdated A), with B's
/// address.
async fn pair_and_another_a(
    application: impl mpst_wire::Application,
) -> (
    TcpTransport,
    TcpTransport,
    Incoming,
    mpst_wire::Node,
    String,
) {
    let deployment = common::Deployment::new(&[role("A"), role("B")]);
    let (a, b) = timeout(LIMIT, common::tcp_pair_in(&deployment, base(), base()))
        .await
        .unwrap();
    let addr = b.local_addr().to_string();
    let incoming = b.incoming(&role("B")).unwrap();
    let config = mpst_wire::WireConfig::new(common::PROGRAM, "A")
        .peer("B", addr.clone())
        .mutual_tls(deployment.identity(&role("A")));
    let node = mpst_wire::Node::new(config)
        .unwrap()
        .with_application(application);
    (a, b, incoming, node, addr)
}

/// A role of the previous lane version (whose lanes carry no acknowledgements) is refused
/// at the set-up with both versions named, on the dialler's side too, instead of failing
/// later on a frame it cannot read; the real peer's lanes still work.
#[tokio::test]
async fn a_dialler_of_the_previous_lane_version_is_refused_naming_both_versions() {
    let (a, b, mut incoming, node, addr) = pair_and_another_a(common::VersionOneLane).await;
    let refused = timeout(LIMIT, node.dial_at("B", &addr, None))
        .await
        .unwrap()
        .map(drop)
        .expect_err("a version-1 lane was set up");
    let text = refused.to_string();
    assert!(
        text.contains("lane version 1") && text.contains("version 2"),
        "{text}"
    );
    assert!(common::refused_at_least(&b, 1).await >= 1);
    a.send(envelope("A", "B", 7, 1)).await.unwrap();
    assert_eq!(next(&mut incoming).await, 7);
}

#[tokio::test]
async fn random_frames_after_a_greeting_are_errors_or_envelopes_never_panics() {
    // A's own identity: the frames come after a real set-up, as from a faulty A.
    let (_a, _b, mut incoming, node, addr) = pair_and_another_a(common::OneLane).await;
    // A fixed xorshift stream: the same 100 frames every run.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut byte = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as u8
    };
    for _ in 0..100 {
        let len = usize::from(byte() % 48);
        let frame: Vec<u8> = (0..len).map(|_| byte()).collect();
        let connection = node.dial_at("B", &addr, None).await.unwrap();
        let stream = connection.into_stream();
        let mut sink = FramedWrite::new(stream, LengthDelimitedCodec::new());
        sink.send(Bytes::from(frame)).await.unwrap();
        let _ = SinkExt::<Bytes>::close(&mut sink).await;
        // Each lane ends in exactly one report, about A: random bytes never carry the
        // lane's run, so none is an envelope.
        match timeout(LIMIT, incoming.next()).await.unwrap().unwrap() {
            Ok(envelope) => panic!("a random frame was delivered: {envelope:?}"),
            Err(e) => assert_eq!(e.peer, role("A"), "{e}"),
        }
    }
}

#[tokio::test]
async fn roles_may_start_in_any_order() {
    // B's port is reserved but nobody listens yet: A's first attempts are refused.
    let sb = TcpSocket::new_v4().unwrap();
    sb.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let ab = sb.local_addr().unwrap();
    let la = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let aa = la.local_addr().unwrap();
    let a = tokio::spawn(TcpTransport::start(
        role("A"),
        la,
        [(role("B"), ab)],
        TcpConfig::insecure_plaintext(),
    ));
    tokio::task::yield_now().await;
    let lb = sb.listen(64).unwrap();
    let b = TcpTransport::start(
        role("B"),
        lb,
        [(role("A"), aa)],
        TcpConfig::insecure_plaintext(),
    );
    let b = timeout(LIMIT, b).await.unwrap().unwrap();
    let a = timeout(LIMIT, a).await.unwrap().unwrap().unwrap();
    let mut incoming = a.incoming(&role("A")).unwrap();
    b.send(envelope("B", "A", 7, 1)).await.unwrap();
    assert_eq!(next(&mut incoming).await, 7);
}

#[tokio::test]
async fn an_absent_peer_fails_at_the_deadline_naming_it() {
    let nobody = TcpSocket::new_v4().unwrap();
    nobody.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = nobody.local_addr().unwrap();
    let config = TcpConfig {
        connect_timeout: Duration::from_millis(200),
        ..TcpConfig::insecure_plaintext()
    };
    let la = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let started = TcpTransport::start(role("A"), la, [(role("B"), addr)], config);
    let err = timeout(LIMIT, started).await.unwrap().err().unwrap();
    assert_eq!(err.peer, role("B"));
    assert!(err.to_string().contains("before the deadline"), "{err}");
}

#[tokio::test]
async fn the_incoming_stream_is_the_roles_own_and_taken_once() {
    let (a, _b) = timeout(LIMIT, pair(base(), base())).await.unwrap();
    assert!(a.incoming(&role("B")).is_err());
    assert!(a.incoming(&role("A")).is_ok());
    let err = a.incoming(&role("A")).err().unwrap();
    assert!(matches!(err.cause, TransportCause::Unavailable(_)), "{err}");
}

/// A relay to `to` that holds every connection until `open` says true.
async fn gated_relay(
    to: std::net::SocketAddr,
) -> (std::net::SocketAddr, tokio::sync::watch::Sender<bool>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (open, gate) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            let mut gate = gate.clone();
            tokio::spawn(async move {
                if gate.wait_for(|open| *open).await.is_err() {
                    return;
                }
                let Ok(mut outbound) = TcpStream::connect(to).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
            });
        }
    });
    (addr, open)
}

#[tokio::test]
async fn a_role_that_finished_first_keeps_listening_until_its_peers_connected() {
    let la = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let lb = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (aa, ab) = (la.local_addr().unwrap(), lb.local_addr().unwrap());
    // B reaches A only through a relay that holds B's connections until it is opened.
    let (relay, open) = gated_relay(aa).await;
    let config = TcpConfig::insecure_plaintext;
    let b = tokio::spawn(TcpTransport::start(
        role("B"),
        lb,
        [(role("A"), relay)],
        config(),
    ));
    // A connects to B and finishes before B has reached it.
    let a = TcpTransport::start(role("A"), la, [(role("B"), ab)], config());
    let a = timeout(LIMIT, a).await.unwrap().unwrap();
    let closing = tokio::spawn(async move {
        a.close().await;
        drop(a); // As a process exiting: A stops listening.
    });
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    assert!(!closing.is_finished(), "A stopped before B connected");
    // B is late and can still reach A.
    open.send(true).unwrap();
    timeout(LIMIT, b).await.unwrap().unwrap().unwrap();
    timeout(LIMIT, closing).await.unwrap().unwrap();
}
