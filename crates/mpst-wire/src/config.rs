//! [`WireConfig`]: one configuration for both runtimes — who this role is, where it
//! listens, where its peers are, how it proves who it is, and how long it waits — built
//! in code or read from TOML with the same field names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::codec::DEFAULT_MAX_FRAME_LENGTH;
use crate::error::WireError;
use crate::identity::Identity;

/// How connections are secured.
#[derive(Debug, Clone)]
pub enum Security {
    /// Mutual TLS: both sides present a certificate issued by the deployment CA that
    /// names their role (and protocol); each checks the other's against the role it
    /// claims in its hello.
    MutualTls(Identity),
    /// No authentication and no encryption: anyone who can reach the port can claim any
    /// role, read and forge traffic. Only for development, and only when asked for by
    /// this name.
    InsecurePlaintext,
}

/// Where a configuration's security comes from (files are loaded by [`WireConfig::resolve_security`]).
#[derive(Debug, Clone)]
enum SecuritySource {
    /// Neither identity files nor the plaintext opt-in: refused when resolved.
    Unset,
    /// PEM files: the CA, this role's certificate and its key.
    Files {
        ca: PathBuf,
        cert: PathBuf,
        key: PathBuf,
    },
    /// Given in code.
    Given(Security),
}

/// The default time allowed to connect to every peer: 10 s.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The default time allowed for one connection's handshake (TLS and hello): 5 s.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);
/// The default longest wait for a message on a connection: 30 s.
pub const DEFAULT_RECEIVE_TIMEOUT: Duration = Duration::from_secs(30);
/// The default longest pause inside a frame (a partial frame is held no longer): 10 s.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(10);
/// The default cap on connections being set up at once: 64.
pub const DEFAULT_MAX_PENDING_HANDSHAKES: usize = 64;

/// How one role connects to its peers; the same for both runtimes.
///
/// Built in code:
///
/// ```
/// use std::time::Duration;
/// use mpst_wire::WireConfig;
///
/// let config = WireConfig::new("ping/1", "A")
///     .listen("127.0.0.1:0")
///     .peer("B", "localhost:7001")
///     .insecure_plaintext() // or .identity_files(ca, cert, key) / .mutual_tls(identity)
///     .connect_timeout(Duration::from_secs(5));
/// assert_eq!(config.role(), "A");
/// ```
///
/// or read from TOML (durations as `"250ms"`, `"10s"`, `"2m"`, `"1h"`; a receive time-out
/// of `"none"` waits forever):
///
/// ```toml
/// role = "A"
/// protocol = "ping/1"
/// listen = "0.0.0.0:7000"
/// connect_timeout = "10s"         # all optional below
/// handshake_timeout = "5s"
/// receive_timeout = "30s"
/// idle_timeout = "10s"
/// max_pending_handshakes = 64
/// max_frame_length = 16777216
///
/// [peers]                         # name -> "host:port"
/// B = "b.example.org:7001"
///
/// [security]                      # identity files (relative to the TOML file) ...
/// ca = "certs/ca.pem"
/// cert = "certs/A.pem"
/// key = "certs/A.key"
/// # insecure_plaintext = true     # ... or this explicit opt-out
/// ```
#[derive(Debug, Clone)]
pub struct WireConfig {
    role: String,
    protocol: String,
    listen: Option<String>,
    peers: BTreeMap<String, Option<String>>,
    security: SecuritySource,
    connect_timeout: Duration,
    handshake_timeout: Duration,
    receive_timeout: Option<Duration>,
    idle_timeout: Duration,
    max_pending_handshakes: usize,
    max_frame_length: usize,
}

impl WireConfig {
    /// The configuration of `role` in `protocol` (a name with its version, e.g.
    /// `"ping/1"`), with no listen address, no peers and no security mode yet (one must
    /// be chosen), and the default time-outs and limits.
    pub fn new(protocol: impl Into<String>, role: impl Into<String>) -> Self {
        Self {
            role: role.into(),
            protocol: protocol.into(),
            listen: None,
            peers: BTreeMap::new(),
            security: SecuritySource::Unset,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            receive_timeout: Some(DEFAULT_RECEIVE_TIMEOUT),
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_pending_handshakes: DEFAULT_MAX_PENDING_HANDSHAKES,
            max_frame_length: DEFAULT_MAX_FRAME_LENGTH,
        }
    }

    /// Reads one role's configuration (the file names it with `role = ".."`); relative
    /// identity paths are relative to the working directory.
    pub fn from_toml(text: &str) -> Result<Self, WireError> {
        Self::parse(text, None, None, None)
    }

    /// Reads the configuration of `role` from TOML: either a file shared by every role
    /// (a `[roles]` table of listen addresses; `{role}` in the identity paths is replaced
    /// by the role's name) or one role's file, which must be `role`'s.
    pub fn from_toml_for(text: &str, role: &str) -> Result<Self, WireError> {
        Self::parse(text, Some(role), None, None)
    }

    /// Reads a TOML file (one role's, or shared with `role` given); relative identity
    /// paths are relative to the file's directory. Errors name the file, and the line and
    /// column where the file is wrong (`FILE:LINE:COL: ...`).
    pub fn from_file(path: &Path, role: Option<&str>) -> Result<Self, WireError> {
        Self::read_file(path, role, None)
    }

    /// [`WireConfig::from_file`], with `protocol` used when the file names none.
    pub(crate) fn read_file(
        path: &Path,
        role: Option<&str>,
        protocol: Option<&str>,
    ) -> Result<Self, WireError> {
        let who = role.unwrap_or("?");
        let text = std::fs::read_to_string(path)
            .map_err(|e| WireError::config(who, format!("cannot read {}: {e}", path.display())))?;
        Self::parse(&text, role, Some(path), protocol)
    }

    /// Checks what can be checked without I/O: a role name certificates can carry, no
    /// zero limits, the role not its own peer.
    pub fn validate(&self) -> Result<(), WireError> {
        let error = |message: String| Err(WireError::config(&self.role, message));
        if let Err(e) = crate::names::check_role_name(&self.role) {
            return error(e);
        }
        for peer in self.peers.keys() {
            if let Err(e) = crate::names::check_role_name(peer) {
                return error(format!("peer: {e}"));
            }
            if *peer == self.role {
                return error(format!("role {peer} lists itself as a peer"));
            }
        }
        if self.max_pending_handshakes == 0 {
            return error("max_pending_handshakes must be at least 1".into());
        }
        if self.handshake_timeout.is_zero() {
            return error("handshake_timeout must not be zero".into());
        }
        Ok(())
    }

    /// The same configuration for `protocol` (the environment may override the file's).
    pub(crate) fn with_protocol(mut self, protocol: impl Into<String>) -> Self {
        self.protocol = protocol.into();
        self
    }

    /// Listens on `address` (`host:port`; port 0 picks a free port).
    pub fn listen(mut self, address: impl Into<String>) -> Self {
        self.listen = Some(address.into());
        self
    }

    /// Adds the peer `role` at `address` (`host:port`, a name or an address; resolved
    /// again on every connection attempt).
    pub fn peer(mut self, role: impl Into<String>, address: impl Into<String>) -> Self {
        self.peers.insert(role.into(), Some(address.into()));
        self
    }

    /// Adds the peer `role` without an address (it dials this role, which never dials it).
    pub fn peer_without_address(mut self, role: impl Into<String>) -> Self {
        self.peers.insert(role.into(), None);
        self
    }

    /// Mutual TLS with `identity`.
    pub fn mutual_tls(mut self, identity: Identity) -> Self {
        self.security = SecuritySource::Given(Security::MutualTls(identity));
        self
    }

    /// Mutual TLS with the identity in these PEM files (loaded by
    /// [`WireConfig::resolve_security`], i.e. when a [`Node`](crate::Node) is made).
    pub fn identity_files(
        mut self,
        ca: impl Into<PathBuf>,
        cert: impl Into<PathBuf>,
        key: impl Into<PathBuf>,
    ) -> Self {
        self.security = SecuritySource::Files {
            ca: ca.into(),
            cert: cert.into(),
            key: key.into(),
        };
        self
    }

    /// No authentication, no encryption: see [`Security::InsecurePlaintext`].
    pub fn insecure_plaintext(mut self) -> Self {
        self.security = SecuritySource::Given(Security::InsecurePlaintext);
        self
    }

    /// Sets the security mode.
    pub fn security(mut self, security: Security) -> Self {
        self.security = SecuritySource::Given(security);
        self
    }

    /// The time allowed to connect to every peer (`Duration::MAX`: no deadline).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The time allowed for one connection's handshake (TLS and hello).
    pub fn handshake_timeout(mut self, timeout: Duration) -> Self {
        self.handshake_timeout = timeout;
        self
    }

    /// The longest wait for a message (`None`: forever).
    pub fn receive_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.receive_timeout = timeout;
        self
    }

    /// The longest pause inside a frame before the connection is dropped.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// The cap on connections being set up at once (beyond, the oldest is closed), and on
    /// accepted connections waiting to be taken.
    pub fn max_pending_handshakes(mut self, count: usize) -> Self {
        self.max_pending_handshakes = count;
        self
    }

    /// The limit on a frame's body in bytes, sending or receiving.
    pub fn max_frame_length(mut self, bytes: usize) -> Self {
        self.max_frame_length = bytes;
        self
    }

    /// This role's name.
    pub fn role(&self) -> &str {
        &self.role
    }

    /// The protocol name.
    pub fn protocol(&self) -> &str {
        &self.protocol
    }

    /// The listen address, if any.
    pub fn listen_address(&self) -> Option<&str> {
        self.listen.as_deref()
    }

    /// The peers' names.
    pub fn peers(&self) -> impl Iterator<Item = &str> {
        self.peers.keys().map(String::as_str)
    }

    /// The address of `peer`, if known.
    pub fn peer_address(&self, peer: &str) -> Option<&str> {
        self.peers.get(peer).and_then(|a| a.as_deref())
    }

    /// Whether `peer` is a peer of this role.
    pub fn has_peer(&self, peer: &str) -> bool {
        self.peers.contains_key(peer)
    }

    /// The time allowed to connect to every peer.
    pub fn get_connect_timeout(&self) -> Duration {
        self.connect_timeout
    }

    /// The time allowed for one connection's handshake.
    pub fn get_handshake_timeout(&self) -> Duration {
        self.handshake_timeout
    }

    /// The longest wait for a message (`None`: forever).
    pub fn get_receive_timeout(&self) -> Option<Duration> {
        self.receive_timeout
    }

    /// The longest pause inside a frame.
    pub fn get_idle_timeout(&self) -> Duration {
        self.idle_timeout
    }

    /// The cap on connections being set up at once.
    pub fn get_max_pending_handshakes(&self) -> usize {
        self.max_pending_handshakes
    }

    /// The limit on a frame's body in bytes.
    pub fn get_max_frame_length(&self) -> usize {
        self.max_frame_length
    }

    /// The security mode, loading identity files if that is how it was given. Fails when
    /// none was chosen: insecure operation is never a default.
    pub fn resolve_security(&self) -> Result<Security, WireError> {
        match &self.security {
            SecuritySource::Unset => Err(WireError::config(
                &self.role,
                "no security mode: give identity files ([security] ca, cert, key; `mpst certs` \
                 writes them) or opt out with insecure_plaintext = true",
            )),
            SecuritySource::Files { ca, cert, key } => Identity::load(ca, cert, key)
                .map(Security::MutualTls)
                .map_err(|e| WireError::identity(&self.role, e)),
            SecuritySource::Given(security) => Ok(security.clone()),
        }
    }
}

mod file;

#[cfg(test)]
mod tests;
