//! TLS for `mpst::net` (feature `tls`): each connection runs a TLS handshake (rustls
//! through tokio-rustls) before the `mpst` handshake, so a peer without a certificate the
//! other side trusts never gets as far as naming its role.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::{TlsAcceptor, TlsConnector, TlsStream};

/// The rustls version `mpst::net` is built with, to build [`TlsConfig`]s without
/// depending on it separately.
pub use tokio_rustls::rustls;

use super::error::{NetError, NetErrorKind};
use super::io::Connection;

/// How a role secures its connections: a rustls client configuration for the peers it
/// dials and a server configuration for those it accepts.
///
/// Mutual TLS is a matter of these configurations: a server configuration with a client
/// certificate verifier refuses diallers without a trusted certificate, and a client
/// configuration with a certificate presents one.
#[derive(Clone)]
pub struct TlsConfig {
    connector: TlsConnector,
    acceptor: TlsAcceptor,
    server_name: Option<ServerName<'static>>,
}

impl fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsConfig")
            .field("server_name", &self.server_name)
            .finish_non_exhaustive()
    }
}

impl TlsConfig {
    /// Dials with `client` and accepts with `server`. The certificates of dialled peers
    /// are checked against their IP address unless [`TlsConfig::server_name`] says
    /// otherwise.
    pub fn new(client: Arc<rustls::ClientConfig>, server: Arc<rustls::ServerConfig>) -> Self {
        Self {
            connector: TlsConnector::from(client),
            acceptor: TlsAcceptor::from(server),
            server_name: None,
        }
    }

    /// Checks the certificates of dialled peers against `name` (e.g. a DNS name) instead
    /// of their IP address.
    pub fn server_name(mut self, name: ServerName<'static>) -> Self {
        self.server_name = Some(name);
        self
    }

    /// Runs the client side of the TLS handshake with `peer` at `address`.
    pub(crate) async fn connect(
        &self,
        peer: &str,
        address: SocketAddr,
        stream: TcpStream,
    ) -> Result<Connection, NetError> {
        let name = self
            .server_name
            .clone()
            .unwrap_or_else(|| ServerName::IpAddress(address.ip().into()));
        match self.connector.connect(name, stream).await {
            Ok(stream) => Ok(Connection::Tls(Box::new(TlsStream::Client(stream)))),
            Err(error) => Err(NetError::new(peer, NetErrorKind::Tls(error))),
        }
    }

    /// Runs the server side of the TLS handshake with a dialler at `address`; returns
    /// the connection and the role its certificate proves, if any. On failure the alert
    /// is sent and the connection shut down and drained (for at most a second), so that
    /// the dialler reads the alert rather than a reset.
    pub(crate) async fn accept(
        &self,
        address: SocketAddr,
        stream: TcpStream,
    ) -> Result<(Connection, Option<String>), NetError> {
        match self.acceptor.accept(stream).into_fallible().await {
            Ok(stream) => Ok((Connection::Tls(Box::new(TlsStream::Server(stream))), None)),
            Err((error, mut stream)) => {
                let linger = super::handshake::linger_close(&mut stream);
                let _ = tokio::time::timeout(std::time::Duration::from_secs(1), linger).await;
                Err(NetError::new(
                    format!("[{address}]"),
                    NetErrorKind::Tls(error),
                ))
            }
        }
    }
}
