//! Code generation: communicating FSMs to the Rust session API of the `mpst` runtime.
//!
//! [`generate`] takes one FSM per role (projected from a Scribble protocol, or an
//! optimised one read from DOT) and returns Rust source defining the roles, the labels
//! and one session type per role, ready for `include!` or to be written to a file.
//!
//! From a build script, [`build::Build`] does the whole top-down workflow: it reads a
//! Scribble file, swaps in optimised roles from DOT files once asynchronous subtyping
//! *proves* them safe, and writes the API into `$OUT_DIR`, so nothing generated is
//! committed. A failure fails the build with the rendered diagnostic (`file:line:col`,
//! the source line with carets, notes such as the run that goes wrong):
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

#![warn(missing_docs)]

pub mod build;
mod emit;
mod error;
mod names;
mod protocol;

pub use emit::{generate, generate_with, Options};
pub use error::CodegenError;
pub use names::{foreign_sorts, rust_sort};
pub use protocol::{generate_scribble, role_fsms, role_fsms_with, GenerateError, DEFAULT_VISITS};
