//! The proxy end to end on loopback: a real `redis-server` started per test on a free
//! port (tests that need it skip, saying so, when it is not installed), an origin server
//! whose answers and request count the test controls, and the proxy's HTTP front between
//! them. Every wait is bounded.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use super::*;

/// A bound on every test's whole run.
const TEST_TIMEOUT: Duration = Duration::from_secs(60);
/// A bound on one HTTP request from the test to the proxy.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// The TTL the proxy under test gives cached bodies.
const TTL: u64 = 300;

/// Runs a test's body on a multi-thread runtime with I/O and timers, bounded in time.
fn run<F: std::future::Future<Output = ()>>(test: F) {
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
fn free_port() -> u16 {
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

/// A `redis-server` on a free loopback port, without persistence, killed on drop.
struct RedisServer {
    child: Child,
    url: String,
}

impl RedisServer {
    /// Starts one and waits until it answers PING; `None` (after printing that the calling
    /// test is skipped) when `redis-server` is not installed, except in CI, where that
    /// fails the test.
    fn start() -> Option<Self> {
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
            let child = Command::new(&binary)
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn redis-server");
            let mut server = RedisServer {
                child,
                url: format!("redis://127.0.0.1:{port}"),
            };
            if server.wait_ready() {
                return Some(server);
            }
        }
        panic!("redis-server did not start on any of 5 free ports");
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
    fn cached(&self, path: &str) -> Option<Vec<u8>> {
        let mut get = redis::cmd("GET");
        get.arg(store::key(path));
        self.query(get).expect("GET from redis")
    }

    /// The remaining TTL of the body cached for `path` (-2: no such key).
    fn ttl(&self, path: &str) -> i64 {
        let mut ttl = redis::cmd("TTL");
        ttl.arg(store::key(path));
        self.query(ttl).expect("TTL from redis")
    }

    /// Kills the server (the cache goes away) and reaps it.
    fn kill(&mut self) {
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
/// anything else 200 with `origin body of <path>`. Counts the requests it gets.
struct OriginServer {
    url: String,
    requests: Arc<AtomicUsize>,
    _task: AbortOnDrop,
}

impl OriginServer {
    async fn start() -> Self {
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

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

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
struct TestProxy {
    addr: SocketAddr,
    _task: AbortOnDrop,
}

impl TestProxy {
    async fn start(origin: &str, redis: &str) -> Self {
        let services = Services {
            cache: RedisCache::new(redis, Duration::from_secs(TTL), Duration::from_secs(2))
                .expect("redis url"),
            origin: OriginClient::new(origin, Duration::from_millis(500), 1 << 20)
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
    async fn request(&self, method: &str, path: &str) -> (StatusCode, Option<String>, String) {
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

    async fn get(&self, path: &str) -> (StatusCode, Option<String>, String) {
        self.request("GET", path).await
    }
}

fn hit(body: &str) -> (StatusCode, Option<String>, String) {
    (StatusCode::OK, Some("HIT".to_owned()), body.to_owned())
}

fn miss(body: &str) -> (StatusCode, Option<String>, String) {
    (StatusCode::OK, Some("MISS".to_owned()), body.to_owned())
}

fn bypass(body: &str) -> (StatusCode, Option<String>, String) {
    (StatusCode::OK, Some("BYPASS".to_owned()), body.to_owned())
}

#[test]
fn a_miss_fetches_and_stores_and_a_hit_does_not_contact_the_origin() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    run(async {
        let origin = OriginServer::start().await;
        let proxy = TestProxy::start(&origin.url, &redis.url).await;
        let body = "origin body of /page";

        assert_eq!(redis.cached("/page?x=1"), None);
        assert_eq!(proxy.get("/page?x=1").await, miss(body));
        assert_eq!(origin.requests(), 1);
        assert_eq!(redis.cached("/page?x=1").as_deref(), Some(body.as_bytes()));
        let ttl = redis.ttl("/page?x=1");
        assert!(0 < ttl && ttl <= TTL as i64, "TTL {ttl}");

        for _ in 0..3 {
            assert_eq!(proxy.get("/page?x=1").await, hit(body));
        }
        assert_eq!(origin.requests(), 1, "a hit must not contact the origin");

        // Another query is another key.
        assert_eq!(proxy.get("/page?x=2").await, miss(body));
        assert_eq!(origin.requests(), 2);
    });
}

#[test]
fn a_failing_origin_gives_an_error_status_and_nothing_is_cached() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    run(async {
        let origin = OriginServer::start().await;
        let proxy = TestProxy::start(&origin.url, &redis.url).await;

        let (status, cache, body) = proxy.get("/fail").await;
        assert_eq!((status, cache), (StatusCode::BAD_GATEWAY, None));
        assert!(body.contains("500 Internal Server Error"), "{body}");
        let (status, _, body) = proxy.get("/missing").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert!(body.contains("404"), "{body}");
        let (status, _, body) = proxy.get("/slow").await;
        assert_eq!(status, StatusCode::GATEWAY_TIMEOUT);
        assert!(body.contains("did not answer"), "{body}");
        assert_eq!(origin.requests(), 3);
        for path in ["/fail", "/missing", "/slow"] {
            assert_eq!(redis.cached(path), None, "{path} must not be cached");
        }

        // Failures are not cached: the origin is asked again.
        assert_eq!(proxy.get("/fail").await.0, StatusCode::BAD_GATEWAY);
        assert_eq!(origin.requests(), 4);
    });
}

#[test]
fn a_cache_that_goes_away_is_bypassed() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    run(async {
        let origin = OriginServer::start().await;
        let proxy = TestProxy::start(&origin.url, &redis.url).await;
        let body = "origin body of /page";
        assert_eq!(proxy.get("/page").await, miss(body));
        assert_eq!(proxy.get("/page").await, hit(body));
        assert_eq!(origin.requests(), 1);

        redis.kill();
        assert_eq!(proxy.get("/page").await, bypass(body));
        assert_eq!(origin.requests(), 2, "a bypass fetches from the origin");
        assert_eq!(proxy.get("/page").await, bypass(body));
        assert_eq!(proxy.get("/fail").await.0, StatusCode::BAD_GATEWAY);
        assert_eq!(origin.requests(), 4);

        // What the cache role saw, as a typed error.
        let cache = RedisCache::new(&redis.url, Duration::from_secs(1), Duration::from_secs(2))
            .expect("redis url");
        let error = cache.get("/page").await.expect_err("redis is gone");
        assert!(
            matches!(error, store::CacheError::Connect { .. }),
            "{error:?}"
        );
    });
}

#[test]
fn without_redis_every_answer_comes_from_the_origin() {
    let closed = format!("redis://127.0.0.1:{}", free_port());
    run(async {
        let origin = OriginServer::start().await;
        let proxy = TestProxy::start(&origin.url, &closed).await;
        assert_eq!(proxy.get("/a").await, bypass("origin body of /a"));
        assert_eq!(proxy.get("/a").await, bypass("origin body of /a"));
        assert_eq!(proxy.get("/missing").await.0, StatusCode::NOT_FOUND);
        assert_eq!(origin.requests(), 3);
    });
}

#[test]
fn an_unreachable_origin_gives_502() {
    let closed_origin = format!("http://127.0.0.1:{}", free_port());
    let closed_redis = format!("redis://127.0.0.1:{}", free_port());
    run(async {
        let proxy = TestProxy::start(&closed_origin, &closed_redis).await;
        let (status, cache, body) = proxy.get("/anything").await;
        assert_eq!((status, cache), (StatusCode::BAD_GATEWAY, None));
        assert!(body.contains("origin unreachable"), "{body}");
    });
}

#[test]
fn only_get_is_proxied() {
    let closed_redis = format!("redis://127.0.0.1:{}", free_port());
    run(async {
        let origin = OriginServer::start().await;
        let proxy = TestProxy::start(&origin.url, &closed_redis).await;
        let (status, cache, _) = proxy.request("POST", "/a").await;
        assert_eq!((status, cache), (StatusCode::METHOD_NOT_ALLOWED, None));
        assert_eq!(origin.requests(), 0);
    });
}

#[test]
fn bad_urls_are_typed_errors() {
    let timeout = Duration::from_secs(1);
    for url in [
        "ftp://127.0.0.1:9000",
        "127.0.0.1:9000",
        "http://127.0.0.1:9000/x",
        "http://",
    ] {
        let error = OriginClient::new(url, timeout, 10).err().expect(url);
        assert!(
            matches!(error, origin::OriginError::BadUrl { .. }),
            "{url}: {error}"
        );
    }
    let error = RedisCache::new("http://127.0.0.1:6379", timeout, timeout).err();
    assert!(matches!(error, Some(store::CacheError::BadUrl { .. })));
}

#[test]
fn origin_failures_map_to_gateway_statuses() {
    let url = "http://o/x".to_owned();
    let status = |status| origin::OriginError::Status {
        url: url.clone(),
        status,
    };
    assert_eq!(status(StatusCode::NOT_FOUND).client_status(), 404);
    assert_eq!(
        status(StatusCode::INTERNAL_SERVER_ERROR).client_status(),
        502
    );
    assert_eq!(status(StatusCode::MOVED_PERMANENTLY).client_status(), 502);
    let timeout = origin::OriginError::Timeout {
        url: url.clone(),
        after: Duration::from_secs(1),
    };
    assert_eq!(timeout.client_status(), 504);
    let failure = server::response(protocol::Answer::Failure(999, "odd".into()));
    assert_eq!(failure.status(), StatusCode::from_u16(999).expect("999"));
    let failure = server::response(protocol::Answer::Failure(42, "odd".into()));
    assert_eq!(failure.status(), StatusCode::BAD_GATEWAY);
}

#[test]
fn the_command_line_of_the_module_doc_parses() {
    let args = Args::try_parse_from([
        "http_cache",
        "--listen",
        "127.0.0.1:8080",
        "--origin",
        "http://127.0.0.1:9000",
        "--redis",
        "redis://127.0.0.1:6379",
    ])
    .expect("the documented command line");
    assert_eq!(args.listen, "127.0.0.1:8080".parse().expect("address"));
    assert_eq!(args.ttl, 60);
    assert!(args.services().is_ok());
    assert!(Args::try_parse_from(["http_cache", "--listen", "nowhere"]).is_err());
    let bad_origin = Args::try_parse_from(["http_cache", "--origin", "ftp://x"]).expect("parses");
    assert!(bad_origin.services().is_err());
}
