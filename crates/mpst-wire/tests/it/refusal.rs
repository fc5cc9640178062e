//! A refused peer always learns why: the refusal is written and the connection shut down
//! gracefully, so the reason is read before any reset — 200 times in a row, while
//! strangers keep connecting, over TLS and plaintext.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use mpst_wire::{Application, Expected, Node, Refusal, WireErrorKind};
use support::*;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// Sends its session type's "fingerprint" and accepts only `wanted` from peers.
struct Fingerprint {
    ours: &'static [u8],
    wanted: &'static [u8],
}

impl Application for Fingerprint {
    fn field(&self, _peer: &str) -> Vec<u8> {
        self.ours.to_vec()
    }

    fn check(&self, peer: &str, field: &[u8]) -> Result<(), String> {
        if field == self.wanted {
            Ok(())
        } else {
            Err(format!("{peer} runs another session type"))
        }
    }
}

async fn refused_200_times(mode: Mode) {
    let pki = pki();
    let b = Node::new(config("B", mode, &pki))
        .unwrap()
        .with_application(Fingerprint {
            ours: b"b1",
            wanted: b"a1",
        });
    let mut acceptor = b.bind(Expected::new().peer("A", 1)).await.unwrap();
    let at = acceptor.local_addr();
    // Load: strangers with garbage, without pause, for as long as the refusals run.
    let stop = Arc::new(AtomicBool::new(false));
    let strangers = {
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut count = 0u32;
            while !stop.load(Ordering::Relaxed) {
                if let Ok(mut s) = TcpStream::connect(at).await {
                    let _ = s.write_all(b"\x16\x03\x01garbage").await;
                    count += 1;
                }
                tokio::task::yield_now().await;
            }
            count
        })
    };
    let old = Node::new(config("A", mode, &pki).peer("B", at.to_string()))
        .unwrap()
        .with_application(Fingerprint {
            ours: b"a0",
            wanted: b"b1",
        });
    for round in 0..200 {
        let error = old.dial("B").await.unwrap_err();
        match &error.kind {
            WireErrorKind::Refused(Refusal::Application(reason)) => {
                assert_eq!(reason, "A runs another session type", "round {round}");
            }
            _ => panic!("round {round}: the refusal was not read: {error}"),
        }
    }
    stop.store(true, Ordering::Relaxed);
    assert!(strangers.await.unwrap() > 0);
    // The acceptor still serves the real peer.
    let new = Node::new(config("A", mode, &pki).peer("B", at.to_string()))
        .unwrap()
        .with_application(Fingerprint {
            ours: b"a1",
            wanted: b"b1",
        });
    let (dialled, accepted) = tokio::join!(new.dial("B"), acceptor.next());
    assert_eq!(dialled.unwrap().peer_field(), b"b1");
    assert_eq!(accepted.unwrap().peer_field(), b"a1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_peer_learns_why_200_times_tls() {
    refused_200_times(Mode::Tls).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_peer_learns_why_200_times_plaintext() {
    refused_200_times(Mode::Plain).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dialler_that_refuses_the_acceptor_tells_it_why() {
    let pki = pki();
    let b = Node::new(config("B", Mode::Tls, &pki))
        .unwrap()
        .with_application(Fingerprint {
            ours: b"b0",
            wanted: b"a1",
        });
    let acceptor = b.bind(Expected::new().peer("A", 1)).await.unwrap();
    let mut stats = acceptor.watch_stats();
    let a = Node::new(config("A", Mode::Tls, &pki).peer("B", acceptor.local_addr().to_string()))
        .unwrap()
        .with_application(Fingerprint {
            ours: b"a1",
            wanted: b"b1",
        });
    let error = a.dial("B").await.unwrap_err();
    assert!(
        matches!(&error.kind, WireErrorKind::Refusing(Refusal::Application(r)) if r == "B runs another session type"),
        "{error}"
    );
    stats_until(&mut stats, |s| s.failed >= 1).await;
    let failure = &acceptor.recent_failures()[0];
    assert!(
        failure.error.contains("peer A (authenticated)")
            && failure.error.contains("B runs another session type"),
        "{failure:?}"
    );
}
