//! The Scribble front end: lexer, parser, syntax tree, binding checks and lowering to
//! [`GlobalProtocol`]s.
//!
//! [`parse`] is the entry point most callers want. [`parse_module`] gives the raw
//! syntax tree (annotations and pragmas included) for tools that need it.

pub mod ast;
mod check;
pub mod lexer;
mod lower;
mod parser;

pub use check::check;
pub use lower::{lower, MAX_DEPTH, MAX_LOWERED_NESTING, MAX_NODES};
pub use parser::{parse_module, MAX_NESTING};

use crate::{Diagnostic, GlobalProtocol};

/// Parses a Scribble file and lowers every global protocol in it, in source order.
///
/// On failure, returns every problem found, in source order: syntax errors (the parser
/// recovers at `;` and `}`), unsupported constructs, and binding errors (unbound or
/// duplicate roles, unknown protocols, arity mismatches, unbound recursion variables).
/// Well-formedness beyond binding (guardedness, choice, merging) is checked later, on
/// the result.
pub fn parse(source: &str) -> Result<Vec<GlobalProtocol>, Vec<Diagnostic>> {
    let (module, mut diagnostics) = parse_module(source);
    diagnostics.extend(check(&module));
    if !diagnostics.is_empty() {
        diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
        return Err(diagnostics);
    }
    lower(&module)
}
