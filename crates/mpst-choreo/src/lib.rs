//! Out-of-order choreographies (the Ozone paper) for async Rust: one program for all
//! roles, projected at run time, whose communications carry integrity keys so that
//! receivers bind every message correctly whatever order it arrives in.
//!
//! # A guided tour
//!
//! A *choreography* is one `async fn run` for all the roles of a protocol. Each process
//! runs it as one role: operators that concern that role do their part (send, receive,
//! compute), the others are skipped. Values live at roles: a [`Located<T, R>`] is a `T`
//! that only role `R` holds, and reading it anywhere else does not compile.
//!
//! Figure 2 of the paper: services `KS` and `CS` send a key and a text to a server `S`,
//! which forwards both to a client `C` *in whichever order they arrive*. Both are
//! `String`s from the same sender, so a receiver that assumed an order could swap them;
//! here each message carries its integrity key, and `C` binds each to the right variable.
//!
//! ```
//! use mpst_choreo::transport::InMemory;
//! use mpst_choreo::{Choreography, Located, Op, Result, RoleSet, Runner, roles};
//! use std::sync::Arc;
//!
//! roles! { pub struct KS; pub struct CS; pub struct S; pub struct C; }
//!
//! #[derive(Clone)]
//! struct ConcurrentSend { key: String, txt: String }
//!
//! impl Choreography<Located<(String, String), C>> for ConcurrentSend {
//!     type Roles = RoleSet![KS, CS, S, C];
//!
//!     async fn run(self, op: &Op<Self::Roles>) -> Result<Located<(String, String), C>> {
//!         let key = op.locally(KS, |_| self.key);
//!         let txt = op.locally(CS, |_| self.txt);
//!         let key_s = op.fcomm(KS, S, &key); // a future at S, returned at once
//!         let txt_s = op.fcomm(CS, S, &txt);
//!         let key_c = op.fcomm(S, C, key_s); // forwarded when it arrives
//!         let txt_c = op.fcomm(S, C, txt_s);
//!         op.wait(C, op.join(C, key_c, txt_c)).await
//!     }
//! }
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() {
//!     let net = Arc::new(InMemory::new(<RoleSet![KS, CS, S, C]>::names()));
//!     let choreo = ConcurrentSend { key: "k3y".into(), txt: "hello".into() };
//!     for (role, result) in Runner::new(net).run(choreo).await {
//!         let at_c = result.expect("no role fails").into_local();
//!         let want = (role.as_str() == "C").then(|| ("k3y".into(), "hello".into()));
//!         assert_eq!(at_c, want);
//!     }
//! }
//! ```
//!
//! ## The pieces
//!
//! - **Roles** are zero-sized types declared with [`roles!`]; a choreography's role set is
//!   a type, [`RoleSet!`]`[A, B, C]`. Operators take roles as values (`op.comm(A, B, &x)`)
//!   and require them to be [`Member`]s of the set, so a stray role is a compile error.
//! - **[`Op`]** holds the operators. Blocking: [`Op::locally`], [`Op::comm`],
//!   [`Op::broadcast`], [`Op::cond`] (a conditional whose decision is sent, as a keyed
//!   selection, to exactly the roles of the branch's set; the others skip it),
//!   [`Op::call`] / [`Op::call_indexed`] / [`Op::iterate`] (procedures with role
//!   parameters, and loops). Non-blocking (Ozone): [`Op::fcomm`] returns a
//!   [`LocatedFuture`] at once and forwards a future when it completes; [`Op::join`],
//!   [`Op::select`], [`Op::then`], [`Op::wait`], [`Op::detach`].
//! - **Integrity keys** ([`Key`]) pair a static [`Site`] — the operator's
//!   `#[track_caller]` source location, hashed stably — with a [`Token`], the list of
//!   call frames leading to the invocation. Tokens advance locally and deterministically
//!   at every call, loop iteration and top-level session, with no coordinator. A key used
//!   twice at one role is an error naming both sites, never a silent mis-binding.
//! - **Projection** happens at run time: an [`Endpoint`] plays one role over a
//!   [`Transport`]; [`Endpoint::run`] starts a session (several may run concurrently);
//!   [`Runner`] plays every role in one process for tests.
//! - **Transports** need no ordering: the contract is in [`transport`]; the crate ships
//!   [`transport::InMemory`] and the seeded [`transport::Chaos`] (reorders, delays,
//!   duplicates, drops), and network transports over `mpst-wire` (`net::tcp`,
//!   `net::quic`) where every role proves its role with a certificate before any of its
//!   envelopes is read. Receivers keep a mailbox filed by sender and integrity key, refuse
//!   duplicates and envelopes naming the wrong sender, bound what nobody has claimed, and
//!   time out ([`EndpointConfig::recv_timeout`]) with an error naming the key and the peer when a
//!   message is lost, or fail at once when the transport loses the peer.
//! - **Observation**: an [`Observer`] sees every send, receive and refused duplicate with
//!   its key and label, e.g. to check a global trace against a protocol.
//!
//! The model, the guarantees and their limits, a table from the paper's constructs to
//! this API, and a comparison with ChoRus are in `docs/CHOREOGRAPHIES.md`.
//!
//! # Features
//!
//! | Feature | Default | What it adds |
//! |---|---|---|
//! | `tcp` | yes | `net::tcp`: the TCP transport |
//! | `quic` | no | `net::quic`: the QUIC transport |
//! | `scribble` | no | `conform`: replaying recorded traces through a Scribble protocol |
//! | `testing` | no | test hooks, not for production: `EndpointConfig::ignore_keys` (the negative control that binds in arrival order) and the `hold` field of `TcpConfig` and `QuicConfig` (fault injection) |

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod choreography;
mod endpoint;
pub mod error;
mod exchange;
mod key;
mod located;
mod nonblocking;
mod op;
mod role;
mod run;
mod sessions;
pub mod transport;

#[cfg_attr(docsrs, doc(cfg(feature = "scribble")))]
#[cfg(feature = "scribble")]
pub mod conform;
#[cfg_attr(docsrs, doc(cfg(any(feature = "tcp", feature = "quic"))))]
#[cfg(any(feature = "tcp", feature = "quic"))]
pub mod net;

pub use choreography::{Choreography, Runner};
pub use endpoint::{Endpoint, EndpointConfig, EndpointStats};
/// The former name of [`EndpointConfig`], kept for one release.
#[deprecated(note = "renamed to `EndpointConfig`")] // rename-27: keep
pub type Config = EndpointConfig; // rename-27: keep
pub use futures::future::Either;
pub use nonblocking::{Payload, PayloadContext, Source};
pub use op::Op;
pub use sessions::Sessions;

pub use error::{ChoreoError, Result};
pub use key::{Frame, Key, Site, Token};
pub use located::{Located, LocatedFuture, Unwrapper};
pub use role::{HCons, HNil, Here, Member, Role, RoleName, RoleSet, Subset, There};
pub use transport::{Envelope, Event, EventKind, Observer, Recorder, Transport, TransportError};

/// What a choreography can communicate: values that postcard can encode and decode and
/// that can move between tasks (ChoRus calls this `Portable`).
pub trait Portable: serde::Serialize + serde::de::DeserializeOwned + Send + 'static {}

impl<T: serde::Serialize + serde::de::DeserializeOwned + Send + 'static> Portable for T {}
