//! Roles as separate processes over TCP (feature `tcp`): a [`TcpRoute`] per peer carries
//! the role's label enum as length-prefixed postcard frames, and the session code is the
//! same as in memory.
//!
//! * **Roles**: a `#[derive(Role)]` struct whose routes are [`TcpRoute`]s (or
//!   [`AnyRoute`]s, which are in-memory channels under `Roles::default()` and TCP
//!   connections under [`Connections::into_role`]), with a label enum deriving
//!   `serde::Serialize` and `serde::Deserialize` (`mpst generate --serde --channel
//!   'mpst::net::AnyRoute<Label>'` emits both).
//! * **Wire format**: one frame per label, a 4-byte big-endian length then the label
//!   encoded with postcard ([`FrameCodec`], the framing of tokio-util's
//!   `LengthDelimitedCodec`); frames above a limit (16 MiB by default) are refused from
//!   their header, and every malformed frame is a [`NetError`], never a panic.
//! * **Buffering**: sends go to a write buffer, written out when the runtime flushes the
//!   role (before it waits on a receive, and at `End`), before a send that finds the
//!   buffer at the threshold (8 KiB by default), or when the route itself is polled for a
//!   receive; consecutive sends coalesce into one write.
//! * **Connecting** ([`Config`], built in code or read from TOML by the same API): for
//!   each pair of roles, the one whose name sorts first (byte-wise) dials, retrying until
//!   the connection deadline; the other accepts. Roles may start in any order. Bind
//!   `127.0.0.1:0` and read the real port with [`Endpoint::local_addr`] to pass it on.
//! * **Handshake**: the dialler sends the protocol name (with its version), its role, the
//!   role it wants, its session type's [`Fingerprint`] (the SHA-256 of its serialised FSM)
//!   and the fingerprint it expects of the other; the acceptor refuses another protocol,
//!   an unknown role, a wrong role, a duplicate and a fingerprint mismatch with a
//!   [`HandshakeError`] that both sides see. Each process knows its own session type and,
//!   if it pins them with [`Config::expect`], its peers'.
//! * **TLS** (feature `tls`: `TlsConfig`, given to `Config::tls`): a rustls handshake
//!   precedes the `mpst` handshake on every connection; a peer whose certificate is not
//!   trusted is refused with [`NetErrorKind::Tls`]. Mutual TLS is configured in the rustls
//!   server configuration (a client certificate verifier).
//! * **Failures**: the first failure of a route (reset, truncated, malformed or oversized
//!   frame, receive time-out) is a [`NetError`] naming the peer, carried by the runtime's
//!   transport error kinds; a peer that closes between frames is the runtime's
//!   "disconnected". Afterwards the route is closed. A session that fails or is dropped
//!   aborts its routes, which closes their sockets, so its peers fail at once.
//!   [`session_timeout`] bounds a whole session; [`is_disconnected`] tells whether a
//!   session error means the peer went away, however the socket reported it.

mod accept;
mod any;
mod classify;
mod codec;
mod config;
mod connect;
mod dial;
mod error;
mod handshake;
mod io;
mod route;
#[cfg(feature = "tls")]
mod tls;

pub use any::{AnyRoute, AnyRouteError};
pub use classify::{is_disconnected, net_error};
pub use codec::{FrameCodec, DEFAULT_MAX_FRAME_LENGTH};
pub use config::{
    Config, Fingerprint, DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_MAX_PENDING_HANDSHAKES,
    DEFAULT_RECEIVE_TIMEOUT,
};
pub use connect::{session_timeout, Connections, Endpoint, SessionTimeout};
pub use error::{HandshakeError, NetError, NetErrorKind};
pub use io::Connection;
pub use route::{TcpRoute, DEFAULT_FLUSH_THRESHOLD};
#[cfg_attr(docsrs, doc(cfg(feature = "tls")))]
#[cfg(feature = "tls")]
pub use tls::{rustls, TlsConfig};
