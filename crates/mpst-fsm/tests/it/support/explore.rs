//! A deliberately simple exhaustive explorer of a system of communicating FSMs with
//! FIFO queues bounded by `bound` (a send to a full queue is not taken). It reports
//! the first reachable
//! - **deadlock**: no machine can move even ignoring the bound, and not every machine
//!   has ended with every queue empty;
//! - **orphan message**: a message waits in the queue of a machine that has ended;
//! - **unspecified reception**: a machine waits to receive from `p`, the head of the
//!   queue from `p` is a message it has no transition for.
//!
//! Messages are numbered (by label and payload sorts) so that a configuration is a
//! plain vector: each machine's state, then each queue as its length and contents.

use std::collections::HashSet;

use mpst_fsm::{Fsm, Message};

/// A global configuration: each machine's state and each queue `from → to`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Config {
    /// State of each machine.
    pub states: Vec<usize>,
    /// `queues[from * n + to]`, oldest message first, as message numbers.
    pub queues: Vec<Vec<usize>>,
}

/// What went wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// No move possible and not finished.
    Deadlock(Config),
    /// A message to a machine that has ended.
    Orphan(Config),
    /// A head message the receiving machine cannot take.
    UnspecifiedReception(Config),
    /// A machine talks to a role that is not in the system.
    UnknownPeer(String),
    /// More configurations than the exploration budget.
    TooBig,
}

/// One transition with numbers instead of names.
#[derive(Debug, Clone, Copy)]
struct Move {
    send: bool,
    peer: usize,
    message: usize,
    target: usize,
}

/// Explores every configuration reachable with queues of at most `bound` messages;
/// `Ok` holds the number of configurations.
pub fn explore(fsms: &[Fsm], bound: usize, budget: usize) -> Result<usize, Violation> {
    let n = fsms.len();
    let mut messages: Vec<Message> = Vec::new();
    let mut number = |m: &Message| match messages.iter().position(|k| k.same_sort(m)) {
        Some(i) => i,
        None => {
            messages.push(m.clone());
            messages.len() - 1
        }
    };
    // moves[i][state]
    let mut moves: Vec<Vec<Vec<Move>>> = Vec::with_capacity(n);
    for fsm in fsms {
        let mut per_state = Vec::with_capacity(fsm.state_count());
        for state in 0..fsm.state_count() {
            let mut ms = Vec::new();
            for t in fsm.transitions(state) {
                let peer = fsms
                    .iter()
                    .position(|f| f.role() == t.action.peer)
                    .ok_or_else(|| Violation::UnknownPeer(t.action.peer.clone()))?;
                ms.push(Move {
                    send: t.action.is_send(),
                    peer,
                    message: number(&t.action.message),
                    target: t.target,
                });
            }
            per_state.push(ms);
        }
        moves.push(per_state);
    }
    let start = Config {
        states: fsms.iter().map(Fsm::initial).collect(),
        queues: vec![Vec::new(); n * n],
    };
    let mut seen = HashSet::from([start.clone()]);
    let mut todo = vec![start];
    while let Some(config) = todo.pop() {
        let mut moved = false;
        for (i, machine) in moves.iter().enumerate() {
            let available = &machine[config.states[i]];
            if available.is_empty() && (0..n).any(|j| !config.queues[j * n + i].is_empty()) {
                return Err(Violation::Orphan(config));
            }
            for m in available {
                let mut next = config.clone();
                next.states[i] = m.target;
                if m.send {
                    moved = true;
                    if config.queues[i * n + m.peer].len() >= bound {
                        continue;
                    }
                    next.queues[i * n + m.peer].push(m.message);
                } else {
                    let Some(&head) = config.queues[m.peer * n + i].first() else {
                        continue;
                    };
                    let accepted = available
                        .iter()
                        .any(|u| !u.send && u.peer == m.peer && u.message == head);
                    if !accepted {
                        return Err(Violation::UnspecifiedReception(config));
                    }
                    if m.message != head {
                        continue;
                    }
                    moved = true;
                    next.queues[m.peer * n + i].remove(0);
                }
                if seen.insert(next.clone()) {
                    todo.push(next);
                }
            }
        }
        let all_done = (0..n).all(|i| moves[i][config.states[i]].is_empty())
            && config.queues.iter().all(Vec::is_empty);
        if !moved && !all_done {
            return Err(Violation::Deadlock(config));
        }
        if seen.len() > budget {
            return Err(Violation::TooBig);
        }
    }
    Ok(seen.len())
}
