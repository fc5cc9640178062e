//! The loopback world the proxy's tests run in: a real `redis-server` started per test on
//! a free port (a test that needs it skips, saying so, when it is not installed), an
//! origin server whose answers and request count the test controls, and the proxy's HTTP
//! front between them, each stopped when dropped. Every wait is bounded.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::origin::OriginClient;
use crate::server::{self, Services};
use crate::store::{self, RedisCache};

/// A bound on every test's whole run.
const TEST_TIMEOUT: Duration = Duration::from_secs(60);
/// A bound on one HTTP request from the test to the proxy.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// The TTL the proxy under test gives cached bodies.
pub(crate) const TTL: u64 = 300;
/// The largest body the proxy under test fetches.
pub(crate) const MAX_BODY: usize = 1 << 20;

/// Runs a test's body on a multi-thread runtime with I/O and timers, bounded in time.
pub(crate) fn run<F: std::future::Future<Output = ()>>(test: F) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime
        .block_on(async { tokio::time::timeout(TEST_TIMEOUT, test).await })
        .expect("the test did not finish in time");
}

/// A loopback port nobody listens on (bound, then released).
pub(crate) fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local address").port()
}

/// `redis-server` on `PATH`, if it is there.
fn redis_server_binary() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("redis-server"))
        .find(|candidate| candidate.is_file())
}

/// Starts `redis-server` on `127.0.0.1:port` without persistence, its output discarded.
fn spawn_redis(binary: &Path, port: u16) -> Child {
    Command::new(binary)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn redis-server")
}

/// A `redis-server` on a free loopback port, without persistence, killed on drop.
pub(crate) struct RedisServer {
    binary: PathBuf,
    port: u16,
    child: Child,
    /// `redis://127.0.0.1:<port>`.
    pub(crate) url: String,
}

impl RedisServer {
    /// Starts one and waits until it answers PING; `None` (after printing that the calling
    /// test is skipped) when `redis-server` is not installed, except in CI, where that
    /// fails the test.
    pub(crate) fn start() -> Option<Self> {
        let Some(binary) = redis_server_binary() else {
            // The test harness names each test's thread after the test.
            let thread = std::thread::current();
            let test = thread.name().unwrap_or("this test");
            // CI installs redis-server (.ci/run), so there a missing one is a failure, not a
            // silently skipped test.
            let in_ci = std::env::var("CI").is_ok_and(|ci| !ci.is_empty() && ci != "false");
            assert!(
                !in_ci,
                "{test}: redis-server is not on PATH, and CI must run this test"
            );
            // Written to the real stderr, past the test harness's capture, so that
            // `cargo test` shows the skip.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: redis-server is not on PATH (apt-get install redis-server)"
            );
            return None;
        };
        // Another process may take the port between our probe and redis-server's bind:
        // then redis-server exits and we try another port.
        for _ in 0..5 {
            let port = free_port();
            let mut server = RedisServer {
                child: spawn_redis(&binary, port),
                binary: binary.clone(),
                port,
                url: format!("redis://127.0.0.1:{port}"),
            };
            if server.wait_ready() {
                return Some(server);
            }
        }
        panic!(
            "redis-server did not answer PING on any of 5 free ports (run it by hand to see why)"
        );
    }

    /// Kills the server and starts a new, empty one on the same port (the cache comes
    /// back); waits until it answers PING.
    pub(crate) fn restart(&mut self) {
        self.kill();
        self.child = spawn_redis(&self.binary, self.port);
        assert!(
            self.wait_ready(),
            "redis-server did not come back on port {}",
            self.port
        );
    }

    /// Polls PING (at most 200 times, 25 ms apart) until it answers; false if the server
    /// exited or never answered.
    fn wait_ready(&mut self) -> bool {
        for _ in 0..200 {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return false;
            }
            if let Ok(pong) = self.query::<String>(redis::cmd("PING")) {
                return pong == "PONG";
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        false
    }

    /// Runs one command on a fresh connection (bounded by short timeouts).
    fn query<T: redis::FromRedisValue>(&self, command: redis::Cmd) -> redis::RedisResult<T> {
        let client = redis::Client::open(self.url.as_str())?;
        let mut connection = client.get_connection_with_timeout(Duration::from_millis(500))?;
        connection.set_read_timeout(Some(Duration::from_secs(2)))?;
        connection.set_write_timeout(Some(Duration::from_secs(2)))?;
        command.query(&mut connection)
    }

    /// The value Redis holds for the body cached for `path`.
    pub(crate) fn cached(&self, path: &str) -> Option<Vec<u8>> {
        let mut get = redis::cmd("GET");
        get.arg(store::key(path));
        self.query(get).expect("GET from redis")
    }

    /// The remaining TTL of the body cached for `path` (-2: no such key).
    pub(crate) fn ttl(&self, path: &str) -> i64 {
        let mut ttl = redis::cmd("TTL");
        ttl.arg(store::key(path));
        self.query(ttl).expect("TTL from redis")
    }

    /// Kills the server (the cache goes away) and reaps it.
    pub(crate) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Aborts a spawned server task when the test ends, also on failure.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The origin server: `/fail*` answers 500, `/missing*` 404, `/slow*` never answers,
/// `/big*` 200 with a body larger than the proxy's limit ([`MAX_BODY`]),
/// anything else 200 with `origin body of <path>`. Counts the requests it gets.
pub(crate) struct OriginServer {
    /// `http://127.0.0.1:<port>`.
    pub(crate) url: String,
    requests: Arc<AtomicUsize>,
    _task: AbortOnDrop,
}

impl OriginServer {
    /// Starts one on a free loopback port.
    pub(crate) async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind origin");
        let url = format!("http://{}", listener.local_addr().expect("origin address"));
        let requests = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&requests);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let counter = Arc::clone(&counter);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                        counter.fetch_add(1, Ordering::SeqCst);
                        origin_answer(request)
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Self {
            url,
            requests,
            _task: AbortOnDrop(task),
        }
    }

    /// How many requests it has received.
    pub(crate) fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

/// The origin server's answer to one request (see [`OriginServer`]).
async fn origin_answer(
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, std::convert::Infallible> {
    let path = request.uri().path().to_owned();
    let (status, body) = if path.starts_with("/fail") {
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            "origin exploded".to_owned(),
        )
    } else if path.starts_with("/missing") {
        (StatusCode::NOT_FOUND, "no such page".to_owned())
    } else if path.starts_with("/big") {
        (StatusCode::OK, "x".repeat(MAX_BODY + 1))
    } else if path.starts_with("/slow") {
        std::future::pending::<()>().await;
        unreachable!("a pending future never completes")
    } else {
        (StatusCode::OK, format!("origin body of {path}"))
    };
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    Ok(response)
}

/// The proxy under test, serving on a loopback port.
pub(crate) struct TestProxy {
    addr: SocketAddr,
    _task: AbortOnDrop,
}

impl TestProxy {
    /// Starts one on a free loopback port for the origin at `origin` and the Redis server
    /// at `redis`. Origin and Redis timeouts of 2 s: long enough for a loaded machine,
    /// short enough for the slow origin's test.
    pub(crate) async fn start(origin: &str, redis: &str) -> Self {
        let services = Services {
            cache: RedisCache::new(redis, Duration::from_secs(TTL), Duration::from_secs(2))
                .expect("redis url"),
            origin: OriginClient::new(origin, Duration::from_secs(2), MAX_BODY)
                .expect("origin url"),
            session_timeout: Duration::from_secs(10),
        };
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let addr = listener.local_addr().expect("proxy address");
        let task =
            tokio::spawn(async move { match server::serve(listener, Arc::new(services)).await {} });
        Self {
            addr,
            _task: AbortOnDrop(task),
        }
    }

    /// Sends `method path` to the proxy: the status, the `x-cache` header and the body.
    pub(crate) async fn request(
        &self,
        method: &str,
        path: &str,
    ) -> (StatusCode, Option<String>, String) {
        let client: Client<_, Empty<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
        let request = Request::builder()
            .method(method)
            .uri(format!("http://{}{path}", self.addr))
            .body(Empty::new())
            .expect("request");
        let exchange = async {
            let response = client.request(request).await.expect("the proxy answers");
            let status = response.status();
            let cache = response
                .headers()
                .get(server::X_CACHE)
                .map(|value| value.to_str().expect("ASCII x-cache").to_owned());
            let body = response.into_body().collect().await.expect("body");
            let body = String::from_utf8(body.to_bytes().to_vec()).expect("UTF-8 body");
            (status, cache, body)
        };
        tokio::time::timeout(REQUEST_TIMEOUT, exchange)
            .await
            .expect("the proxy answered in time")
    }

    /// GETs `path` from the proxy.
    pub(crate) async fn get(&self, path: &str) -> (StatusCode, Option<String>, String) {
        self.request("GET", path).await
    }
}

/// A 200 from Redis.
pub(crate) fn hit(body: &str) -> (StatusCode, Option<String>, String) {
    (StatusCode::OK, Some("HIT".to_owned()), body.to_owned())
}

/// A 200 from the origin, stored in Redis.
pub(crate) fn miss(body: &str) -> (StatusCode, Option<String>, String) {
    (StatusCode::OK, Some("MISS".to_owned()), body.to_owned())
}

/// A 200 from the origin, Redis bypassed.
pub(crate) fn bypass(body: &str) -> (StatusCode, Option<String>, String) {
    (StatusCode::OK, Some("BYPASS".to_owned()), body.to_owned())
}
