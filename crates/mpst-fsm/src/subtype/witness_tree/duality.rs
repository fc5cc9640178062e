//! Why the witness trees may prove a pair on its duals, and the duals themselves.
//!
//! Subtyping is closed under duality: `T ≤ S` exactly when
//! `dual(S) ≤ dual(T)`. In the definition of Ghilezan, Pantović, Prokić, Scalas and
//! Yoshida ("Precise Subtyping for Asynchronous Multiparty Sessions", POPL 2021), which
//! the rules of PPoPP 2022 are sound for, `T ≤ S` holds when for every single-output
//! tree `U` of `T` and every single-input tree `V` of `S` some single-input tree of `U`
//! refines some single-output tree of `V`. Taking duals exchanges single-output and
//! single-input trees, so it remains to see that a refinement of single-input,
//! single-output sequences `W ≲ W'` holds exactly when `dual(W') ≲ dual(W)`. Both say
//! that `W` and `W'` perform the same actions with each peer in each direction, in the
//! same order (the `act` conditions of the rules force every action `W'` has to come,
//! also in infinite sequences), and that wherever the two order a pair of actions
//! differently, the one `W` performs first is a send moved ahead of a receive, or one of
//! two receives from different peers, or one of two sends to different peers. Swapping
//! the sides and the directions maps each of these three cases onto one of them. (The
//! property test `subtype_duality_props` checks a pair and its duals against each other:
//! what one proves, the other never refutes.)

use crate::Fsm;

/// The dual of a machine: every send becomes a receive and every receive a send (same
/// peers, messages, states and initial state); `None` if it is not a deterministic
/// machine (never for the machines the trees accept).
pub(super) fn dual(fsm: &Fsm) -> Option<Fsm> {
    let mut out = Fsm::new(fsm.role());
    while out.state_count() < fsm.state_count() {
        out.add_state();
    }
    out.set_initial(fsm.initial()).ok()?;
    for (from, t) in fsm.all_transitions() {
        let mut action = t.action.clone();
        action.direction = action.direction.dual();
        out.add_transition(from, action, t.target).ok()?;
    }
    Some(out)
}
