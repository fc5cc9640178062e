//! Reading [`WireConfig`] from TOML text: the file's shape, and errors located at the
//! file's line and column.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::WireConfig;
use crate::duration::{parse_duration, parse_optional_duration};
use crate::error::WireError;

/// The TOML file: one role's configuration, or (with `[roles]`) every role's address in
/// one file shared by all processes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    role: Option<String>,
    protocol: Option<String>,
    listen: Option<String>,
    #[serde(default)]
    peers: BTreeMap<String, String>,
    /// Shared files: every role's listen address (peers default to every other role).
    roles: Option<BTreeMap<String, String>>,
    security: Option<SecurityFile>,
    connect_timeout: Option<Spanned<String>>,
    handshake_timeout: Option<Spanned<String>>,
    receive_timeout: Option<Spanned<String>>,
    idle_timeout: Option<Spanned<String>>,
    max_pending_handshakes: Option<usize>,
    max_frame_length: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SecurityFile {
    ca: Option<PathBuf>,
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
    #[serde(default)]
    insecure_plaintext: bool,
}

impl WireConfig {
    /// Parses `text`, read from the file `origin` if given (relative identity paths are
    /// then relative to its directory, and errors name it); `protocol` is used when the
    /// text names none.
    pub(super) fn parse(
        text: &str,
        role: Option<&str>,
        origin: Option<&Path>,
        protocol: Option<&str>,
    ) -> Result<Self, WireError> {
        let at = Locator { text, origin };
        let base = origin.map(|p| p.parent().unwrap_or(Path::new(".")));
        let who = role.unwrap_or("?");
        let file: File = toml::from_str(text)
            .map_err(|e| WireError::config(who, at.span(e.span(), e.message().trim_end())))?;
        let role = match (role, &file.role) {
            (Some(asked), Some(named)) if asked != named => {
                return Err(WireError::config(
                    asked,
                    at.whole(&format!("the file configures role {named}, not {asked}")),
                ));
            }
            (Some(asked), _) => asked.to_owned(),
            (None, Some(named)) => named.clone(),
            (None, None) => {
                return Err(WireError::config(
                    who,
                    at.whole("no `role = \"..\"` in the file (or give the role)"),
                ));
            }
        };
        let Some(protocol) = file.protocol.as_deref().or(protocol) else {
            return Err(WireError::config(
                &role,
                at.whole("no `protocol = \"..\"` in the file"),
            ));
        };
        let error = |message: String| WireError::config(&role, at.whole(&message));
        let mut config = WireConfig::new(protocol, role.clone());
        let mut listen = file.listen;
        if let Some(roles) = &file.roles {
            let Some(own) = roles.get(&role) else {
                return Err(error(format!("role {role} is not in [roles]")));
            };
            listen.get_or_insert_with(|| own.clone());
            if file.peers.is_empty() {
                for (peer, address) in roles.iter().filter(|(r, _)| **r != role) {
                    config = config.peer(peer.clone(), address.clone());
                }
            }
        }
        if let Some(listen) = listen {
            config = config.listen(listen);
        }
        for (peer, address) in file.peers {
            if peer == role {
                return Err(error(format!("role {role} lists itself as a peer")));
            }
            config = config.peer(peer, address);
        }
        if let Some(security) = file.security {
            let path = |p: PathBuf| {
                let p = PathBuf::from(p.to_string_lossy().replace("{role}", &role));
                match base {
                    Some(base) if p.is_relative() => base.join(p),
                    _ => p,
                }
            };
            config =
                match (
                    security.insecure_plaintext,
                    security.ca,
                    security.cert,
                    security.key,
                ) {
                    (true, None, None, None) => config.insecure_plaintext(),
                    (true, ..) => return Err(error(
                        "[security] gives identity files and insecure_plaintext = true: choose one"
                            .into(),
                    )),
                    (false, Some(ca), Some(cert), Some(key)) => {
                        config.identity_files(path(ca), path(cert), path(key))
                    }
                    (false, ..) => return Err(error(
                        "[security] needs all of ca, cert and key (or insecure_plaintext = true)"
                            .into(),
                    )),
                };
        }
        let located = |field: &str, value: &Spanned<String>, e: String| {
            WireError::config(&role, at.span(Some(value.span()), &format!("{field}: {e}")))
        };
        let duration = |field: &str, value: &Spanned<String>| {
            parse_duration(value.get_ref()).map_err(|e| located(field, value, e))
        };
        if let Some(value) = &file.connect_timeout {
            config.connect_timeout = duration("connect_timeout", value)?;
        }
        if let Some(value) = &file.handshake_timeout {
            config.handshake_timeout = duration("handshake_timeout", value)?;
        }
        if let Some(value) = &file.receive_timeout {
            config.receive_timeout = parse_optional_duration(value.get_ref())
                .map_err(|e| located("receive_timeout", value, e))?;
        }
        if let Some(value) = &file.idle_timeout {
            config.idle_timeout = duration("idle_timeout", value)?;
        }
        if let Some(n) = file.max_pending_handshakes {
            config.max_pending_handshakes = n;
        }
        if let Some(n) = file.max_frame_length {
            config.max_frame_length = n;
        }
        config.validate().map_err(|mut e| {
            if let crate::WireErrorKind::Config(message) = &mut e.kind {
                *message = at.whole(message);
            }
            e
        })?;
        Ok(config)
    }
}

/// Where a configuration's text came from, to locate errors in it.
struct Locator<'a> {
    text: &'a str,
    origin: Option<&'a Path>,
}

impl Locator<'_> {
    /// `FILE:LINE:COL: message` (`line L, column C: message` without a file), or the
    /// message alone (prefixed by the file) when there is no span.
    fn span(&self, span: Option<std::ops::Range<usize>>, message: &str) -> String {
        let Some(span) = span else {
            return self.whole(message);
        };
        let before = &self.text[..span.start.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        match self.origin {
            Some(path) => format!("{}:{line}:{column}: {message}", path.display()),
            None => format!("line {line}, column {column}: {message}"),
        }
    }

    /// `FILE: message`, or the message alone without a file.
    fn whole(&self, message: &str) -> String {
        match self.origin {
            Some(path) => format!("{}: {message}", path.display()),
            None => message.to_owned(),
        }
    }
}
