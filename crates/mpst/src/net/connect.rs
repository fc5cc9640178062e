//! Setting up a role's connections: bind, dial the peers whose names sort after ours
//! (retrying until the deadline), accept the others, handshake with each, and hand out
//! one [`TcpRoute`] per peer.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::time::{sleep_until, timeout_at, Instant};

use crate::wiring::{Build, Wire};
use crate::{Role, Route};

use super::config::Config;
use super::error::{NetError, NetErrorKind};
use super::handshake;
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

    /// Connects to every peer before the connection deadline: dials those whose names
    /// sort after this role's (retrying while they are not up yet) and accepts the
    /// others, handshaking with each. Fails with the first error: a peer not connected in
    /// time ([`NetErrorKind::ConnectTimeout`]), a refused handshake
    /// ([`NetErrorKind::Handshake`]) or an I/O error, each naming the peer.
    pub async fn connect(self) -> Result<Connections, NetError> {
        let Endpoint { config, listener } = self;
        let deadline = Instant::now() + config.connect_timeout;
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

fn config_error(config: &Config, message: String) -> NetError {
    NetError::new(&config.role, NetErrorKind::Config(message))
}

fn timed_out(peer: &str, address: SocketAddr, last: Option<std::io::Error>) -> NetError {
    NetError::new(peer, NetErrorKind::ConnectTimeout { address, last })
}

/// Dials `peer` at `address` until it answers or the deadline passes, then handshakes.
async fn dial(
    config: &Config,
    peer: &str,
    address: SocketAddr,
    deadline: Instant,
) -> Result<(String, Connection), NetError> {
    let mut last = None;
    let mut pause = Duration::from_millis(5);
    loop {
        match timeout_at(deadline, TcpStream::connect(address)).await {
            Err(_elapsed) => return Err(timed_out(peer, address, last)),
            Ok(Err(error)) => last = Some(error),
            Ok(Ok(stream)) => {
                let _ = stream.set_nodelay(true);
                let connected = async {
                    let mut connection = secure_dialled(config, peer, address, stream).await?;
                    handshake::dial(config, peer, &mut connection).await?;
                    Ok((peer.to_owned(), connection))
                };
                return match timeout_at(deadline, connected).await {
                    Err(_elapsed) => Err(timed_out(peer, address, None)),
                    Ok(result) => result,
                };
            }
        }
        // Not listening yet: back off (up to 100 ms) and retry before the deadline.
        let next = Instant::now() + pause;
        if next >= deadline {
            return Err(timed_out(peer, address, last));
        }
        sleep_until(next).await;
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// Runs the TLS client handshake on a dialled stream when the configuration asks for TLS.
#[allow(clippy::unused_async)] // async only with feature `tls`
async fn secure_dialled(
    config: &Config,
    peer: &str,
    address: SocketAddr,
    stream: TcpStream,
) -> Result<Connection, NetError> {
    #[cfg(feature = "tls")]
    if let Some(tls) = &config.tls {
        return tls.connect(peer, address, stream).await;
    }
    let _ = (config, peer, address);
    Ok(Connection::Plain(stream))
}

/// Runs the TLS server handshake on an accepted stream when the configuration asks for
/// TLS.
#[allow(clippy::unused_async)] // async only with feature `tls`
async fn secure_accepted(
    config: &Config,
    address: SocketAddr,
    stream: TcpStream,
) -> Result<Connection, NetError> {
    #[cfg(feature = "tls")]
    if let Some(tls) = &config.tls {
        return tls.accept(address, stream).await;
    }
    let _ = (config, address);
    Ok(Connection::Plain(stream))
}

/// Accepts every peer of `awaited` before the deadline.
async fn accept_all(
    config: &Config,
    listener: Option<&TcpListener>,
    mut awaited: Vec<&str>,
    deadline: Instant,
) -> Result<Vec<(String, Connection)>, NetError> {
    let mut accepted = Vec::new();
    let Some(&first) = awaited.first() else {
        return Ok(accepted);
    };
    let Some(listener) = listener else {
        return Err(config_error(
            config,
            format!("{first} dials {} but it has no listen address", config.role),
        ));
    };
    let local = listener
        .local_addr()
        .map_err(|e| NetError::new(&config.role, NetErrorKind::Io(e)))?;
    while let Some(&missing) = awaited.first() {
        let (stream, address) = match timeout_at(deadline, listener.accept()).await {
            Err(_elapsed) => return Err(timed_out(missing, local, None)),
            Ok(Err(error)) => return Err(NetError::new(missing, NetErrorKind::Io(error))),
            Ok(Ok(connection)) => connection,
        };
        let _ = stream.set_nodelay(true);
        let handshake = async {
            let mut connection = secure_accepted(config, address, stream).await?;
            let peer = handshake::accept(config, &awaited, address, &mut connection).await?;
            Ok::<_, NetError>((peer, connection))
        };
        let (peer, connection) = match timeout_at(deadline, handshake).await {
            Err(_elapsed) => return Err(timed_out(&format!("[{address}]"), local, None)),
            Ok(result) => result?,
        };
        awaited.retain(|p| *p != peer);
        accepted.push((peer, connection));
    }
    Ok(accepted)
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
