//! An HTTP caching proxy built from the roles of a protocol: a real application of the
//! runtime, after the HTTP cache case study of the Rumpsteak repository.
//!
//! Protocol (`http_cache.scr`): for one GET, the `Client` role asks the `Proxy` for a
//! path; the proxy looks it up in the `Cache` (a real Redis server), which answers `hit`,
//! `miss` or `unavailable`. On a hit the proxy tells the `Origin` it is `unneeded` and
//! answers from the cache. Otherwise the origin fetches the path from the origin server
//! and answers `fetched` or `failed`; after a miss the proxy tells the cache to `store`
//! the fresh body (or `discard`), and when the cache is unavailable it leaves it alone.
//!
//! Each role is a session-typed process (`protocol.rs`), its session type written by hand
//! and checked against its projection (hybrid workflow; the whole system is 1-MC). The
//! proxy's HTTP front (`server.rs`, hyper) runs one session among fresh roles per
//! request and answers once every role has ended:
//!
//! | session | HTTP answer |
//! |---|---|
//! | cache hit | 200, the cached body, `x-cache: HIT`; the origin is not contacted |
//! | miss, origin 200 | 200, the origin's body, `x-cache: MISS`; the body is in Redis (`SET http_cache:<path> <body> EX <ttl>`) before the answer is sent |
//! | miss or cache unavailable, origin fails | the origin's 4xx as is, 504 when it is too slow, 502 Bad Gateway otherwise; body: why; nothing cached |
//! | cache unavailable, origin 200 | 200, the origin's body, `x-cache: BYPASS`; the typed `CacheError` is logged on stderr |
//! | a session error or the session deadline | 500 / 504 |
//!
//! Only GET is proxied (anything else is 405) and only 200 answers are cached, by path and
//! query; the origin's headers are not passed on. Redis is reached through one shared
//! connection, reopened after a failure, so the proxy starts without Redis and uses it
//! once it is up.
//!
//! Run it by hand against a Redis server and an origin server:
//!
//! ```text
//! cargo run -p mpst-examples --bin http_cache -- \
//!     --listen 127.0.0.1:8080 --origin http://127.0.0.1:9000 --redis redis://127.0.0.1:6379
//! curl -i http://127.0.0.1:8080/some/path    # x-cache: MISS, then HIT
//! ```
//!
//! The tests (`tests.rs`, on the loopback harness of `harness.rs`) start Debian's
//! `redis-server` on a free loopback port and a small origin server whose answers they
//! control. Without `redis-server` on `PATH` the tests that need it print `SKIPPED <test>`
//! and pass, except when the environment variable `CI` is set (CI installs it): there
//! they fail.

#[cfg(test)]
mod harness;
mod origin;
mod protocol;
mod server;
mod store;
#[cfg(test)]
mod tests;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;

use origin::OriginClient;
use server::Services;
use store::RedisCache;

/// An HTTP caching proxy: one multiparty session (client, proxy, cache, origin) per GET.
#[derive(Debug, Parser)]
struct Args {
    /// The address to serve HTTP on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// The origin server (`http://host:port`).
    #[arg(long, default_value = "http://127.0.0.1:9000")]
    origin: String,
    /// The Redis server used as the cache.
    #[arg(long, default_value = "redis://127.0.0.1:6379")]
    redis: String,
    /// How long Redis keeps a cached body, in seconds.
    #[arg(long, default_value_t = 60)]
    ttl: u64,
    /// How long one Redis operation may take, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    redis_timeout_ms: u64,
    /// How long one fetch from the origin may take, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    origin_timeout_ms: u64,
    /// The largest body the proxy fetches and caches, in bytes.
    #[arg(long, default_value_t = 8 << 20)]
    max_body: usize,
}

impl Args {
    /// The services these arguments describe (nothing is connected yet).
    fn services(&self) -> Result<Services, String> {
        let redis_timeout = Duration::from_millis(self.redis_timeout_ms);
        let origin_timeout = Duration::from_millis(self.origin_timeout_ms);
        let cache = RedisCache::new(&self.redis, Duration::from_secs(self.ttl), redis_timeout)
            .map_err(|e| e.to_string())?;
        let origin = OriginClient::new(&self.origin, origin_timeout, self.max_body)
            .map_err(|e| e.to_string())?;
        Ok(Services {
            cache,
            origin,
            // Two Redis operations, one fetch, and slack for the messages between them.
            session_timeout: 2 * redis_timeout + origin_timeout + Duration::from_secs(1),
        })
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let services = match args.services() {
        Ok(services) => Arc::new(services),
        Err(error) => {
            eprintln!("http_cache: {error}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("http_cache: cannot start the tokio runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(args.listen).await {
            Ok(listener) => listener,
            Err(error) => {
                eprintln!("http_cache: cannot listen on {}: {error}", args.listen);
                return ExitCode::FAILURE;
            }
        };
        println!(
            "http_cache: proxying http://{} to {} with the cache at {} (Ctrl-C stops)",
            args.listen, args.origin, args.redis
        );
        tokio::select! {
            never = server::serve(listener, services) => match never {},
            _ = tokio::signal::ctrl_c() => ExitCode::SUCCESS,
        }
    })
}
