//! The Mermaid `stateDiagram-v2` writer.

use std::fmt::Write;

use crate::Fsm;

/// Writes `fsm` as a Mermaid state diagram, e.g.
///
/// ```text
/// stateDiagram-v2
///     %% role K
///     [*] --> 0
///     0 --> 1 : s!ready()
///     1 --> 2 : s?done()
///     2 --> [*]
/// ```
///
/// States use the canonical numbering of [`Fsm::canonical`] (initial state `0`), so
/// equal behaviours give identical diagrams. The initial state is entered from `[*]`
/// and every final state (no outgoing transition) leads to `[*]`. Transition texts are
/// [`Action`](crate::Action)'s display; a `;` or `#` in a payload sort (which Mermaid
/// would read as syntax) is written as `#59;` / `#35;`, Mermaid's entity codes.
pub fn write_mermaid(fsm: &Fsm) -> String {
    let fsm = fsm.canonical();
    let mut out = String::from("stateDiagram-v2\n");
    // Writing to a String cannot fail.
    let _ = writeln!(out, "    %% role {}", fsm.role().replace('\n', " "));
    let _ = writeln!(out, "    [*] --> {}", fsm.initial());
    for (source, transition) in fsm.all_transitions() {
        let text = escape(&transition.action.to_string());
        let _ = writeln!(out, "    {source} --> {} : {text}", transition.target);
    }
    for state in (0..fsm.state_count()).filter(|&s| fsm.is_final(s)) {
        let _ = writeln!(out, "    {state} --> [*]");
    }
    out
}

/// Replaces the characters Mermaid reads as syntax in a transition text.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '#' => out.push_str("#35;"),
            ';' => out.push_str("#59;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}
