//! The origin role's HTTP client: one GET to the origin server per fetch, bounded in
//! time and body size; every way it can fail is a typed [`OriginError`] that also says
//! which HTTP status the proxy answers with.

use std::fmt;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper::{Request, StatusCode, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

/// Why fetching from the origin server failed.
#[derive(Debug)]
pub enum OriginError {
    /// The origin's base URL, or the URL of a fetch, is not a valid `http://` URL.
    BadUrl {
        /// The URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The origin server could not be reached, or the connection broke.
    Unreachable {
        /// The URL fetched.
        url: String,
        /// The client's error.
        source: hyper_util::client::legacy::Error,
    },
    /// The origin server did not answer in time.
    Timeout {
        /// The URL fetched.
        url: String,
        /// The timeout.
        after: Duration,
    },
    /// The origin server answered, but not with 200 OK.
    Status {
        /// The URL fetched.
        url: String,
        /// Its status.
        status: StatusCode,
    },
    /// Reading the body failed half-way.
    Body {
        /// The URL fetched.
        url: String,
        /// Why.
        reason: String,
    },
    /// The body is larger than the proxy accepts.
    TooLarge {
        /// The URL fetched.
        url: String,
        /// The limit in bytes.
        limit: usize,
    },
}

impl OriginError {
    /// The HTTP status the proxy answers with: the origin's own status when it is a client
    /// error (404 stays 404), 504 Gateway Timeout when the origin is too slow, 502 Bad
    /// Gateway otherwise.
    pub fn client_status(&self) -> u16 {
        match self {
            OriginError::Status { status, .. } if status.is_client_error() => status.as_u16(),
            OriginError::Timeout { .. } => StatusCode::GATEWAY_TIMEOUT.as_u16(),
            _ => StatusCode::BAD_GATEWAY.as_u16(),
        }
    }
}

impl fmt::Display for OriginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OriginError::BadUrl { url, reason } => write!(f, "bad origin URL {url:?}: {reason}"),
            OriginError::Unreachable { url, source } => {
                write!(f, "origin unreachable for {url}: {source}")
            }
            OriginError::Timeout { url, after } => {
                write!(f, "origin did not answer {url} within {after:?}")
            }
            OriginError::Status { url, status } => write!(f, "origin answered {url} with {status}"),
            OriginError::Body { url, reason } => {
                write!(f, "reading the origin's body for {url} failed: {reason}")
            }
            OriginError::TooLarge { url, limit } => {
                write!(
                    f,
                    "the origin's body for {url} is larger than {limit} bytes"
                )
            }
        }
    }
}

impl std::error::Error for OriginError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OriginError::Unreachable { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// An HTTP client for one origin server (`http://host:port`).
pub struct OriginClient {
    base: String,
    client: Client<HttpConnector, Empty<Bytes>>,
    timeout: Duration,
    max_body: usize,
}

impl OriginClient {
    /// A client for the origin at `base` (`http://host:port`, no path), giving up on a
    /// fetch after `timeout` and on bodies larger than `max_body` bytes.
    pub fn new(base: &str, timeout: Duration, max_body: usize) -> Result<Self, OriginError> {
        let bad = |reason: &str| OriginError::BadUrl {
            url: base.to_owned(),
            reason: reason.to_owned(),
        };
        let uri: Uri = base
            .parse()
            .map_err(|e: hyper::http::uri::InvalidUri| bad(&e.to_string()))?;
        if uri.scheme_str() != Some("http") {
            return Err(bad("the scheme must be http://"));
        }
        let Some(authority) = uri.authority() else {
            return Err(bad("no host"));
        };
        if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
            return Err(bad("the origin is a server: no path or query"));
        }
        Ok(Self {
            base: format!("http://{authority}"),
            client: Client::builder(TokioExecutor::new()).build_http(),
            timeout,
            max_body,
        })
    }

    /// GETs `path` (with its query, starting with `/`) from the origin; `Ok` only for a
    /// 200 OK answer, with its whole body.
    pub async fn fetch(&self, path: &str) -> Result<Bytes, OriginError> {
        let url = format!("{}{path}", self.base);
        let bad = |reason: String| OriginError::BadUrl {
            url: url.clone(),
            reason,
        };
        if !path.starts_with('/') {
            return Err(bad("the path must start with /".to_owned()));
        }
        let uri: Uri = url
            .parse()
            .map_err(|e: hyper::http::uri::InvalidUri| bad(e.to_string()))?;
        let request = Request::get(uri)
            .body(Empty::new())
            .map_err(|e| bad(e.to_string()))?;
        match tokio::time::timeout(self.timeout, self.fetch_request(&url, request)).await {
            Ok(result) => result,
            Err(_) => Err(OriginError::Timeout {
                url,
                after: self.timeout,
            }),
        }
    }

    async fn fetch_request(
        &self,
        url: &str,
        request: Request<Empty<Bytes>>,
    ) -> Result<Bytes, OriginError> {
        let response =
            self.client
                .request(request)
                .await
                .map_err(|source| OriginError::Unreachable {
                    url: url.to_owned(),
                    source,
                })?;
        if response.status() != StatusCode::OK {
            return Err(OriginError::Status {
                url: url.to_owned(),
                status: response.status(),
            });
        }
        let body = Limited::new(response.into_body(), self.max_body);
        match body.collect().await {
            Ok(collected) => Ok(collected.to_bytes()),
            Err(error) if error.is::<http_body_util::LengthLimitError>() => {
                Err(OriginError::TooLarge {
                    url: url.to_owned(),
                    limit: self.max_body,
                })
            }
            Err(error) => Err(OriginError::Body {
                url: url.to_owned(),
                reason: error.to_string(),
            }),
        }
    }
}
