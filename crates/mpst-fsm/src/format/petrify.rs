//! The petrify writer: the communicating-automata input of the k-MC tool (`KMC --fsm`).

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::{Direction, Fsm, Message};

/// Writes a system of machines in the petrify-style format read by Lange & Yoshida's
/// k-MC tool (`KMC FILE K --fsm`, the input language of GMC). For the system
/// `[K, S]` of the double-buffering example it starts
///
/// ```text
/// -- machine 0: role K
/// .outputs
/// .state graph
/// q0 1 ! ready q1
/// q1 1 ? value q0
/// .marking q0
/// .end
///
/// -- machine 1: role S
/// .outputs
/// ...
/// ```
///
/// The exact format:
///
/// - one block per machine, in slice order, separated by an empty line; the comment
///   line `-- machine I: role R` (k-MC ignores `--` comments) records the role name;
/// - roles are numbered by their index in `system`; a peer that is not in `system` is
///   numbered after them, in sorted name order (a first `--` line lists such peers);
///   only reachable transitions count;
/// - every transition is a line `qS P ! M qT` (send to role `P`) or `qS P ? M qT`
///   (receive from role `P`); states use the canonical numbering of
///   [`Fsm::canonical`], so the initial state is `q0` and `.marking q0` follows;
///   transitions are listed by source state, then sorted by action;
/// - the message `M` is its label, followed by `<SORTS>` when it has payloads, with
///   the payload sorts joined by `,` (payload names are dropped). k-MC accepts only
///   ASCII letters and digits in labels and sorts, so every other byte, and `Z`
///   itself, is written as `Z` and two upper-case hex digits (`is_even` becomes
///   `isZ5Feven`, `i32,bool` becomes `i32Z2Cbool`); a label equal to k-MC's keyword
///   `graph` is written `Z67raph`. Equal messages give equal tokens and different
///   messages different ones.
///
/// A machine without transitions (a role that does nothing) gives an empty
/// `.state graph` section; k-MC itself requires at least one transition per machine.
pub fn write_petrify(system: &[Fsm]) -> String {
    let system: Vec<Fsm> = system.iter().map(Fsm::canonical).collect();
    let mut extra: BTreeSet<&str> = BTreeSet::new();
    for fsm in &system {
        for peer in fsm.peers() {
            if !system.iter().any(|m| m.role() == peer) {
                extra.insert(peer);
            }
        }
    }
    let extra: Vec<&str> = extra.into_iter().collect();
    let index = |peer: &str| {
        system
            .iter()
            .position(|m| m.role() == peer)
            .or_else(|| {
                extra
                    .iter()
                    .position(|&e| e == peer)
                    .map(|i| system.len() + i)
            })
            .unwrap_or(usize::MAX)
    };
    let mut out = String::new();
    if !extra.is_empty() {
        let _ = write!(out, "-- peers outside the system:");
        for (i, peer) in extra.iter().enumerate() {
            let _ = write!(out, " {} = {}", system.len() + i, single_line(peer));
        }
        out.push('\n');
    }
    for (i, fsm) in system.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        // Writing to a String cannot fail.
        let _ = writeln!(out, "-- machine {i}: role {}", single_line(fsm.role()));
        out.push_str(".outputs\n.state graph\n");
        for (source, t) in fsm.all_transitions() {
            let direction = match t.action.direction {
                Direction::Send => '!',
                Direction::Receive => '?',
            };
            let _ = writeln!(
                out,
                "q{source} {} {direction} {} q{}",
                index(&t.action.peer),
                message_token(&t.action.message),
                t.target
            );
        }
        let _ = writeln!(out, ".marking q{}", fsm.initial());
        out.push_str(".end\n");
    }
    out
}

fn single_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

/// `label` or `label<sorts>`, k-MC-safe.
fn message_token(message: &Message) -> String {
    let mut token = mangle(&message.label);
    if token == "graph" {
        token = "Z67raph".to_owned();
    }
    if !message.payloads.is_empty() {
        let sorts: Vec<&str> = message.payloads.iter().map(|p| p.ty.as_str()).collect();
        token.push('<');
        token.push_str(&mangle(&sorts.join(",")));
        token.push('>');
    }
    token
}

/// Keeps ASCII letters and digits except `Z`; writes every other byte as `Z` + two hex
/// digits. Injective, and the result is a k-MC identifier.
fn mangle(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() && b != b'Z' {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "Z{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Payload;

    #[test]
    fn tokens_are_kmc_identifiers_and_injective() {
        let plain = Message::new("ready");
        assert_eq!(message_token(&plain), "ready");
        let m = Message::with_payloads("is_even", vec![Payload::new("i32"), Payload::new("bool")]);
        assert_eq!(message_token(&m), "isZ5Feven<i32Z2Cbool>");
        assert_eq!(message_token(&Message::new("Zed")), "Z5Aed");
        assert_ne!(mangle("a_b"), mangle("aZ5Fb"));
        assert_eq!(message_token(&Message::new("graph")), "Z67raph");
    }
}
