//! File formats for communicating FSMs: DOT (read and write), petrify and Mermaid.
//!
//! - [`write_dot`] / [`parse_dot`]: Graphviz DOT in nuscr's dialect (the initial state
//!   bold, final states double-bordered), the exchange format of `mpst project`,
//!   `mpst subtype` and `mpst kmc`. The reader also accepts
//!   nuscr's own output and the original Rumpsteak form `digraph "S" { 0 -> 1
//!   [label="T?ready"]; }`, and reports errors as [`DotError`]s with line and column.
//!   [`parse_dot_located`] also keeps where each digraph, state and transition is, so
//!   [`check_system`] and [`LocatedFsm::mixed_state`] can locate later problems.
//! - [`write_petrify`]: a whole system in the input format of the k-MC tool.
//! - [`write_mermaid`]: a Mermaid `stateDiagram-v2`, for documentation.
//! - [`write_sequence_mermaid`]: a run (a counterexample) as a Mermaid message sequence
//!   chart (its SVG picture is `mpst_viz::run_chart`'s).
//!
//! Every writer uses the canonical state numbering of [`Fsm::canonical`](crate::Fsm::canonical),
//! so equal protocols give byte-identical output.

mod dot;
mod dot_lex;
mod dot_read;
mod dot_spans;
mod dot_split;
mod dot_states;
mod error;
mod label;
mod mermaid;
mod msc;
mod petrify;

pub use dot::write_dot;
pub use dot_read::{
    parse_dot, parse_dot_located, parse_dot_nondeterministic, parse_dot_nondeterministic_with,
    parse_dot_with,
};
pub use dot_spans::{DotSpans, LocatedFsm, SystemError, check_system};
pub use error::DotError;
pub use mermaid::write_mermaid;
pub use msc::write_sequence_mermaid;
pub use petrify::write_petrify;

/// `n` and a regular noun, singular for one and plural otherwise: `1 state`,
/// `2 states`, `0 configurations`. Every message that counts uses it.
pub fn count<N: std::fmt::Display + PartialEq + From<u8>>(n: N, noun: &str) -> String {
    if n == N::from(1) {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
