//! Scribble global protocols: parser, well-formedness and projection to communicating FSMs.

#![warn(missing_docs)]

pub mod diagnostic;
pub mod global;

pub use diagnostic::{Diagnostic, ErrorKind};
pub use global::{Global, GlobalProtocol, Name, Span};
