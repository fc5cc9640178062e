//! The index that keeps [`Fsm::add_transition`](crate::Fsm::add_transition) from being
//! quadratic in a state's out-degree (reading a DOT star, projecting a wide choice).

use std::fmt;

use crate::fsm::{Action, StateId, Transition};

/// Hashes of the (peer, direction, label) of the transitions of states with many of
/// them, so that [`Fsm::add_transition`] is not quadratic in a state's out-degree.
/// Built lazily and brought up to date from the transition lists (which only grow),
/// so it is never stale; not part of the machine's value (equality ignores it).
#[derive(Clone, Default)]
pub(crate) struct ActionIndex(rustc_hash::FxHashMap<StateId, (usize, rustc_hash::FxHashSet<u64>)>);

impl ActionIndex {
    /// Out-degree from which a state is indexed rather than scanned.
    const FROM: usize = 16;

    fn key(action: &Action) -> u64 {
        use std::hash::{Hash as _, Hasher as _};
        let mut h = rustc_hash::FxHasher::default();
        (&action.peer, action.direction, &action.message.label).hash(&mut h);
        h.finish()
    }

    /// Whether `action` may clash with a transition of `state` (`ts`): `false` is
    /// certain, `true` must be confirmed by a scan.
    pub(crate) fn may_clash(&mut self, state: StateId, ts: &[Transition], action: &Action) -> bool {
        if ts.len() < Self::FROM {
            return true;
        }
        let (done, keys) = self.0.entry(state).or_default();
        for t in ts.get(*done..).unwrap_or_default() {
            keys.insert(Self::key(&t.action));
        }
        *done = ts.len();
        keys.contains(&Self::key(action))
    }
}

impl PartialEq for ActionIndex {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for ActionIndex {}

impl fmt::Debug for ActionIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("..")
    }
}
