//! One step of the CONCUR'19 simulation tree: the children of a node (a subtype state
//! beside the supertype's input context), or why it is stuck.

use super::StepError;
use super::input_tree::{Ctx, Tree, subset};
use crate::StateKind;
use crate::subtype::machine::ActionId;

/// The children of `(p, tree)` in the simulation tree: (action, subtype state, context).
/// Empty at a success; an error when no move is possible.
pub(super) fn one_step(
    ctx: &mut Ctx<'_>,
    p: u32,
    tree: &Tree,
) -> Result<Vec<(ActionId, u32, Tree)>, StepError> {
    let (sub, sup) = (ctx.sub, ctx.sup);
    let p_kind = sub.kind(p);
    match tree {
        Tree::Leaf(q) => {
            let q = *q;
            match (p_kind, sup.kind(q)) {
                (StateKind::End, StateKind::End) => return Ok(Vec::new()),
                (StateKind::Receive, StateKind::Receive) => {
                    if !subset(&Ctx::barb(sup, q), &Ctx::barb(sub, p)) {
                        return Err(StepError::Stuck(
                            "the supertype may receive a message the subtype does not",
                        ));
                    }
                    return Ok(sup
                        .edges(q)
                        .iter()
                        .filter_map(|&(a, q2)| {
                            Ctx::succ(sub, p, a).map(|p2| (a, p2, Tree::Leaf(q2)))
                        })
                        .collect());
                }
                (StateKind::Send, StateKind::Send)
                    if subset(&Ctx::barb(sub, p), &Ctx::barb(sup, q)) =>
                {
                    return Ok(sub
                        .edges(p)
                        .iter()
                        .filter_map(|&(a, p2)| {
                            Ctx::succ(sup, q, a).map(|q2| (a, p2, Tree::Leaf(q2)))
                        })
                        .collect());
                }
                _ => {}
            }
        }
        Tree::Branch(_) if p_kind == StateKind::Receive => {
            let offered = Ctx::barb(sub, p);
            let mut out = Vec::new();
            for a in tree.front() {
                if offered.binary_search(&a).is_err() {
                    return Err(StepError::Stuck(
                        "the subtype does not receive a message the supertype received ahead",
                    ));
                }
                let p2 = Ctx::succ(sub, p, a).expect("offered");
                out.push((a, p2, tree.next(a).expect("in front").clone()));
            }
            return Ok(out);
        }
        Tree::Branch(_) => {}
    }
    if p_kind != StateKind::Send {
        return Err(StepError::Stuck(
            "the subtype's next action does not match the supertype's",
        ));
    }
    if ctx.sub_sends_forever(p) {
        return Err(StepError::Stuck(
            "the subtype sends ahead but can then send for ever without receiving",
        ));
    }
    // Every leaf performs its receives up to its next send, then must offer the send.
    let cap = ctx.max_tree;
    let grown = tree.graft(&mut |q| ctx.in_tree(q), cap)?;
    let Some(grown) = grown else {
        return Err(StepError::Stuck(
            "the supertype can receive for ever before the send the subtype anticipates",
        ));
    };
    let offered = Ctx::barb(sub, p);
    for q in grown.leaves() {
        if !subset(&offered, &Ctx::barb(sup, q)) {
            return Err(StepError::Stuck(
                "the subtype sends ahead a message the supertype does not send after its receives",
            ));
        }
    }
    let mut out = Vec::new();
    for &(a, p2) in sub.edges(p) {
        let moved = grown.graft(&mut |q| Ok(Ctx::succ(sup, q, a).map(Tree::Leaf)), cap)?;
        out.push((a, p2, moved.expect("every leaf offers the send")));
    }
    Ok(out)
}
