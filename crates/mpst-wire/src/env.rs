//! A role's whole configuration from one TOML file and `MPST_*` environment variables
//! over it ([`Sources`]), so that systemd, a container orchestrator or a plain script can
//! configure a role program without a command line of its own.
//!
//! The variables ([`VARIABLES`] is the table, docs/DEPLOYMENT.md the reference):
//!
//! | variable | meaning | TOML key |
//! |---|---|---|
//! | `MPST_CONFIG` | the TOML file to read first (`--config FILE` wins over it) | — |
//! | `MPST_ROLE` | this role (`--role` wins over it; must agree with the file's `role`) | `role` |
//! | `MPST_PROTOCOL` | the protocol name and version, e.g. `ping/1` | `protocol` |
//! | `MPST_LISTEN` | where this role listens, `host:port` | `listen` |
//! | `MPST_PEER_<ROLE>` | the peer `<ROLE>` at `host:port` (empty: a peer that dials this role) | `[peers]` |
//! | `MPST_CA`, `MPST_CERT`, `MPST_KEY` | identity files, all three (`{role}` is this role) | `[security]` |
//! | `MPST_INSECURE_PLAINTEXT` | `true`: no authentication, no encryption | `[security] insecure_plaintext` |
//! | `MPST_CONNECT_TIMEOUT` and the other time-outs | durations: `250ms`, `10s`, `2m`, `1h` | `connect_timeout`, ... |
//! | `MPST_MAX_PENDING_HANDSHAKES`, `MPST_MAX_FRAME_LENGTH` | whole numbers | the same in lower case |
//!
//! A variable overrides the file's value. Any other variable starting with `MPST_` is an
//! error, so a misspelt name is not silently ignored.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::config::WireConfig;
use crate::duration::{parse_duration, parse_optional_duration};
use crate::error::WireError;

/// The prefix of every variable read here.
pub const PREFIX: &str = "MPST_";
/// The variable naming the TOML file.
pub const CONFIG_VAR: &str = "MPST_CONFIG";
/// The variable naming this role.
pub const ROLE_VAR: &str = "MPST_ROLE";
/// The prefix of the variables naming peers: `MPST_PEER_<ROLE>=host:port`.
pub const PEER_PREFIX: &str = "MPST_PEER_";

/// Every variable (peers as `MPST_PEER_<ROLE>`) with what it sets.
pub const VARIABLES: &[(&str, &str)] = &[
    (
        CONFIG_VAR,
        "the TOML file read first (`--config FILE` wins over it)",
    ),
    (ROLE_VAR, "this role (`--role` wins over it)"),
    (
        "MPST_PROTOCOL",
        "the protocol name and version, e.g. `ping/1`",
    ),
    ("MPST_LISTEN", "where this role listens, `host:port`"),
    (
        "MPST_PEER_<ROLE>",
        "the peer <ROLE> at `host:port`; empty: it dials this role",
    ),
    ("MPST_CA", "the deployment CA's certificate (PEM)"),
    (
        "MPST_CERT",
        "this role's certificate (PEM; `{role}` is the role)",
    ),
    (
        "MPST_KEY",
        "this role's private key (PEM; `{role}` is the role)",
    ),
    (
        "MPST_INSECURE_PLAINTEXT",
        "`true`: no authentication, no encryption",
    ),
    ("MPST_CONNECT_TIMEOUT", "time to connect to every peer"),
    (
        "MPST_HANDSHAKE_TIMEOUT",
        "time for one connection's TLS and hello",
    ),
    (
        "MPST_RECEIVE_TIMEOUT",
        "longest wait for a message (`none`: forever)",
    ),
    ("MPST_IDLE_TIMEOUT", "longest pause inside a frame"),
    (
        "MPST_MAX_PENDING_HANDSHAKES",
        "cap on connections being set up at once",
    ),
    ("MPST_MAX_FRAME_LENGTH", "limit on a frame's body in bytes"),
];

/// Where one role's configuration comes from: a TOML file (optional), then environment
/// variables over it, with the role and file a command line may give taking precedence.
///
/// ```
/// use mpst_wire::env::Sources;
///
/// let config = Sources::new()
///     .default_protocol("ping/1")
///     .var("MPST_ROLE", "A")
///     .var("MPST_PEER_B", "b.example.org:7001")
///     .var("MPST_INSECURE_PLAINTEXT", "true")
///     .var("MPST_CONNECT_TIMEOUT", "3s")
///     .load()
///     .unwrap();
/// assert_eq!(config.peer_address("B"), Some("b.example.org:7001"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Sources {
    file: Option<PathBuf>,
    role: Option<String>,
    protocol: Option<String>,
    vars: BTreeMap<String, String>,
}

impl Sources {
    /// No file, no variables.
    pub fn new() -> Self {
        Self::default()
    }

    /// The `MPST_*` variables of this process's environment (one that is not UTF-8 is an
    /// error naming it).
    pub fn from_process_env() -> Result<Self, WireError> {
        let mut sources = Self::new();
        for (name, value) in std::env::vars_os() {
            let Some(name) = name.to_str().filter(|n| n.starts_with(PREFIX)) else {
                continue;
            };
            let value = value.into_string().map_err(|_| {
                WireError::config("?", format!("environment variable {name} is not UTF-8"))
            })?;
            sources.vars.insert(name.to_owned(), value);
        }
        Ok(sources)
    }

    /// Reads this TOML file (instead of `MPST_CONFIG`'s), e.g. from `--config FILE`.
    pub fn file(mut self, path: impl Into<PathBuf>) -> Self {
        self.file = Some(path.into());
        self
    }

    /// This role (instead of `MPST_ROLE`), e.g. from `--role NAME`.
    pub fn role(mut self, role: impl Into<String>) -> Self {
        self.role = Some(role.into());
        self
    }

    /// The protocol when neither the file nor `MPST_PROTOCOL` names one (a role program
    /// knows the protocol it implements).
    pub fn default_protocol(mut self, protocol: impl Into<String>) -> Self {
        self.protocol = Some(protocol.into());
        self
    }

    /// Sets the variable `name` (as if in the environment).
    pub fn var(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.vars.insert(name.into(), value.into());
        self
    }

    /// Whether anything says which role to be: a role, a file, `MPST_CONFIG` or
    /// `MPST_ROLE` (a program may run in another mode otherwise).
    pub fn names_a_role(&self) -> bool {
        self.role.is_some()
            || self.file.is_some()
            || self.vars.contains_key(CONFIG_VAR)
            || self.vars.contains_key(ROLE_VAR)
    }

    /// The configuration: the file's, then every variable over it, checked.
    pub fn load(&self) -> Result<WireConfig, WireError> {
        let role = self.role.as_deref().or(self.get(ROLE_VAR));
        let protocol = self.get("MPST_PROTOCOL").or(self.protocol.as_deref());
        let file = self
            .file
            .clone()
            .or_else(|| self.get(CONFIG_VAR).map(PathBuf::from));
        let mut config = match file {
            Some(path) => WireConfig::read_file(&path, role, protocol)?,
            None => {
                let Some(role) = role else {
                    return Err(WireError::config(
                        "?",
                        format!(
                            "no role: set {ROLE_VAR}, give --role NAME, or name a \
                             configuration file ({CONFIG_VAR} or --config FILE)"
                        ),
                    ));
                };
                let Some(protocol) = protocol else {
                    return Err(WireError::config(
                        role,
                        "no protocol: set MPST_PROTOCOL or name a configuration file",
                    ));
                };
                WireConfig::new(protocol, role)
            }
        };
        let role = config.role().to_owned();
        let bad = |name: &str, value: &str, expected: &str| {
            WireError::config(
                &role,
                format!("environment variable {name}={value:?}: expected {expected}"),
            )
        };
        if let Some(protocol) = self.get("MPST_PROTOCOL") {
            config = config.with_protocol(protocol);
        }
        if let Some(listen) = self.get("MPST_LISTEN") {
            check_host_port(listen).map_err(|e| bad("MPST_LISTEN", listen, &e))?;
            config = config.listen(listen);
        }
        for (name, value) in self.vars.range(PEER_PREFIX.to_owned()..) {
            let Some(peer) = name.strip_prefix(PEER_PREFIX) else {
                break;
            };
            if peer.is_empty() {
                return Err(bad(name, value, "a role name after MPST_PEER_"));
            }
            config = match value.as_str() {
                "" => config.peer_without_address(peer),
                address => {
                    check_host_port(address).map_err(|e| bad(name, value, &e))?;
                    config.peer(peer, address)
                }
            };
        }
        let path = |v: &str| PathBuf::from(v.replace("{role}", &role));
        match (
            self.get("MPST_CA"),
            self.get("MPST_CERT"),
            self.get("MPST_KEY"),
        ) {
            (None, None, None) => {}
            (Some(ca), Some(cert), Some(key)) => {
                config = config.identity_files(path(ca), path(cert), path(key));
            }
            (ca, cert, key) => {
                let missing: Vec<&str> = [("MPST_CA", ca), ("MPST_CERT", cert), ("MPST_KEY", key)]
                    .into_iter()
                    .filter(|(_, v)| v.is_none())
                    .map(|(n, _)| n)
                    .collect();
                return Err(WireError::config(
                    &role,
                    format!(
                        "MPST_CA, MPST_CERT and MPST_KEY go together: {} missing",
                        missing.join(" and ")
                    ),
                ));
            }
        }
        if let Some(value) = self.get("MPST_INSECURE_PLAINTEXT") {
            let on = match value {
                "true" | "1" => true,
                "false" | "0" | "" => false,
                _ => return Err(bad("MPST_INSECURE_PLAINTEXT", value, "true or false")),
            };
            if on && self.get("MPST_CA").is_some() {
                return Err(WireError::config(
                    &role,
                    "MPST_INSECURE_PLAINTEXT=true and identity files (MPST_CA, ...): choose one",
                ));
            }
            if on {
                config = config.insecure_plaintext();
            }
        }
        const DURATION: &str = "a duration such as \"250ms\", \"10s\", \"2m\" or \"1h\"";
        let duration = |name: &str| -> Result<_, WireError> {
            self.get(name)
                .map(|v| parse_duration(v).map_err(|_| bad(name, v, DURATION)))
                .transpose()
        };
        if let Some(d) = duration("MPST_CONNECT_TIMEOUT")? {
            config = config.connect_timeout(d);
        }
        if let Some(d) = duration("MPST_HANDSHAKE_TIMEOUT")? {
            config = config.handshake_timeout(d);
        }
        if let Some(d) = duration("MPST_IDLE_TIMEOUT")? {
            config = config.idle_timeout(d);
        }
        if let Some(v) = self.get("MPST_RECEIVE_TIMEOUT") {
            let d = parse_optional_duration(v)
                .map_err(|_| bad("MPST_RECEIVE_TIMEOUT", v, &format!("{DURATION}, or none")))?;
            config = config.receive_timeout(d);
        }
        let count = |name: &str| -> Result<_, WireError> {
            self.get(name)
                .map(|v| {
                    v.trim()
                        .parse::<usize>()
                        .map_err(|_| bad(name, v, "a whole number"))
                })
                .transpose()
        };
        if let Some(n) = count("MPST_MAX_PENDING_HANDSHAKES")? {
            config = config.max_pending_handshakes(n);
        }
        if let Some(n) = count("MPST_MAX_FRAME_LENGTH")? {
            config = config.max_frame_length(n);
        }
        for name in self.vars.keys() {
            let known =
                name.starts_with(PEER_PREFIX) || VARIABLES.iter().any(|(known, _)| known == name);
            if !known {
                let names: Vec<&str> = VARIABLES.iter().map(|(n, _)| *n).collect();
                return Err(WireError::config(
                    &role,
                    format!(
                        "unknown environment variable {name} (known: {})",
                        names.join(", ")
                    ),
                ));
            }
        }
        config.validate()?;
        Ok(config)
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }
}

/// Checks `host:port` (a host name or an address, `[v6]:port`) without looking it up:
/// the dialler looks host names up on each attempt. The error says what was expected.
pub fn check_host_port(address: &str) -> Result<(), String> {
    let expected = "host:port";
    let (host, port) = address.rsplit_once(':').ok_or(expected)?;
    if host.is_empty() {
        return Err(format!("{expected} (no host)"));
    }
    port.parse::<u16>()
        .map(|_| ())
        .map_err(|_| format!("{expected} with a port from 0 to 65535"))
}

impl WireConfig {
    /// The configuration from this process's environment: the TOML file `MPST_CONFIG`
    /// names, if any, with every `MPST_*` variable over it (see [`Sources`]).
    pub fn from_env() -> Result<Self, WireError> {
        Sources::from_process_env()?.load()
    }

    /// The TOML file `path` (or `MPST_CONFIG`'s when `None`) for `role` (or `MPST_ROLE`'s,
    /// or the file's), with every `MPST_*` variable of this process over it.
    pub fn from_file_and_env(
        path: Option<&std::path::Path>,
        role: Option<&str>,
    ) -> Result<Self, WireError> {
        let mut sources = Sources::from_process_env()?;
        if let Some(path) = path {
            sources = sources.file(path);
        }
        if let Some(role) = role {
            sources = sources.role(role);
        }
        sources.load()
    }
}

#[cfg(test)]
mod tests;
