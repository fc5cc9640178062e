//! Message sequence charts of a run (a k-MC counterexample or a subtyping
//! refutation) as Mermaid `sequenceDiagram` text. The SVG picture of a run is
//! `mpst_viz::run_chart`'s, the one drawer of runs.
//!
//! Each send is matched with the receive that takes it (FIFO per ordered pair of
//! roles); a message never received is drawn as lost. The chart ends with a note
//! saying what went wrong.

use std::fmt::Write as _;

use crate::kmc::Step;
use crate::{Action, Direction};

/// One message of a run: who sends what to whom, at which step, and at which step it
/// is received (if ever).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Arrow {
    from: String,
    to: String,
    label: String,
    sent: usize,
    received: Option<usize>,
}

/// The roles in order of first appearance (every mover and every peer).
fn roles(trace: &[Step], extra: &[String]) -> Vec<String> {
    let mut roles: Vec<String> = extra.to_vec();
    for step in trace {
        for r in [&step.role, &step.action.peer] {
            if !roles.contains(r) {
                roles.push(r.clone());
            }
        }
    }
    roles
}

fn label(action: &Action) -> String {
    let text = action.to_string();
    // `p!m(i32)` -> `m(i32)`
    text.split_once(action.direction.symbol())
        .map_or(text.clone(), |(_, rest)| rest.to_string())
}

/// Pairs every send with the receive that takes it off its queue.
fn arrows(trace: &[Step]) -> Vec<Arrow> {
    let mut arrows: Vec<Arrow> = Vec::new();
    for (i, step) in trace.iter().enumerate() {
        match step.action.direction {
            Direction::Send => arrows.push(Arrow {
                from: step.role.clone(),
                to: step.action.peer.clone(),
                label: label(&step.action),
                sent: i,
                received: None,
            }),
            Direction::Receive => {
                if let Some(a) = arrows.iter_mut().find(|a| {
                    a.received.is_none() && a.from == step.action.peer && a.to == step.role
                }) {
                    a.received = Some(i);
                }
            }
        }
    }
    arrows
}

fn mermaid_text(text: &str) -> String {
    text.replace(';', "#59;").replace('\n', " ")
}

/// The run as a Mermaid `sequenceDiagram`: one participant per role (`roles` first,
/// in that order, then any other role of the run), one asynchronous arrow per message
/// drawn when it is received (`p-)q: m()`; a message never received is drawn at its
/// send, marked lost), and a final note with `outcome`.
pub fn write_sequence_mermaid(roles_first: &[String], trace: &[Step], outcome: &str) -> String {
    let roles = roles(trace, roles_first);
    let arrows = arrows(trace);
    let mut out = String::from("sequenceDiagram\n");
    for role in &roles {
        let _ = writeln!(out, "    participant {role}");
    }
    for (i, step) in trace.iter().enumerate() {
        let sent = arrows.iter().find(|a| a.sent == i && a.received.is_none());
        let received = arrows.iter().find(|a| a.received == Some(i));
        if let Some(a) = sent {
            let _ = writeln!(
                out,
                "    {}-x{}: {} (never received)",
                a.from,
                a.to,
                mermaid_text(&a.label)
            );
        } else if let Some(a) = received {
            let _ = writeln!(out, "    {}-){}: {}", a.from, a.to, mermaid_text(&a.label));
        } else if step.action.direction == Direction::Receive {
            let _ = writeln!(
                out,
                "    Note over {}: {}",
                step.role,
                mermaid_text(&step.action.to_string())
            );
        }
    }
    let (first, last) = (roles.first(), roles.last());
    if let (Some(first), Some(last)) = (first, last) {
        let _ = writeln!(
            out,
            "    Note over {first},{last}: {}",
            mermaid_text(outcome)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Action, Message};

    fn step(role: &str, action: Action) -> Step {
        Step {
            role: role.into(),
            action,
        }
    }

    fn run() -> Vec<Step> {
        vec![
            step("a", Action::send("b", Message::new("x<y"))),
            step("a", Action::send("b", Message::new("lost"))),
            step("b", Action::receive("a", Message::new("x<y"))),
        ]
    }

    #[test]
    fn sends_are_paired_with_their_receives_in_fifo_order() {
        let arrows = arrows(&run());
        assert_eq!(arrows.len(), 2);
        assert_eq!((arrows[0].sent, arrows[0].received), (0, Some(2)));
        assert_eq!(arrows[1].received, None);
    }

    #[test]
    fn mermaid_shows_every_message_and_the_outcome() {
        let text = write_sequence_mermaid(&["b".into()], &run(), "orphan; lost");
        assert!(text.starts_with("sequenceDiagram\n    participant b\n    participant a\n"));
        assert!(text.contains("    a-)b: x<y()\n"), "{text}");
        assert!(
            text.contains("    a-xb: lost() (never received)\n"),
            "{text}"
        );
        assert!(text.contains("Note over b,a: orphan#59; lost"), "{text}");
    }
}
