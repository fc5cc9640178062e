//! Scribble global protocols: parser, well-formedness and projection to communicating FSMs.

#![warn(missing_docs)]

pub mod diagnostic;
pub mod frontend;
pub mod generated;
pub mod global;
pub mod project;
pub mod sorts;
pub mod syntax;
mod unfold;
pub mod wf;

pub use diagnostic::{Diagnostic, ErrorKind};
pub use frontend::{FrontendError, Loaded, Parsed, load};
pub use global::{Global, GlobalProtocol, Name, Span};
pub use project::{Projection, project, project_all, project_fsm};
pub use syntax::parse;
pub use wf::check;
