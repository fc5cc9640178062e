//! [`Node`]: one role's place in a deployment — its configuration with the security mode
//! resolved and its [`Application`] hook — from which it dials peers and accepts them.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::time::Instant;

use crate::accept::{Acceptor, Expected};
use crate::config::{Security, WireConfig};
use crate::error::{Peer, WireError, WireErrorKind};
use crate::stream::Connection;

/// What the application adds to the handshake: a field this side sends to each peer
/// (session-type fingerprints; a program name and lane count) and a check of the field
/// a peer sent. A failed check refuses the connection with the reason given, which the
/// peer reads.
pub trait Application: Send + Sync + 'static {
    /// The field this side sends to `peer` (in its hello when dialling, in its accept
    /// when accepting). Empty by default.
    fn field(&self, peer: &str) -> Vec<u8> {
        let _ = peer;
        Vec::new()
    }

    /// Checks the field `peer` sent; `Err(reason)` refuses the connection. Accepts
    /// anything by default.
    fn check(&self, peer: &str, field: &[u8]) -> Result<(), String> {
        let _ = (peer, field);
        Ok(())
    }
}

/// No application field: sends nothing, accepts anything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoApplication;

impl Application for NoApplication {}

/// One role's place in a deployment: its configuration, its resolved security mode and
/// its application hook. Cheap to clone; dial and accept from it.
#[derive(Clone)]
pub struct Node {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) config: WireConfig,
    pub(crate) security: Security,
    pub(crate) application: Arc<dyn Application>,
}

impl fmt::Debug for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Node")
            .field("config", &self.inner.config)
            .field("security", &self.inner.security)
            .finish_non_exhaustive()
    }
}

/// The instant `timeout` from now, or `None` (no deadline) when that does not fit, e.g.
/// for `Duration::MAX`.
pub fn deadline_after(timeout: Duration) -> Option<Instant> {
    Instant::now().checked_add(timeout)
}

/// The library's rule for who dials whom when one connection per pair is wanted: the
/// role whose name sorts first (byte-wise) dials.
pub fn dials(role: &str, peer: &str) -> bool {
    role < peer
}

impl Node {
    /// A node from `config`: validates it and resolves its security mode (loading
    /// identity files; under mutual TLS the certificate must name this role of this
    /// protocol). No application field.
    pub fn new(config: WireConfig) -> Result<Self, WireError> {
        config.validate()?;
        let security = config.resolve_security()?;
        if let Security::MutualTls(identity) = &security {
            if !identity.names(config.role(), config.protocol()) {
                return Err(WireError::identity(
                    config.role(),
                    format!(
                        "the certificate does not name role {} of protocol {:?} (its names: {:?}); \
                         issue one with `mpst certs`",
                        config.role(),
                        config.protocol(),
                        identity.dns_names()
                    ),
                ));
            }
        }
        Ok(Self {
            inner: Arc::new(Inner {
                config,
                security,
                application: Arc::new(NoApplication),
            }),
        })
    }

    /// The same node with `application`'s field and check in every handshake.
    pub fn with_application(self, application: impl Application) -> Self {
        let inner = Inner {
            config: self.inner.config.clone(),
            security: self.inner.security.clone(),
            application: Arc::new(application),
        };
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &WireConfig {
        &self.inner.config
    }

    /// This role's name.
    pub fn role(&self) -> &str {
        self.inner.config.role()
    }

    /// The security mode.
    pub fn security(&self) -> &Security {
        &self.inner.security
    }

    /// Whether this node dials `peer` under the one-connection-per-pair rule ([`dials`]).
    pub fn dials(&self, peer: &str) -> bool {
        dials(self.role(), peer)
    }

    /// Dials `peer` at its configured address until the connection deadline
    /// (`connect_timeout` from now); see [`Node::dial_at`].
    pub async fn dial(&self, peer: &str) -> Result<Connection, WireError> {
        let Some(address) = self.config().peer_address(peer) else {
            return Err(WireError::config(
                self.role(),
                format!("no address for peer {peer}"),
            ));
        };
        let deadline = deadline_after(self.config().get_connect_timeout());
        self.dial_at(peer, address, deadline).await
    }

    /// Dials `peer` at `address` (`host:port`, resolved again on every attempt), with
    /// exponential back-off until `deadline` (`None`: forever), then runs TLS (if
    /// configured) and the handshake, each attempt's handshake within the handshake
    /// time-out. Retries while the peer is not up, closes before answering or is too
    /// busy; a refusal is final. The error keeps the last attempts' errors.
    pub async fn dial_at(
        &self,
        peer: &str,
        address: &str,
        deadline: Option<Instant>,
    ) -> Result<Connection, WireError> {
        crate::dial::dial(self, peer, address, deadline).await
    }

    /// Binds the configured listen address and starts accepting `expected` (see
    /// [`Acceptor`]).
    pub async fn bind(&self, expected: Expected) -> Result<Acceptor, WireError> {
        let Some(address) = self.config().listen_address() else {
            return Err(WireError::config(self.role(), "no listen address"));
        };
        let listener = TcpListener::bind(address).await.map_err(|e| {
            WireError::new(
                Peer::Local(self.role().to_owned()),
                WireErrorKind::Config(format!("cannot listen on {address}: {e}")),
            )
        })?;
        Acceptor::start(self, listener, expected)
    }

    /// Starts accepting `expected` on a listener bound already.
    pub fn accept_on(
        &self,
        listener: TcpListener,
        expected: Expected,
    ) -> Result<Acceptor, WireError> {
        Acceptor::start(self, listener, expected)
    }

    /// What this node accepts under the one-connection-per-pair rule: one connection
    /// from every peer that dials it ([`dials`]), no more.
    pub fn pairwise_expected(&self) -> Expected {
        self.config()
            .peers()
            .filter(|peer| !self.dials(peer))
            .fold(Expected::new().exclusive(), |e, peer| e.peer(peer, 1))
    }

    /// One connection per peer, the library deciding who dials ([`dials`]): dials the
    /// peers it should (concurrently) and takes the others from `acceptor` (made with
    /// [`Node::pairwise_expected`]), all before `connect_timeout` from now. Fails with the
    /// first failure, naming the peer.
    pub async fn connect_pairwise(
        &self,
        acceptor: Option<&mut Acceptor>,
    ) -> Result<BTreeMap<String, Connection>, WireError> {
        let deadline = deadline_after(self.config().get_connect_timeout());
        let dialled = self
            .config()
            .peers()
            .filter(|peer| self.dials(peer))
            .map(|peer| async move {
                let Some(address) = self.config().peer_address(peer) else {
                    return Err(WireError::config(
                        self.role(),
                        format!("no address for peer {peer}, which it dials"),
                    ));
                };
                self.dial_at(peer, address, deadline).await
            })
            .collect::<Vec<_>>();
        let awaited = self.pairwise_expected();
        let accepted = async {
            match acceptor {
                Some(acceptor) => acceptor.wait_for(&awaited, deadline).await,
                None => match awaited.roles().next() {
                    None => Ok(Vec::new()),
                    Some(first) => Err(WireError::config(
                        self.role(),
                        format!(
                            "{first} dials {} but it does not accept connections",
                            self.role()
                        ),
                    )),
                },
            }
        };
        let (dialled, accepted) = tokio::join!(futures::future::try_join_all(dialled), accepted);
        let mut connections = BTreeMap::new();
        for connection in dialled?.into_iter().chain(accepted?) {
            connections.insert(connection.peer_role().to_owned(), connection);
        }
        Ok(connections)
    }
}
