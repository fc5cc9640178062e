//! Setting up a role's connections on `mpst_wire`: bind, then dial some peers and accept
//! the others (the library deciding which, [`NetConfig::dials`]) before one deadline, each
//! connection proving its role and checking session-type fingerprints in the hello, and
//! hand out one [`TcpRoute`] per peer.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::time::Duration;

use futures::stream::{FuturesUnordered, StreamExt};
use mpst_wire::{Application, Expected, Node, Stream};
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;

use crate::wiring::{Build, Wire};
use crate::{Role, Route};

use super::config::{Fingerprint, NetConfig, config_error};
use super::error::{NetError, NetErrorKind};
use super::frame::{check_version, version_suffix};
use super::link::Delivered;
use super::route::TcpRoute;

/// A role's bound listener (if it accepts any peer) and its configuration, before
/// connecting. Binding first lets a launcher learn the real port of `127.0.0.1:0`.
#[derive(Debug)]
pub struct BoundRole {
    config: NetConfig,
    listener: Option<TcpListener>,
}

/// Every connection of one role, after the handshakes: take one route per peer with
/// [`Connections::route`].
#[derive(Debug)]
pub struct Connections {
    config: NetConfig,
    streams: BTreeMap<String, Stream>,
    /// The first route a role asked for that was not there (see [`Connections::into_role`]).
    missing: Option<NetError>,
    /// Every route handed out, for [`Connections::delivered`].
    delivered: Delivered,
}

impl NetConfig {
    /// Binds the listen address (when set), ready to [`BoundRole::connect`].
    pub async fn bind(self) -> Result<BoundRole, NetError> {
        let listener = match self.wire.listen_address() {
            Some(address) => Some(
                TcpListener::bind(address)
                    .await
                    .map_err(|e| NetError::new(self.role(), NetErrorKind::Io(e)))?,
            ),
            None => None,
        };
        Ok(BoundRole {
            config: self,
            listener,
        })
    }

    /// Binds, then connects to every peer (see [`BoundRole::connect`]).
    pub async fn connect(self) -> Result<Connections, NetError> {
        self.bind().await?.connect().await
    }
}

/// The session runtime's part of the hello: this role's fingerprint and the one it
/// expects of the peer, each checked by the other side.
#[derive(Debug, Serialize, Deserialize)]
struct Fingerprints {
    mine: Option<Fingerprint>,
    expect: Option<Fingerprint>,
}

/// Checks fingerprints in the hello (see [`NetConfig::fingerprint`], [`NetConfig::expect`]).
struct SessionTypes {
    role: String,
    fingerprint: Option<Fingerprint>,
    expect: BTreeMap<String, Fingerprint>,
}

impl Application for SessionTypes {
    fn field(&self, peer: &str) -> Vec<u8> {
        let field = Fingerprints {
            mine: self.fingerprint,
            expect: self.expect.get(peer).copied(),
        };
        // The link version after the fingerprints: a peer of version 1 reads the
        // fingerprints and ignores it, and is refused by this side, naming both versions.
        let mut field = postcard::to_stdvec(&field).unwrap_or_default();
        field.extend_from_slice(&version_suffix());
        field
    }

    fn check(&self, peer: &str, field: &[u8]) -> Result<(), String> {
        postcard::take_from_bytes::<Fingerprints>(field)
            .map_err(|e| format!("malformed session-type fingerprints: {e}"))
            .and_then(|(theirs, rest)| {
                check_version(rest)?;
                mismatch(peer, self.expect.get(peer), theirs.mine.as_ref())?;
                mismatch(
                    &self.role,
                    theirs.expect.as_ref(),
                    self.fingerprint.as_ref(),
                )
            })
    }
}

/// A fingerprint against an expectation (none on either side: nothing to check).
fn mismatch(
    role: &str,
    expected: Option<&Fingerprint>,
    received: Option<&Fingerprint>,
) -> Result<(), String> {
    match expected {
        Some(expected) if Some(expected) != received => Err(format!(
            "role {role} runs another session type (fingerprint {}, expected {expected})",
            received.map_or_else(|| "none".to_owned(), ToString::to_string),
        )),
        _ => Ok(()),
    }
}

impl BoundRole {
    /// The address actually bound (with the real port when the configuration said 0).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.listener.as_ref().and_then(|l| l.local_addr().ok())
    }

    /// The configuration, e.g. to add peers whose addresses became known after binding.
    pub fn config_mut(&mut self) -> &mut NetConfig {
        &mut self.config
    }

    /// Connects to every peer before the connection deadline: dials those
    /// [`NetConfig::dials`] says (retrying while they are not up yet, or when a connection
    /// breaks before it is answered) and accepts the others. Every connection proves its
    /// role (mutual TLS, unless [`NetConfig::insecure_plaintext`]) and passes the hello's
    /// checks: protocol, roles, a fresh nonce, session-type fingerprints.
    ///
    /// Accepted connections are set up side by side, each within the handshake time-out
    /// and at most [`NetConfig::max_pending_handshakes`] at once: one that is garbage, idle,
    /// plaintext on a TLS port, claims a role it has no certificate for, or is refused
    /// is closed (its refusal written first) and logged with its address, and accepting
    /// goes on (at the cap, the oldest pending handshake is closed to make room; a
    /// dialler whose connection is closed retries). So a stranger changes nothing for the
    /// real peers.
    ///
    /// Fails with the first decisive error, naming the peer: a dialled peer's refusal or
    /// certificate error, an accepted peer that proved its role (mutual TLS) but runs
    /// another session type than [`NetConfig::expect`] says (refused, and waiting longer
    /// cannot help), or a peer not connected in time
    /// ([`WireErrorKind::NotConnected`](mpst_wire::WireErrorKind::NotConnected), with the
    /// last failures seen).
    pub async fn connect(self) -> Result<Connections, NetError> {
        let BoundRole { config, listener } = self;
        // A peer that proved its role (mutual TLS) and runs another session type ends the
        // acceptor's wait at once (`Acceptor::wait_for`): waiting cannot help.
        let node = Node::new(config.wire.clone())?.with_application(SessionTypes {
            role: config.role().to_owned(),
            fingerprint: config.fingerprint,
            expect: config.expect.clone(),
        });
        let deadline = mpst_wire::deadline_after(config.wire.get_connect_timeout());
        let mut dialled = Vec::new();
        let mut awaited = Expected::new().exclusive();
        let mut accepts = None;
        for peer in config.peers() {
            match config.wire.peer_address(peer) {
                Some(address) if config.dials(peer) => {
                    dialled.push(node.dial_at(peer, address, deadline));
                }
                _ => {
                    awaited = awaited.peer(peer, 1);
                    accepts.get_or_insert(peer);
                }
            }
        }
        let accepted = async {
            let Some(first) = accepts else {
                return Ok(Vec::new());
            };
            let Some(listener) = listener else {
                return Err(config_error(
                    config.role(),
                    format!(
                        "{first} dials {} but it has no listen address",
                        config.role()
                    ),
                ));
            };
            let mut acceptor = node.accept_on(listener, awaited.clone())?;
            Ok(acceptor.wait_for(&awaited, deadline).await?)
        };
        let setups: FuturesUnordered<SetupFuture<'_>> = dialled
            .into_iter()
            .map(|dial| -> SetupFuture<'_> {
                Box::pin(async move { dial.await.map(|c| vec![c]).map_err(NetError::from) })
            })
            .collect();
        setups.push(Box::pin(accepted));
        let connections = settle(setups, config.wire.get_handshake_timeout()).await?;
        let streams = connections
            .into_iter()
            .map(|connection| {
                let (stream, info) = connection.into_parts();
                (info.peer_role, stream)
            })
            .collect();
        Ok(Connections {
            config,
            streams,
            missing: None,
            delivered: Delivered::default(),
        })
    }
}

/// What one dial (one connection) or the acceptor (all accepted ones) set up.
type Setup = Result<Vec<mpst_wire::Connection>, NetError>;

/// A set-up under way.
type SetupFuture<'a> = Pin<Box<dyn Future<Output = Setup> + Send + 'a>>;

/// The longest a failing role lets its other handshakes in flight finish, so that the
/// peers they reach read a verdict (a refusal, or this role's own) instead of a reset.
const GRACE: Duration = Duration::from_secs(1);

/// Runs every set-up to completion; after the first failure, lets the others run on for
/// at most [`GRACE`] (and the handshake time-out), then returns that failure.
async fn settle(
    mut setups: FuturesUnordered<SetupFuture<'_>>,
    handshake_timeout: Duration,
) -> Result<Vec<mpst_wire::Connection>, NetError> {
    let mut connections = Vec::new();
    while let Some(setup) = setups.next().await {
        match setup {
            Ok(mut some) => connections.append(&mut some),
            Err(error) => {
                let grace = GRACE.min(handshake_timeout);
                let rest = async { while setups.next().await.is_some() {} };
                let _ = tokio::time::timeout(grace, rest).await;
                return Err(error);
            }
        }
    }
    Ok(connections)
}

impl Connections {
    /// The route to `peer`, carrying the label enum `M`, with the configured frame limit,
    /// flush threshold, receive and idle time-outs. Each route can be taken once.
    pub fn route<M>(&mut self, peer: &str) -> Result<TcpRoute<M>, NetError> {
        let stream = self.streams.remove(peer).ok_or_else(|| {
            NetError::new(
                peer,
                NetErrorKind::Config(format!(
                    "{} has no connection to {peer} (not a peer, or taken already)",
                    self.config.role()
                )),
            )
        })?;
        let route = TcpRoute::over(stream, peer, self.config.wire.get_max_frame_length())
            .with_flush_threshold(self.config.flush_threshold)
            .with_receive_timeout(self.config.wire.get_receive_timeout())
            .with_idle_timeout(Some(self.config.wire.get_idle_timeout()));
        route.register(&self.delivered);
        Ok(route)
    }

    /// A handle that waits until every label sent on the routes taken from these
    /// connections (before or after this call) is acknowledged by its peer: a role
    /// program awaits [`Delivered::acknowledged`] after its session, so that it reports
    /// success only once what it sent has arrived (each wait bounded by the idle
    /// time-out from the peer's last word).
    pub fn delivered(&self) -> Delivered {
        self.delivered.clone()
    }

    /// The role these connections belong to.
    pub fn role(&self) -> &str {
        self.config.role()
    }

    /// Builds the role struct `R` (a `#[derive(Role)]` struct whose routes are
    /// [`TcpRoute`]s or [`AnyRoute`](super::AnyRoute)s) from these connections: each
    /// `#[route(P)]` field gets the connection to the peer named `P::NAME`. Fails when `R`
    /// is not the configured role or routes to a peer without a connection.
    pub fn into_role<R: Role + Build<Self>>(mut self) -> Result<R, NetError> {
        if R::NAME != self.config.role() {
            return Err(config_error(
                self.config.role(),
                format!(
                    "connected as {} but asked to build role {}",
                    self.config.role(),
                    R::NAME
                ),
            ));
        }
        let role = R::build(&mut self);
        match self.missing.take() {
            Some(error) => Err(error),
            None => Ok(role),
        }
    }
}

impl<X, Y> Wire<X, Y> for Connections
where
    X: Route<Y>,
    Y: Role,
    X::Route: From<TcpRoute<X::Message>>,
{
    fn take(&mut self) -> X::Route {
        match self.route::<X::Message>(Y::NAME) {
            Ok(route) => route.into(),
            Err(error) => {
                self.missing.get_or_insert(error);
                TcpRoute::closed(Y::NAME).into()
            }
        }
    }
}
