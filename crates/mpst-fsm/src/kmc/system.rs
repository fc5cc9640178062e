//! The compiled form of a system of CFSMs: roles, queues and messages interned to
//! small integers, each machine's transitions in flat arrays.

use rustc_hash::FxHashMap;

use crate::{Action, Direction, Fsm, Message, StateKind};

use super::{KmcError, Shape};

/// One transition of a compiled machine.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Trans {
    /// Send or receive.
    pub dir: Direction,
    /// The queue written (send) or read (receive).
    pub queue: u32,
    /// The interned message.
    pub msg: u32,
    /// The target local state.
    pub target: u32,
}

/// One compiled machine: transitions of state `s` are `trans[first[s]..first[s + 1]]`.
#[derive(Debug)]
pub(crate) struct Machine {
    pub initial: u32,
    pub first: Vec<u32>,
    pub trans: Vec<Trans>,
    /// The kind of each state.
    pub kinds: Vec<StateKind>,
}

impl Machine {
    /// The transitions leaving `state`, with their global indices.
    pub fn outgoing(&self, state: u32) -> std::ops::Range<usize> {
        self.first[state as usize] as usize..self.first[state as usize + 1] as usize
    }
}

/// A system of CFSMs ready for exploration.
#[derive(Debug)]
pub(crate) struct System<'a> {
    /// The input machines, in input order (machine `i` is `fsms[i]`).
    pub fsms: &'a [Fsm],
    /// The compiled machines.
    pub machines: Vec<Machine>,
    /// Queue `i` goes from `queues[i].0` to `queues[i].1` (machine indices).
    pub queues: Vec<(u32, u32)>,
    /// The interned messages (by label and payload sorts).
    pub messages: Vec<Message>,
    /// For every compiled transition, the original `(state, index in fsm.transitions)`.
    pub origin: Vec<Vec<(usize, usize)>>,
}

/// A message's identity for matching a send with a receive: label and payload sorts,
/// borrowed (no allocation for a message without payloads).
fn sort_key(message: &Message) -> (&str, Vec<&str>) {
    (
        &message.label,
        message.payloads.iter().map(|p| p.ty.as_str()).collect(),
    )
}

impl<'a> System<'a> {
    /// Compiles `fsms`, rejecting systems that cannot be checked: no machine, two
    /// machines for one role, or an action whose peer is not a role of the system.
    pub fn compile(fsms: &'a [Fsm]) -> Result<Self, KmcError> {
        if fsms.is_empty() {
            return Err(KmcError::EmptySystem);
        }
        let mut role_index: FxHashMap<&str, u32> = FxHashMap::default();
        for (i, fsm) in fsms.iter().enumerate() {
            if role_index.insert(fsm.role(), i as u32).is_some() {
                return Err(KmcError::DuplicateRole(fsm.role().to_string()));
            }
        }
        let mut queue_index: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        let mut queues = Vec::new();
        let mut message_index: FxHashMap<(&str, Vec<&str>), u32> = FxHashMap::default();
        let mut messages = Vec::new();
        let mut machines = Vec::with_capacity(fsms.len());
        let mut origin = Vec::with_capacity(fsms.len());
        for (me, fsm) in fsms.iter().enumerate() {
            let me = me as u32;
            let mut first = Vec::with_capacity(fsm.state_count() + 1);
            let mut trans = Vec::with_capacity(fsm.transition_count());
            let mut orig = Vec::with_capacity(fsm.transition_count());
            let mut kinds = Vec::with_capacity(fsm.state_count());
            for state in 0..fsm.state_count() {
                first.push(trans.len() as u32);
                kinds.push(fsm.kind(state));
                for (i, t) in fsm.transitions(state).iter().enumerate() {
                    let peer = *role_index.get(t.action.peer.as_str()).ok_or_else(|| {
                        KmcError::UnknownPeer {
                            role: fsm.role().to_string(),
                            state,
                            action: t.action.clone(),
                        }
                    })?;
                    let pair = match t.action.direction {
                        Direction::Send => (me, peer),
                        Direction::Receive => (peer, me),
                    };
                    let queue = *queue_index.entry(pair).or_insert_with(|| {
                        queues.push(pair);
                        queues.len() as u32 - 1
                    });
                    let msg = *message_index
                        .entry(sort_key(&t.action.message))
                        .or_insert_with(|| {
                            messages.push(t.action.message.clone());
                            messages.len() as u32 - 1
                        });
                    trans.push(Trans {
                        dir: t.action.direction,
                        queue,
                        msg,
                        target: t.target as u32,
                    });
                    orig.push((state, i));
                }
            }
            first.push(trans.len() as u32);
            machines.push(Machine {
                initial: fsm.initial() as u32,
                first,
                trans,
                kinds,
            });
            origin.push(orig);
        }
        Ok(System {
            fsms,
            machines,
            queues,
            messages,
            origin,
        })
    }

    /// The role name of machine `m`.
    pub fn role(&self, m: u32) -> &str {
        self.fsms[m as usize].role()
    }

    /// The original action of compiled transition `t` of machine `m`.
    pub fn action(&self, m: u32, t: usize) -> &Action {
        let (state, i) = self.origin[m as usize][t];
        &self.fsms[m as usize].transitions(state)[i].action
    }

    /// Whether the system is CSA, directed and basic (see [`Shape`]).
    pub fn shape(&self) -> Shape {
        let mut csa = true;
        let mut directed = true;
        for fsm in self.fsms {
            for state in 0..fsm.state_count() {
                if fsm.kind(state) == StateKind::Mixed {
                    csa = false;
                }
                let ts = fsm.transitions(state);
                if let Some(t0) = ts.first() {
                    let same = ts.iter().all(|t| {
                        t.action.peer == t0.action.peer && t.action.direction == t0.action.direction
                    });
                    if !same {
                        directed = false;
                    }
                }
            }
        }
        let csa = csa
            && self
                .fsms
                .iter()
                .all(|f| f.nondeterministic_state().is_none());
        Shape {
            csa,
            directed,
            basic: csa && directed,
        }
    }
}
