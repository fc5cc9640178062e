//! Setting up a role's connections: bind, dial some peers (`dial.rs`) and accept the
//! others (`accept.rs`) before one deadline, and hand out one [`TcpRoute`] per peer.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::time::Instant;

use crate::wiring::{Build, Wire};
use crate::{Role, Route};

use super::accept::accept_all;
use super::config::Config;
use super::dial::dial;
use super::error::{NetError, NetErrorKind};
use super::io::Connection;
use super::route::TcpRoute;

/// A role's bound listener (if it accepts any peer) and its configuration, before
/// connecting. Binding first lets a launcher learn the real port of `127.0.0.1:0`.
#[derive(Debug)]
pub struct Endpoint {
    config: Config,
    listener: Option<TcpListener>,
}

/// Every connection of one role, after the handshakes: take one route per peer with
/// [`Connections::route`].
#[derive(Debug)]
pub struct Connections {
    config: Config,
    streams: BTreeMap<String, Connection>,
    /// The first route a role asked for that was not there (see [`Connections::into_role`]).
    missing: Option<NetError>,
}

impl Config {
    /// Binds the listen address (when set), ready to [`Endpoint::connect`].
    pub async fn bind(self) -> Result<Endpoint, NetError> {
        let listener = match self.listen {
            Some(address) => Some(
                TcpListener::bind(address)
                    .await
                    .map_err(|e| NetError::new(&self.role, NetErrorKind::Io(e)))?,
            ),
            None => None,
        };
        Ok(Endpoint {
            config: self,
            listener,
        })
    }

    /// Binds, then connects to every peer (see [`Endpoint::connect`]).
    pub async fn connect(self) -> Result<Connections, NetError> {
        self.bind().await?.connect().await
    }
}

impl Endpoint {
    /// The address actually bound (with the real port when the configuration said 0).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.listener.as_ref().and_then(|l| l.local_addr().ok())
    }

    /// The configuration, e.g. to add peers whose addresses became known after binding.
    pub fn config_mut(&mut self) -> &mut Config {
        &mut self.config
    }

    /// Connects to every peer before the connection deadline: dials those
    /// [`Config::dials`] says (retrying while they are not up yet, or when a connection
    /// breaks during its handshakes) and accepts the others, handshaking with each.
    ///
    /// Accepted connections are set up side by side, each within the handshake time-out
    /// and at most [`Config::max_pending_handshakes`] at once: one that is garbage, idle,
    /// plaintext on a TLS port, claims a role it cannot have, or proves no role is closed
    /// (its refusal written first) and logged with its address, and accepting goes on.
    ///
    /// Fails with the first decisive error: a dialled peer's refusal
    /// ([`NetErrorKind::Handshake`]), a TLS failure or other I/O error of a dialled peer
    /// that retrying cannot cure, the refusal of an accepted peer that proved its role
    /// (it is the real peer, and incompatible), or a peer not connected in time
    /// ([`NetErrorKind::ConnectTimeout`], with the last connection turned away, if any).
    pub async fn connect(self) -> Result<Connections, NetError> {
        let Endpoint { config, listener } = self;
        if !config.secured() {
            return Err(config_error(
                &config,
                "no transport security: give the configuration TLS identities (`tls`) or \
                 opt in to `insecure_plaintext`"
                    .to_owned(),
            ));
        }
        let deadline = deadline_after(config.connect_timeout);
        let mut dialled = Vec::new();
        let mut awaited = Vec::new();
        for (peer, address) in &config.peers {
            if config.dials(peer) {
                let address = address.ok_or_else(|| {
                    config_error(
                        &config,
                        format!("no address for peer {peer}, which it dials"),
                    )
                })?;
                dialled.push(dial(&config, peer, address, deadline));
            } else {
                awaited.push(peer.as_str());
            }
        }
        let accepted = accept_all(&config, listener.as_ref(), awaited, deadline);
        let (dialled, accepted) =
            futures::future::try_join(futures::future::try_join_all(dialled), accepted).await?;
        let streams = dialled.into_iter().chain(accepted).collect();
        Ok(Connections {
            config,
            streams,
            missing: None,
        })
    }
}

impl Connections {
    /// The route to `peer`, carrying the label enum `M`, with the configured frame limit,
    /// flush threshold and receive time-out. Each route can be taken once.
    pub fn route<M>(&mut self, peer: &str) -> Result<TcpRoute<M>, NetError> {
        let stream = self.streams.remove(peer).ok_or_else(|| {
            NetError::new(
                peer,
                NetErrorKind::Config(format!(
                    "{} has no connection to {peer} (not a peer, or taken already)",
                    self.config.role
                )),
            )
        })?;
        Ok(TcpRoute::over(stream, peer, self.config.max_frame_length)
            .with_flush_threshold(self.config.flush_threshold)
            .with_receive_timeout(self.config.receive_timeout))
    }

    /// The role these connections belong to.
    pub fn role(&self) -> &str {
        &self.config.role
    }

    /// Builds the role struct `R` (a `#[derive(Role)]` struct whose routes are
    /// [`TcpRoute`]s or [`AnyRoute`](super::AnyRoute)s) from these connections: each
    /// `#[route(P)]` field gets the connection to the peer named `P::NAME`. Fails when `R`
    /// is not the configured role or routes to a peer without a connection.
    pub fn into_role<R: Role + Build<Self>>(mut self) -> Result<R, NetError> {
        if R::NAME != self.config.role {
            return Err(config_error(
                &self.config,
                format!(
                    "connected as {} but asked to build role {}",
                    self.config.role,
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

pub(crate) fn config_error(config: &Config, message: String) -> NetError {
    NetError::new(&config.role, NetErrorKind::Config(message))
}

/// `timeout` from now; a time-out too large for the clock (e.g. `Duration::MAX`) is a
/// deadline decades away, never an overflow.
pub(crate) fn deadline_after(timeout: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(timeout)
        .or_else(|| now.checked_add(Duration::from_secs(30 * 365 * 24 * 3600)))
        .unwrap_or(now)
}

/// Why a session ran out of time: returned (as [`crate::Error::Other`]) by
/// [`session_timeout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the session did not finish within {0:?}")]
pub struct SessionTimeout(pub Duration);

/// Runs a session with a deadline for the whole of it. On time-out the session future is
/// dropped; drop the role too (its connections close, so its peers fail promptly instead
/// of waiting).
pub async fn session_timeout<T>(
    timeout: Duration,
    session: impl Future<Output = Result<T, crate::Error>>,
) -> Result<T, crate::Error> {
    match tokio::time::timeout(timeout, session).await {
        Ok(result) => result,
        Err(_elapsed) => Err(crate::Error::other(SessionTimeout(timeout))),
    }
}
