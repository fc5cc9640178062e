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

use crate::syntax::ast::{Block, InteractionKind, Protocol};

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
