//! The HTTP caching proxy across hosts (issue 23, item 2): mpst-examples' `http_cache`
//! program (one session among client, proxy, cache and origin per GET) on its own host,
//! Debian's `redis-server` on another, an origin server on a third and the HTTP client on
//! a fourth, each reaching the others by host name over links of 20 ms ± 5 ms one way
//! with 1 % loss (for TCP, the relay's seeded stalls):
//!
//! - a miss then a hit give what they give in memory (`http_cache/tests.rs`): the
//!   origin's body, `x-cache: MISS`, then the same body from Redis, `x-cache: HIT`, the
//!   origin asked once;
//! - the cache's host cut off mid-run: the cache role fails within its Redis time-out and
//!   the proxy answers from the origin, `x-cache: BYPASS`, in bounded time.

use crate::common;

use common::program;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use mpst_testbed::{Impairment, Process, TestBed};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const PROXY_PORT: u16 = 8080;
const REDIS_PORT: u16 = 6379;
const ORIGIN_PORT: u16 = 9000;
/// How long one step may take at most.
const LIMIT: Duration = Duration::from_secs(20);

/// 20 ms ± 5 ms each way, 1 % loss.
fn link() -> Impairment {
    Impairment::none()
        .delay(Duration::from_millis(20))
        .jitter(Duration::from_millis(5))
        .loss(0.01)
}

/// Lines of `process`'s standard output, read on a thread.
fn lines(process: &mut Process) -> mpsc::Receiver<String> {
    let stdout = process.take_stdout().expect("piped stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(|l| l.ok()) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits for a line containing `needle` within [`LIMIT`].
fn wait_for(lines: &mpsc::Receiver<String>, needle: &str, what: &str) {
    let deadline = Instant::now() + LIMIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) if line.contains(needle) => return,
            Ok(_) => {}
            Err(_) => panic!("{what} never said {needle:?}"),
        }
    }
}

/// An origin server: answers every GET with 200 and `origin <path>`, counting requests.
async fn origin(requests: Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind(("0.0.0.0", ORIGIN_PORT))
        .await
        .expect("the origin port");
    while let Ok((mut stream, _)) = listener.accept().await {
        let requests = requests.clone();
        tokio::spawn(async move {
            let mut request = Vec::new();
            let mut buf = [0u8; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            requests.fetch_add(1, Ordering::SeqCst);
            let text = String::from_utf8_lossy(&request);
            let path = text.split_whitespace().nth(1).unwrap_or("?").to_owned();
            let body = format!("origin {path}");
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes()).await;
            let _ = stream.shutdown().await;
        });
    }
}

/// One GET from the client host to the proxy: status, `x-cache` and body.
async fn get(proxy: std::net::Ipv4Addr, path: &str) -> (u16, String, String) {
    let mut stream = tokio::net::TcpStream::connect((proxy, PROXY_PORT))
        .await
        .expect("the proxy answers");
    let request = format!("GET {path} HTTP/1.1\r\nhost: proxy\r\nconnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("sent");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("read");
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let cache = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("x-cache: ")
                .map(str::to_owned)
        })
        .unwrap_or_default();
    (status, cache.to_ascii_uppercase(), body.to_owned())
}

#[test]
fn the_http_caching_proxy_serves_across_hosts_and_bypasses_a_cut_off_cache() {
    let test = "the_http_caching_proxy_serves_across_hosts_and_bypasses_a_cut_off_cache";
    let Some(proxy_exe) = program(test, "http_cache") else {
        return;
    };
    if std::process::Command::new("redis-server")
        .arg("--version")
        .output()
        .is_err()
    {
        mpst_testbed::skip_or_fail(test, &"redis-server is not installed");
        return;
    }
    let Some(bed) = TestBed::builder()
        .host("client")
        .host("proxy")
        .host("cache")
        .host("origin")
        .full_mesh(link())
        .tcp_port(PROXY_PORT)
        .tcp_port(REDIS_PORT)
        .tcp_port(ORIGIN_PORT)
        .seed(71)
        .build_or_skip(test)
    else {
        return;
    };
    // Redis on the cache host, ready before the proxy asks it anything.
    let cache = bed.host("cache");
    let mut command = cache.command("redis-server");
    command
        .args(["--port", &REDIS_PORT.to_string(), "--bind", "0.0.0.0"])
        .args(["--protected-mode", "no", "--save", "", "--appendonly", "no"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut redis = cache.spawn(&mut command).expect("redis-server starts");
    wait_for(
        &lines(&mut redis),
        "Ready to accept connections",
        "redis-server",
    );
    // The origin server on its host.
    let requests = Arc::new(AtomicUsize::new(0));
    let origin_runtime = bed.host("origin").runtime(1).expect("a runtime");
    drop(origin_runtime.spawn(origin(requests.clone())));
    // The proxy, reaching Redis and the origin by host name.
    let host = bed.host("proxy");
    let mut command = host.command(&proxy_exe);
    command
        .args(["--listen", &format!("0.0.0.0:{PROXY_PORT}")])
        .args(["--origin", &format!("http://origin:{ORIGIN_PORT}")])
        .args(["--redis", &format!("redis://cache:{REDIS_PORT}")])
        .args(["--redis-timeout-ms", "1000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut proxy = host.spawn(&mut command).expect("the proxy starts");
    wait_for(&lines(&mut proxy), "http_cache: proxying", "the proxy");
    // The client on its own host.
    let client = bed.host("client");
    let proxy_at = client.resolve("proxy").expect("the proxy's name resolves");
    let runtime = client.runtime(1).expect("a runtime");
    let run = |path: &'static str| {
        let task = runtime.spawn(async move {
            tokio::time::timeout(LIMIT, get(proxy_at, path))
                .await
                .unwrap_or_else(|_| panic!("GET {path}: no answer within {LIMIT:?}"))
        });
        futures::executor::block_on(task).expect("the client task")
    };

    let miss = run("/a");
    assert_eq!(miss, (200, "MISS".into(), "origin /a".into()));
    let hit = run("/a");
    assert_eq!(hit, (200, "HIT".into(), "origin /a".into()));
    assert_eq!(requests.load(Ordering::SeqCst), 1, "a hit asks no origin");

    // The cache's host is cut off: its role fails at the Redis time-out, and the proxy
    // answers from the origin instead.
    for link in bed.links_of("cache") {
        link.partition();
    }
    let cut = Instant::now();
    let bypass = run("/b");
    let took = cut.elapsed();
    assert_eq!(bypass, (200, "BYPASS".into(), "origin /b".into()));
    assert_eq!(requests.load(Ordering::SeqCst), 2);
    // One Redis time-out (1 s) and the links' delays, with room for a busy machine.
    assert!(took < Duration::from_secs(10), "{took:?}");
    eprintln!("bypassed a cut-off cache in {took:?}");
    drop(proxy);
    drop(redis);
}
