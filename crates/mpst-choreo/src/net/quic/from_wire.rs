//! Building a QUIC transport from one `mpst-wire` [`WireConfig`] (builder or TOML), the
//! configuration `mpst::net` and the TCP transport read too.

use std::io::ErrorKind;
use std::net::UdpSocket;

use mpst_wire::{Security, WireConfig};

use super::{QuicConfig, QuicTransport};
use crate::net::io_error;
use crate::role::RoleName;
use crate::transport::TransportError;

impl QuicConfig {
    /// The settings of one [`WireConfig`]: `connect_timeout`, `idle_timeout` and
    /// `max_frame_length` (the rest keep their defaults).
    pub fn from_wire(config: &WireConfig) -> Self {
        QuicConfig {
            connect_timeout: config.get_connect_timeout(),
            idle_timeout: config.get_idle_timeout(),
            max_frame_length: config.get_max_frame_length(),
            ..QuicConfig::default()
        }
    }
}

impl QuicTransport {
    /// Builds the transport of one [`WireConfig`]: binds its `listen` address (UDP),
    /// proves its role with the `[security]` identity (QUIC has no plaintext mode) and
    /// connects to every peer at its `"host:port"` (looked up when connecting; every
    /// peer needs an address).
    pub async fn connect(config: &WireConfig) -> Result<Self, TransportError> {
        let role = RoleName::new(config.role());
        let invalid = |what: String| io_error(&role, ErrorKind::InvalidInput, what);
        let security = config
            .resolve_security()
            .map_err(|e| invalid(e.to_string()))?;
        let Security::MutualTls(identity) = security else {
            return Err(invalid(
                "QUIC needs identity files ([security] ca, cert, key): it has no plaintext mode"
                    .into(),
            ));
        };
        let listen = config
            .listen_address()
            .ok_or_else(|| invalid("no listen address in the configuration".into()))?;
        let socket = UdpSocket::bind(listen)
            .map_err(|e| io_error(&role, e.kind(), format!("cannot bind {listen}: {e}")))?;
        let mut peers = Vec::new();
        for peer in config.peers() {
            let address = config
                .peer_address(peer)
                .ok_or_else(|| invalid(format!("peer {peer} has no address")))?;
            peers.push((RoleName::new(peer), address.to_string()));
        }
        let quic = QuicConfig::from_wire(config);
        Self::start(role, socket, &identity, config.protocol(), peers, quic).await
    }
}
