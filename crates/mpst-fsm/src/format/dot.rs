//! The DOT writer: nuscr's dialect, tidy, with the initial and final states marked.

use std::fmt::Write;

use crate::{Fsm, StateKind};

/// Writes `fsm` as a Graphviz digraph, e.g.
///
/// ```text
/// digraph K {
///   0 [style=bold];
///   1;
///   2 [peripheries=2];
///   0 -> 1 [label="s!ready()"];
///   1 -> 0 [label="s?value(x: i32)"];
///   1 -> 2 [label="s?stop()"];
/// }
/// ```
///
/// The digraph is named after the role. States are written in canonical numbering
/// ([`Fsm::canonical`]: initial state `0`, breadth-first, unreachable states dropped),
/// so machines with the same behaviour give byte-identical output. The initial state
/// is drawn bold (`style=bold`) and every final state, one without transitions, with
/// a double border (`peripheries=2`): node attributes, which nuscr-compatible readers
/// (ours included) ignore, so the initial state is still found as `0`. Edge labels are
/// [`Action`](crate::Action)'s display, `peer!label(payloads)` / `peer?label(...)`.
/// [`parse_dot`](super::parse_dot) reads the output back.
pub fn write_dot(fsm: &Fsm) -> String {
    let fsm = fsm.canonical();
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "digraph {} {{", dot_id(fsm.role()));
    for state in 0..fsm.state_count() {
        let mut marks = Vec::new();
        if state == fsm.initial() {
            marks.push("style=bold");
        }
        if fsm.kind(state) == StateKind::End {
            marks.push("peripheries=2");
        }
        if marks.is_empty() {
            let _ = writeln!(out, "  {state};");
        } else {
            let _ = writeln!(out, "  {state} [{}];", marks.join(", "));
        }
    }
    for (source, transition) in fsm.all_transitions() {
        let _ = writeln!(
            out,
            "  {source} -> {} [label={}];",
            transition.target,
            quote(&transition.action.to_string())
        );
    }
    out.push_str("}\n");
    out
}

/// `text` as a DOT ID: unchanged if it is a plain identifier that is not a keyword,
/// quoted otherwise.
pub(super) fn dot_id(text: &str) -> String {
    const KEYWORDS: [&str; 6] = ["node", "edge", "graph", "digraph", "subgraph", "strict"];
    let mut chars = text.chars();
    let plain = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(text));
    if plain { text.to_owned() } else { quote(text) }
}

/// `text` as a double-quoted DOT string, escaping `"` and `\`.
pub(super) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}
