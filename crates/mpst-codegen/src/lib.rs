//! Code generation: communicating FSMs to the Rust session API of the `mpst` runtime.
//!
//! [`generate`] takes one FSM per role (projected from a Scribble protocol, or an
//! optimised one read from DOT) and returns Rust source defining the roles, the labels
//! and one session type per role, ready for `include!` or to be written to a file.

#![warn(missing_docs)]

pub mod build;
mod emit;
mod error;
mod names;
mod protocol;
pub mod state_names;

pub use emit::{generate, generate_with, Options};
pub use error::CodegenError;
pub use names::{foreign_sorts, rust_sort};
pub use protocol::{generate_scribble, role_fsms, GenerateError, DEFAULT_VISITS};
