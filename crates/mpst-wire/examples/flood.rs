//! Measures the acceptor's memory under a hostile flood: `N` stranger connections (2,000
//! by default), each sending a nearly full 64 KiB hello frame (plaintext) or a TLS record
//! header and all of its 16 KiB but one byte (TLS), and then idling; the resident set size is read from
//! `/proc/self/status` (Linux) before, during and after, and the real peer must still
//! connect. `cargo run --release -p mpst-wire --example flood -- [tls|plain] [N]`.

use std::time::{Duration, Instant};

use mpst_wire::certs::Deployment;
use mpst_wire::{Expected, Node, WireConfig};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

fn rss_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let tls = args.next().as_deref() != Some("plain");
    let count: usize = args.next().map_or(Ok(2000), |n| n.parse())?;
    let pki = Deployment::generate("ping/1", ["A", "B"])?;
    let secure = |c: WireConfig, role: &str| {
        if tls {
            c.mutual_tls(pki.identity(role))
        } else {
            c.insecure_plaintext()
        }
    };
    let b = Node::new(secure(
        WireConfig::new("ping/1", "B")
            .listen("127.0.0.1:0")
            .handshake_timeout(Duration::from_secs(30)),
        "B",
    ))?;
    let mut acceptor = b.bind(Expected::new().peer("A", count as u32 + 1)).await?;
    let at = acceptor.local_addr();
    let a = Node::new(secure(
        WireConfig::new("ping/1", "A").peer("B", at.to_string()),
        "A",
    ))?;
    // Warm up: one real connection, so TLS and the runtime have allocated what they keep.
    let (warm, _) = tokio::join!(a.dial("B"), acceptor.next());
    drop(warm?);
    let before = rss_kib("VmRSS:");
    let mut strangers = Vec::with_capacity(count);
    let mut payload = Vec::new();
    if tls {
        // A TLS handshake record header announcing 16 KiB, and all of it but one byte.
        payload.extend_from_slice(&[0x16, 0x03, 0x01, 0x40, 0x00]);
        payload.resize(5 + 0x4000 - 1, 0); // one byte short: the record stays incomplete
    } else {
        payload.extend_from_slice(&65_535u32.to_be_bytes());
        payload.extend_from_slice(b"MPST\0\x02");
        payload.resize(4 + 65_000, 0);
    }
    let started = Instant::now();
    for _ in 0..count {
        let mut s = TcpStream::connect(at).await?;
        let _ = s.write_all(&payload).await;
        strangers.push(s);
    }
    let flooding = started.elapsed();
    let stats = *acceptor
        .watch_stats()
        .wait_for(|s| s.over_cap + s.failed + s.refused + 64 >= count as u64)
        .await?;
    let during = rss_kib("VmRSS:");
    let started = Instant::now();
    let (real, _) = tokio::join!(
        a.dial("B"),
        tokio::time::timeout(Duration::from_secs(60), acceptor.next())
    );
    real?;
    let real_took = started.elapsed();
    let peak = rss_kib("VmHWM:");
    println!(
        "mode {} strangers {count} (sent in {flooding:?}): RSS before {before} KiB, during {during} KiB \
         (+{} KiB), peak {peak} KiB; the real peer connected in {real_took:?}; {stats:?}",
        if tls { "tls" } else { "plain" },
        during.saturating_sub(before)
    );
    drop(strangers);
    Ok(())
}
