//! The handshake's final word (`Established`), tried like an attacker from plain sockets:
//! a dialler never counts a connection the acceptor then drops; a stranger that stops
//! right before the final word cannot hold a slot, one that stops right after it keeps a
//! connection the acceptor never closes; an acceptor's word recorded on one connection is
//! refused on another; peers of the previous wire version are told why.

use crate::support;

use std::net::SocketAddr;
use std::time::Duration;

use mpst_wire::codec::decode_body;
use mpst_wire::hello::{
    Confirm, Established, Hello, MAX_HANDSHAKE_FRAME, Nonce, Reply, WIRE_VERSION, encode_hello,
    encode_message, fresh_nonce, read_frame, run_id, transcript, write_frame,
};
use mpst_wire::{Expected, Node, Refusal, WireErrorKind};
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The bodies of one handshake's first three messages, as the acceptor saw them.
struct Seen {
    hello: Vec<u8>,
    reply: Vec<u8>,
    confirm: Vec<u8>,
}

impl Seen {
    fn established(&self) -> Vec<u8> {
        let transcript = transcript(&self.hello, &self.reply, &self.confirm);
        encode_message(&Established { transcript }).unwrap()
    }
}

/// Plays the acceptor by hand (plaintext) up to the dialler's confirmation.
async fn accept_by_hand(stream: &mut TcpStream) -> Seen {
    let hello = read_frame(stream, MAX_HANDSHAKE_FRAME).await.unwrap();
    let reply = encode_message(&Reply::Accept {
        field: Vec::new(),
        nonce: fresh_nonce(),
    })
    .unwrap();
    write_frame(stream, &reply).await.unwrap();
    let confirm = read_frame(stream, MAX_HANDSHAKE_FRAME).await.unwrap();
    assert!(matches!(
        decode_body::<Confirm>(&confirm),
        Ok(Confirm::Confirm { .. })
    ));
    Seen {
        hello,
        reply: reply[4..].to_vec(),
        confirm,
    }
}

/// A plaintext dialler node for role A, dialling B at `at`.
fn dialler(at: impl ToString, connect: Duration) -> Node {
    Node::new(
        mpst_wire::WireConfig::new(PROTOCOL, "A")
            .peer("B", at.to_string())
            .connect_timeout(connect)
            .handshake_timeout(Duration::from_secs(20))
            .insecure_plaintext(),
    )
    .unwrap()
}

/// A hello from A to B (wire version `version`) sent by hand; the acceptor's nonce from
/// its accept, and the bodies seen so far.
async fn hello_by_hand(stream: &mut TcpStream, version: u16) -> (Hello, Vec<u8>, Vec<u8>) {
    let hello = Hello {
        protocol: PROTOCOL.into(),
        from: "A".into(),
        to: "B".into(),
        field: Vec::new(),
        nonce: fresh_nonce(),
    };
    let mut frame = encode_hello(&hello).unwrap();
    frame[8..10].copy_from_slice(&version.to_be_bytes());
    stream.write_all(&frame).await.unwrap();
    let reply = read_frame(stream, MAX_HANDSHAKE_FRAME).await.unwrap();
    (hello, frame[4..].to_vec(), reply)
}

fn accepted_nonce(reply: &[u8]) -> Nonce {
    match decode_body::<Reply>(reply) {
        Ok(Reply::Accept { nonce, .. }) => nonce,
        other => panic!("not accepted: {other:?}"),
    }
}

/// Reads one whole frame, header included.
async fn raw_frame(stream: &mut TcpStream) -> Vec<u8> {
    let mut frame = vec![0; 4];
    stream.read_exact(&mut frame).await.unwrap();
    let length = u32::from_be_bytes(frame[..4].try_into().unwrap()) as usize;
    frame.resize(4 + length, 0);
    stream.read_exact(&mut frame[4..]).await.unwrap();
    frame
}

/// Regression for the bug this final word fixes: the dialler sent its confirmation and
/// returned Ok, but the confirmation reached the acceptor after its handshake deadline,
/// so the acceptor closed the connection and never yielded it (in a real session, a
/// failed first session). A proxy holds the first connection's confirmation until the
/// acceptor has closed that connection for its deadline: the dialler must not count it,
/// and must get in on its next attempt, on the connection the acceptor yields.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_dialler_counted_a_connection_the_acceptor_closed_at_its_deadline() {
    let pki = pki();
    let b = Node::new(config("B", Mode::Plain, &pki).handshake_timeout(Duration::from_secs(1)))
        .unwrap();
    let mut acceptor = b.bind(Expected::new().peer("A", 1)).await.unwrap();
    let mut stats = acceptor.watch_stats();
    let target = acceptor.local_addr();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy_at = listener.local_addr().unwrap();
    let proxy = tokio::spawn(async move {
        let (mut client, _) = listener.accept().await.unwrap();
        let mut server = TcpStream::connect(target).await.unwrap();
        let hello = raw_frame(&mut client).await;
        server.write_all(&hello).await.unwrap();
        let accept = raw_frame(&mut server).await;
        client.write_all(&accept).await.unwrap();
        let confirm = raw_frame(&mut client).await;
        // Held until the acceptor has given up on this connection at its deadline.
        let s = stats_until(&mut stats, |s| s.failed >= 1).await;
        let _ = server.write_all(&confirm).await;
        let mut rest = Vec::new();
        let _ = server.read_to_end(&mut rest).await;
        assert!(rest.is_empty(), "no final word after the deadline");
        drop((client, server));
        // The next connection goes through untouched.
        let (mut client, _) = listener.accept().await.unwrap();
        let mut server = TcpStream::connect(target).await.unwrap();
        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
        s
    });
    let a = dialler(proxy_at, CONNECT);
    let dialled = tokio::time::timeout(Duration::from_secs(120), a.dial("B"))
        .await
        .expect("the dialler ends")
        .expect("the dialler gets in on its next attempt");
    let accepted = tokio::time::timeout(Duration::from_secs(60), acceptor.next())
        .await
        .expect("the acceptor yields the connection the dialler counts")
        .unwrap();
    assert_eq!(dialled.run_id(), accepted.run_id());
    assert_eq!(acceptor.stats().accepted, 1);
    assert!(
        acceptor
            .recent_failures()
            .iter()
            .any(|f| f.error.contains("handshake not finished"))
    );
    drop((dialled, accepted));
    let s = proxy.await.unwrap();
    assert_eq!(s.accepted, 0, "the held connection was never accepted");
}

/// An acceptor that drops the connection after the confirmation (its deadline, room for
/// others) twice, then sends the final word: the dialler reports success only for the
/// third connection, the one the acceptor keeps.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dialler_never_reports_success_for_a_connection_the_acceptor_drops() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = listener.local_addr().unwrap();
    let acceptor = tokio::spawn(async move {
        for _ in 0..2 {
            let (mut stream, _) = listener.accept().await.unwrap();
            accept_by_hand(&mut stream).await;
            drop(stream);
        }
        let (mut stream, _) = listener.accept().await.unwrap();
        let seen = accept_by_hand(&mut stream).await;
        write_frame(&mut stream, &seen.established()).await.unwrap();
        // Something only this connection carries, after the handshake.
        stream.write_all(b"third").await.unwrap();
        (stream, seen)
    });
    let a = dialler(at, CONNECT);
    let dialled = a.dial("B").await.expect("the third connection is kept");
    // A dialler that counted a dropped connection would have stopped before the third.
    let (_stream, seen) = tokio::time::timeout(Duration::from_secs(60), acceptor)
        .await
        .expect("the dialler reached the third connection")
        .unwrap();
    let hello = mpst_wire::hello::decode_hello(&seen.hello).unwrap();
    assert_eq!(
        dialled.run_id(),
        run_id(&hello, &accepted_nonce(&seen.reply))
    );
    let mut third = [0; 5];
    let mut stream = dialled.into_stream();
    stream.read_exact(&mut third).await.unwrap();
    assert_eq!(&third, b"third");

    // An acceptor that always drops it: no success, an error at the deadline.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = listener.local_addr().unwrap();
    let dropping = tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            // Up to the confirmation, then closed (the dialler may give up first).
            let _ = tokio::time::timeout(CONNECT, async {
                read_frame(&mut stream, MAX_HANDSHAKE_FRAME).await.ok()?;
                let reply = Reply::Accept {
                    field: Vec::new(),
                    nonce: fresh_nonce(),
                };
                write_frame(&mut stream, &encode_message(&reply).ok()?)
                    .await
                    .ok()?;
                read_frame(&mut stream, MAX_HANDSHAKE_FRAME).await.ok()
            })
            .await;
        }
    });
    let error = dialler(at, Duration::from_secs(1))
        .dial("B")
        .await
        .unwrap_err();
    dropping.abort();
    assert!(
        matches!(error.kind, WireErrorKind::NotConnected { .. }),
        "{error}"
    );
}

/// The acceptor's final word from one connection, replayed to a dialler on another: the
/// attacker replays everything the acceptor said (accept, then the word); the dialler
/// echoes the old nonce unknowingly, but the word's transcript is not this connection's,
/// so it refuses, naming a replay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_final_word_replayed_from_another_connection_is_refused() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = listener.local_addr().unwrap();
    let fake = tokio::spawn(async move {
        // A genuine first connection, recorded.
        let (mut stream, _) = listener.accept().await.unwrap();
        let seen = accept_by_hand(&mut stream).await;
        let word = seen.established();
        write_frame(&mut stream, &word).await.unwrap();
        let mut recorded = (seen.reply.len() as u32).to_be_bytes().to_vec();
        recorded.extend_from_slice(&seen.reply);
        recorded.extend_from_slice(&word);
        // The second connection gets the recording.
        let (mut stream, _) = listener.accept().await.unwrap();
        let _hello = read_frame(&mut stream, MAX_HANDSHAKE_FRAME).await.unwrap();
        stream.write_all(&recorded).await.unwrap();
        let mut rest = Vec::new();
        let _ = stream.read_to_end(&mut rest).await;
        (stream, rest)
    });
    let a = dialler(at, CONNECT);
    let first = a.dial("B").await.expect("the genuine connection");
    let error = a.dial("B").await.unwrap_err();
    assert!(
        matches!(error.kind, WireErrorKind::Refusing(Refusal::Replay)),
        "{error}"
    );
    assert!(error.to_string().contains("replay"), "{error}");
    drop(first);
    let (_, rest) = fake.await.unwrap();
    // The dialler confirmed (it cannot tell a replayed accept) and then closed.
    assert!(matches!(
        decode_body::<Confirm>(&rest[4..]),
        Ok(Confirm::Confirm { .. })
    ));
}

/// Strangers that pass every check (plaintext: they claim the expected role) and stop
/// before confirming hold the slots; they count against the cap, the oldest is closed to
/// make room for the real peer, and none of them ever reads a final word.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strangers_that_stop_right_before_the_final_word_are_closed_to_make_room() {
    let pki = pki();
    let (a, mut acceptor) = pair_with(Mode::Plain, &pki, |c| {
        c.handshake_timeout(Duration::from_secs(120))
            .max_pending_handshakes(4)
    })
    .await;
    let mut stats = acceptor.watch_stats();
    let mut strangers = Vec::new();
    for _ in 0..4 {
        let mut s = TcpStream::connect(acceptor.local_addr()).await.unwrap();
        // Accepted: it passed every check. It never confirms.
        let (_, _, reply) = hello_by_hand(&mut s, WIRE_VERSION).await;
        accepted_nonce(&reply);
        strangers.push(s);
    }
    real_peer_connects(&a, &mut acceptor).await;
    let s = stats_until(&mut stats, |s| s.over_cap >= 1).await;
    assert_eq!(s.accepted, 1);
    assert!(
        read_to_close(&mut strangers[0]).await.is_empty(),
        "closed without a final word"
    );
    assert!(still_open(&strangers[3]), "only the oldest was closed");
}

/// A stranger that completes the handshake, reads the final word and then stops: its
/// connection is yielded, and the acceptor closes it neither for the handshake deadline
/// (a later stranger's deadline passing shows it has passed) nor to make room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stranger_that_stops_right_after_the_final_word_keeps_its_connection() {
    let pki = pki();
    let (_, mut acceptor) = pair_with(Mode::Plain, &pki, |c| {
        c.handshake_timeout(Duration::from_millis(300))
            .max_pending_handshakes(1)
    })
    .await;
    let mut stats = acceptor.watch_stats();
    let mut s = TcpStream::connect(acceptor.local_addr()).await.unwrap();
    let (hello, hello_body, reply) = hello_by_hand(&mut s, WIRE_VERSION).await;
    let nonce = accepted_nonce(&reply);
    let confirm = encode_message(&Confirm::Confirm { nonce }).unwrap();
    s.write_all(&confirm).await.unwrap();
    let word = read_frame(&mut s, MAX_HANDSHAKE_FRAME).await.unwrap();
    let expected = transcript(&hello_body, &reply, &confirm[4..]);
    assert_eq!(
        decode_body::<Established>(&word).ok(),
        Some(Established {
            transcript: expected
        })
    );
    let mut accepted = acceptor.next().await.unwrap();
    assert_eq!(accepted.run_id(), run_id(&hello, &nonce));
    // Later strangers: idle until closed at their deadlines, or to make room (cap 1).
    let mut idle = Vec::new();
    for _ in 0..3 {
        idle.push(TcpStream::connect(acceptor.local_addr()).await.unwrap());
    }
    let counts = stats_until(&mut stats, |s| s.failed + s.over_cap >= 3).await;
    // The last one was closed at its deadline, which began after the first's.
    assert!(counts.failed >= 1, "{counts:?}");
    assert!(still_open(&s), "the established connection is not closed");
    accepted
        .stream_mut()
        .write_all(b"still here")
        .await
        .unwrap();
    let mut got = [0; 10];
    s.read_exact(&mut got).await.unwrap();
    assert_eq!(&got, b"still here");
}

/// A dialler of the previous wire version (without the final word) is told which version
/// this is, and a dialler reaching an acceptor of the previous version reads that
/// acceptor's refusal: each side names both versions, nobody hangs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn peers_of_the_previous_wire_version_are_refused_with_both_versions() {
    let pki = pki();
    let (a, mut acceptor) = pair(Mode::Plain, &pki).await;
    let mut old = TcpStream::connect(acceptor.local_addr()).await.unwrap();
    let (_, _, reply) = hello_by_hand(&mut old, 2).await;
    assert_eq!(
        decode_body::<Reply>(&reply).ok(),
        Some(Reply::Refuse(Refusal::Version {
            ours: WIRE_VERSION,
            theirs: 2
        }))
    );
    assert_eq!(WIRE_VERSION, 3);
    real_peer_connects(&a, &mut acceptor).await;

    // An acceptor of version 2: it reads the hello's version and refuses it.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let body = read_frame(&mut stream, MAX_HANDSHAKE_FRAME).await.unwrap();
        let theirs = u16::from_be_bytes([body[4], body[5]]);
        let refusal = Reply::Refuse(Refusal::Version { ours: 2, theirs });
        write_frame(&mut stream, &encode_message(&refusal).unwrap())
            .await
            .unwrap();
    });
    let error = dialler(at, CONNECT).dial("B").await.unwrap_err();
    assert!(
        matches!(
            error.kind,
            WireErrorKind::Refused(Refusal::Version { ours: 2, theirs: 3 })
        ),
        "{error}"
    );
}
