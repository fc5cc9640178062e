//! Memory of a role under a hostile load while it connects: 500 strangers on loopback,
//! each announcing a large hello and sending part of it, never finishing. The peak
//! resident set (`VmHWM`, Linux) may grow by at most a stated bound, and the real peer
//! still gets in. Alone in its test binary, so that no other test's allocations count.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use mpst::net::NetConfig;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
enum Label {
    Ping(u32),
}

/// The bound on the growth of the peak resident set, in KiB: handshakes pending at once
/// are capped (64 by default) and so is a hello (64 KiB), so the strangers' bytes held
/// stay near 64 x 64 KiB = 4 MiB; the rest is slack for the runtime and the allocator
/// (500 partial hellos held at once would be 30 MB).
const BOUND_KIB: u64 = 16 * 1024;

/// `VmRSS` or `VmHWM` of this process in KiB.
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"));
    let kib = line.split_whitespace().nth(1).unwrap();
    kib.parse().unwrap()
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn stranger_500_partial_hellos_hold_bounded_memory() {
    let run = async {
        let b = NetConfig::new("ping/1", "B")
            .insecure_plaintext()
            .listen("127.0.0.1:0")
            .peer_without_address("A")
            .connect_timeout(Duration::from_secs(20))
            .bind()
            .await
            .unwrap();
        let b_at = b.local_addr().unwrap();
        let b = tokio::spawn(b.connect());
        let before = status_kib("VmRSS:");
        // Just under the 64 KiB a hello may have, 60 KB of it sent: without the cap on
        // pending handshakes, 500 of them would hold 30 MB.
        let partial: Vec<u8> = (65_000u32.to_be_bytes().iter().copied())
            .chain(std::iter::repeat_n(0x4d, 60_000))
            .collect();
        let mut strangers = Vec::new();
        for _ in 0..500 {
            let mut stranger = TcpStream::connect(b_at).await.unwrap();
            // The acceptor may close it first (over the cap): that is the point.
            let _ = stranger.write_all(&partial).await;
            strangers.push(stranger);
        }
        let mut a = NetConfig::new("ping/1", "A")
            .insecure_plaintext()
            .peer("B", b_at)
            .connect()
            .await
            .unwrap();
        let mut b = b.await.unwrap().expect("B connects despite 500 strangers");
        a.route::<Label>("B")
            .unwrap()
            .send(Label::Ping(1))
            .await
            .unwrap();
        let got = b.route::<Label>("A").unwrap().next().await;
        assert_eq!(got.unwrap().unwrap(), Label::Ping(1));
        let peak = status_kib("VmHWM:");
        let grown = peak.saturating_sub(before);
        println!("peak resident set grew by {grown} KiB under 500 partial hellos");
        assert!(
            grown <= BOUND_KIB,
            "the peak resident set grew by {grown} KiB (bound {BOUND_KIB} KiB)"
        );
        drop(strangers);
    };
    tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("bounded");
}
