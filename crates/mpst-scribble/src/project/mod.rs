//! Projection of global protocols onto roles: local types and communicating FSMs.
//!
//! Follows nuscr:
//! - a message projects to a send for its sender, a receive for its receiver, and to
//!   nothing for everyone else;
//! - the chooser of a choice gets an internal choice of its branches, which must all
//!   start with a send, to one peer or (a [`LocalType::Select`]) to several; every
//!   other role's projections of the branches are
//!   *merged*: equal, or receptions whose common (sender, label) branches carry the
//!   same sorts and whose continuations merge, recursively; receptions from different
//!   senders merge into one external choice across those peers ([`LocalType::Offer`]:
//!   the role learns the choice from whichever speaks first, scribble-java's rule for
//!   its `fase17` shapes), and then the whole system of projections must be proved
//!   safe by k-MC (`project/race.rs`);
//! - `continue X` reached by a role that did nothing since `rec X` projects to `end`, so
//!   a role that takes no part in a loop does not loop (`rec X` whose body has no action
//!   of the role projects to `end`).
//!
//! Beyond nuscr, two recursions on the same variable merge by merging their bodies, a
//! recursion merges with a reception by unfolding it, and so does a loop back (a
//! recursion variable, whose `rec` is walked again), coinductively: a merge met again
//! inside itself becomes a loop (see `project/loop_back.rs`; scribble-java's `Choice11`).
//!
//! Cost: each projection walks the global type once; local types are hash-consed so
//! comparing and merging identical branches is constant time and merges are memoised.
//! Projecting one role is linear in the size of the global type (up to hashing), and
//! [`project_all`] is linear times the number of roles. The FSM has one state per
//! distinct continuation, so what the global type repeats after a choice becomes one
//! state.

mod arena;
mod fsm;
mod loop_back;
mod merge;
mod race;
mod walk;

use mpst_fsm::{Fsm, LocalType};

use crate::wf::structural;
use crate::{Diagnostic, ErrorKind, GlobalProtocol};
use arena::{Arena, LId};
use walk::Projector;

/// The projections of one role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projection {
    /// The role.
    pub role: String,
    /// Its local type.
    pub local: LocalType,
    /// Its communicating FSM, in canonical numbering.
    pub fsm: Fsm,
}

/// The local type of `role` in `protocol`.
///
/// Fails with the first structural well-formedness error of the protocol (see
/// [`crate::wf`]), with [`ErrorKind::UnboundRole`] if the protocol has no such role, or
/// with the reason the role cannot be projected (for instance
/// [`ErrorKind::Unmergeable`]).
pub fn project(protocol: &GlobalProtocol, role: &str) -> Result<LocalType, Diagnostic> {
    let mut arena = Arena::default();
    let id = project_checked(protocol, role, &mut arena)?;
    Ok(arena.to_local_type(id))
}

/// The communicating FSM of `role` in `protocol`, in canonical numbering
/// ([`Fsm::canonical`]). Fails as [`project`] does.
pub fn project_fsm(protocol: &GlobalProtocol, role: &str) -> Result<Fsm, Diagnostic> {
    let mut arena = Arena::default();
    let id = project_checked(protocol, role, &mut arena)?;
    to_fsm(protocol, &arena, id, role)
}

/// The projections of every declared role, in declaration order, or every reason why
/// some role cannot be projected (one per role at most, duplicates removed).
pub fn project_all(protocol: &GlobalProtocol) -> Result<Vec<Projection>, Vec<Diagnostic>> {
    let mut arena = Arena::default();
    let ids = project_roles(protocol, &mut arena)?;
    let mut done = Vec::with_capacity(ids.len());
    let mut errors = Vec::new();
    for (role, id) in protocol.roles.iter().zip(ids) {
        match to_fsm(protocol, &arena, id, &role.text) {
            Ok(fsm) => done.push(Projection {
                role: role.text.clone(),
                local: arena.to_local_type(id),
                fsm,
            }),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let fsms: Vec<Fsm> = done.iter().map(|p| p.fsm.clone()).collect();
    match race::check(protocol, &fsms) {
        Some(unsafe_race) => Err(vec![unsafe_race]),
        None => Ok(done),
    }
}

/// Every reason why some role of `protocol` cannot be projected (see [`project_all`]),
/// without building the local types and FSMs.
pub(crate) fn projection_errors(protocol: &GlobalProtocol) -> Vec<Diagnostic> {
    let mut arena = Arena::default();
    match project_roles(protocol, &mut arena) {
        Ok(ids) => {
            let mut fsms = Vec::with_capacity(ids.len());
            let mut errors = Vec::new();
            for (role, id) in protocol.roles.iter().zip(ids) {
                match to_fsm(protocol, &arena, id, &role.text) {
                    Ok(fsm) => fsms.push(fsm),
                    Err(e) => errors.push(e),
                }
            }
            if errors.is_empty() {
                errors.extend(race::check(protocol, &fsms));
            }
            errors
        }
        Err(errors) => errors,
    }
}

/// Why the projections of `protocol` are unsafe as the runtime runs them
/// (`project/race.rs`), when some role receives from several peers at once; `None` when
/// they are safe, or when some role cannot be projected (that error is reported on its
/// own). `mpst project --role R` checks it too, since the race may be another role's.
pub(crate) fn race_error(protocol: &GlobalProtocol) -> Option<Diagnostic> {
    let mut arena = Arena::default();
    let ids = project_roles(protocol, &mut arena).ok()?;
    let mut fsms = Vec::with_capacity(ids.len());
    for (role, id) in protocol.roles.iter().zip(ids) {
        fsms.push(to_fsm(protocol, &arena, id, &role.text).ok()?);
    }
    race::check(protocol, &fsms)
}

/// The projection of every role into `arena`, in declaration order.
fn project_roles(
    protocol: &GlobalProtocol,
    arena: &mut Arena,
) -> Result<Vec<LId>, Vec<Diagnostic>> {
    let errors = structural(protocol);
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut ids = Vec::with_capacity(protocol.roles.len());
    let mut errors: Vec<Diagnostic> = Vec::new();
    for role in &protocol.roles {
        match Projector::new(arena, &role.text).project(&protocol.body) {
            Ok(id) => ids.push(id),
            Err(e) if !errors.contains(&e) => errors.push(e),
            Err(_) => {}
        }
    }
    if errors.is_empty() {
        Ok(ids)
    } else {
        Err(errors)
    }
}

fn project_checked(
    protocol: &GlobalProtocol,
    role: &str,
    arena: &mut Arena,
) -> Result<LId, Diagnostic> {
    if !protocol.roles.iter().any(|r| r.text == role) {
        let roles: Vec<String> = protocol
            .roles
            .iter()
            .map(|r| format!("`{}`", r.text))
            .collect();
        return Err(Diagnostic::new(
            ErrorKind::UnboundRole,
            protocol.name.span,
            format!("protocol `{}` has no role `{role}`", protocol.name.text),
        )
        .with_note(format!("its roles are {}", roles.join(", "))));
    }
    if let Some(e) = structural(protocol).into_iter().next() {
        return Err(e);
    }
    Projector::new(arena, role).project(&protocol.body)
}

fn to_fsm(
    protocol: &GlobalProtocol,
    arena: &Arena,
    id: LId,
    role: &str,
) -> Result<Fsm, Diagnostic> {
    fsm::build(arena, id, role).map_err(|e| {
        Diagnostic::new(
            ErrorKind::UnguardedVariable,
            protocol.name.span,
            format!("the projection onto `{role}` has no FSM: {}", e.0),
        )
    })
}
