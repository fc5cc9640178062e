//! Strangers on the acceptor's port, as an attacker would be: a plain socket that sends
//! garbage, stays idle, speaks plaintext to TLS, claims a wrong role, or opens 500
//! connections. Each is closed and logged with its address, and the real peer still
//! connects.

use crate::support;

use std::time::Duration;

use mpst_wire::codec::decode_body;
use mpst_wire::hello::{Hello, Reply, encode_hello};
use mpst_wire::{Refusal, WireErrorKind};
use support::*;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// The refusal in what the acceptor wrote back, if it wrote one.
fn refusal_in(bytes: &[u8]) -> Option<Refusal> {
    let body = bytes.get(4..)?;
    match decode_body::<Reply>(body) {
        Ok(Reply::Refuse(refusal)) => Some(refusal),
        _ => None,
    }
}

async fn garbage_first(mode: Mode) {
    let logs = logs();
    let pki = pki();
    let (a, mut acceptor) = pair(mode, &pki).await;
    let mut stats = acceptor.watch_stats();
    let mut stranger = TcpStream::connect(acceptor.local_addr()).await.unwrap();
    let stranger_address = stranger.local_addr().unwrap().to_string();
    stranger
        .write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    real_peer_connects(&a, &mut acceptor).await;
    let reply = read_to_close(&mut stranger).await;
    let expected = match mode {
        Mode::Tls => Refusal::TlsRequired,
        Mode::Plain => Refusal::NotMpst,
    };
    assert_eq!(refusal_in(&reply), Some(expected), "the stranger reads why");
    stats_until(&mut stats, |s| s.refused >= 1).await;
    assert!(
        logged(&stranger_address),
        "the stranger's address is logged"
    );
    assert_eq!(acceptor.stats().accepted, 1);
    drop(logs);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_first_with_garbage_is_refused_and_logged_tls() {
    garbage_first(Mode::Tls).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_first_with_garbage_is_refused_and_logged_plaintext() {
    garbage_first(Mode::Plain).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_first_with_an_oversized_length_is_refused_from_the_header() {
    let pki = pki();
    let (a, mut acceptor) = pair(Mode::Plain, &pki).await;
    let mut stranger = TcpStream::connect(acceptor.local_addr()).await.unwrap();
    // Announces 4 GiB and sends nothing more: refused at once, nothing buffered.
    stranger.write_all(&[0xff, 0xff, 0xff, 0xff]).await.unwrap();
    let reply = read_to_close(&mut stranger).await;
    assert_eq!(refusal_in(&reply), Some(Refusal::NotMpst));
    real_peer_connects(&a, &mut acceptor).await;
}

async fn idle_first(mode: Mode) {
    let pki = pki();
    // The stranger's handshake deadline is long: the real peer must not wait for it.
    let (a, mut acceptor) =
        pair_with(mode, &pki, |c| c.handshake_timeout(Duration::from_secs(3))).await;
    let mut stats = acceptor.watch_stats();
    let mut idle = TcpStream::connect(acceptor.local_addr()).await.unwrap();
    let mut half = TcpStream::connect(acceptor.local_addr()).await.unwrap();
    // A partial frame header, then nothing.
    half.write_all(&[0, 0]).await.unwrap();
    real_peer_connects(&a, &mut acceptor).await;
    assert!(
        still_open(&idle),
        "the real peer did not wait for the idle stranger"
    );
    // The idle strangers are closed at their handshake deadline and logged.
    assert!(read_to_close(&mut idle).await.is_empty());
    let _ = read_to_close(&mut half).await;
    let s = stats_until(&mut stats, |s| s.failed + s.refused >= 2).await;
    assert_eq!(s.accepted, 1);
    let recent = acceptor.recent_failures();
    assert!(
        recent
            .iter()
            .any(|f| f.error.contains("handshake not finished")),
        "{recent:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_idle_connection_does_not_delay_the_real_peer_and_is_closed_tls() {
    idle_first(Mode::Tls).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_idle_connection_does_not_delay_the_real_peer_and_is_closed_plaintext() {
    idle_first(Mode::Plain).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_plaintext_on_tls_port_is_told_tls_is_required() {
    let pki = pki();
    let (a, mut acceptor) = pair(Mode::Tls, &pki).await;
    // A well-formed plaintext hello claiming the real role A.
    let mut stranger = TcpStream::connect(acceptor.local_addr()).await.unwrap();
    let hello = Hello {
        protocol: PROTOCOL.into(),
        from: "A".into(),
        to: "B".into(),
        field: Vec::new(),
        nonce: [0; 32],
    };
    stranger
        .write_all(&encode_hello(&hello).unwrap())
        .await
        .unwrap();
    let reply = read_to_close(&mut stranger).await;
    assert_eq!(refusal_in(&reply), Some(Refusal::TlsRequired));
    // A plaintext mpst node dialling the TLS port learns the same, at once.
    let plain = mpst_wire::Node::new(
        config("A", Mode::Plain, &pki).peer("B", acceptor.local_addr().to_string()),
    )
    .unwrap();
    let error = plain.dial("B").await.unwrap_err();
    assert!(
        matches!(error.kind, WireErrorKind::Refused(Refusal::TlsRequired)),
        "{error}"
    );
    real_peer_connects(&a, &mut acceptor).await;
    assert_eq!(acceptor.stats().refused, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_wrong_role_is_refused_without_blaming_the_role_claimed() {
    let pki = pki();
    let (a, mut acceptor) = pair(Mode::Plain, &pki).await;
    let mut stats = acceptor.watch_stats();
    let at = acceptor.local_addr().to_string();
    // Claims a role that is not expected here, then one that wants another role.
    for (from, to, expected) in [
        (
            "Mallory",
            "B",
            Refusal::UnknownRole {
                claimed: "Mallory".into(),
            },
        ),
        (
            "A",
            "C",
            Refusal::WrongRole {
                answered: "B".into(),
                wanted: "C".into(),
            },
        ),
    ] {
        let stranger = mpst_wire::Node::new(config(from, Mode::Plain, &pki).peer(to, &at)).unwrap();
        let error = stranger.dial(to).await.unwrap_err();
        assert!(
            matches!(&error.kind, WireErrorKind::Refused(r) if *r == expected),
            "{error}"
        );
    }
    let s = stats_until(&mut stats, |s| s.refused >= 2).await;
    assert_eq!(s.accepted, 0);
    // The acceptor's record names the strangers by address, claimed roles not believed.
    for failure in acceptor.recent_failures() {
        assert!(
            failure
                .error
                .starts_with("unauthenticated peer at 127.0.0.1:"),
            "{failure:?}"
        );
    }
    real_peer_connects(&a, &mut acceptor).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_wrong_role_with_a_valid_certificate_of_another_role_is_refused() {
    let pki = pki();
    let (a, mut acceptor) = pair(Mode::Tls, &pki).await;
    // C has a genuine certificate, but B does not accept C.
    let c = mpst_wire::Node::new(
        config("C", Mode::Tls, &pki).peer("B", acceptor.local_addr().to_string()),
    )
    .unwrap();
    let error = c.dial("B").await.unwrap_err();
    assert!(
        matches!(&error.kind, WireErrorKind::Refused(Refusal::UnknownRole { claimed }) if claimed == "C"),
        "{error}"
    );
    real_peer_connects(&a, &mut acceptor).await;
}

async fn five_hundred(mode: Mode) {
    let pki = pki();
    let (a, mut acceptor) = pair_with(mode, &pki, |c| {
        c.handshake_timeout(Duration::from_secs(2))
            .max_pending_handshakes(32)
    })
    .await;
    let mut stats = acceptor.watch_stats();
    let mut strangers = Vec::new();
    for _ in 0..500 {
        strangers.push(TcpStream::connect(acceptor.local_addr()).await.unwrap());
    }
    // Every stranger is dealt with: closed at once over the cap, or at its deadline.
    let s = stats_until(&mut stats, |s| s.over_cap + s.failed >= 500).await;
    assert!(s.over_cap > 0, "{s:?}");
    real_peer_connects(&a, &mut acceptor).await;
    for stranger in &mut strangers {
        assert!(read_to_close(stranger).await.is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_500_connections_are_capped_and_the_real_peer_connects_tls() {
    five_hundred(Mode::Tls).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_500_connections_are_capped_and_the_real_peer_connects_plaintext() {
    five_hundred(Mode::Plain).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_500_connections_while_the_real_peer_dials() {
    let pki = pki();
    let (a, mut acceptor) = pair_with(Mode::Tls, &pki, |c| {
        c.handshake_timeout(Duration::from_secs(2))
            .max_pending_handshakes(32)
    })
    .await;
    let at = acceptor.local_addr();
    let flood = tokio::spawn(async move {
        let mut strangers = Vec::new();
        for _ in 0..500 {
            if let Ok(s) = TcpStream::connect(at).await {
                strangers.push(s);
            }
        }
        strangers
    });
    real_peer_connects(&a, &mut acceptor).await;
    assert!(!flood.await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_slow_loris_holding_every_slot_does_not_delay_the_real_peer() {
    let pki = pki();
    // Strangers' handshakes could last a minute: the real peer must not wait for them.
    let (a, mut acceptor) = pair_with(Mode::Tls, &pki, |c| {
        c.handshake_timeout(Duration::from_secs(60))
            .max_pending_handshakes(16)
    })
    .await;
    let mut stats = acceptor.watch_stats();
    let mut strangers = Vec::new();
    for _ in 0..16 {
        let mut s = TcpStream::connect(acceptor.local_addr()).await.unwrap();
        // A TLS record header announcing 16 KiB, and a few bytes of it.
        s.write_all(&[0x16, 0x03, 0x01, 0x40, 0x00, 1, 2, 3])
            .await
            .unwrap();
        strangers.push(s);
    }
    let dial = tokio::spawn({
        let a = a.clone();
        async move { a.dial("B").await }
    });
    let accepted = tokio::time::timeout(Duration::from_secs(30), acceptor.next())
        .await
        .expect("the real peer is not held up by the strangers' minute")
        .unwrap();
    assert_eq!(accepted.peer_role(), "A");
    dial.await.unwrap().unwrap();
    // Room was made by closing the oldest stranger, logged and counted.
    let s = stats_until(&mut stats, |s| s.over_cap >= 1).await;
    assert_eq!(s.accepted, 1);
    assert!(read_to_close(&mut strangers[0]).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_of_another_wire_version_or_protocol_is_told_which() {
    let pki = pki();
    let (a, mut acceptor) = pair(Mode::Plain, &pki).await;
    let hello = Hello {
        protocol: PROTOCOL.into(),
        from: "A".into(),
        to: "B".into(),
        field: Vec::new(),
        nonce: [0; 32],
    };
    let mut frame = encode_hello(&hello).unwrap();
    frame[8..10].copy_from_slice(&9u16.to_be_bytes()); // the version after the magic
    let mut stranger = TcpStream::connect(acceptor.local_addr()).await.unwrap();
    stranger.write_all(&frame).await.unwrap();
    let reply = read_to_close(&mut stranger).await;
    assert_eq!(
        refusal_in(&reply),
        Some(Refusal::Version {
            ours: mpst_wire::hello::WIRE_VERSION,
            theirs: 9
        })
    );
    let other = mpst_wire::Node::new(
        mpst_wire::WireConfig::new("ping/2", "A")
            .peer("B", acceptor.local_addr().to_string())
            .insecure_plaintext(),
    )
    .unwrap();
    let error = other.dial("B").await.unwrap_err();
    assert!(
        matches!(&error.kind, WireErrorKind::Refused(Refusal::Protocol { ours, theirs })
            if ours == PROTOCOL && theirs == "ping/2"),
        "{error}"
    );
    real_peer_connects(&a, &mut acceptor).await;
}
