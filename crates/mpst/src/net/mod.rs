//! Roles as separate processes over TCP (feature `tcp`): a [`TcpRoute`] per peer carries
//! the role's label enum as length-prefixed postcard frames, and the session code is the
//! same as in memory. Framing, dialling, accepting, the handshake, TLS and identities
//! are the shared network layer's, `mpst_wire` (also under `mpst-choreo`).
//!
//! * **Roles**: a `#[derive(Role)]` struct whose routes are [`TcpRoute`]s (or
//!   [`AnyRoute`]s, which are in-memory channels under `Roles::default()` and TCP
//!   connections under [`Connections::into_role`]), with a label enum deriving
//!   `serde::Serialize` and `serde::Deserialize` (`mpst generate --serde --channel
//!   'mpst::net::AnyRoute<Label>'` emits both).
//! * **Identity**: every connection proves its role before any label from it is read:
//!   mutual TLS (rustls), each role presenting a certificate that names its role and
//!   protocol, issued by the deployment's CA (`mpst certs --name P --role A --role B
//!   --out DIR` writes them as PEM files, and [`certs`] makes them in code;
//!   [`NetConfig::identity_files`] or `[security]` in TOML reads them). Plain TCP, where anyone can claim any role, only with
//!   [`NetConfig::insecure_plaintext`]; with neither, connecting fails.
//! * **Wire format**: one frame per label, a 4-byte big-endian length then the label
//!   encoded with postcard ([`FrameCodec`], the framing of tokio-util's
//!   `LengthDelimitedCodec`); frames above a limit (16 MiB by default) are refused from
//!   their header, and every malformed frame is a [`NetError`], never a panic.
//! * **Buffering**: sends go to a write buffer, written out when the runtime flushes the
//!   role (before it waits on a receive, and at `End`), before a send that finds the
//!   buffer at the threshold (8 KiB by default), or when the route itself is polled for a
//!   receive; consecutive sends coalesce into one write.
//! * **Connecting** ([`NetConfig`], built in code or read from TOML by the same API): every
//!   peer is listed once, with its address or without one, and the library decides who
//!   dials ([`NetConfig::dials`]); diallers retry until the connection deadline, so roles may
//!   start in any order. Bind `127.0.0.1:0` and read the real port with
//!   [`BoundRole::local_addr`] to pass it on.
//! * **Strangers**: accepted connections run their handshakes side by side, each within
//!   a time-out, a bounded number at once; garbage, idle sockets, plaintext on a TLS port,
//!   a certificate for another role, a wrong protocol or role are refused (the reason
//!   written before the connection closes, so the refused side reads it), logged with
//!   the remote address, and accepting goes on: a stranger changes nothing for the real
//!   peers (at the cap of pending handshakes the oldest is closed to make room, and a
//!   dialler whose connection is closed retries). Refusals name the authenticated peer,
//!   or the remote address — never the role a connection merely claims.
//! * **Handshake**: `mpst_wire`'s hello (protocol, roles, fresh nonces) carries this
//!   role's session type [`Fingerprint`] (the SHA-256 of its serialised FSM) and the one
//!   it expects of the peer; either side refuses a mismatch naming the role. Each process
//!   knows its own session type and, if it pins them with [`NetConfig::expect`], its peers'.
//! * **Acknowledgements**: each frame is tagged, a label or the reader's count of labels
//!   read, sent back every [`ACK_INTERVAL`] that some were read by the one thread per
//!   process that tends connections (so a role busy with another peer still
//!   acknowledges). A route whose labels stay unacknowledged with no word from the peer
//!   for the idle time-out fails naming it ([`NetErrorKind::Unacknowledged`]), at its next
//!   send, flush or receive; closing a route, or [`Connections::delivered`] after a
//!   session, waits for every acknowledgement. None of it needs tokio's time driver (the
//!   receive and idle time-outs, and connecting, do: `enable_all`, or `enable_time`).
//!   The link version ([`LINK_VERSION`]) follows the fingerprints in the hello: an older
//!   peer is refused at the set-up, naming both versions.
//! * **Failures**: the first failure of a route (reset, truncated, malformed or oversized
//!   frame, receive time-out — 30 s by default) is a [`NetError`] naming the peer,
//!   carried by the runtime's transport error kinds with the transport's text; a peer
//!   that closes between frames is the runtime's "disconnected", at once. Afterwards the
//!   route is closed. A session that fails or is dropped aborts its routes, which closes
//!   their sockets, so its peers fail at once. [`try_session_until`](crate::try_session_until)
//!   bounds a whole session (with `tokio::time::sleep(d)` as its deadline): on time-out
//!   the session is dropped, so its routes are aborted and its peers fail at once too;
//!   [`is_disconnected`] tells whether a session error means the peer went away, however
//!   the socket reported it.

mod any;
mod classify;
mod config;
mod connect;
mod error;
mod frame;
mod ledger;
mod link;
mod route;
mod tender;

pub use any::{AnyRoute, AnyRouteError};
pub use classify::{is_disconnected, net_error};
pub use config::{
    DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_MAX_PENDING_HANDSHAKES, DEFAULT_RECEIVE_TIMEOUT,
    Fingerprint, NetConfig,
};
pub use connect::{BoundRole, Connections};
pub use error::{NetError, NetErrorKind};
pub use frame::LINK_VERSION;
pub use link::{ACK_INTERVAL, Delivered};
/// Issuing a CA and one certificate per role, in memory or as PEM files (for tests and
/// development).
pub use mpst_wire::certs;
pub use mpst_wire::{
    DEFAULT_MAX_FRAME_LENGTH, FrameCodec, Identity, Refusal, Stream, WireConfig, WireErrorKind,
    rustls,
};
pub use route::{DEFAULT_FLUSH_THRESHOLD, TcpRoute};

/// The former name of [`NetConfig`], kept for one release.
#[deprecated(note = "renamed to `NetConfig`")] // rename-27: keep
pub type Config = NetConfig; // rename-27: keep

/// The former name of [`BoundRole`], kept for one release (`mpst_choreo::Endpoint` is
/// another thing: a choreography role's runtime).
#[deprecated(note = "renamed to `BoundRole`")] // rename-27: keep
pub type Endpoint = BoundRole; // rename-27: keep

#[cfg(test)]
mod tests {
    use std::any::TypeId;

    /// The names issue 27 replaced still work for one release.
    #[test]
    #[allow(deprecated)]
    fn the_former_names_are_the_new_ones() {
        use super::{BoundRole, Config, Endpoint, NetConfig}; // rename-27: keep
        assert_eq!(TypeId::of::<Config>(), TypeId::of::<NetConfig>()); // rename-27: keep
        assert_eq!(TypeId::of::<Endpoint>(), TypeId::of::<BoundRole>()); // rename-27: keep
    }
}
