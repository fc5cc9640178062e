//! [`Config`]: who this role is, where it listens, where its peers are, what it expects
//! of them and how long it waits — built in code or read from a small TOML file.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::codec::DEFAULT_MAX_FRAME_LENGTH;
use super::error::{NetError, NetErrorKind};
use super::route::DEFAULT_FLUSH_THRESHOLD;

/// A fingerprint of a role's session type: the SHA-256 of its serialised FSM written as
/// canonical DOT (`Fingerprint::of`, feature `serialize`), or of any bytes the
/// application chooses.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Fingerprint(pub [u8; 32]);

impl Fingerprint {
    /// The SHA-256 of `bytes`.
    pub fn of_bytes(bytes: &[u8]) -> Self {
        Self(Sha256::digest(bytes).into())
    }

    /// The fingerprint of an FSM: the SHA-256 of its canonical DOT text, so equal FSMs
    /// (up to state numbering) have equal fingerprints.
    #[cfg_attr(docsrs, doc(cfg(feature = "serialize")))]
    #[cfg(feature = "serialize")]
    pub fn of_fsm(fsm: &mpst_fsm::Fsm) -> Self {
        Self::of_bytes(mpst_fsm::write_dot(fsm).as_bytes())
    }

    /// The fingerprint of the session type `S` (its role's serialised FSM).
    #[cfg_attr(docsrs, doc(cfg(feature = "serialize")))]
    #[cfg(feature = "serialize")]
    pub fn of<'r, S>() -> Result<Self, crate::serialize::SerializeError>
    where
        S: crate::introspect::SessionType + crate::FromState<'r>,
        <S::Role as crate::Role>::Message: crate::Labelled,
    {
        Ok(Self::of_fsm(&crate::serialize::serialize::<S>()?))
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|byte| write!(f, "{byte:02x}"))
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

/// The default receive time-out: a receive that waits longer than 30 s fails, so a
/// stopped peer cannot stall its peers forever ([`Config::receive_timeout`] changes it;
/// `Duration::MAX` waits forever).
pub const DEFAULT_RECEIVE_TIMEOUT: Duration = Duration::from_secs(30);

/// The default time a connection has to complete its handshakes (TLS, then `mpst`)
/// once accepted or dialled: 5 s.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// The default number of accepted connections that may be in their handshakes at once:
/// 64. One more evicts the oldest.
pub const DEFAULT_MAX_PENDING_HANDSHAKES: usize = 64;

/// How one role connects to its peers.
///
/// Every peer is listed once, with its address ([`Config::peer`]), or without one when
/// it does not listen ([`Config::peer_without_address`]); the library decides who dials
/// whom: a role without a listen address dials every peer, a peer without an address is
/// accepted, and otherwise the role whose name sorts first (byte-wise) dials. Diallers
/// retry until the connection deadline, so roles may start in any order.
///
/// Connections prove nothing about who is at the other end unless they are secured
/// (feature `tls`, [`Config::tls`]); plain TCP must be asked for by name
/// ([`Config::insecure_plaintext`]), or connecting fails.
#[derive(Debug, Clone)]
pub struct Config {
    pub(crate) protocol: String,
    pub(crate) role: String,
    pub(crate) listen: Option<SocketAddr>,
    pub(crate) peers: BTreeMap<String, Option<SocketAddr>>,
    pub(crate) fingerprint: Option<Fingerprint>,
    pub(crate) expect: BTreeMap<String, Fingerprint>,
    pub(crate) connect_timeout: Duration,
    pub(crate) handshake_timeout: Duration,
    pub(crate) max_pending_handshakes: usize,
    pub(crate) receive_timeout: Option<Duration>,
    pub(crate) insecure_plaintext: bool,
    pub(crate) max_frame_length: usize,
    pub(crate) flush_threshold: usize,
    #[cfg(feature = "tls")]
    pub(crate) tls: Option<super::TlsConfig>,
}

/// The TOML file: one table of every role's address, shared by all processes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    protocol: String,
    roles: BTreeMap<String, SocketAddr>,
    /// Per role, the peers it talks to (default: every other role).
    #[serde(default)]
    peers: BTreeMap<String, Vec<String>>,
    connect_timeout_ms: Option<u64>,
    handshake_timeout_ms: Option<u64>,
    receive_timeout_ms: Option<u64>,
    max_pending_handshakes: Option<usize>,
    /// Plain TCP, without proof of any peer's role.
    #[serde(default)]
    insecure_plaintext: bool,
    max_frame_length: Option<usize>,
    flush_threshold: Option<usize>,
}

impl Config {
    /// The configuration of `role` in `protocol` (name and version, e.g.
    /// `"double_buffering/1"`), with no peers yet, a 10 s connection deadline, 5 s per
    /// handshake, a 30 s receive time-out, 16 MiB frames and an 8 KiB flush threshold,
    /// and no transport security yet: give it [`Config::tls`] or, knowingly,
    /// [`Config::insecure_plaintext`].
    pub fn new(protocol: impl Into<String>, role: impl Into<String>) -> Self {
        Self {
            protocol: protocol.into(),
            role: role.into(),
            listen: None,
            peers: BTreeMap::new(),
            fingerprint: None,
            expect: BTreeMap::new(),
            connect_timeout: Duration::from_secs(10),
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            max_pending_handshakes: DEFAULT_MAX_PENDING_HANDSHAKES,
            receive_timeout: Some(DEFAULT_RECEIVE_TIMEOUT),
            insecure_plaintext: false,
            max_frame_length: DEFAULT_MAX_FRAME_LENGTH,
            flush_threshold: DEFAULT_FLUSH_THRESHOLD,
            #[cfg(feature = "tls")]
            tls: None,
        }
    }

    /// Reads the configuration of `role` from TOML text shared by every role:
    ///
    /// ```toml
    /// protocol = "double_buffering/1"
    /// connect_timeout_ms = 5000   # optional
    /// handshake_timeout_ms = 1000 # optional
    /// receive_timeout_ms = 2000   # optional
    /// max_pending_handshakes = 64 # optional
    /// insecure_plaintext = true   # optional: plain TCP, no proof of roles
    /// max_frame_length = 1048576  # optional
    /// flush_threshold = 8192      # optional
    ///
    /// [roles]                     # every role's listen address
    /// S = "127.0.0.1:7000"
    /// K = "127.0.0.1:7001"
    /// T = "127.0.0.1:7002"
    ///
    /// [peers]                     # optional: whom each role talks to (default: all)
    /// S = ["K"]
    /// ```
    pub fn from_toml(text: &str, role: &str) -> Result<Self, NetError> {
        let file: File = toml::from_str(text).map_err(|e| config_error(role, e))?;
        let Some(&listen) = file.roles.get(role) else {
            return Err(config_error(role, format!("role {role} is not in [roles]")));
        };
        let mut config = Config::new(file.protocol, role).listen(listen);
        let peers: Vec<String> = match file.peers.get(role) {
            Some(peers) => peers.clone(),
            None => file.roles.keys().filter(|r| *r != role).cloned().collect(),
        };
        for peer in peers {
            if peer == role {
                return Err(config_error(
                    role,
                    format!("role {role} lists itself as a peer"),
                ));
            }
            let Some(&address) = file.roles.get(&peer) else {
                return Err(config_error(role, format!("peer {peer} is not in [roles]")));
            };
            config = config.peer(peer, address);
        }
        if let Some(ms) = file.connect_timeout_ms {
            config = config.connect_timeout(Duration::from_millis(ms));
        }
        if let Some(ms) = file.handshake_timeout_ms {
            config = config.handshake_timeout(Duration::from_millis(ms));
        }
        if let Some(ms) = file.receive_timeout_ms {
            config = config.receive_timeout(Duration::from_millis(ms));
        }
        if let Some(count) = file.max_pending_handshakes {
            config = config.max_pending_handshakes(count);
        }
        if file.insecure_plaintext {
            config = config.insecure_plaintext();
        }
        if let Some(bytes) = file.max_frame_length {
            config = config.max_frame_length(bytes);
        }
        if let Some(bytes) = file.flush_threshold {
            config = config.flush_threshold(bytes);
        }
        Ok(config)
    }

    /// Listens on `address` (port 0 picks a free port; see
    /// [`Endpoint::local_addr`](super::Endpoint::local_addr)).
    pub fn listen(mut self, address: SocketAddr) -> Self {
        self.listen = Some(address);
        self
    }

    /// Adds the peer `role`, listening at `address` (the library decides whether this
    /// role dials it or accepts it; see [`Config`]).
    pub fn peer(mut self, role: impl Into<String>, address: SocketAddr) -> Self {
        self.peers.insert(role.into(), Some(address));
        self
    }

    /// Adds the peer `role`, which does not listen (so it dials this role).
    pub fn peer_without_address(mut self, role: impl Into<String>) -> Self {
        self.peers.insert(role.into(), None);
        self
    }

    /// The former name of [`Config::peer_without_address`].
    #[deprecated(
        note = "list the peer with `peer` or `peer_without_address`: the library decides who dials"
    )]
    pub fn dialled_by(self, role: impl Into<String>) -> Self {
        self.peer_without_address(role)
    }

    /// Runs over plain TCP, without TLS: any process that reaches the listen address
    /// can claim to be any peer, and anyone on the path can read and change the
    /// labels. For tests and trusted networks only; without it (or [`Config::tls`]),
    /// connecting fails.
    pub fn insecure_plaintext(mut self) -> Self {
        self.insecure_plaintext = true;
        self
    }

    /// This role's session type fingerprint, sent to every peer.
    pub fn fingerprint(mut self, fingerprint: Fingerprint) -> Self {
        self.fingerprint = Some(fingerprint);
        self
    }

    /// Refuses `role` unless its session type fingerprint is `fingerprint`.
    pub fn expect(mut self, role: impl Into<String>, fingerprint: Fingerprint) -> Self {
        self.expect.insert(role.into(), fingerprint);
        self
    }

    /// Fails connecting when some peer is not connected within `timeout`.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Closes a dialled or accepted connection whose handshakes (TLS, then `mpst`) take
    /// longer than `timeout` (default [`DEFAULT_HANDSHAKE_TIMEOUT`]); a dialler then
    /// tries again until the connection deadline.
    pub fn handshake_timeout(mut self, timeout: Duration) -> Self {
        self.handshake_timeout = timeout;
        self
    }

    /// Lets at most `count` accepted connections be in their handshakes at once (default
    /// [`DEFAULT_MAX_PENDING_HANDSHAKES`]); one more closes the oldest of them.
    pub fn max_pending_handshakes(mut self, count: usize) -> Self {
        self.max_pending_handshakes = count.max(1);
        self
    }

    /// Fails a receive that waits longer than `timeout` (default
    /// [`DEFAULT_RECEIVE_TIMEOUT`]; `Duration::MAX` waits forever).
    pub fn receive_timeout(mut self, timeout: Duration) -> Self {
        self.receive_timeout = (timeout != Duration::MAX).then_some(timeout);
        self
    }

    /// Refuses frames whose body exceeds `bytes`, sending or receiving.
    pub fn max_frame_length(mut self, bytes: usize) -> Self {
        self.max_frame_length = bytes;
        self
    }

    /// Writes buffered frames out once they reach `bytes`, without waiting for a flush.
    pub fn flush_threshold(mut self, bytes: usize) -> Self {
        self.flush_threshold = bytes;
        self
    }

    /// Secures every connection with TLS (feature `tls`).
    #[cfg_attr(docsrs, doc(cfg(feature = "tls")))]
    #[cfg(feature = "tls")]
    pub fn tls(mut self, tls: super::TlsConfig) -> Self {
        self.tls = Some(tls);
        self
    }

    /// Whether connections are secured (TLS) or plain TCP was asked for by name.
    pub(crate) fn secured(&self) -> bool {
        #[cfg(feature = "tls")]
        if self.tls.is_some() {
            return true;
        }
        self.insecure_plaintext
    }

    /// The role this configuration is for.
    pub fn role(&self) -> &str {
        &self.role
    }

    /// The protocol name.
    pub fn protocol(&self) -> &str {
        &self.protocol
    }

    /// The peers' names.
    pub fn peers(&self) -> impl Iterator<Item = &str> {
        self.peers.keys().map(String::as_str)
    }

    /// Whether this role dials `peer` rather than accepting it: it dials every peer
    /// when it has no listen address, accepts a peer without an address, and otherwise
    /// dials when its name sorts first.
    pub fn dials(&self, peer: &str) -> bool {
        match self.peers.get(peer) {
            None | Some(None) => false,
            Some(Some(_)) => self.listen.is_none() || self.role.as_str() < peer,
        }
    }
}

fn config_error(role: &str, error: impl fmt::Display) -> NetError {
    NetError::new(role, NetErrorKind::Config(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_names_every_other_role_a_peer_unless_told() {
        let text = r#"
            protocol = "db/1"
            receive_timeout_ms = 250
            [roles]
            S = "127.0.0.1:7000"
            K = "127.0.0.1:7001"
            T = "127.0.0.1:7002"
            [peers]
            S = ["K"]
        "#;
        let k = Config::from_toml(text, "K").unwrap();
        assert_eq!(k.peers().collect::<Vec<_>>(), ["S", "T"]);
        assert_eq!(k.listen, Some("127.0.0.1:7001".parse().unwrap()));
        assert!(k.dials("S") && k.dials("T") && !k.dials("A"));
        assert_eq!(k.receive_timeout, Some(Duration::from_millis(250)));
        let s = Config::from_toml(text, "S").unwrap();
        assert_eq!(s.peers().collect::<Vec<_>>(), ["K"]);
        assert_eq!(s.protocol(), "db/1");
    }

    #[test]
    fn bad_toml_is_a_config_error_naming_the_role() {
        for (text, needle) in [
            ("protocol = 1", "invalid type"),
            (
                "protocol = \"p\"\n[roles]\nA = \"127.0.0.1:1\"",
                "role K is not in [roles]",
            ),
            ("protocol = \"p\"\nsurprise = 1\n[roles]", "surprise"),
            (
                "protocol = \"p\"\n[roles]\nK = \"nowhere\"",
                "invalid socket address",
            ),
        ] {
            let error = Config::from_toml(text, "K").unwrap_err();
            assert_eq!(error.peer, "K");
            assert!(matches!(error.kind, NetErrorKind::Config(_)));
            assert!(error.to_string().contains(needle), "{error}");
        }
    }

    #[test]
    fn fingerprints_print_as_hex() {
        let fp = Fingerprint::of_bytes(b"abc");
        assert!(fp.to_string().starts_with("ba7816bf"));
        assert_ne!(fp, Fingerprint::of_bytes(b"abd"));
    }
}
