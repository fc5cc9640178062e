//! The Scribble front end: lexer, parser, syntax tree, binding checks and lowering to
//! [`GlobalProtocol`]s.
//!
//! [`parse`] is the entry point most callers want. [`parse_module`] gives the raw
//! syntax tree (annotations and pragmas included) for tools that need it; [`check`]
//! and [`lower`] are the two steps `parse` runs after it.
//!
//! The dialect is the one nuscr accepts:
//!
//! ```text
//! module      ::= pragma? ("module" qname ";")? decl*
//! pragma      ::= "(*#" entry ("," entry)* "#*)"          -- any pragma is accepted
//! decl        ::= ("type" | "sig") "<" name ">" string "from" string "as" name ";"
//!               | "aux"? ("global" "protocol"? | "protocol") name
//!                 "(" "role" name ("," "role" name)* ")" annotation? block
//! block       ::= "{" interaction* "}"
//! interaction ::= name ("(" (payload ("," payload)*)? ")")? "from" name
//!                 "to" name ("," name)* ";" annotation?
//!               | "choice" "at" name block ("or" block)*
//!               | "rec" name block
//!               | "continue" name ";"                      -- last in its block
//!               | "do" name ("(" name ("," name)* ")")? ";" annotation?
//! payload     ::= (name ":")? qname                        -- `x: java.lang.String`
//! annotation  ::= "@" string
//! name        ::= [A-Za-z0-9_] [A-Za-z0-9_']*              -- `1`, `x'`
//! ```
//!
//! Comments are `//`, `(*)` (to the end of the line), `/* */` and nestable `(* *)`.
//! Recognised but rejected as [`crate::ErrorKind::Unsupported`]: refinements
//! (`x: int{x > 0}`, `rec X [...]`, `continue X [...]`), nested protocols and `calls`,
//! `new role`, delegation payloads `P@A`, `par`, `interruptible`, explicit connections
//! (`explicit`, `connect`, `disconnect`, `accept`), `import`, `local protocol` and
//! protocol parameters `<...>`.

pub mod ast;
mod check;
pub mod lexer;
mod lower;
mod parser;

pub use check::check;
pub use lower::{MAX_DEPTH, MAX_FILE_NODES, MAX_LOWERED_NESTING, MAX_NODES, lower};
pub use parser::{MAX_NESTING, parse_module};

use crate::diagnostic::Collector;
use crate::{Diagnostic, GlobalProtocol};

/// Parses a Scribble file and lowers every global protocol in it, in source order.
///
/// On failure, returns every problem found, in source order: syntax errors (the parser
/// recovers at `;` and `}`), unsupported constructs, and binding errors (unbound or
/// duplicate roles, unknown protocols, arity mismatches, unbound recursion variables).
/// Well-formedness beyond binding (guardedness, choice, merging) is checked later, on
/// the result. A choice branch that starts with `continue X` is unfolded into `X`'s body
/// where that is sound (see `unfold.rs`), so that the choice can be directed.
///
/// At most [`crate::diagnostic::MAX_DIAGNOSTICS`] diagnostics are returned, then one
/// that counts the rest.
pub fn parse(source: &str) -> Result<Vec<GlobalProtocol>, Vec<Diagnostic>> {
    let (module, mut diagnostics) = parser::parse_collect(source);
    diagnostics.extend(check(&module));
    if !diagnostics.is_empty() {
        return Err(diagnostics.finish());
    }
    let mut protocols = lower(&module).map_err(|all| {
        let mut diagnostics = Collector::default();
        diagnostics.extend(all);
        diagnostics.finish()
    })?;
    for protocol in &mut protocols {
        crate::unfold::continue_led(protocol);
    }
    Ok(protocols)
}
