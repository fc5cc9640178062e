//! Memory of an accepting role under the hostile loads of issue 22, measured as the
//! resident set size (RSS, Linux `/proc/self/status`) of the accepting process while a
//! child process attacks it over loopback:
//!
//! ```text
//! hostile_rss unclaimed N an authenticated peer A sends N envelopes of 2 KiB for
//!                         sessions that never start to B (mutual TLS)
//! hostile_rss partial     24 connections each send 16 MiB - 1 bytes of a 16 MiB frame
//!                         and stall: after a plaintext set-up claiming A (the worst
//!                         case), then as strangers on a mutual-TLS port
//! ```
//!
//! Prints `rss PHASE KiB` lines. Run with `cargo run --release -p mpst-choreo --example
//! hostile_rss -- MODE`; the child is this binary with `attack-...` arguments.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
use mpst_choreo::{Endpoint, EndpointConfig, Envelope, Key, RoleName, Site, Token, Transport};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

const PROGRAM: &str = "hostile_rss";
const CONNECTIONS: usize = 24;
const FRAME: u32 = 16 << 20;

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmRSS:"));
    let kib = line.and_then(|l| l.split_whitespace().nth(1));
    kib.and_then(|n| n.parse().ok()).unwrap_or(0)
}

fn report(phase: &str) {
    println!("rss {phase} {} KiB", rss_kib());
}

fn certs() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hostile-rss-{}", std::process::id()));
    let roles = ["A".to_string(), "B".to_string()];
    mpst_wire::certs::write_deployment(&dir, PROGRAM, &roles).expect("certificates");
    dir
}

fn identity(dir: &std::path::Path, role: &str) -> mpst_wire::Identity {
    let (cert, key) = mpst_wire::certs::role_files(dir, role);
    mpst_wire::Identity::load(&dir.join("ca.pem"), &cert, &key).expect("identity")
}

/// Starts this binary as the attacker with `args`; its stdout lines.
fn attacker(args: &[String]) -> (std::process::Child, impl Iterator<Item = String>) {
    let exe = std::env::current_exe().expect("own path");
    let mut child = Command::new(exe)
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("attacker");
    let out = child.stdout.take().expect("stdout");
    (child, BufReader::new(out).lines().map_while(Result::ok))
}

async fn wait_until(mut done: impl FnMut() -> bool, limit: Duration) -> bool {
    let start = Instant::now();
    while !done() {
        if start.elapsed() > limit {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}

async fn unclaimed(envelopes: u64) {
    let dir = certs();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let b_addr = listener.local_addr().unwrap();
    let args = [
        "attack-unclaimed".into(),
        b_addr.to_string(),
        dir.display().to_string(),
        envelopes.to_string(),
    ];
    let (mut child, mut lines) = attacker(&args);
    let a_addr: std::net::SocketAddr = lines
        .next()
        .expect("the attacker's address")
        .parse()
        .unwrap();
    let config = TcpConfig::mutual_tls(PROGRAM, identity(&dir, "B"));
    let b = TcpTransport::start(
        RoleName::from("B"),
        listener,
        [(RoleName::from("A"), a_addr)],
        config,
    );
    let b = Arc::new(b.await.expect("B"));
    let config = EndpointConfig {
        unclaimed_age: Duration::from_secs(5),
        ..EndpointConfig::default()
    };
    let endpoint = Endpoint::with_config(b.clone(), RoleName::from("B"), config, None).unwrap();
    report("baseline");
    let filed = || {
        let stats = endpoint.stats();
        stats.keys_held as u64 + stats.unclaimed_dropped >= envelopes
    };
    wait_until(filed, Duration::from_secs(120)).await;
    let stats = endpoint.stats();
    report(&format!("after-{envelopes}-envelopes"));
    println!(
        "keys_held {} unclaimed_dropped {}",
        stats.keys_held, stats.unclaimed_dropped
    );
    wait_until(|| endpoint.stats().keys_held == 0, Duration::from_secs(30)).await;
    report("after-expiry");
    println!("keys_held {}", endpoint.stats().keys_held);
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

async fn attack_unclaimed(b_addr: &str, dir: &str, envelopes: u64) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    println!("{}", listener.local_addr().unwrap());
    let config = TcpConfig::mutual_tls(PROGRAM, identity(dir.as_ref(), "A"));
    let peers = [(
        RoleName::from("B"),
        b_addr.parse::<std::net::SocketAddr>().unwrap(),
    )];
    let a = TcpTransport::start(RoleName::from("A"), listener, peers, config)
        .await
        .unwrap();
    for n in 0..envelopes {
        let envelope = Envelope {
            from: RoleName::from("A"),
            to: RoleName::from("B"),
            key: Key::new(Site::from_id(1), Token::session(1_000 + n)),
            payload: vec![7; 2048],
        };
        a.send(envelope).await.unwrap();
    }
    a.close().await;
}

async fn partial(tls: bool) {
    let dir = certs();
    let (la, lb) = (
        TcpListener::bind("127.0.0.1:0").await.unwrap(),
        TcpListener::bind("127.0.0.1:0").await.unwrap(),
    );
    let (a_addr, b_addr) = (la.local_addr().unwrap(), lb.local_addr().unwrap());
    let config = |role: &str| {
        let security = if tls {
            TcpConfig::mutual_tls(PROGRAM, identity(&dir, role))
        } else {
            TcpConfig {
                protocol: PROGRAM.into(),
                ..TcpConfig::insecure_plaintext()
            }
        };
        TcpConfig {
            connections_per_peer: 1,
            idle_timeout: Duration::from_secs(5),
            ..security
        }
    };
    let (a, b) = tokio::try_join!(
        TcpTransport::start("A".into(), la, [("B".into(), b_addr)], config("A")),
        TcpTransport::start("B".into(), lb, [("A".into(), a_addr)], config("B")),
    )
    .expect("A and B");
    let mode = if tls { "tls" } else { "plaintext" };
    report(&format!("{mode}-baseline"));
    let args = [
        "attack-partial".into(),
        b_addr.to_string(),
        mode.to_string(),
    ];
    let (mut child, mut lines) = attacker(&args);
    let written = lines.next().unwrap_or_default();
    report(&format!("{mode}-after-24-partial-frames ({written})"));
    let closed = lines.next().unwrap_or_default();
    report(&format!("{mode}-after-the-frame-timeout ({closed})"));
    println!("{mode} refused {:?}", b.stats());
    let _ = child.wait();
    drop((a, b));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The application field of a one-lane dialler.
struct OneLane;

impl mpst_wire::Application for OneLane {
    fn field(&self, _peer: &str) -> Vec<u8> {
        1u32.to_le_bytes().to_vec()
    }
}

async fn attack_partial(b_addr: &str, mode: &str) {
    let mut streams = Vec::new();
    for _ in 0..CONNECTIONS {
        let mut stream = if mode == "plaintext" {
            let config = mpst_wire::WireConfig::new(PROGRAM, "A")
                .peer("B", b_addr)
                .insecure_plaintext();
            let node = mpst_wire::Node::new(config)
                .unwrap()
                .with_application(OneLane);
            let connection = node.dial_at("B", b_addr, None).await.unwrap();
            connection.into_stream()
        } else {
            mpst_wire::Stream::Plain(tokio::net::TcpStream::connect(b_addr).await.unwrap())
        };
        let _ = stream.write_all(&FRAME.to_be_bytes()).await;
        let chunk = vec![0u8; 1 << 20];
        for _ in 0..15 {
            if stream.write_all(&chunk).await.is_err() {
                break;
            }
        }
        let _ = stream.write_all(&chunk[..(1 << 20) - 1]).await;
        streams.push(stream);
    }
    println!("written {CONNECTIONS}");
    let mut closed = 0;
    for stream in &mut streams {
        let mut sink = Vec::new();
        let read = tokio::io::AsyncReadExt::read_to_end(stream, &mut sink);
        // Closed (with or without a TLS alert first) within a minute.
        if tokio::time::timeout(Duration::from_secs(60), read)
            .await
            .is_ok()
        {
            closed += 1;
        }
    }
    println!("closed {closed}");
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["unclaimed", n] => unclaimed(n.parse().expect("a number of envelopes")).await,
        ["partial"] => {
            partial(false).await;
            partial(true).await;
        }
        ["attack-unclaimed", b, dir, n] => attack_unclaimed(b, dir, n.parse().unwrap()).await,
        ["attack-partial", b, mode] => attack_partial(b, mode).await,
        _ => eprintln!("usage: hostile_rss unclaimed N | partial"),
    }
}
