//! The communicating finite-state machine model shared by every verification algorithm.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;

use crate::fsm_index::ActionIndex;

/// Index of a state inside one [`Fsm`]; states are numbered `0..fsm.state_count()`.
pub type StateId = usize;

/// Whether an action sends (`!`) or receives (`?`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// `p!l`: send to the peer.
    Send,
    /// `p?l`: receive from the peer.
    Receive,
}

impl Direction {
    /// The other direction.
    pub fn dual(self) -> Self {
        match self {
            Direction::Send => Direction::Receive,
            Direction::Receive => Direction::Send,
        }
    }

    /// `!` or `?`.
    pub fn symbol(self) -> char {
        match self {
            Direction::Send => '!',
            Direction::Receive => '?',
        }
    }
}

/// One payload of a message: a sort, optionally named (`x: i32`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Payload {
    /// The variable name, if the protocol gave one.
    pub name: Option<String>,
    /// The sort, e.g. `i32`.
    pub ty: String,
}

impl Payload {
    /// An unnamed payload of sort `ty`.
    pub fn new(ty: impl Into<String>) -> Self {
        Payload {
            name: None,
            ty: ty.into(),
        }
    }

    /// A named payload `name: ty`.
    pub fn named(name: impl Into<String>, ty: impl Into<String>) -> Self {
        Payload {
            name: Some(name.into()),
            ty: ty.into(),
        }
    }
}

impl fmt::Display for Payload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(name) => write!(f, "{name}: {}", self.ty),
            None => f.write_str(&self.ty),
        }
    }
}

/// A labelled message with its payload sorts, e.g. `value(i32)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Message {
    /// The label, e.g. `value`.
    pub label: String,
    /// The payloads, in order.
    pub payloads: Vec<Payload>,
}

impl Message {
    /// A message with no payload.
    pub fn new(label: impl Into<String>) -> Self {
        Message {
            label: label.into(),
            payloads: Vec::new(),
        }
    }

    /// A message with the given payloads.
    pub fn with_payloads(label: impl Into<String>, payloads: Vec<Payload>) -> Self {
        Message {
            label: label.into(),
            payloads,
        }
    }

    /// Whether two messages carry the same label and the same payload sorts
    /// (payload *names* are documentation and are ignored).
    pub fn same_sort(&self, other: &Message) -> bool {
        self.label == other.label
            && self.payloads.len() == other.payloads.len()
            && self
                .payloads
                .iter()
                .zip(&other.payloads)
                .all(|(a, b)| a.ty == b.ty)
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.label)?;
        for (i, payload) in self.payloads.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{payload}")?;
        }
        f.write_str(")")
    }
}

/// A communicating action of one role: `peer!label(sorts)` or `peer?label(sorts)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Action {
    /// The other role of the action.
    pub peer: String,
    /// Send or receive.
    pub direction: Direction,
    /// The message exchanged.
    pub message: Message,
}

impl Action {
    /// `peer!message`.
    pub fn send(peer: impl Into<String>, message: Message) -> Self {
        Action {
            peer: peer.into(),
            direction: Direction::Send,
            message,
        }
    }

    /// `peer?message`.
    pub fn receive(peer: impl Into<String>, message: Message) -> Self {
        Action {
            peer: peer.into(),
            direction: Direction::Receive,
            message,
        }
    }

    /// Whether this action sends.
    pub fn is_send(&self) -> bool {
        self.direction == Direction::Send
    }

    /// Whether this action receives.
    pub fn is_receive(&self) -> bool {
        self.direction == Direction::Receive
    }

    /// Same peer, direction, label and payload sorts (payload names ignored).
    pub fn same_sort(&self, other: &Action) -> bool {
        self.peer == other.peer
            && self.direction == other.direction
            && self.message.same_sort(&other.message)
    }
}

impl fmt::Display for Action {
    /// nuscr's notation, e.g. `s!ready()` or `k?value(x: i32)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}{}",
            self.peer,
            self.direction.symbol(),
            self.message
        )
    }
}

/// An outgoing transition of a state.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Transition {
    /// What the role does.
    pub action: Action,
    /// The state it reaches.
    pub target: StateId,
}

/// What a state does, read off its outgoing transitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateKind {
    /// No outgoing transition: the role has finished.
    End,
    /// Only sends (an internal choice).
    Send,
    /// Only receives (an external choice).
    Receive,
    /// Both sends and receives (not a session type; k-MC accepts it).
    Mixed,
}

/// Ways an FSM can be ill-formed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FsmError {
    /// A transition refers to a state that does not exist.
    #[error(
        "state {state} does not exist (the machine has {})",
        crate::format::count(*count, "state")
    )]
    NoSuchState {
        /// The missing state.
        state: StateId,
        /// How many states the machine has.
        count: usize,
    },
    /// A state has two transitions with the same peer, direction and label.
    #[error(
        "state {state} has two transitions labelled `{action}` (the machine must be deterministic)"
    )]
    Nondeterministic {
        /// The state.
        state: StateId,
        /// The duplicated action.
        action: Action,
    },
    /// A role sends to or receives from itself.
    #[error("state {state}: `{action}` communicates with the role itself")]
    SelfCommunication {
        /// The state.
        state: StateId,
        /// The offending action.
        action: Action,
    },
}

/// A communicating finite-state machine: the behaviour of one role.
///
/// States are `0..state_count()`; the initial state is [`Fsm::initial`]. A state
/// without outgoing transitions is final. Machines built with
/// [`add_transition`](Fsm::add_transition) are deterministic: a state has at most one
/// transition per (peer, direction, label); k-MC also accepts machines built with
/// [`add_nondeterministic_transition`](Fsm::add_nondeterministic_transition).
///
/// A state may carry a name ([`Fsm::state_name`]): a hint for readers and generated
/// code, such as the `rec` variable projection names a loop head after. Names are not
/// behaviour: machines that differ only in their names are equal.
#[derive(Debug, Clone)]
pub struct Fsm {
    role: String,
    initial: StateId,
    states: Vec<Vec<Transition>>,
    /// Finds clashes in states of high out-degree in constant time.
    index: ActionIndex,
    /// The names some states carry (see [`Fsm::state_name`]).
    names: BTreeMap<StateId, String>,
}

impl PartialEq for Fsm {
    /// Equal roles, initial states and transitions; state names are ignored.
    fn eq(&self, other: &Self) -> bool {
        self.role == other.role && self.initial == other.initial && self.states == other.states
    }
}

impl Eq for Fsm {}

impl Fsm {
    /// A machine for `role` with a single (initial, final) state `0`.
    pub fn new(role: impl Into<String>) -> Self {
        Fsm {
            role: role.into(),
            initial: 0,
            states: vec![Vec::new()],
            index: ActionIndex::default(),
            names: BTreeMap::new(),
        }
    }

    /// The name `state` carries, if any: a hint for readers and generated code (projection
    /// names a loop head after its `rec` variable), never part of the behaviour.
    pub fn state_name(&self, state: StateId) -> Option<&str> {
        self.names.get(&state).map(String::as_str)
    }

    /// Names `state` (replacing its name, if it had one); see [`Fsm::state_name`].
    pub fn set_state_name(
        &mut self,
        state: StateId,
        name: impl Into<String>,
    ) -> Result<(), FsmError> {
        self.check_state(state)?;
        self.names.insert(state, name.into());
        Ok(())
    }

    /// The role this machine describes.
    pub fn role(&self) -> &str {
        &self.role
    }

    /// Renames the role.
    ///
    /// Fails, leaving the machine unchanged, if a transition talks to the new role: the
    /// machine would communicate with itself, which [`Fsm::add_transition`] also refuses.
    pub fn set_role(&mut self, role: impl Into<String>) -> Result<(), FsmError> {
        let role = role.into();
        for (state, transitions) in self.states.iter().enumerate() {
            if let Some(t) = transitions.iter().find(|t| t.action.peer == role) {
                return Err(FsmError::SelfCommunication {
                    state,
                    action: t.action.clone(),
                });
            }
        }
        self.role = role;
        Ok(())
    }

    /// The initial state.
    pub fn initial(&self) -> StateId {
        self.initial
    }

    /// Makes `state` the initial state.
    pub fn set_initial(&mut self, state: StateId) -> Result<(), FsmError> {
        self.check_state(state)?;
        self.initial = state;
        Ok(())
    }

    /// The number of states.
    pub fn state_count(&self) -> usize {
        self.states.len()
    }

    /// The number of transitions.
    pub fn transition_count(&self) -> usize {
        self.states.iter().map(Vec::len).sum()
    }

    /// Adds a fresh state without transitions and returns it.
    pub fn add_state(&mut self) -> StateId {
        self.states.push(Vec::new());
        self.states.len() - 1
    }

    /// Adds `from --action--> to`, rejecting unknown states, duplicate actions and
    /// communication with the role itself.
    pub fn add_transition(
        &mut self,
        from: StateId,
        action: Action,
        to: StateId,
    ) -> Result<(), FsmError> {
        self.check_endpoints(from, &action, to)?;
        let may_clash = self.index.may_clash(from, &self.states[from], &action);
        let clash = may_clash
            && self.states[from].iter().any(|t| {
                t.action.peer == action.peer
                    && t.action.direction == action.direction
                    && t.action.message.label == action.message.label
            });
        if clash {
            return Err(FsmError::Nondeterministic {
                state: from,
                action,
            });
        }
        self.states[from].push(Transition { action, target: to });
        Ok(())
    }

    /// Adds `from --action--> to` like [`add_transition`](Self::add_transition) but
    /// allows a second transition with the same peer, direction and label: a
    /// non-deterministic machine, which k-MC and the witness search accept.
    /// Subtyping and code generation require deterministic machines (see
    /// [`nondeterministic_state`](Self::nondeterministic_state)).
    pub fn add_nondeterministic_transition(
        &mut self,
        from: StateId,
        action: Action,
        to: StateId,
    ) -> Result<(), FsmError> {
        self.check_endpoints(from, &action, to)?;
        self.states[from].push(Transition { action, target: to });
        Ok(())
    }

    /// What every transition `from --action--> to` needs: both states exist and the
    /// action communicates with another role.
    fn check_endpoints(&self, from: StateId, action: &Action, to: StateId) -> Result<(), FsmError> {
        self.check_state(from)?;
        self.check_state(to)?;
        if action.peer == self.role {
            return Err(FsmError::SelfCommunication {
                state: from,
                action: action.clone(),
            });
        }
        Ok(())
    }

    /// The first state with two transitions of the same peer, direction and label,
    /// and that action; `None` for a deterministic machine.
    pub fn nondeterministic_state(&self) -> Option<(StateId, &Action)> {
        self.states.iter().enumerate().find_map(|(s, ts)| {
            ts.iter().enumerate().find_map(|(i, t)| {
                ts[..i]
                    .iter()
                    .any(|u| {
                        u.action.peer == t.action.peer
                            && u.action.direction == t.action.direction
                            && u.action.message.label == t.action.message.label
                    })
                    .then_some((s, &t.action))
            })
        })
    }

    fn check_state(&self, state: StateId) -> Result<(), FsmError> {
        if state < self.states.len() {
            Ok(())
        } else {
            Err(FsmError::NoSuchState {
                state,
                count: self.states.len(),
            })
        }
    }

    /// The outgoing transitions of `state`, in insertion order.
    ///
    /// # Panics
    /// If `state` is not a state of this machine.
    pub fn transitions(&self, state: StateId) -> &[Transition] {
        &self.states[state]
    }

    /// Every transition as `(source, transition)`, by source state.
    pub fn all_transitions(&self) -> impl Iterator<Item = (StateId, &Transition)> {
        self.states
            .iter()
            .enumerate()
            .flat_map(|(s, ts)| ts.iter().map(move |t| (s, t)))
    }

    /// What `state` does.
    pub fn kind(&self, state: StateId) -> StateKind {
        let ts = &self.states[state];
        let sends = ts.iter().any(|t| t.action.is_send());
        let receives = ts.iter().any(|t| t.action.is_receive());
        match (sends, receives) {
            (false, false) => StateKind::End,
            (true, false) => StateKind::Send,
            (false, true) => StateKind::Receive,
            (true, true) => StateKind::Mixed,
        }
    }

    /// Whether `state` has no outgoing transition.
    pub fn is_final(&self, state: StateId) -> bool {
        self.states[state].is_empty()
    }

    /// The roles this machine talks to, sorted.
    pub fn peers(&self) -> BTreeSet<&str> {
        self.all_transitions()
            .map(|(_, t)| t.action.peer.as_str())
            .collect()
    }

    /// The states reachable from the initial state, in breadth-first order, taking
    /// each state's transitions sorted by action. This order is canonical for
    /// deterministic machines.
    pub fn canonical_order(&self) -> Vec<StateId> {
        let mut seen = vec![false; self.states.len()];
        let mut order = Vec::with_capacity(self.states.len());
        let mut queue = VecDeque::from([self.initial]);
        seen[self.initial] = true;
        while let Some(state) = queue.pop_front() {
            order.push(state);
            let mut ts: Vec<&Transition> = self.states[state].iter().collect();
            ts.sort_by(|a, b| a.action.cmp(&b.action));
            for t in ts {
                if !seen[t.target] {
                    seen[t.target] = true;
                    queue.push_back(t.target);
                }
            }
        }
        order
    }

    /// The same machine restricted to reachable states, renumbered in
    /// [`canonical_order`](Self::canonical_order) (initial state `0`) with each
    /// state's transitions sorted. Equal behaviours give equal canonical machines.
    pub fn canonical(&self) -> Fsm {
        let order = self.canonical_order();
        let mut rename = vec![usize::MAX; self.states.len()];
        for (new, &old) in order.iter().enumerate() {
            rename[old] = new;
        }
        let states = order
            .iter()
            .map(|&old| {
                let mut ts: Vec<Transition> = self.states[old]
                    .iter()
                    .map(|t| Transition {
                        action: t.action.clone(),
                        target: rename[t.target],
                    })
                    .collect();
                ts.sort_by(|a, b| a.action.cmp(&b.action));
                ts
            })
            .collect();
        let names = self
            .names
            .iter()
            .filter(|&(&old, _)| rename[old] != usize::MAX)
            .map(|(&old, name)| (rename[old], name.clone()))
            .collect();
        Fsm {
            role: self.role.clone(),
            initial: 0,
            states,
            index: ActionIndex::default(),
            names,
        }
    }

    /// Whether the two machines are equal up to renaming states (and payload names
    /// are ignored). Role names must match.
    pub fn is_isomorphic(&self, other: &Fsm) -> bool {
        let strip = |fsm: &Fsm| {
            let mut c = fsm.canonical();
            for ts in &mut c.states {
                for t in ts.iter_mut() {
                    for p in &mut t.action.message.payloads {
                        p.name = None;
                    }
                }
            }
            c
        };
        strip(self) == strip(other)
    }
}

impl fmt::Display for Fsm {
    /// A compact listing, one transition per line: `0 --s!ready()--> 1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "fsm {} (initial {})", self.role, self.initial)?;
        for (s, t) in self.all_transitions() {
            writeln!(f, "  {s} --{}--> {}", t.action, t.target)?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "fsm_tests.rs"]
mod tests;
