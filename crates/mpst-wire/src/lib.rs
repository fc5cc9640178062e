//! The authenticated network layer under both of mpst's runtimes (the session runtime's
//! `mpst::net` and `mpst-choreo`'s TCP and QUIC transports): one frame codec, dialling
//! with back-off, an acceptor that strangers cannot block, one versioned handshake, mutual
//! TLS where each role's certificate names its role, one error type and one
//! configuration.
//!
//! * **Frames** ([`FrameCodec`]): a 4-byte big-endian length, then a postcard body;
//!   oversized lengths refused from the header; every malformed frame a [`FrameError`].
//! * **Configuration** ([`WireConfig`]): built in code or read from TOML with the same
//!   field names; the security mode must be chosen: identity files, or
//!   `insecure_plaintext`, never by default.
//! * **A role's node** ([`Node`]): dials peers ([`Node::dial`]: `host:port` resolved on
//!   every attempt, exponential back-off to a deadline that cannot overflow, the whole of
//!   which is used) and accepts
//!   them ([`Node::bind`] -> [`Acceptor`]: concurrent handshakes, each with a deadline, a
//!   cap on those pending, back-off on `accept()` errors; a failed or hostile connection
//!   is closed and logged, never fails the role).
//! * **Handshake** ([`hello`]): magic, version, protocol, roles, an application field
//!   ([`Application`]) and a fresh nonce from each side; the answer is accept or a
//!   [`Refusal`] the peer reads before the connection closes; the dialler confirms by
//!   echoing the acceptor's nonce; the acceptor's final word, bound to the transcript,
//!   tells the dialler the connection is established (the acceptor yields it and never
//!   closes it for its deadline or to make room afterwards). Each [`Connection`] has a
//!   [`RunId`] from both nonces.
//! * **Identity** ([`Identity`], [`certs`]): a deployment CA issues each role a
//!   certificate naming it ([`names`] describes the scheme); both sides verify the chain
//!   and that the peer's certificate names the role it claims.
//! * **Errors** ([`WireError`]) name the peer as authenticated, or by its address when it
//!   is not ([`Peer`]).
//!
//! ```
//! use mpst_wire::{certs::Deployment, Expected, Node, WireConfig};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let pki = Deployment::generate("ping/1", ["A", "B"])?;
//! let b = Node::new(WireConfig::new("ping/1", "B").listen("127.0.0.1:0").mutual_tls(pki.identity("B")))?;
//! let mut acceptor = b.bind(Expected::new().peer("A", 1)).await?;
//! let at = acceptor.local_addr().to_string();
//! let a = Node::new(WireConfig::new("ping/1", "A").peer("B", at).mutual_tls(pki.identity("A")))?;
//! let (dialled, accepted) = tokio::join!(a.dial("B"), acceptor.next());
//! let (dialled, accepted) = (dialled?, accepted.expect("accepted"));
//! assert_eq!(accepted.peer_role(), "A");
//! assert!(accepted.is_authenticated());
//! assert_eq!(dialled.run_id(), accepted.run_id());
//! # Ok(())
//! # }
//! ```

pub mod accept;
mod admit;
pub mod certs;
pub mod codec;
pub mod config;
pub mod dial;
pub mod duration;
pub mod env;
pub mod error;
pub mod exit;
pub mod hello;
pub mod identity;
pub mod names;
pub mod node;
mod pending;
pub mod stream;

pub use accept::{AcceptStats, Acceptor, Expected};
pub use codec::{DEFAULT_MAX_FRAME_LENGTH, FrameCodec, FrameError};
pub use config::{Security, WireConfig};
pub use error::{Attempt, Peer, Refusal, WireError, WireErrorKind};
pub use exit::RoleExit;
pub use identity::{Identity, IdentityError};
pub use node::{Application, NoApplication, Node, deadline_after, dials};
pub use stream::{Connection, ConnectionInfo, RunId, Stream};

/// The rustls version the identities are built with (to use their configurations, e.g.
/// with quinn, without depending on it separately).
pub use tokio_rustls::rustls;
