//! The two FSMs compiled for the search: actions interned as small integers shared by
//! both machines, transitions in flat arrays.

use rustc_hash::FxHashMap;

use crate::{Action, Fsm, StateKind};

/// Interned action number, shared by the sub- and the supertype.
pub(super) type ActionId = u32;

/// Every distinct action (up to payload names) of the two machines.
pub(super) struct ActionTable {
    /// The action of each id, as first seen (payload names of the first occurrence).
    actions: Vec<Action>,
    /// `peer * 2 + direction` of each id: what [`act`](super) of the paper compares.
    kinds: Vec<u32>,
    index: FxHashMap<Action, ActionId>,
    peer_index: FxHashMap<String, u32>,
}

impl ActionTable {
    fn new() -> Self {
        ActionTable {
            actions: Vec::new(),
            kinds: Vec::new(),
            index: FxHashMap::default(),
            peer_index: FxHashMap::default(),
        }
    }

    fn intern(&mut self, action: &Action) -> ActionId {
        let mut key = action.clone();
        for payload in &mut key.message.payloads {
            payload.name = None;
        }
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let next_peer = self.peer_index.len() as u32;
        let peer = *self
            .peer_index
            .entry(action.peer.clone())
            .or_insert(next_peer);
        let id = self.actions.len() as ActionId;
        self.actions.push(action.clone());
        self.kinds.push(peer * 2 + u32::from(action.is_receive()));
        self.index.insert(key, id);
        id
    }

    /// The action behind an id.
    pub(super) fn action(&self, id: ActionId) -> &Action {
        &self.actions[id as usize]
    }

    /// Whether the action is a receive.
    pub(super) fn is_receive(&self, id: ActionId) -> bool {
        self.kind(id) & 1 == 1
    }

    /// `peer * 2 + (1 if receive)`: the element of `act(π)` this action contributes.
    pub(super) fn kind(&self, id: ActionId) -> u32 {
        self.kinds[id as usize]
    }

    /// How many distinct kinds (`p!`, `p?`) can occur.
    pub(super) fn kind_count(&self) -> usize {
        self.peer_index.len() * 2
    }
}

/// One FSM with interned actions and transitions stored contiguously per state.
pub(super) struct Machine {
    /// `edges[offsets[s]..offsets[s + 1]]` are the transitions of state `s`.
    offsets: Vec<u32>,
    edges: Vec<(ActionId, u32)>,
    kinds: Vec<StateKind>,
    pub(super) initial: u32,
}

impl Machine {
    fn compile<'a>(
        fsm: &'a Fsm,
        table: &mut ActionTable,
        cache: &mut FxHashMap<&'a Action, ActionId>,
    ) -> Self {
        let mut offsets = Vec::with_capacity(fsm.state_count() + 1);
        let mut edges = Vec::with_capacity(fsm.transition_count());
        let mut kinds = Vec::with_capacity(fsm.state_count());
        for state in 0..fsm.state_count() {
            offsets.push(edges.len() as u32);
            for t in fsm.transitions(state) {
                let id = match cache.get(&t.action) {
                    Some(&id) => id,
                    None => {
                        let id = table.intern(&t.action);
                        cache.insert(&t.action, id);
                        id
                    }
                };
                edges.push((id, t.target as u32));
            }
            kinds.push(fsm.kind(state));
        }
        offsets.push(edges.len() as u32);
        Machine {
            offsets,
            edges,
            kinds,
            initial: fsm.initial() as u32,
        }
    }

    /// The transitions of `state` as `(action, target)`.
    pub(super) fn edges(&self, state: u32) -> &[(ActionId, u32)] {
        let s = state as usize;
        &self.edges[self.offsets[s] as usize..self.offsets[s + 1] as usize]
    }

    /// What `state` does.
    pub(super) fn kind(&self, state: u32) -> StateKind {
        self.kinds[state as usize]
    }
}

/// Compiles both machines against one action table. Equal actions (payload names
/// included) are looked up by reference first, so that large machines with few
/// distinct actions compile without copying any.
pub(super) fn compile(sub: &Fsm, sup: &Fsm) -> (ActionTable, Machine, Machine) {
    let mut table = ActionTable::new();
    let mut cache = FxHashMap::default();
    let sub = Machine::compile(sub, &mut table, &mut cache);
    let sup = Machine::compile(sup, &mut table, &mut cache);
    (table, sub, sup)
}
