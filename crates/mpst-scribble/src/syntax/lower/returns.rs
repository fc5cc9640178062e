//! Which protocols can finish: reach the end of their body, so that a `do` of them
//! goes on with what follows the call.
//!
//! This decides what a recursive `do` that is not the last interaction means. If the
//! callee can never finish (every path through it ends in a recursive call or a
//! `continue`), what follows the call is unreachable and the call is a plain loop back
//! (`continue`). If it can finish, each pending call would run what follows it once
//! more, which counts calls: no finite-state global type expresses that.
//!
//! "Can finish" is the least fixed point of: a message finishes; a block finishes if
//! each of its interactions does; a choice if one of its branches does; `rec X { B }`
//! if `B` does (reaching `continue X` is not finishing); `continue` never does; `do P`
//! if `P`'s body does. Role arguments do not matter, so the fixed point is over names.

use std::collections::{HashMap, HashSet};

use crate::Span;
use crate::diagnostic::{Diagnostic, ErrorKind};
use crate::syntax::ast::{Block, Interaction, InteractionKind, Protocol};

/// The names of the protocols of `protocols` that can finish.
pub(super) fn finishing<'m>(protocols: &HashMap<&'m str, &'m Protocol>) -> HashSet<&'m str> {
    let mut done: HashSet<&str> = HashSet::new();
    // Each round adds at least one protocol or stops. The rounds are as many as the
    // longest chain of `do` calls that finishing depends on (usually one or two); this
    // runs only for a file with a recursive `do` that is not the last interaction.
    loop {
        let before = done.len();
        for (name, protocol) in protocols {
            if !done.contains(name) && block(&protocol.body, &done) {
                done.insert(name);
            }
        }
        if done.len() == before {
            return done;
        }
    }
}

/// Whether `block` can reach its end, given the protocols known to finish.
fn block(block: &Block, done: &HashSet<&str>) -> bool {
    // Recursion only through choices and recs, whose nesting the parser bounds.
    block.interactions.iter().all(|item| match &item.kind {
        InteractionKind::Message { .. } => true,
        InteractionKind::Choice { branches, .. } => branches.iter().any(|b| self::block(b, done)),
        InteractionKind::Rec { body, .. } => self::block(body, done),
        InteractionKind::Continue { .. } => false,
        InteractionKind::Do { protocol, .. } => done.contains(protocol.text.as_str()),
    })
}

/// The error for `next`, which follows `item` that never finishes.
pub(super) fn unreachable(item: &Interaction, next: &Interaction) -> Diagnostic {
    let what = match &item.kind {
        InteractionKind::Do { protocol, .. } => format!("`do {}`", protocol.text),
        InteractionKind::Rec { var, .. } => format!("`rec {}`", var.text),
        InteractionKind::Choice { at, .. } => format!("the `choice at {}` before it", at.text),
        _ => "the interaction before it".to_owned(),
    };
    Diagnostic::new(
        ErrorKind::Unreachable,
        next.span,
        format!("this can never happen: {what} never finishes"),
    )
    .with_label(item.span, "every path through this loops back or recurses")
    .with_note("remove what follows, or give the recursion a branch that ends it")
}

/// The error for a recursive `do protocol` at `span`, not last, of a protocol that can
/// finish.
pub(super) fn counting(span: Span, protocol: &str) -> Diagnostic {
    let message = format!(
        "recursive `do {protocol}` is followed by more interactions, and `{protocol}` can finish"
    );
    Diagnostic::new(ErrorKind::Unsupported, span, message)
        .with_note(format!(
            "each pending call of `{protocol}` would go on with what follows it once the call \
             finishes, so the protocol counts its calls; a global type is finite-state and \
             cannot"
        ))
        .with_note(
            "make the call the last interaction of its branch, or move what follows it into \
             the branches that end the recursion",
        )
}
