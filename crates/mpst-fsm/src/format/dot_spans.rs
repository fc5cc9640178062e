//! Where the parts of machines read from DOT are written, so that problems found after
//! reading (a state that both sends and receives, two machines for one role across
//! files, an action whose peer no machine plays) are reported at a line and column.

use std::ops::Range;

use crate::{Fsm, StateId, StateKind};

/// Byte ranges, in its DOT source, of a machine read by
/// [`parse_dot_located`](super::parse_dot_located).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DotSpans {
    /// The digraph's name.
    pub digraph: Range<usize>,
    /// Per state: its name in the source and its first mention.
    states: Vec<(String, Range<usize>)>,
    /// Per state, per transition (in [`Fsm::transitions`] order): the edge's label.
    transitions: Vec<Vec<Range<usize>>>,
}

impl DotSpans {
    pub(super) fn new(digraph: Range<usize>) -> Self {
        DotSpans {
            digraph,
            states: Vec::new(),
            transitions: Vec::new(),
        }
    }

    pub(super) fn add_state(&mut self, name: &str, at: Range<usize>) {
        self.states.push((name.to_owned(), at));
    }

    pub(super) fn add_transition(&mut self, state: StateId, label: Range<usize>) {
        if self.transitions.len() <= state {
            self.transitions.resize(state + 1, Vec::new());
        }
        self.transitions[state].push(label);
    }

    /// The name `state` has in the source, and where it is first mentioned.
    pub fn state(&self, state: StateId) -> Option<(&str, Range<usize>)> {
        self.states
            .get(state)
            .map(|(name, at)| (name.as_str(), at.clone()))
    }

    /// Where the label of the `index`-th transition of `state` is.
    pub fn transition(&self, state: StateId, index: usize) -> Option<Range<usize>> {
        self.transitions.get(state)?.get(index).cloned()
    }
}

/// A machine read from DOT with where its parts are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocatedFsm {
    /// The machine.
    pub fsm: Fsm,
    /// Where its digraph, states and transitions are.
    pub spans: DotSpans,
}

impl LocatedFsm {
    /// The first state (in the order states are written) that both sends and receives,
    /// with its name and where it is first mentioned.
    pub fn mixed_state(&self) -> Option<(StateId, &str, Range<usize>)> {
        (0..self.fsm.state_count())
            .find(|&s| self.fsm.kind(s) == StateKind::Mixed)
            .map(|s| {
                let (name, at) = self
                    .spans
                    .state(s)
                    .unwrap_or(("?", self.spans.digraph.clone()));
                (s, name, at)
            })
    }
}

/// A problem of a system of machines that only shows once all are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemError {
    /// The machine where it is (an index into the machines checked).
    pub machine: usize,
    /// Where, in that machine's source.
    pub span: Range<usize>,
    /// What is wrong and what was expected.
    pub message: String,
    /// Another place that explains it: a machine, a range in its source and what is
    /// there.
    pub related: Option<(usize, Range<usize>, String)>,
}

/// Checks that no two machines play one role and, if `closed`, that every action's
/// peer is played by a machine (a system checked for k-MC is closed; the machines
/// compared by subtyping are not).
///
/// # Errors
/// The first problem, located in the source of the machine where it is.
pub fn check_system(machines: &[&LocatedFsm], closed: bool) -> Result<(), SystemError> {
    let mut roles: rustc_hash::FxHashMap<&str, usize> = Default::default();
    for (i, m) in machines.iter().enumerate() {
        if let Some(&first) = roles.get(m.fsm.role()) {
            return Err(SystemError {
                machine: i,
                span: m.spans.digraph.clone(),
                message: format!(
                    "a second digraph for role `{}`: expected one digraph per role",
                    m.fsm.role()
                ),
                related: Some((
                    first,
                    machines[first].spans.digraph.clone(),
                    "the first digraph for this role".to_owned(),
                )),
            });
        }
        roles.insert(m.fsm.role(), i);
    }
    if !closed {
        return Ok(());
    }
    for (i, m) in machines.iter().enumerate() {
        for state in 0..m.fsm.state_count() {
            for (t, transition) in m.fsm.transitions(state).iter().enumerate() {
                let peer = transition.action.peer.as_str();
                if roles.contains_key(peer) {
                    continue;
                }
                let mut known: Vec<&str> = roles.keys().copied().collect();
                known.sort_unstable();
                return Err(SystemError {
                    machine: i,
                    span: m
                        .spans
                        .transition(state, t)
                        .unwrap_or_else(|| m.spans.digraph.clone()),
                    message: format!(
                        "`{}` talks to `{peer}`, which no digraph of the system is named \
                         after: expected one of the roles {}",
                        transition.action,
                        known.join(", ")
                    ),
                    related: None,
                });
            }
        }
    }
    Ok(())
}
