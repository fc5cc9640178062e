//! Roles as separate processes over TCP (feature `tcp`): a [`TcpRoute`] per peer carries
//! the role's label enum as length-prefixed postcard frames.
//!
//! * **Wire format**: one frame per label, a 4-byte big-endian length then the label
//!   encoded with postcard ([`FrameCodec`]); frames above a limit (16 MiB by default) are
//!   refused, and every malformed frame is a [`NetError`], never a panic. The label enum
//!   derives `serde::Serialize` and `serde::Deserialize` (`mpst generate --serde` emits
//!   the derives).
//! * **Buffering**: sends go to a write buffer, written out on flush, past a size
//!   threshold (8 KiB by default), or when the route is polled for a receive and would
//!   wait, so consecutive sends coalesce.
//! * **Connecting** ([`Config`], built in code or from TOML): for each pair of roles, the
//!   one whose name sorts first dials, retrying until the connection deadline; the other
//!   accepts. Roles may start in any order. Bind `127.0.0.1:0` and read the real port
//!   with [`Endpoint::local_addr`] to pass it on.
//! * **Handshake**: the dialler sends the protocol name, its role, the role it wants, its
//!   session type's [`Fingerprint`] and the fingerprint it expects of the other; the
//!   acceptor refuses another protocol, an unknown role, a wrong role, a duplicate and a
//!   fingerprint mismatch with a [`HandshakeError`] that both sides see.
//! * **TLS** (feature `tls`, [`TlsConfig`] in [`Config::tls`]): a TLS handshake (rustls)
//!   precedes the `mpst` handshake on every connection; a peer whose certificate is not
//!   trusted is refused with [`NetErrorKind::Tls`]. Mutual TLS is configured in the rustls
//!   server configuration (a client certificate verifier).
//! * **Failures**: the first failure of a route (closed, reset, malformed or oversized
//!   frame, receive time-out) is a [`NetError`] naming the peer; then the route ends.
//!   [`session_timeout`] bounds a whole session.

mod any;
mod classify;
mod codec;
mod config;
mod connect;
mod error;
mod handshake;
mod io;
mod route;
#[cfg(feature = "tls")]
mod tls;

pub use any::{AnyRoute, AnyRouteError};
pub use classify::{is_disconnected, net_error};
pub use codec::{FrameCodec, DEFAULT_MAX_FRAME_LENGTH};
pub use config::{Config, Fingerprint};
pub use connect::{session_timeout, Connections, Endpoint, SessionTimeout};
pub use error::{HandshakeError, NetError, NetErrorKind};
pub use io::Connection;
pub use route::{TcpRoute, DEFAULT_FLUSH_THRESHOLD};
#[cfg(feature = "tls")]
pub use tls::{rustls, TlsConfig};
