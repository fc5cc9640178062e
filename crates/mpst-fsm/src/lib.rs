//! Communicating finite-state machines (CFSMs) for multiparty session types.
//!
//! This crate is the verification core of `mpst`. It knows nothing about async
//! code, procedural macros or the filesystem: it works on values.
//!
//! - [`Fsm`]: one communicating FSM per role, with [`Action`]s `p!l(T)` / `p?l(T)`;
//! - [`LocalType`]: the local session types of the PPoPP paper (Definition 1), with
//!   internal choices whose branches may go to different peers, and their translation
//!   to FSMs.

#![warn(missing_docs)]

pub mod families;
pub mod format;
mod fsm;
mod fsm_index;
pub mod ident;
pub mod kmc;
mod local;
mod local_parse;
pub mod subtype;
pub mod text;
pub mod witness;

pub use format::{DotError, parse_dot, write_dot, write_mermaid, write_petrify};
pub use fsm::{Action, Direction, Fsm, FsmError, Message, Payload, StateId, StateKind, Transition};
pub use kmc::{KmcReport, KmcViolation, check_kmc, least_k};
pub use local::{LocalType, LocalTypeError};
pub use local_parse::LocalParseError;
pub use subtype::{NotProved, is_subtype};
