//! Exploration of the k-bounded transition system with a partial-order reduction
//! (persistent sets, with the ignoring proviso of [`super::scc`]).
//!
//! In a configuration, a machine `p` is *eligible* when it has an enabled
//! transition and every transition of its local state is either enabled or a receive
//! whose queue holds a different message at its head. The enabled transitions of an
//! eligible machine form a persistent set: no other machine can enable or disable
//! them, and each commutes with everything the others can do before `p` moves (a send
//! appends at the tail of a queue that only its receiver shortens; a receive takes
//! the head of a non-empty queue, which the others can only extend). A configuration
//! is expanded with the transitions of one eligible machine (fewest enabled
//! transitions first, receivers before senders, then input order), or with every
//! enabled transition when no machine is eligible. Local violations (unspecified
//! reception, a stuck configuration that has not terminated) are checked as each
//! configuration is expanded.

use crate::{Direction, StateKind};

use super::KmcError;
use super::queue;
use super::scc;
use super::store::Store;
use super::system::System;
use super::violation::ViolationKind;

/// `chosen` of a configuration not expanded yet.
pub(crate) const UNEXPANDED: u32 = u32::MAX;
/// `chosen` of a configuration expanded with every enabled transition.
pub(crate) const FULL: u32 = u32::MAX - 1;

/// The words of queued runs (two per run) per configuration the memory budget
/// allows on average.
pub(crate) const WORDS_QUEUED: usize = 8;

/// One explored transition between two configurations.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Edge {
    /// Source configuration.
    pub src: u32,
    /// Target configuration.
    pub dst: u32,
    /// The machine that moves.
    pub machine: u32,
    /// Its compiled transition.
    pub trans: u32,
}

/// The explored (reduced) transition system.
#[derive(Debug)]
pub(crate) struct Graph {
    /// The configurations, numbered in discovery order (0 is initial).
    pub store: Store,
    /// Every explored transition.
    pub edges: Vec<Edge>,
    /// For every configuration, the machine whose move discovered it (that of the
    /// initial configuration is 0): where [`Explorer::choose`] starts its round.
    pub via: Vec<u32>,
}

/// What the exploration found.
pub(crate) enum Explored {
    /// The whole (reduced) state space; no configuration is locally bad.
    Complete(Graph),
    /// A configuration that is bad by itself (deadlock, orphan in a terminal
    /// configuration, unspecified reception); exploration stopped there.
    Stopped(Graph, u32, ViolationKind),
}

/// The exploration of one system with one bound.
pub(crate) struct Explorer<'s, 'a> {
    sys: &'s System<'a>,
    k: u32,
    reduce: bool,
    limit: usize,
    /// At most this many words stored: `limit` configurations of average size.
    word_limit: usize,
}

/// Reusable buffers of the exploration loop.
#[derive(Default)]
struct Scratch {
    cur: Vec<u32>,
    next: Vec<u32>,
    offs: Vec<usize>,
    enabled: Vec<(u32, u32)>,
}

impl<'s, 'a> Explorer<'s, 'a> {
    /// An explorer with bound `k`, partial-order reduction on or off, and at most
    /// `limit` configurations.
    pub fn new(sys: &'s System<'a>, k: usize, reduce: bool, limit: usize) -> Self {
        Explorer {
            sys,
            k: u32::try_from(k).unwrap_or(u32::MAX),
            reduce,
            // Configuration numbers must stay below the `chosen` markers.
            limit: limit.min(FULL as usize - 1),
            word_limit: limit
                .saturating_mul(sys.machines.len() + 2 * sys.queues.len() + WORDS_QUEUED),
        }
    }

    /// The initial configuration: initial states, empty queues.
    fn initial(&self) -> Vec<u32> {
        let mut c: Vec<u32> = self.sys.machines.iter().map(|m| m.initial).collect();
        for _ in &self.sys.queues {
            c.extend_from_slice(&queue::EMPTY);
        }
        c
    }

    fn enabled(&self, c: &[u32], offs: &[usize], m: usize, t: usize) -> bool {
        let tr = &self.sys.machines[m].trans[t];
        let o = offs[tr.queue as usize];
        match tr.dir {
            Direction::Send => queue::len(c, o) < self.k,
            Direction::Receive => queue::head(c, o) == Some(tr.msg),
        }
    }

    /// A receive that can never fire while its machine stays put: the queue's head is
    /// another message.
    fn blocked_for_good(&self, c: &[u32], offs: &[usize], m: usize, t: usize) -> bool {
        let tr = &self.sys.machines[m].trans[t];
        let o = offs[tr.queue as usize];
        tr.dir == Direction::Receive && queue::head(c, o).is_some_and(|h| h != tr.msg)
    }

    /// Explores the state space: every configuration is expanded with the
    /// transitions of one eligible machine (or all of them when none is eligible);
    /// then, until no transition is ignored, configurations of terminal strongly
    /// connected components where an enabled transition is never taken are fully
    /// expanded and the new configurations explored in turn.
    ///
    /// `observe` is told the number of configurations found every
    /// [`REPORT_EVERY`](crate::kmc::REPORT_EVERY) new ones (for progress bars).
    pub fn run(&self, observe: &mut dyn FnMut(usize)) -> Result<Explored, KmcError> {
        let mut graph = Graph {
            store: Store::new(),
            edges: Vec::new(),
            via: vec![0],
        };
        graph.store.intern(&self.initial());
        let mut chosen = vec![UNEXPANDED];
        let mut work = vec![0u32];
        let mut s = Scratch::default();
        let mut report_at = super::REPORT_EVERY;
        loop {
            while let Some(c) = work.pop() {
                if graph.store.len() >= report_at {
                    observe(graph.store.len());
                    report_at = graph.store.len() + super::REPORT_EVERY;
                }
                if chosen[c as usize] != UNEXPANDED {
                    continue;
                }
                let before = graph.store.len();
                let (machine, bad) = self.expand_config(&mut graph, &mut s, c, None)?;
                chosen[c as usize] = machine;
                if let Some(kind) = bad {
                    return Ok(Explored::Stopped(graph, c, kind));
                }
                chosen.resize(graph.store.len(), UNEXPANDED);
                work.extend(before as u32..graph.store.len() as u32);
            }
            if !self.reduce {
                return Ok(Explored::Complete(graph));
            }
            let ignoring = scc::ignoring(self, &graph, &chosen);
            if ignoring.is_empty() {
                return Ok(Explored::Complete(graph));
            }
            for c in ignoring {
                let before = graph.store.len();
                let skip = chosen[c as usize];
                self.expand_config(&mut graph, &mut s, c, Some(skip))?;
                chosen[c as usize] = FULL;
                chosen.resize(graph.store.len(), UNEXPANDED);
                work.extend(before as u32..graph.store.len() as u32);
            }
        }
    }

    /// The enabled transitions `(machine, transition)` of a configuration, by machine.
    pub(crate) fn enabled_in(
        &self,
        config: &[u32],
        offs: &mut Vec<usize>,
        out: &mut Vec<(u32, u32)>,
    ) {
        let n = self.sys.machines.len();
        queue::offsets(n, self.sys.queues.len(), config, offs);
        out.clear();
        for m in 0..n {
            for t in self.sys.machines[m].outgoing(config[m]) {
                if self.enabled(config, offs, m, t) {
                    out.push((m as u32, t as u32));
                }
            }
        }
    }

    /// Expands configuration `index`. With `complete == None` (first expansion): checks
    /// the configuration's local properties and adds the transitions of one eligible
    /// machine, or of all machines; returns the machine chosen ([`FULL`] for all).
    /// With `complete == Some(m)`: adds the enabled transitions of every machine but
    /// `m` (the rest of a full expansion).
    fn expand_config(
        &self,
        graph: &mut Graph,
        s: &mut Scratch,
        index: u32,
        complete: Option<u32>,
    ) -> Result<(u32, Option<ViolationKind>), KmcError> {
        s.cur.clear();
        s.cur.extend_from_slice(graph.store.get(index));
        let mut enabled = std::mem::take(&mut s.enabled);
        self.enabled_in(&s.cur, &mut s.offs, &mut enabled);
        let result = self.expand_enabled(graph, s, index, complete, &enabled);
        s.enabled = enabled;
        result
    }

    fn expand_enabled(
        &self,
        graph: &mut Graph,
        s: &mut Scratch,
        index: u32,
        complete: Option<u32>,
        enabled: &[(u32, u32)],
    ) -> Result<(u32, Option<ViolationKind>), KmcError> {
        if let Some(skip) = complete {
            for &(m, t) in enabled.iter().filter(|e| e.0 != skip) {
                self.expand(graph, s, index, m, t)?;
            }
            return Ok((FULL, None));
        }
        if let Some(kind) = self.unspecified_reception(&s.cur, &s.offs) {
            return Ok((FULL, Some(kind)));
        }
        if enabled.is_empty() {
            return Ok((FULL, self.stuck(&s.cur, &s.offs)));
        }
        let chosen = if self.reduce {
            self.choose(&s.cur, &s.offs, enabled, graph.via[index as usize])
        } else {
            None
        };
        for &(m, t) in enabled
            .iter()
            .filter(|e| chosen.is_none() || chosen == Some(e.0))
        {
            self.expand(graph, s, index, m, t)?;
        }
        Ok((chosen.unwrap_or(FULL), None))
    }

    /// Adds the successor of `index` by transition `t` of machine `m` and returns it.
    fn expand(
        &self,
        graph: &mut Graph,
        s: &mut Scratch,
        index: u32,
        m: u32,
        t: u32,
    ) -> Result<u32, KmcError> {
        let tr = self.sys.machines[m as usize].trans[t as usize];
        let o = s.offs[tr.queue as usize];
        match tr.dir {
            Direction::Send => queue::push(&s.cur, o, tr.msg, &mut s.next),
            Direction::Receive => queue::pop(&s.cur, o, &mut s.next),
        }
        s.next[m as usize] = tr.target;
        let (dst, new) = graph.store.intern(&s.next);
        if new {
            graph.via.push(m);
        }
        graph.edges.push(Edge {
            src: index,
            dst,
            machine: m,
            trans: t,
        });
        // Configurations and edges are numbered by `u32`.
        let too_big = graph.store.len() > self.limit || graph.store.words() > self.word_limit;
        if (new && too_big) || graph.edges.len() >= u32::MAX as usize {
            return Err(KmcError::TooManyConfigurations { limit: self.limit });
        }
        Ok(dst)
    }

    /// The eligible machine with the fewest enabled transitions, receivers first,
    /// then the first in a round of the machines that starts at `pivot` (the one
    /// that moved last); `None` if no machine is eligible.
    ///
    /// Any eligible machine gives a persistent set, so this order only decides how
    /// many configurations are explored, never what is found. Starting the round
    /// where the last move was, rather than at machine 0, lets a wave of moves go on
    /// around the system: on the ring of `n` roles it explores `2n`
    /// configurations, where a fixed order explores `n(n + 1) / 2` (every role but the
    /// first resending as soon as its queue frees, so a wave of resends runs behind
    /// the token at each of its steps).
    fn choose(
        &self,
        cur: &[u32],
        offs: &[usize],
        enabled: &[(u32, u32)],
        pivot: u32,
    ) -> Option<u32> {
        let n = self.sys.machines.len() as u32;
        let mut best: Option<((usize, bool, u32), u32)> = None;
        let mut i = 0;
        while i < enabled.len() {
            let m = enabled[i].0;
            let mut j = i;
            while j < enabled.len() && enabled[j].0 == m {
                j += 1;
            }
            let count = j - i;
            let machine = &self.sys.machines[m as usize];
            let outgoing = machine.outgoing(cur[m as usize]);
            let eligible = count == outgoing.len()
                || outgoing.clone().all(|t| {
                    self.enabled(cur, offs, m as usize, t)
                        || self.blocked_for_good(cur, offs, m as usize, t)
                });
            if eligible {
                let sends = machine.trans[outgoing.start].dir == Direction::Send;
                let key = (count, sends, (m + n - pivot) % n);
                match best {
                    Some((b, _)) if b <= key => {}
                    _ => best = Some((key, m)),
                }
            }
            i = j;
        }
        best.map(|(_, m)| m)
    }

    /// A role in a receiving state whose every queue has a head it does not accept.
    fn unspecified_reception(&self, c: &[u32], offs: &[usize]) -> Option<ViolationKind> {
        for (m, machine) in self.sys.machines.iter().enumerate() {
            let state = c[m];
            if machine.kinds[state as usize] != StateKind::Receive {
                continue;
            }
            let outgoing = machine.outgoing(state);
            if outgoing
                .clone()
                .all(|t| self.blocked_for_good(c, offs, m, t))
            {
                let first = machine.trans[outgoing.start];
                let o = offs[first.queue as usize];
                let from = self.sys.queues[first.queue as usize].0;
                // Blocked for good: the queue has a head.
                let head = queue::head(c, o).unwrap_or_default();
                return Some(ViolationKind::UnspecifiedReception {
                    role: self.sys.role(m as u32).to_string(),
                    from: self.sys.role(from).to_string(),
                    message: self.sys.messages[head as usize].clone(),
                    expected: outgoing
                        .map(|t| self.sys.action(m as u32, t).clone())
                        .collect(),
                });
            }
        }
        None
    }

    /// Why a configuration without enabled transitions is bad, or `None` if every
    /// machine is final and every queue empty.
    fn stuck(&self, c: &[u32], offs: &[usize]) -> Option<ViolationKind> {
        let waiting: Vec<String> = (0..self.sys.machines.len())
            .filter(|&m| {
                let kind = self.sys.machines[m].kinds[c[m] as usize];
                matches!(kind, StateKind::Receive | StateKind::Mixed)
            })
            .map(|m| self.sys.role(m as u32).to_string())
            .collect();
        if !waiting.is_empty() {
            return Some(ViolationKind::Deadlock { waiting });
        }
        for (q, &o) in offs.iter().enumerate() {
            if let Some(head) = queue::head(c, o) {
                let (from, to) = self.sys.queues[q];
                return Some(ViolationKind::Orphan {
                    from: self.sys.role(from).to_string(),
                    to: self.sys.role(to).to_string(),
                    message: self.sys.messages[head as usize].clone(),
                });
            }
        }
        let all_final = (0..self.sys.machines.len())
            .all(|m| self.sys.machines[m].kinds[c[m] as usize] == StateKind::End);
        (!all_final).then(|| ViolationKind::Deadlock {
            waiting: Vec::new(),
        })
    }
}
