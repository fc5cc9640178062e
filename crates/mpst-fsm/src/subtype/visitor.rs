//! The depth-first search of App. B.5 over pairs of states, with an explicit stack
//! (no recursion: deep searches cannot overflow the call stack), one pair of prefixes
//! mutated in place and reverted through snapshots, and a sparse history holding an
//! entry only for the pairs on the current path.

use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;

use super::explain::{NotProved, Reason, Side, Stats};
use super::machine::{ActionId, ActionTable, Machine, compile};
use super::prefix::{Prefix, Resume, Snapshot, Stuck, reduce};
use crate::{Fsm, StateKind};

/// The assumption Σ and the remaining bound of one state pair on the current path.
#[derive(Debug, Clone, Copy)]
struct Previous {
    visits_left: usize,
    snapshots: (Snapshot, Snapshot),
}

/// A failure found during the search, kept as interned ids until it is reported.
#[derive(Debug)]
struct Failure {
    depth: usize,
    pair: (u32, u32),
    reason: RawReason,
    /// The prefixes and paths, recorded only by the explaining run.
    detail: Option<Box<Detail>>,
}

/// The prefixes and paths at a failure.
#[derive(Debug, Default)]
struct Detail {
    sub_prefix: Vec<ActionId>,
    super_prefix: Vec<ActionId>,
    sub_trace: Vec<ActionId>,
    super_trace: Vec<ActionId>,
}

#[derive(Debug, Clone, Copy)]
enum RawReason {
    Stuck(Stuck),
    Forgotten(ActionId),
    EndAgainstNonEnd(Side),
    PendingAtEnd,
    Bound,
    Mixed(Side, u32),
    /// The step or depth budget ran out: the whole search stops.
    Budget,
    /// The deadline passed: the whole search stops.
    Time,
}

impl RawReason {
    /// Whether the whole search stops here (a budget, not a failure of the rules).
    fn stops(self) -> bool {
        matches!(self, RawReason::Budget | RawReason::Time)
    }
}

/// The limits of one search.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// \[µL\]/\[µR\]'s bound on visits of one pair on one path.
    pub visits: usize,
    /// At most this many configurations visited.
    pub max_steps: u64,
    /// At most this many configurations on one path.
    pub max_depth: usize,
    /// Stop when this instant has passed (checked every [`REPORT_EVERY`] configurations).
    pub deadline: Option<(Instant, Duration)>,
}

/// How a state pair's children combine: `outer` over one side's transitions, `inner`
/// over the other's (Fig. 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quantifier {
    /// \[OI\]: every pair must succeed.
    AllAll,
    /// \[OO\] (outer = subtype) and \[II\] (outer = supertype): for every outer transition
    /// some inner one must succeed.
    AllExists,
    /// \[IO\]: some pair must succeed.
    ExistsExists,
}

struct Frame {
    pair: (u32, u32),
    saved: Option<Previous>,
    snapshots: (Snapshot, Snapshot),
    /// Where the reduction at this configuration stopped, for the children's.
    resume: Option<Resume>,
    quantifier: Quantifier,
    /// Whether the outer loop ranges over the subtype's transitions.
    outer_is_sub: bool,
    outer: usize,
    inner: usize,
    /// The furthest failure among the alternatives of an ∃ tried so far.
    best: Option<Failure>,
}

/// What visiting a configuration led to.
enum Visit {
    /// The configuration needs its children explored: a frame was pushed.
    Expand,
    /// The configuration is decided.
    Done(Result<(), Failure>),
}

pub(super) struct Visitor<'o> {
    table: ActionTable,
    sub: Machine,
    sup: Machine,
    visits: usize,
    limits: Limits,
    history: FxHashMap<(u32, u32), Previous>,
    prefixes: (Prefix, Prefix),
    stack: Vec<Frame>,
    stats: Stats,
    /// Scratch for the \[ASM\] action check: `marks[kind] == stamp` when seen.
    marks: Vec<u32>,
    stamp: u32,
    /// Whether failures record the prefixes and paths (a second, explaining run).
    explain: bool,
    /// Told the configurations explored so far every [`REPORT_EVERY`] of them.
    observe: &'o mut dyn FnMut(u64),
    /// The configurations explored by earlier runs of the same check, added to this
    /// run's count when reporting, so that the counts reported never decrease.
    reported_base: u64,
}

/// How many configurations the search explores between two calls of its observer.
pub(super) const REPORT_EVERY: u64 = 1024;

/// Runs the search; when it fails, runs it again recording the prefixes and paths of
/// failures, so that successful checks never pay for explanations. `observe` is told
/// the configurations explored so far by both runs, every [`REPORT_EVERY`] of them.
pub(super) fn check(
    sub: &Fsm,
    sup: &Fsm,
    limits: Limits,
    observe: &mut dyn FnMut(u64),
) -> Result<Stats, Box<NotProved>> {
    let mut first = Visitor::new(sub, sup, limits, false, &mut *observe);
    match first.search() {
        Ok(stats) => Ok(stats),
        // A budget stop recorded its place already; running again would cost as much.
        Err(failure) if failure.reason.stops() => Err(first.report(failure)),
        Err(_) => {
            let base = first.stats.pairs_explored;
            drop(first);
            let mut second = Visitor::new(sub, sup, limits, true, observe);
            second.reported_base = base;
            second.run_explained()
        }
    }
}

impl<'o> Visitor<'o> {
    fn new(
        sub: &Fsm,
        sup: &Fsm,
        limits: Limits,
        explain: bool,
        observe: &'o mut dyn FnMut(u64),
    ) -> Self {
        let (table, sub_m, sup_m) = compile(sub, sup);
        let kinds = table.kind_count();
        Visitor {
            table,
            sub: sub_m,
            sup: sup_m,
            visits: limits.visits,
            limits,
            history: FxHashMap::default(),
            prefixes: (Prefix::default(), Prefix::default()),
            stack: Vec::new(),
            stats: Stats::default(),
            marks: vec![0; kinds],
            stamp: 0,
            explain,
            observe,
            reported_base: 0,
        }
    }

    fn run_explained(mut self) -> Result<Stats, Box<NotProved>> {
        match self.search() {
            Ok(stats) => Ok(stats),
            Err(failure) => Err(self.report(failure)),
        }
    }

    /// Runs the whole search from the initial states.
    fn search(&mut self) -> Result<Stats, Failure> {
        let mut pending = match self.visit((self.sub.initial, self.sup.initial), None) {
            Visit::Expand => None,
            Visit::Done(result) => Some(result),
        };
        loop {
            let Some(frame) = self.stack.last_mut() else {
                let result = pending.expect("the root is decided when the stack is empty");
                return result.map(|()| self.stats);
            };
            if let Some(Err(failure)) = &pending {
                if failure.reason.stops() {
                    return Err(pending.take().expect("just matched").unwrap_err());
                }
            }
            let next = match pending.take() {
                None => Step::Child,
                Some(result) => advance(frame, result, &self.sub, &self.sup),
            };
            match next {
                Step::Child => {
                    let frame = self.stack.last().expect("frame just inspected");
                    let (i, j) = if frame.outer_is_sub {
                        (frame.outer, frame.inner)
                    } else {
                        (frame.inner, frame.outer)
                    };
                    let (a, s) = self.sub.edges(frame.pair.0)[i];
                    let (b, t) = self.sup.edges(frame.pair.1)[j];
                    let (snaps, resume) = (frame.snapshots, frame.resume);
                    self.prefixes.0.restore(snaps.0);
                    self.prefixes.1.restore(snaps.1);
                    self.prefixes.0.push(a, &self.table);
                    self.prefixes.1.push(b, &self.table);
                    pending = match self.visit((s, t), resume) {
                        Visit::Expand => None,
                        Visit::Done(result) => Some(result),
                    };
                }
                Step::Finish(result) => {
                    let frame = self.stack.pop().expect("frame just inspected");
                    match frame.saved {
                        Some(previous) => self.history.insert(frame.pair, previous),
                        None => self.history.remove(&frame.pair),
                    };
                    pending = Some(result);
                }
            }
        }
    }

    /// One configuration: \[SUB\] with fail-early, \[ASM\], \[END\], the bound, then the
    /// choice rules (a frame whose children the main loop explores).
    fn visit(&mut self, pair: (u32, u32), hint: Option<Resume>) -> Visit {
        self.stats.pairs_explored += 1;
        if self.stats.pairs_explored.is_multiple_of(REPORT_EVERY) {
            (self.observe)(self.reported_base + self.stats.pairs_explored);
            if self
                .limits
                .deadline
                .is_some_and(|(at, _)| Instant::now() >= at)
            {
                return Visit::Done(Err(self.failure(pair, RawReason::Time)));
            }
        }
        if self.stats.pairs_explored > self.limits.max_steps
            || self.stack.len() >= self.limits.max_depth
        {
            return Visit::Done(Err(self.failure(pair, RawReason::Budget)));
        }
        let (sub, sup) = &mut self.prefixes;
        let resume = match reduce(sub, sup, hint) {
            Ok(resume) => resume,
            Err(stuck) => return Visit::Done(Err(self.failure(pair, RawReason::Stuck(stuck)))),
        };
        let previous = self.history.get(&pair).copied();
        if let Some(previous) = previous {
            let (s, t) = previous.snapshots;
            if self.prefixes.0.same_as(s) && self.prefixes.1.same_as(t) {
                return Visit::Done(match self.forgotten(s) {
                    None => Ok(()),
                    Some(action) => Err(self.failure(pair, RawReason::Forgotten(action))),
                });
            }
        }
        let kinds = (self.sub.kind(pair.0), self.sup.kind(pair.1));
        let quantifier = match kinds {
            (StateKind::End, StateKind::End) => {
                return Visit::Done(
                    if self.prefixes.0.is_empty() && self.prefixes.1.is_empty() {
                        Ok(())
                    } else {
                        Err(self.failure(pair, RawReason::PendingAtEnd))
                    },
                );
            }
            (StateKind::Mixed, _) => {
                return Visit::Done(Err(self.failure(pair, RawReason::Mixed(Side::Sub, pair.0))));
            }
            (_, StateKind::Mixed) => {
                return Visit::Done(Err(
                    self.failure(pair, RawReason::Mixed(Side::Super, pair.1))
                ));
            }
            (StateKind::End, _) => {
                return Visit::Done(Err(
                    self.failure(pair, RawReason::EndAgainstNonEnd(Side::Sub))
                ));
            }
            (_, StateKind::End) => {
                return Visit::Done(Err(
                    self.failure(pair, RawReason::EndAgainstNonEnd(Side::Super))
                ));
            }
            (StateKind::Send, StateKind::Receive) => (Quantifier::AllAll, true),
            (StateKind::Send, StateKind::Send) => (Quantifier::AllExists, true),
            (StateKind::Receive, StateKind::Receive) => (Quantifier::AllExists, false),
            (StateKind::Receive, StateKind::Send) => (Quantifier::ExistsExists, true),
        };
        let visits_left = previous.map_or(self.visits, |p| p.visits_left);
        if visits_left == 0 {
            return Visit::Done(Err(self.failure(pair, RawReason::Bound)));
        }
        let snapshots = (self.prefixes.0.snapshot(), self.prefixes.1.snapshot());
        let saved = self.history.insert(
            pair,
            Previous {
                visits_left: visits_left - 1,
                snapshots,
            },
        );
        self.stack.push(Frame {
            pair,
            saved,
            snapshots,
            resume,
            quantifier: quantifier.0,
            outer_is_sub: quantifier.1,
            outer: 0,
            inner: 0,
            best: None,
        });
        self.stats.max_depth = self.stats.max_depth.max(self.stack.len());
        Visit::Expand
    }

    /// \[ASM\]'s check: some action the supertype still waits for has a kind (peer and
    /// direction) the subtype never performed since the assumption was made.
    fn forgotten(&mut self, since: Snapshot) -> Option<ActionId> {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.marks.iter_mut().for_each(|m| *m = 0);
            self.stamp = 1;
        }
        for action in self.prefixes.0.pushed_since(since) {
            self.marks[self.table.kind(action) as usize] = self.stamp;
        }
        self.prefixes
            .1
            .live()
            .map(|(_, action)| action)
            .find(|&action| self.marks[self.table.kind(action) as usize] != self.stamp)
    }

    fn failure(&self, pair: (u32, u32), reason: RawReason) -> Failure {
        let (sub, sup) = &self.prefixes;
        // A budget stop ends the search: record where it was at once.
        let explain = self.explain || reason.stops();
        let detail = explain.then(|| {
            Box::new(Detail {
                sub_prefix: sub.live().map(|(_, a)| a).collect(),
                super_prefix: sup.live().map(|(_, a)| a).collect(),
                sub_trace: sub.history().collect(),
                super_trace: sup.history().collect(),
            })
        });
        Failure {
            depth: self.stack.len(),
            pair,
            reason,
            detail,
        }
    }

    fn report(&self, failure: Failure) -> Box<NotProved> {
        let action = |id: ActionId| self.table.action(id).clone();
        let actions = |ids: &[ActionId]| ids.iter().map(|&id| action(id)).collect::<Vec<_>>();
        let reason = match failure.reason {
            RawReason::Stuck(Stuck::ReceiveOvertakesSend { receive, send }) => {
                Reason::ReceiveOvertakesSend {
                    receive: action(receive),
                    send: action(send),
                }
            }
            RawReason::Stuck(Stuck::Mismatch { sub, sup }) => Reason::Mismatch {
                sub: action(sub),
                sup: action(sup),
            },
            RawReason::Forgotten(a) => Reason::ForgottenAction { action: action(a) },
            RawReason::EndAgainstNonEnd(ended) => Reason::EndAgainstNonEnd { ended },
            RawReason::PendingAtEnd => Reason::PendingAtEnd,
            RawReason::Bound => Reason::BoundReached {
                visits: self.visits,
            },
            RawReason::Mixed(side, state) => Reason::MixedState {
                side,
                state: state as usize,
            },
            RawReason::Time => Reason::TimeLimit {
                limit: self.limits.deadline.map_or(Duration::ZERO, |(_, d)| d),
                steps: self.stats.pairs_explored,
            },
            RawReason::Budget => Reason::BudgetExhausted {
                steps: self.limits.max_steps,
                depth: self.limits.max_depth,
            },
        };
        // State numbers are the caller's: the machines are compiled without renaming.
        let detail = failure.detail.unwrap_or_default();
        Box::new(NotProved {
            steps: self.stats.pairs_explored,
            sub_state: failure.pair.0 as usize,
            super_state: failure.pair.1 as usize,
            sub_prefix: actions(&detail.sub_prefix),
            super_prefix: actions(&detail.super_prefix),
            sub_trace: actions(&detail.sub_trace),
            super_trace: actions(&detail.super_trace),
            reason,
        })
    }
}

/// What the main loop does next with the top frame.
enum Step {
    /// Explore the child at the frame's current (outer, inner) indices.
    Child,
    /// The frame is decided.
    Finish(Result<(), Failure>),
}

/// Combines a child's result into its frame according to the quantifiers and moves
/// the frame's indices to the next child, or decides the frame.
fn advance(frame: &mut Frame, result: Result<(), Failure>, sub: &Machine, sup: &Machine) -> Step {
    let (n_sub, n_sup) = (sub.edges(frame.pair.0).len(), sup.edges(frame.pair.1).len());
    let (n_outer, n_inner) = if frame.outer_is_sub {
        (n_sub, n_sup)
    } else {
        (n_sup, n_sub)
    };
    match (frame.quantifier, result) {
        (Quantifier::AllAll, Err(failure)) => Step::Finish(Err(failure)),
        (Quantifier::AllAll, Ok(())) => {
            frame.inner += 1;
            if frame.inner == n_inner {
                frame.inner = 0;
                frame.outer += 1;
            }
            if frame.outer == n_outer {
                Step::Finish(Ok(()))
            } else {
                Step::Child
            }
        }
        (Quantifier::ExistsExists, Ok(())) => Step::Finish(Ok(())),
        (Quantifier::ExistsExists, Err(failure)) => {
            keep_furthest(&mut frame.best, failure);
            frame.inner += 1;
            if frame.inner == n_inner {
                frame.inner = 0;
                frame.outer += 1;
            }
            if frame.outer == n_outer {
                Step::Finish(Err(frame.best.take().expect("a failure was kept")))
            } else {
                Step::Child
            }
        }
        (Quantifier::AllExists, Ok(())) => {
            frame.best = None;
            frame.inner = 0;
            frame.outer += 1;
            if frame.outer == n_outer {
                Step::Finish(Ok(()))
            } else {
                Step::Child
            }
        }
        (Quantifier::AllExists, Err(failure)) => {
            keep_furthest(&mut frame.best, failure);
            frame.inner += 1;
            if frame.inner == n_inner {
                Step::Finish(Err(frame.best.take().expect("a failure was kept")))
            } else {
                Step::Child
            }
        }
    }
}

fn keep_furthest(best: &mut Option<Failure>, failure: Failure) {
    if best.as_ref().is_none_or(|b| failure.depth > b.depth) {
        *best = Some(failure);
    }
}
