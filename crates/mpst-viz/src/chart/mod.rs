//! Sequence charts, drawn by hand as SVG in the style of UML sequence diagrams: one
//! lifeline per role, one arrow per message, choices as `alt` frames (one compartment
//! per branch, separated by dashed lines) and recursion as `loop` frames.
//!
//! Two things are charted: a global protocol ([`global_chart`]), every branch and
//! loop at once, and a run of a system of machines ([`run_chart`]) such as a k-MC
//! counterexample or a subtyping refutation, whose arrows slant from the step that
//! sends to the step that receives, and whose final note (what went wrong) always
//! fits the picture.

mod canvas;

use mpst_fsm::Direction;
use mpst_fsm::kmc::Step;
use mpst_scribble::{Global, GlobalProtocol};

use crate::svg::text_width;
use canvas::{Canvas, FONT, ROW};

/// Space a frame's tab takes above its first row.
const TAB: f64 = 26.0;

/// The widest message label and the deepest frame nesting of `g`.
fn measure(g: &Global) -> (f64, usize) {
    let mut widest: f64 = 0.0;
    let mut deepest = 0;
    // (node, frames around it)
    let mut stack = vec![(g, 0usize)];
    while let Some((g, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        match g {
            Global::End | Global::Continue(_) => {}
            Global::Message { message, cont, .. } => {
                widest = widest.max(text_width(&message.to_string(), FONT));
                stack.push((cont, depth));
            }
            Global::Choice { branches, .. } => {
                stack.extend(branches.iter().map(|b| (b, depth + 1)));
                deepest = deepest.max(depth + 1);
            }
            Global::Rec { body, .. } => {
                stack.push((body, depth + 1));
                deepest = deepest.max(depth + 1);
            }
        }
    }
    (widest, deepest)
}

/// Draws `g` at frame nesting `level`. Sequences are walked in a loop, so a long
/// protocol does not deepen the stack; only frames recurse.
fn draw(canvas: &mut Canvas, mut g: &Global, level: usize) {
    loop {
        match g {
            Global::End => return,
            Global::Message {
                from,
                to,
                message,
                cont,
                ..
            } => {
                let y = canvas.y;
                canvas.arrow(&from.text, &to.text, &message.to_string(), y, y, false);
                canvas.y += ROW;
                g = cont;
            }
            Global::Choice { at, branches, .. } => {
                let top = canvas.y - 16.0;
                canvas.y += TAB;
                for (i, branch) in branches.iter().enumerate() {
                    if i > 0 {
                        canvas.separator(level);
                        canvas.y += 10.0;
                    }
                    draw(canvas, branch, level + 1);
                }
                canvas.frame(level, top, "alt", &format!("choice at {}", at.text));
                canvas.y += 12.0;
                return;
            }
            Global::Rec { var, body } => {
                let top = canvas.y - 16.0;
                canvas.y += TAB;
                draw(canvas, body, level + 1);
                canvas.frame(level, top, "loop", &format!("rec {}", var.text));
                canvas.y += 12.0;
                return;
            }
            Global::Continue(var) => {
                let (left, _) = canvas.frame_edges(level);
                canvas.mark(left + 4.0, &format!("↻ continue {}", var.text));
                canvas.y += 20.0;
                return;
            }
        }
    }
}

/// The global protocol `protocol` as a standalone SVG sequence chart: lifelines in
/// the order the roles are declared, messages top to bottom in protocol order,
/// `alt [choice at R]` and `loop [rec t]` frames, `↻ continue t` where a branch loops.
pub fn global_chart(protocol: &GlobalProtocol) -> String {
    let (widest, depth) = measure(&protocol.body);
    let roles = protocol.roles.iter().map(|r| r.text.clone()).collect();
    let mut canvas = Canvas::new(roles, widest, depth);
    draw(&mut canvas, &protocol.body, 0);
    if matches!(protocol.body, Global::End) {
        canvas.note("no interaction", false);
    }
    canvas.finish(&format!("global protocol {}", protocol.name.text))
}

/// Which step receives each send of `trace` (FIFO per ordered pair of roles), by
/// index of the sending step.
fn receptions(trace: &[Step]) -> Vec<Option<usize>> {
    let mut received = vec![None; trace.len()];
    for (j, step) in trace.iter().enumerate() {
        if step.action.direction != Direction::Receive {
            continue;
        }
        let sender = trace[..j].iter().enumerate().position(|(i, s)| {
            s.action.direction == Direction::Send
                && s.role == step.action.peer
                && s.action.peer == step.role
                && received[i].is_none()
        });
        if let Some(i) = sender {
            received[i] = Some(j);
        }
    }
    received
}

/// A run of a system as a standalone SVG message sequence chart: `roles` first, in
/// that order, then any other role the run mentions. Each message is an arrow from
/// the step that sends it to the step that receives it; a message never received is
/// drawn dashed and crossed out. A final note says `outcome` (what went wrong).
pub fn run_chart(roles: &[String], trace: &[Step], outcome: &str) -> String {
    let mut all: Vec<String> = roles.to_vec();
    for step in trace {
        for r in [&step.role, &step.action.peer] {
            if !all.contains(r) {
                all.push(r.clone());
            }
        }
    }
    let widest = trace
        .iter()
        .map(|s| text_width(&s.action.message.to_string(), FONT))
        .fold(
            text_width(outcome, FONT) / all.len().max(2) as f64,
            f64::max,
        );
    let mut canvas = Canvas::new(all, widest, 0);
    let top = canvas.y;
    let row = |i: usize| top + i as f64 * ROW * 0.8;
    let received = receptions(trace);
    let last = row(trace.len());
    for (i, step) in trace.iter().enumerate() {
        if step.action.direction != Direction::Send {
            continue;
        }
        let label = step.action.message.to_string();
        let (from, to) = (&step.role, &step.action.peer);
        match received[i] {
            Some(j) => canvas.arrow(from, to, &label, row(i), row(j), false),
            None => canvas.arrow(
                from,
                to,
                &format!("{label} (never received)"),
                row(i),
                last,
                true,
            ),
        }
    }
    canvas.y = last + ROW;
    canvas.note(outcome, true);
    canvas.finish("a run of the system")
}
