//! The QUIC transport: delivery and close, size limits, strangers refused, start in any
//! order. (One stream per message, so a held message holds back no other:
//! `head_of_line.rs`.)

use crate::common;

use std::net::UdpSocket;
use std::time::Duration;

use common::quic_pair as pair;
use common::{LIMIT, envelope, next, next_error, next_sorted, role};
use mpst_choreo::net::quic::{QuicConfig, QuicTransport};
use mpst_choreo::transport::Transport;
use tokio::time::timeout;

#[tokio::test]
async fn many_messages_arrive_once_each_before_close_returns() {
    let (a, b) = timeout(LIMIT, pair(QuicConfig::default(), QuicConfig::default()))
        .await
        .unwrap();
    let mut incoming = b.incoming(&role("B")).unwrap();
    for site in 0..300 {
        a.send(envelope("A", "B", site, 100)).await.unwrap();
    }
    timeout(LIMIT, a.close(LIMIT)).await.unwrap();
    let got = next_sorted(&mut incoming, 300).await;
    assert_eq!(got, (0..300).collect::<Vec<_>>());
}

#[tokio::test]
async fn oversized_messages_are_refused_at_both_ends() {
    let small = QuicConfig {
        max_frame_length: 1024,
        ..QuicConfig::default()
    };
    let (a, b) = timeout(LIMIT, pair(small.clone(), small)).await.unwrap();
    let err = a.send(envelope("A", "B", 1, 2048)).await.unwrap_err();
    assert!(
        err.to_string().contains("exceeds the limit of 1024"),
        "{err}"
    );
    assert_eq!(err.peer, role("B"));
    drop((a, b));
    let (a, b) = timeout(
        LIMIT,
        pair(
            QuicConfig::default(),
            QuicConfig {
                max_frame_length: 1024,
                ..QuicConfig::default()
            },
        ),
    )
    .await
    .unwrap();
    let mut incoming = b.incoming(&role("B")).unwrap();
    a.send(envelope("A", "B", 1, 4096)).await.unwrap();
    let err = next_error(&mut incoming).await;
    assert_eq!(err.peer, role("A"));
    assert!(err.to_string().contains("too long"), "{err}");
}

#[tokio::test]
async fn a_stranger_with_a_certificate_of_another_ca_is_refused_and_reported() {
    let (_a, b) = timeout(LIMIT, pair(QuicConfig::default(), QuicConfig::default()))
        .await
        .unwrap();
    let mut incoming = b.incoming(&role("B")).unwrap();
    // A certificate naming A, from a CA of its own.
    let other = common::Deployment::new(&[role("A"), role("B")]);
    let forged = other.identity(&role("A"));
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let b_addr = b.local_addr().unwrap();
    let stranger = QuicTransport::start(
        role("A"),
        socket,
        &forged,
        common::PROGRAM,
        [(role("B"), b_addr)],
        QuicConfig {
            connect_timeout: Duration::from_secs(2),
            ..QuicConfig::default()
        },
    );
    let err = timeout(LIMIT, stranger).await.unwrap().err().unwrap();
    assert_eq!(err.peer, role("B"));
    let reported = next_error(&mut incoming).await;
    assert!(reported.peer.as_str().contains("127.0.0.1"), "{reported}");
    assert_eq!(b.connections_refused(), 1);
}

#[tokio::test]
async fn roles_may_start_in_any_order() {
    let deployment = common::Deployment::new(&[role("A"), role("B")]);
    let (ia, ib) = (
        deployment.identity(&role("A")),
        deployment.identity(&role("B")),
    );
    let sa = UdpSocket::bind("127.0.0.1:0").unwrap();
    // B's socket exists but nobody serves it yet: A's handshake waits in its buffer.
    let sb = UdpSocket::bind("127.0.0.1:0").unwrap();
    let (aa, ab) = (sa.local_addr().unwrap(), sb.local_addr().unwrap());
    let a = tokio::spawn(async move {
        let peers = [(role("B"), ab)];
        QuicTransport::start(
            role("A"),
            sa,
            &ia,
            common::PROGRAM,
            peers,
            QuicConfig::default(),
        )
        .await
    });
    tokio::task::yield_now().await;
    let peers = [(role("A"), aa)];
    let b = QuicTransport::start(
        role("B"),
        sb,
        &ib,
        common::PROGRAM,
        peers,
        QuicConfig::default(),
    );
    let b = timeout(LIMIT, b).await.unwrap().unwrap();
    let a = timeout(LIMIT, a).await.unwrap().unwrap().unwrap();
    let mut incoming = b.incoming(&role("B")).unwrap();
    a.send(envelope("A", "B", 5, 10)).await.unwrap();
    assert_eq!(next(&mut incoming).await, 5);
}
