//! [`NetConfig`]: who this role is, where it listens, where its peers are, how it proves its
//! role, what session types it runs and expects and how long it waits — built in code or
//! read from TOML, the network settings being `mpst_wire`'s ([`WireConfig`]), the same
//! names as `mpst-choreo`'s.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use mpst_wire::{Identity, WireConfig};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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
/// stopped peer cannot stall its peers forever ([`NetConfig::receive_timeout`] changes it;
/// `Duration::MAX` waits forever).
pub const DEFAULT_RECEIVE_TIMEOUT: Duration = mpst_wire::config::DEFAULT_RECEIVE_TIMEOUT;

/// The default time a connection has to complete its handshakes (TLS, then the hello)
/// once accepted or dialled: 5 s.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = mpst_wire::config::DEFAULT_HANDSHAKE_TIMEOUT;

/// The default number of accepted connections that may be in their handshakes at once:
/// 64.
pub const DEFAULT_MAX_PENDING_HANDSHAKES: usize = mpst_wire::config::DEFAULT_MAX_PENDING_HANDSHAKES;

/// How one role connects to its peers.
///
/// Every peer is listed once, with its address ([`NetConfig::peer`], `host:port`, resolved
/// again on each attempt), or without one when it does not listen
/// ([`NetConfig::peer_without_address`]); the library decides who dials whom
/// ([`NetConfig::dials`]). Diallers retry until the connection deadline, so roles may start
/// in any order.
///
/// Every connection proves its role: by default with mutual TLS, each role presenting a
/// certificate that names its role and protocol, issued by the deployment's CA
/// ([`NetConfig::identity`], [`NetConfig::identity_files`]; [`certs`](super::certs) issues
/// them). Plain
/// TCP, where anyone can claim any role, must be asked for by name
/// ([`NetConfig::insecure_plaintext`]); with neither, connecting fails.
#[derive(Debug, Clone)]
pub struct NetConfig {
    pub(crate) wire: WireConfig,
    pub(crate) fingerprint: Option<Fingerprint>,
    pub(crate) expect: BTreeMap<String, Fingerprint>,
    pub(crate) flush_threshold: usize,
}

/// The keys of the TOML file that are the session runtime's own; the rest is
/// [`WireConfig`]'s.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Session {
    flush_threshold: Option<usize>,
}

impl NetConfig {
    /// The configuration of `role` in `protocol` (name and version, e.g.
    /// `"double_buffering/1"`), with no peers yet, a 10 s connection deadline, 5 s per
    /// handshake, a 30 s receive time-out, 16 MiB frames and an 8 KiB flush threshold,
    /// and no identity yet: give it one ([`NetConfig::identity`]) or, knowingly,
    /// [`NetConfig::insecure_plaintext`].
    pub fn new(protocol: impl Into<String>, role: impl Into<String>) -> Self {
        Self {
            wire: WireConfig::new(protocol, role),
            fingerprint: None,
            expect: BTreeMap::new(),
            flush_threshold: DEFAULT_FLUSH_THRESHOLD,
        }
    }

    /// Reads the configuration of `role` from TOML text shared by every role: the
    /// network settings of [`WireConfig::from_toml_for`] (the same names as
    /// `mpst-choreo`'s), plus `flush_threshold`:
    ///
    /// ```toml
    /// protocol = "double_buffering/1"
    /// connect_timeout = "5s"          # optional, like the lines below up to [roles]
    /// handshake_timeout = "1s"
    /// receive_timeout = "2s"          # "none": wait forever
    /// idle_timeout = "1s"             # the longest pause inside a frame
    /// max_pending_handshakes = 64
    /// max_frame_length = 1048576
    /// flush_threshold = 8192
    ///
    /// [roles]                         # every role's listen address; each role's peers
    /// S = "127.0.0.1:7000"            # are all the others
    /// K = "127.0.0.1:7001"
    /// T = "127.0.0.1:7002"
    ///
    /// [security]                      # `{role}` stands for the role reading the file
    /// ca = "certs/ca.pem"
    /// cert = "certs/{role}.pem"
    /// key = "certs/{role}.key"
    /// # insecure_plaintext = true     # instead: plain TCP, no proof of roles
    /// ```
    ///
    /// Relative identity paths are relative to the working directory.
    pub fn from_toml(text: &str, role: &str) -> Result<Self, NetError> {
        let mut table: toml::Table = toml::from_str(text).map_err(|e| config_error(role, e))?;
        let mut session = toml::Table::new();
        if let Some(value) = table.remove("flush_threshold") {
            session.insert("flush_threshold".into(), value);
        }
        let session: Session = session.try_into().map_err(|e| config_error(role, e))?;
        // The text as written when it has no key of the session's own, so that errors
        // give lines and columns of the text as written.
        let wire = match session.flush_threshold {
            None => WireConfig::from_toml_for(text, role),
            Some(_) => {
                let text = toml::to_string(&table).map_err(|e| config_error(role, e))?;
                WireConfig::from_toml_for(&text, role)
            }
        }
        .map_err(NetError::from)?;
        let mut config = NetConfig {
            wire,
            ..NetConfig::new("", role)
        };
        if let Some(bytes) = session.flush_threshold {
            config = config.flush_threshold(bytes);
        }
        Ok(config)
    }

    /// The session runtime's configuration over network settings made elsewhere, e.g.
    /// read from a TOML file and `MPST_*` environment variables by
    /// [`mpst_wire::env::Sources`] (the same settings `mpst-choreo` reads), with the
    /// session runtime's own settings at their defaults.
    pub fn from_wire(wire: WireConfig) -> Self {
        NetConfig {
            wire,
            ..NetConfig::new("", "")
        }
    }

    /// Listens on `address` (`host:port`; port 0 picks a free port, see
    /// [`BoundRole::local_addr`](super::BoundRole::local_addr)).
    pub fn listen(mut self, address: impl ToString) -> Self {
        self.wire = self.wire.listen(address.to_string());
        self
    }

    /// Adds the peer `role`, listening at `address` (`host:port`, e.g. a `SocketAddr`;
    /// the library decides whether this role dials it or accepts it, see
    /// [`NetConfig::dials`]).
    pub fn peer(mut self, role: impl Into<String>, address: impl ToString) -> Self {
        self.wire = self.wire.peer(role, address.to_string());
        self
    }

    /// Adds the peer `role`, which does not listen (so it dials this role).
    pub fn peer_without_address(mut self, role: impl Into<String>) -> Self {
        self.wire = self.wire.peer_without_address(role);
        self
    }

    /// The former name of [`NetConfig::peer_without_address`].
    #[deprecated(
        note = "list peers with `peer` or `peer_without_address`: the library decides who dials"
    )]
    pub fn dialled_by(self, role: impl Into<String>) -> Self {
        self.peer_without_address(role)
    }

    /// Proves this role with `identity` (mutual TLS): its certificate must name this
    /// role of this protocol, and every peer's must name the role it claims; both are
    /// issued by the CA the identity trusts ([`certs`](super::certs)).
    pub fn identity(mut self, identity: Identity) -> Self {
        self.wire = self.wire.mutual_tls(identity);
        self
    }

    /// Proves this role with the identity in PEM files (the CA, this role's certificate
    /// and its key), read when connecting (see [`NetConfig::identity`]).
    pub fn identity_files(
        mut self,
        ca: impl Into<PathBuf>,
        cert: impl Into<PathBuf>,
        key: impl Into<PathBuf>,
    ) -> Self {
        self.wire = self.wire.identity_files(ca, cert, key);
        self
    }

    /// Runs over plain TCP, without TLS: any process that reaches the listen address
    /// can claim to be any peer, and anyone on the path can read and change the
    /// labels. For tests and trusted networks only.
    pub fn insecure_plaintext(mut self) -> Self {
        self.wire = self.wire.insecure_plaintext();
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

    /// Fails connecting when some peer is not connected within `timeout`
    /// (`Duration::MAX`: no deadline).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.wire = self.wire.connect_timeout(timeout);
        self
    }

    /// Closes a dialled or accepted connection whose handshakes (TLS, then the hello)
    /// take longer than `timeout` (default [`DEFAULT_HANDSHAKE_TIMEOUT`]); a dialler then
    /// tries again until the connection deadline.
    pub fn handshake_timeout(mut self, timeout: Duration) -> Self {
        self.wire = self.wire.handshake_timeout(timeout);
        self
    }

    /// Lets at most `count` accepted connections be in their handshakes at once (default
    /// [`DEFAULT_MAX_PENDING_HANDSHAKES`]); one more closes the oldest.
    pub fn max_pending_handshakes(mut self, count: usize) -> Self {
        self.wire = self.wire.max_pending_handshakes(count);
        self
    }

    /// Fails a receive that waits longer than `timeout` (default
    /// [`DEFAULT_RECEIVE_TIMEOUT`]; `Duration::MAX` waits forever).
    pub fn receive_timeout(mut self, timeout: Duration) -> Self {
        let timeout = (timeout != Duration::MAX).then_some(timeout);
        self.wire = self.wire.receive_timeout(timeout);
        self
    }

    /// Fails a receive that holds part of a frame and gets no more of it for `timeout`
    /// (default 10 s), whatever the receive time-out, and a route whose labels stay
    /// unacknowledged while the peer says nothing for `timeout` (keep it above a round
    /// trip plus [`ACK_INTERVAL`](super::ACK_INTERVAL)).
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.wire = self.wire.idle_timeout(timeout);
        self
    }

    /// Refuses frames whose body exceeds `bytes`, sending or receiving.
    pub fn max_frame_length(mut self, bytes: usize) -> Self {
        self.wire = self.wire.max_frame_length(bytes);
        self
    }

    /// Writes buffered frames out once they reach `bytes`, without waiting for a flush.
    pub fn flush_threshold(mut self, bytes: usize) -> Self {
        self.flush_threshold = bytes;
        self
    }

    /// The network settings (shared with `mpst-choreo`).
    pub fn wire(&self) -> &WireConfig {
        &self.wire
    }

    /// The role this configuration is for.
    pub fn role(&self) -> &str {
        self.wire.role()
    }

    /// The protocol name.
    pub fn protocol(&self) -> &str {
        self.wire.protocol()
    }

    /// The peers' names.
    pub fn peers(&self) -> impl Iterator<Item = &str> {
        self.wire.peers()
    }

    /// Whether this role dials `peer` rather than accepting it: it dials every peer when
    /// it has no listen address, accepts a peer without an address, and otherwise dials
    /// when its name sorts first (byte-wise).
    pub fn dials(&self, peer: &str) -> bool {
        if self.wire.peer_address(peer).is_none() {
            return false;
        }
        self.wire.listen_address().is_none() || mpst_wire::dials(self.role(), peer)
    }
}

pub(crate) fn config_error(role: &str, error: impl fmt::Display) -> NetError {
    NetError::new(role, NetErrorKind::Config(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_names_every_other_role_a_peer_and_the_library_decides_who_dials() {
        let text = r#"
            protocol = "db/1"
            receive_timeout = "250ms"
            flush_threshold = 64
            [roles]
            S = "127.0.0.1:7000"
            K = "127.0.0.1:7001"
            T = "127.0.0.1:7002"
            [security]
            insecure_plaintext = true
        "#;
        let k = NetConfig::from_toml(text, "K").unwrap();
        assert_eq!(k.peers().collect::<Vec<_>>(), ["S", "T"]);
        assert_eq!(k.wire().listen_address(), Some("127.0.0.1:7001"));
        assert_eq!(
            k.wire().get_receive_timeout(),
            Some(Duration::from_millis(250))
        );
        assert_eq!(k.flush_threshold, 64);
        assert!(k.dials("S") && k.dials("T") && !k.dials("A"));
        let s = NetConfig::from_toml(text, "S").unwrap();
        assert!(!s.dials("K") && s.dials("T"));
        assert_eq!(s.protocol(), "db/1");
        // A role that does not listen dials; a peer without an address is accepted.
        let client = NetConfig::new("db/1", "Z").peer("A", "127.0.0.1:1");
        assert!(client.dials("A"));
        let server = NetConfig::new("db/1", "A")
            .listen("127.0.0.1:1")
            .peer_without_address("Z");
        assert!(!server.dials("Z"));
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
            // Located in the text as written.
            (
                "protocol = \"p\"\nconnect_timeout = \"soon\"\n[roles]\nK = \"x:1\"",
                "line 2, column 19: connect_timeout",
            ),
            (
                "protocol = \"p\"\nflush_threshold = \"big\"",
                "invalid type",
            ),
        ] {
            let error = NetConfig::from_toml(text, "K").unwrap_err();
            assert_eq!(error.peer, "K", "{error}");
            assert!(
                matches!(
                    error.kind,
                    NetErrorKind::Config(_)
                        | NetErrorKind::Wire(mpst_wire::WireErrorKind::Config(_))
                ),
                "{error}"
            );
            assert!(error.to_string().contains(needle), "{error}");
        }
    }

    #[test]
    fn the_documented_toml_reads_as_documented() {
        let source = include_str!("config.rs");
        let start = source.find("/// ```toml\n").unwrap() + "/// ```toml\n".len();
        let end = start + source[start..].find("/// ```\n").unwrap();
        let text: String = source[start..end]
            .lines()
            .map(|l| {
                l.trim_start()
                    .trim_start_matches("///")
                    .trim_start_matches(' ')
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let k = NetConfig::from_toml(&text, "K").unwrap();
        assert_eq!(k.protocol(), "double_buffering/1");
        assert_eq!(k.peers().collect::<Vec<_>>(), ["S", "T"]);
        assert_eq!(k.flush_threshold, 8192);
        assert_eq!(k.wire().get_idle_timeout(), Duration::from_secs(1));
        assert_eq!(k.wire().get_max_frame_length(), 1_048_576);
    }

    #[test]
    fn durations_beyond_the_clock_mean_forever() {
        let config = NetConfig::new("p", "A").receive_timeout(Duration::MAX);
        assert_eq!(config.wire().get_receive_timeout(), None);
        assert_eq!(
            NetConfig::new("p", "A").wire().get_receive_timeout(),
            Some(DEFAULT_RECEIVE_TIMEOUT)
        );
    }

    #[test]
    fn fingerprints_print_as_hex() {
        let fp = Fingerprint::of_bytes(b"abc");
        assert!(fp.to_string().starts_with("ba7816bf"));
        assert_ne!(fp, Fingerprint::of_bytes(b"abd"));
    }
}
