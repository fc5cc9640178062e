//! Out-of-order choreographies (the Ozone paper) for async Rust: one program for all
//! roles, projected at run time, whose communications carry integrity keys so that
//! receivers bind every message correctly whatever order it arrives in.

mod choreography;
mod endpoint;
mod error;
mod key;
mod located;
mod nonblocking;
mod op;
mod role;
pub mod transport;

#[cfg(feature = "scribble")]
pub mod conform;
#[cfg(any(feature = "tcp", feature = "quic"))]
pub mod net;
pub mod paper;

pub use choreography::{Choreography, Runner};
pub use endpoint::{Config, Endpoint, EndpointStats};
pub use futures::future::Either;
pub use nonblocking::{PayloadContext, Source};
pub use op::Op;

pub use error::{ChoreoError, Result};
pub use key::{Frame, Key, Site, Token};
pub use located::{Located, LocatedFuture, Unwrapper};
pub use role::{HCons, HNil, Here, Member, Role, RoleName, RoleSet, Subset, There};
pub use transport::{Envelope, Event, EventKind, Observer, Recorder, Transport, TransportError};

/// What a choreography can communicate: values that postcard can encode and decode and
/// that can move between tasks (ChoRus calls this `Portable`).
pub trait Portable: serde::Serialize + serde::de::DeserializeOwned + Send + 'static {}

impl<T: serde::Serialize + serde::de::DeserializeOwned + Send + 'static> Portable for T {}
