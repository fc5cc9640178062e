//! Building a TCP transport from one `mpst-wire` [`WireConfig`] (builder or TOML), the
//! configuration `mpst::net` reads too.

use mpst_wire::WireConfig;
use tokio::net::TcpListener;

use super::accept::wire_error;
use super::{TcpConfig, TcpTransport};
use crate::net::io_error;
use crate::role::RoleName;
use crate::transport::TransportError;

impl TcpConfig {
    /// The settings of one [`WireConfig`] (builder or TOML; the same names as
    /// `mpst::net::NetConfig`): its protocol, security (identity files are loaded here),
    /// `connect_timeout`, `handshake_timeout`, `idle_timeout`, `max_pending_handshakes`
    /// and `max_frame_length`; the rest keep their defaults. Fails when the
    /// configuration chose no security mode or its identity files cannot be loaded.
    pub fn from_wire(config: &WireConfig) -> Result<Self, TransportError> {
        let security = config.resolve_security().map_err(wire_error)?;
        Ok(TcpConfig {
            connect_timeout: config.get_connect_timeout(),
            handshake_timeout: config.get_handshake_timeout(),
            idle_timeout: config.get_idle_timeout(),
            max_pending_handshakes: config.get_max_pending_handshakes(),
            max_frame_length: config.get_max_frame_length(),
            ..Self::with_security(config.protocol().to_string(), security)
        })
    }
}

impl TcpTransport {
    /// Builds the transport of one [`WireConfig`] (a builder or a TOML file, the same
    /// configuration as `mpst::net`): its role, `listen` address, peers by `"host:port"`
    /// (every peer needs an address: each role dials all its peers) and security; see
    /// [`TcpConfig::from_wire`]. Host names are looked up again on each dial retry.
    pub async fn connect(config: &WireConfig) -> Result<Self, TransportError> {
        let role = RoleName::new(config.role());
        let listen = config.listen_address().ok_or_else(|| {
            let what = "no listen address in the configuration (listen = \"host:port\")";
            io_error(&role, std::io::ErrorKind::InvalidInput, what)
        })?;
        let listener = TcpListener::bind(listen)
            .await
            .map_err(|e| io_error(&role, e.kind(), format!("cannot listen on {listen}: {e}")))?;
        Self::connect_on(listener, config).await
    }

    /// Like [`TcpTransport::connect`], on a listener already bound (its `listen` address
    /// is not used).
    pub async fn connect_on(
        listener: TcpListener,
        config: &WireConfig,
    ) -> Result<Self, TransportError> {
        let role = RoleName::new(config.role());
        let mut peers = Vec::new();
        for peer in config.peers() {
            let address = config.peer_address(peer).ok_or_else(|| {
                let what = format!(
                    "peer {peer} has no address: an mpst-choreo role dials every peer (give \
                     [peers] {peer} = \"host:port\")"
                );
                io_error(&role, std::io::ErrorKind::InvalidInput, what)
            })?;
            peers.push((RoleName::new(peer), address.to_string()));
        }
        let tcp = TcpConfig::from_wire(config)?;
        Self::start(role, listener, peers, tcp).await
    }
}
