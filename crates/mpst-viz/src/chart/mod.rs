//! Sequence charts, drawn by hand as SVG in the style of UML sequence diagrams: one
//! lifeline per role, one arrow per message, choices as `alt` frames (one compartment
//! per branch, separated by dashed lines) and recursion as `loop` frames.
//!
//! Runs of a system (counterexamples) are charted by `mpst_fsm::format::msc`; this
//! module charts whole global protocols, every branch and loop at once.

mod canvas;

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
