//! The cache role's store: a real Redis server, reached through one shared multiplexed
//! connection that is opened on first use and reopened after any failure, with every
//! command bounded in time and every failure a typed [`CacheError`].

use std::fmt;
use std::time::Duration;

use bytes::Bytes;
use redis::aio::MultiplexedConnection;
use redis::{Client, RedisError};
use tokio::sync::Mutex;

/// The prefix of every key the proxy writes: `http_cache:<path>`.
pub const KEY_PREFIX: &str = "http_cache:";

/// The Redis key under which the body for `path` is cached.
pub fn key(path: &str) -> String {
    format!("{KEY_PREFIX}{path}")
}

/// Why the cache could not be used.
#[derive(Debug)]
pub enum CacheError {
    /// The Redis URL is not one (e.g. not `redis://host:port`).
    BadUrl {
        /// The URL as given.
        url: String,
        /// What the Redis client said about it.
        source: RedisError,
    },
    /// No connection to Redis could be opened.
    Connect {
        /// The server's address.
        server: String,
        /// The connection error.
        source: RedisError,
    },
    /// A command failed (the connection broke, or Redis answered with an error).
    Command {
        /// `GET` or `SET`.
        command: &'static str,
        /// The key it was about.
        key: String,
        /// The error.
        source: RedisError,
    },
    /// Connecting or a command took longer than the store's timeout.
    Timeout {
        /// What timed out (`connect`, `GET`, `SET`).
        operation: &'static str,
        /// The server's address.
        server: String,
        /// The timeout.
        after: Duration,
    },
}

impl fmt::Display for CacheError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CacheError::BadUrl { url, source } => write!(f, "bad Redis URL {url:?}: {source}"),
            CacheError::Connect { server, source } => {
                write!(f, "cannot connect to Redis at {server}: {source}")
            }
            CacheError::Command {
                command,
                key,
                source,
            } => write!(f, "Redis {command} {key:?} failed: {source}"),
            CacheError::Timeout {
                operation,
                server,
                after,
            } => write!(f, "Redis {operation} at {server} timed out after {after:?}"),
        }
    }
}

impl std::error::Error for CacheError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CacheError::BadUrl { source, .. }
            | CacheError::Connect { source, .. }
            | CacheError::Command { source, .. } => Some(source),
            CacheError::Timeout { .. } => None,
        }
    }
}

/// A Redis server used as the proxy's cache: bodies stored under [`key`] with a TTL.
pub struct RedisCache {
    client: Client,
    server: String,
    connection: Mutex<Option<MultiplexedConnection>>,
    ttl: Duration,
    timeout: Duration,
}

impl RedisCache {
    /// A cache at `url` (`redis://host:port`) that keeps bodies for `ttl` (at least one
    /// second) and gives up on any Redis operation after `timeout`. Does not connect yet:
    /// a proxy can start while Redis is down and use it once it is up.
    pub fn new(url: &str, ttl: Duration, timeout: Duration) -> Result<Self, CacheError> {
        let client = Client::open(url).map_err(|source| CacheError::BadUrl {
            url: url.to_owned(),
            source,
        })?;
        let server = client.get_connection_info().addr.to_string();
        Ok(Self {
            client,
            server,
            connection: Mutex::new(None),
            ttl: ttl.max(Duration::from_secs(1)),
            timeout,
        })
    }

    /// The body cached for `path`, if any.
    pub async fn get(&self, path: &str) -> Result<Option<Bytes>, CacheError> {
        let key = key(path);
        let mut command = redis::cmd("GET");
        command.arg(&key);
        let body: Option<Vec<u8>> = self.query("GET", key, &command).await?;
        Ok(body.map(Bytes::from))
    }

    /// Caches `body` for `path` for the store's TTL (`SET key body EX ttl`).
    pub async fn set(&self, path: &str, body: &[u8]) -> Result<(), CacheError> {
        let key = key(path);
        let mut command = redis::cmd("SET");
        command
            .arg(&key)
            .arg(body)
            .arg("EX")
            .arg(self.ttl.as_secs());
        self.query("SET", key, &command).await
    }

    /// Runs `command` on the shared connection (opening it first if needed); after a
    /// failure the connection is dropped, so the next command reconnects.
    async fn query<T: redis::FromRedisValue>(
        &self,
        name: &'static str,
        key: String,
        command: &redis::Cmd,
    ) -> Result<T, CacheError> {
        let mut connection = self.connection().await?;
        let result =
            match tokio::time::timeout(self.timeout, command.query_async(&mut connection)).await {
                Ok(Ok(value)) => return Ok(value),
                Ok(Err(source)) => CacheError::Command {
                    command: name,
                    key,
                    source,
                },
                Err(_) => CacheError::Timeout {
                    operation: name,
                    server: self.server.clone(),
                    after: self.timeout,
                },
            };
        *self.connection.lock().await = None;
        Err(result)
    }

    /// The shared connection, opened now if there is none.
    async fn connection(&self) -> Result<MultiplexedConnection, CacheError> {
        let mut shared = self.connection.lock().await;
        if let Some(connection) = shared.as_ref() {
            return Ok(connection.clone());
        }
        let connect = self.client.get_multiplexed_async_connection();
        let connection = match tokio::time::timeout(self.timeout, connect).await {
            Ok(Ok(connection)) => connection,
            Ok(Err(source)) => {
                return Err(CacheError::Connect {
                    server: self.server.clone(),
                    source,
                });
            }
            Err(_) => {
                return Err(CacheError::Timeout {
                    operation: "connect",
                    server: self.server.clone(),
                    after: self.timeout,
                });
            }
        };
        *shared = Some(connection.clone());
        Ok(connection)
    }
}
