//! Property tests of the k-MC checker against a naive oracle written from the
//! definitions: explore every interleaving, then for every configuration search
//! forward for the receive each property asks for. On random small systems the
//! reduced checker, the unreduced checker and the oracle must agree, and every
//! counterexample must replay as a real k-bounded execution.

use std::collections::{HashSet, VecDeque};

use mpst_fsm::kmc::{KmcOptions, KmcReport, KmcViolation, check_kmc, check_kmc_with};
use mpst_fsm::{Action, Direction, Fsm, Message, StateKind};
use proptest::prelude::*;

/// Local states, then one queue per ordered pair `(from, to)` at `from * n + to`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct Config {
    states: Vec<usize>,
    queues: Vec<VecDeque<String>>,
}

struct Oracle<'a> {
    system: &'a [Fsm],
    k: usize,
}

/// One move: the machine, whether it receives, and the queue it touches.
#[derive(Clone, Copy)]
struct Move {
    machine: usize,
    receive: bool,
    queue: usize,
}

impl Oracle<'_> {
    fn index(&self, role: &str) -> usize {
        self.system.iter().position(|f| f.role() == role).unwrap()
    }

    fn initial(&self) -> Config {
        let n = self.system.len();
        Config {
            states: self.system.iter().map(Fsm::initial).collect(),
            queues: vec![VecDeque::new(); n * n],
        }
    }

    fn successors(&self, c: &Config) -> Vec<(Move, Config)> {
        let n = self.system.len();
        let mut out = Vec::new();
        for (m, fsm) in self.system.iter().enumerate() {
            for t in fsm.transitions(c.states[m]) {
                let peer = self.index(&t.action.peer);
                let mut next = c.clone();
                next.states[m] = t.target;
                let label = t.action.message.to_string();
                let queue = match t.action.direction {
                    Direction::Send => {
                        let q = m * n + peer;
                        if c.queues[q].len() >= self.k {
                            continue;
                        }
                        next.queues[q].push_back(label);
                        q
                    }
                    Direction::Receive => {
                        let q = peer * n + m;
                        if c.queues[q].front() != Some(&label) {
                            continue;
                        }
                        next.queues[q].pop_front();
                        q
                    }
                };
                let receive = t.action.direction == Direction::Receive;
                out.push((
                    Move {
                        machine: m,
                        receive,
                        queue,
                    },
                    next,
                ));
            }
        }
        out
    }

    /// Whether some execution from `c` (without moves of `frozen`) makes a move
    /// satisfying `goal`.
    fn eventually(&self, c: &Config, frozen: Option<usize>, goal: impl Fn(Move) -> bool) -> bool {
        let mut seen = HashSet::from([c.clone()]);
        let mut todo = vec![c.clone()];
        while let Some(c) = todo.pop() {
            for (mv, next) in self.successors(&c) {
                if Some(mv.machine) == frozen {
                    continue;
                }
                if goal(mv) {
                    return true;
                }
                if seen.insert(next.clone()) {
                    todo.push(next);
                }
            }
        }
        false
    }

    fn is_kmc(&self) -> bool {
        let n = self.system.len();
        let mut seen = HashSet::from([self.initial()]);
        let mut todo = vec![self.initial()];
        while let Some(c) = todo.pop() {
            for (m, fsm) in self.system.iter().enumerate() {
                let state = c.states[m];
                if fsm.kind(state) == StateKind::Receive
                    && !self.eventually(&c, None, |mv| mv.machine == m && mv.receive)
                {
                    return false;
                }
                for t in fsm.transitions(state) {
                    let q = m * n + self.index(&t.action.peer);
                    if t.action.is_send()
                        && c.queues[q].len() >= self.k
                        && !self.eventually(&c, Some(m), |mv| mv.receive && mv.queue == q)
                    {
                        return false;
                    }
                }
            }
            for q in 0..n * n {
                if !c.queues[q].is_empty()
                    && !self.eventually(&c, None, |mv| mv.receive && mv.queue == q)
                {
                    return false;
                }
            }
            for (_, next) in self.successors(&c) {
                if seen.insert(next.clone()) {
                    todo.push(next);
                }
            }
        }
        true
    }

    /// Replays a counterexample: every step must be enabled within the bound and the
    /// end must be the reported configuration. A non-deterministic machine may take
    /// any of its transitions with the step's action: every resolution is followed.
    fn replays(&self, v: &KmcViolation) -> bool {
        let n = self.system.len();
        let mut current = vec![self.initial()];
        for step in &v.trace {
            let m = self.index(&step.role);
            let mut next = Vec::new();
            for c in &current {
                for t in self.system[m].transitions(c.states[m]) {
                    if t.action != step.action {
                        continue;
                    }
                    let mut c = c.clone();
                    let peer = self.index(&t.action.peer);
                    let label = t.action.message.to_string();
                    if t.action.is_send() {
                        let q = &mut c.queues[m * n + peer];
                        if q.len() >= self.k {
                            continue;
                        }
                        q.push_back(label);
                    } else {
                        let q = &mut c.queues[peer * n + m];
                        if q.front() != Some(&label) {
                            continue;
                        }
                        q.pop_front();
                    }
                    c.states[m] = t.target;
                    next.push(c);
                }
            }
            if next.is_empty() {
                return false;
            }
            current = next;
        }
        current.iter().any(|c| self.reaches(c, v))
    }

    /// Whether `c` is the configuration the counterexample reports.
    fn reaches(&self, c: &Config, v: &KmcViolation) -> bool {
        let n = self.system.len();
        let states: Vec<usize> = v.configuration.states.iter().map(|s| s.1).collect();
        let queues_match = v.configuration.queues.iter().all(|(from, to, msgs)| {
            let q = self.index(from) * n + self.index(to);
            c.queues[q]
                .iter()
                .cloned()
                .eq(msgs.iter().map(Message::to_string))
        });
        let non_empty = c.queues.iter().filter(|q| !q.is_empty()).count();
        states == c.states && queues_match && non_empty == v.configuration.queues.len()
    }
}

/// A transition: (from, peer offset, send?, label, to).
type Spec = (usize, usize, bool, usize, usize);

fn build(roles: &[Vec<Spec>], nondeterministic: bool) -> Vec<Fsm> {
    let n = roles.len();
    let name = |i: usize| ["a", "b", "c"][i].to_string();
    roles
        .iter()
        .enumerate()
        .map(|(i, specs)| {
            let mut fsm = Fsm::new(name(i));
            for &(from, offset, send, label, to) in specs {
                while fsm.state_count() <= from.max(to) {
                    fsm.add_state();
                }
                let peer = name((i + 1 + offset % (n - 1)) % n);
                let message = Message::new(["x", "y"][label]);
                let action = Action {
                    peer,
                    direction: if send {
                        Direction::Send
                    } else {
                        Direction::Receive
                    },
                    message,
                };
                // Duplicate actions are skipped, or kept (non-determinism).
                let _ = if nondeterministic {
                    fsm.add_nondeterministic_transition(from, action, to)
                } else {
                    fsm.add_transition(from, action, to)
                };
            }
            fsm
        })
        .collect()
}

/// A global interaction `from → from + 1 + offset: label`.
type Interaction = (usize, usize, usize);

/// The projections of a sequence of interactions (repeated forever if `looped`) on
/// `roles` roles, after swapping the adjacent actions `(role, position)` of one role
/// (asynchronous message reordering, safe or not).
fn reordered(
    roles: usize,
    global: &[Interaction],
    looped: bool,
    swaps: &[(usize, usize)],
) -> Vec<Fsm> {
    let name = |i: usize| ["a", "b", "c", "d"][i].to_string();
    let mut locals: Vec<Vec<Action>> = vec![Vec::new(); roles];
    for &(from, offset, label) in global {
        let from = from % roles;
        let to = (from + 1 + offset % (roles - 1)) % roles;
        let message = Message::new(["x", "y", "z"][label]);
        locals[from].push(Action::send(name(to), message.clone()));
        locals[to].push(Action::receive(name(from), message));
    }
    for &(role, pos) in swaps {
        let actions = &mut locals[role % roles];
        if pos + 1 < actions.len() {
            actions.swap(pos, pos + 1);
        }
    }
    locals
        .into_iter()
        .enumerate()
        .map(|(i, actions)| {
            let mut fsm = Fsm::new(name(i));
            let len = actions.len();
            for (j, action) in actions.into_iter().enumerate() {
                let to = if looped && j + 1 == len { 0 } else { j + 1 };
                while fsm.state_count() <= to.max(j) {
                    fsm.add_state();
                }
                fsm.add_transition(j, action, to).expect("a linear machine");
            }
            fsm
        })
        .collect()
}

fn spec() -> impl Strategy<Value = Spec> {
    (0..4usize, 0..2usize, any::<bool>(), 0..2usize, 0..4usize)
}

fn systems() -> impl Strategy<Value = Vec<Vec<Spec>>> {
    (2..=3usize).prop_flat_map(|n| prop::collection::vec(prop::collection::vec(spec(), 0..6), n))
}

/// Checks `system` for the bound `k` with and without the reduction, asserts that both
/// agree with the oracle and that every counterexample replays; returns the oracle's
/// verdict and both reports.
fn agrees_with_the_definitions(
    system: &[Fsm],
    k: usize,
) -> Result<(bool, KmcReport, KmcReport), TestCaseError> {
    let oracle = Oracle { system, k };
    let expected = oracle.is_kmc();
    let reduced = check_kmc(system, k).unwrap();
    let full = check_kmc_with(
        system,
        &KmcOptions {
            reduce: false,
            ..KmcOptions::new(k)
        },
    )
    .unwrap();
    prop_assert_eq!(reduced.is_kmc(), expected, "reduced: {}", reduced);
    prop_assert_eq!(full.is_kmc(), expected, "full: {}", full);
    for report in [&reduced, &full] {
        if let Some(v) = &report.violation {
            prop_assert!(oracle.replays(v), "counterexample does not replay: {}", v);
        }
    }
    Ok((expected, reduced, full))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn reduced_and_full_checks_agree_with_the_definitions(roles in systems(), k in 1..=2usize) {
        let system = build(&roles, false);
        let (expected, reduced, full) = agrees_with_the_definitions(&system, k)?;
        if expected {
            // Both explored everything (a violation may stop either one early).
            prop_assert!(reduced.configurations <= full.configurations);
        }
    }

    #[test]
    fn reordered_projections_agree_with_the_definitions(
        roles in 2..=4usize,
        global in prop::collection::vec((0..4usize, 0..3usize, 0..3usize), 1..8),
        looped in any::<bool>(),
        swaps in prop::collection::vec((0..4usize, 0..6usize), 0..4),
        k in 1..=3usize,
    ) {
        let system = reordered(roles, &global, looped, &swaps);
        let (expected, _, _) = agrees_with_the_definitions(&system, k)?;
        if swaps.is_empty() {
            // An unreordered projection of a global sequence is always k-MC.
            prop_assert!(expected);
        }
    }

    #[test]
    fn nondeterministic_machines_agree_with_the_definitions(
        roles in systems(),
        k in 1..=2usize,
    ) {
        let system = build(&roles, true);
        agrees_with_the_definitions(&system, k)?;
    }
}
