//! The presentation layer of the mpst toolchain, shared by the `mpst` command line, the
//! build-script helper of `mpst-codegen` and the HTML report: what a person reads when an
//! input is wrong.
//!
//! - [`Diagnostic`]s carry structured locations ([`Label`]s: a file and a byte range), so
//!   a machine-readable output reads the [`Place`] (`file:line:column`) directly and never
//!   parses rendered text.
//! - A [`Report`] (sources and their diagnostics) has one renderer ([`Report::render`]):
//!   codespan-reporting, coloured or not, a line over 400 bytes located but not quoted.
//! - One DOT loader ([`dot`]): sorts normalised by Scribble's table, malformed input,
//!   roles played twice, unknown peers and states that are not session types located.
//! - One reader of optimised roles ([`optimised`]): `ROLE=FSM.dot`, the role's digraph,
//!   and a refusal by subtyping located at the action where the rules stopped.
//!
//! Line and column come from [`mpst_fsm::text`], the workspace's one rule.
//!
//! ```
//! use mpst_diagnostics::{Diagnostic, Report, Source};
//!
//! let source = Source::new("k.dot", "digraph K {\n  0 -> 1 [label=\"S#m()\"];\n}\n");
//! let report = Report::single(
//!     source,
//!     Diagnostic::error("malformed DOT: expected `!` or `?`").with_primary(0, 30..31, ""),
//! );
//! assert_eq!(report.headline(), "k.dot:2:19: malformed DOT: expected `!` or `?`");
//! assert!(report.render(false).contains("┌─ k.dot:2:19"));
//! ```
//!
//! The verification crates below know nothing of this crate; the front end still
//! renders nothing.

mod diagnostic;
pub mod dot;
pub mod optimised;
mod read;
mod render;

pub use diagnostic::{Diagnostic, Label, Severity, unused_roles};
pub use read::{MAX_INPUT_BYTES, ReadError, decode, read};
pub use render::{MAX_QUOTED_LINE, Place, Report, Source};

/// Asserts that `text` shows every one of `needles` (tests of the renderings).
#[cfg(test)]
fn assert_shows(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "no {needle:?} in:\n{text}");
    }
}
