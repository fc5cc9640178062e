//! Code generation: communicating FSMs to the Rust session API of the `mpst` runtime.
//!
//! [`generate`] takes one FSM per role (projected from a Scribble protocol, or an
//! optimised one read from DOT) and returns Rust source defining the roles, the labels
//! and one session type per role, ready for `include!` or to be written to a file.
//!
//! From a build script, [`build::Build`] does the whole top-down workflow: it reads a
//! Scribble file, adds optimised roles from DOT files beside the projections
//! (`KOptimised` beside `KSession`, with one set of roles and labels:
//! [`generate_optimised`]) once asynchronous subtyping *proves* them safe, and writes the
//! API into `$OUT_DIR`, so nothing generated is committed. A failure fails the build with
//! the rendered diagnostic (`file:line:col`, the source line with carets, notes such as
//! the run that goes wrong):
//!
//! ```no_run
//! // build.rs
//! use mpst_codegen::build::{Build, BuildError};
//!
//! fn main() -> Result<(), BuildError> {
//!     Build::scribble("double_buffering.scr")
//!         .optimised("K", "kernel_optimised.dot")
//!         .generate()?;
//!     Ok(())
//! }
//! ```
//!
//! States are named after the messages that lead to them and the `rec` that starts
//! their loop ([`state_names`]), so editing one branch does not rename another's.
//!
//! # Why a string emitter
//!
//! The code is written as text that is already rustfmt-clean, not built with `quote`
//! and printed with `prettyplease`. Measured with callgrind (instructions, minus those of
//! parsing and projecting) on a three-role protocol of 2,000 messages and a choice: the
//! string emitter generates the whole API in 147 M instructions, while a `quote` +
//! `syn` + `prettyplease` prototype of the session types alone (the bulk of the output,
//! with simpler names) takes 369 M, a third of it in `syn` parsing the tokens back. The
//! output is one fixed shape per state, so the token trees would buy no safety that the
//! tests (every protocol's API formatted with rustfmt and compiled) do not give already.
//! `heck` is not used either: its upper camel case differs from the naming rule shared
//! with the FSM readers ([`mpst_fsm::ident::rust_name`]) on 7 of 25 names tried (`1`,
//! `x'`, `self`, `Self`, the empty name, `HTTPRequest`, `ABC`).

#![warn(missing_docs)]

pub mod build;
mod emit;
mod error;
mod names;
mod protocol;
pub mod state_names;
mod symbols;

pub use emit::{Options, generate, generate_optimised, generate_with};
pub use error::CodegenError;
pub use names::{foreign_sorts, rust_sort};
pub use protocol::{
    DEFAULT_VISITS, GenerateError, check_offers, check_offers_with, check_optimised,
    generate_scribble, prove_optimised, prove_optimised_with, role_fsms, role_fsms_with, swap_in,
};
