//! The proxy's HTTP front: a hyper server that runs one session of `http_cache.scr` per
//! GET request and turns the client role's answer into the HTTP response.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{ALLOW, HeaderName, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use crate::origin::OriginClient;
use crate::protocol::{Answer, CacheReport, OriginReport, Outcome, run_session};
use crate::store::RedisCache;

/// The response header that says where the body came from: `HIT` (Redis), `MISS` (the
/// origin, now stored in Redis) or `BYPASS` (the origin, Redis unavailable).
pub const X_CACHE: HeaderName = HeaderName::from_static("x-cache");

/// What every session of the proxy uses: the Redis cache, the origin's client and a
/// deadline for a whole session.
pub struct Services {
    /// The cache role's Redis server.
    pub cache: RedisCache,
    /// The origin role's HTTP client.
    pub origin: OriginClient,
    /// How long one session (one request) may take before the proxy answers 504.
    pub session_timeout: Duration,
}

/// Serves HTTP/1 on `listener` forever, one task per connection and one session per
/// request. A failed accept is logged and the server goes on after a pause.
pub async fn serve(listener: TcpListener, services: Arc<Services>) -> Infallible {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Usually out of file descriptors: give connections time to close rather
                // than spin on the same error.
                eprintln!("http_cache: accept failed: {error}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let services = Arc::clone(&services);
        tokio::spawn(async move {
            let service = service_fn(move |request| handle(request, Arc::clone(&services)));
            if let Err(error) = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                eprintln!("http_cache: connection failed: {error}");
            }
        });
    }
}

/// Answers one request: GET runs a session, anything else is 405.
async fn handle(
    request: Request<Incoming>,
    services: Arc<Services>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    if request.method() != Method::GET {
        let mut response = text(StatusCode::METHOD_NOT_ALLOWED, "only GET is proxied\n");
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET"));
        return Ok(response);
    }
    let path = request
        .uri()
        .path_and_query()
        .map_or("/", |path| path.as_str())
        .to_owned();
    let session = run_session(path.clone(), &services.cache, &services.origin);
    Ok(
        match tokio::time::timeout(services.session_timeout, session).await {
            Ok(Ok(outcome)) => {
                log(&path, &outcome);
                response(outcome.answer)
            }
            Ok(Err(error)) => {
                eprintln!("http_cache: GET {path}: session failed: {error}");
                text(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    &format!("session failed: {error}\n"),
                )
            }
            Err(_) => {
                eprintln!(
                    "http_cache: GET {path}: session timed out after {:?}",
                    services.session_timeout
                );
                text(StatusCode::GATEWAY_TIMEOUT, "the session timed out\n")
            }
        },
    )
}

/// Logs the errors the cache and the origin met in one session (the answer itself says
/// nothing of a store that failed, and only `BYPASS` of an unavailable cache).
fn log(path: &str, outcome: &Outcome) {
    match &outcome.cache {
        CacheReport::Unavailable(error) => {
            eprintln!("http_cache: GET {path}: cache bypassed: {error}")
        }
        CacheReport::StoreFailed(error) => {
            eprintln!("http_cache: GET {path}: not cached: {error}")
        }
        CacheReport::Hit | CacheReport::Stored | CacheReport::Discarded => {}
    }
    if let OriginReport::Failed(error) = &outcome.origin {
        eprintln!("http_cache: GET {path}: {error}");
    }
}

/// The HTTP response for the client role's answer.
pub fn response(answer: Answer) -> Response<Full<Bytes>> {
    let (body, cache) = match answer {
        Answer::Cached(body) => (body, "HIT"),
        Answer::Fresh(body) => (body, "MISS"),
        Answer::Bypassed(body, _) => (body, "BYPASS"),
        Answer::Failure(status, why) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
            return text(status, &format!("{why}\n"));
        }
    };
    let mut response = Response::new(Full::new(body));
    response
        .headers_mut()
        .insert(X_CACHE, HeaderValue::from_static(cache));
    response
}

/// A plain-text response.
fn text(status: StatusCode, body: &str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_owned())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
