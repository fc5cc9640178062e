//! Definitive counterexamples: a breadth-first search of a system of communicating
//! machines with *unbounded* FIFO queues (explored up to a budget) for a run that goes
//! wrong for good — a deadlock, an orphan message or an unspecified reception.
//!
//! Unlike a k-bounded exploration, nothing found here is an artefact of a bound: a
//! send is always possible in the semantics (the budget only stops exploring
//! further), so a configuration is reported only when it is bad whatever happens next:
//!
//! - **deadlock**: no machine can send and no receive matches the head of its queue,
//!   and not every machine has ended with every queue empty;
//! - **orphan**: a message waits at the head of a queue whose receiver can never
//!   receive it from its current state on (in particular, it has ended);
//! - **unspecified reception**: a machine whose transitions are all receives finds, on
//!   every queue it reads, a head it does not accept;
//! - beside a supertype's dual only ([`against_dual`]), an **orphan left by choice**: a
//!   message waits at the head of a queue whose receiver can, from its current state,
//!   send for ever without receiving (every state on the way only sends;
//!   [`WrongRun::escape`] shows those sends). That is bad for good for a process that
//!   always makes those choices, and such a process refutes as well: with fewer
//!   internal choices than the candidate it is a subtype of the candidate, and when the
//!   receiver is the dual, keeping only the supertype's receive branches it takes gives
//!   a supertype of the supertype whose dual is that process. Subtyping (Ghilezan et
//!   al., "Precise Subtyping for Asynchronous Multiparty Sessions", POPL 2021)
//!   quantifies over every single-output tree of the subtype and every single-input
//!   tree of the supertype, and pruning only drops some of those, so if the candidate
//!   were a subtype, the pruned pair would be one too; beside it the message is never
//!   received, while the pruned supertype beside its dual takes every message.
//!
//! Machines may be non-deterministic. Runs are shortest (breadth first). When the
//! budget stops the search before the reachable configurations are exhausted, the
//! answer is [`Search::GaveUp`], never "safe".
//!
//! [`against_dual`] puts a candidate subtype beside the dual of its supertype: one
//! machine that plays every peer of the supertype exactly as the supertype expects.
//! When the supertype's choices are each with a single peer, a wrong run there shows
//! that the candidate cannot replace the supertype.

use std::collections::VecDeque;
use std::fmt;

use rustc_hash::FxHashMap;

use crate::kmc::{Configuration, KmcError, Step, ViolationKind};
use crate::{Action, Direction, Fsm, Message, StateKind};

mod net;

use net::Net;

/// How much a search may explore.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Give up beyond this many configurations (each holds its queues, so this bounds
    /// memory too).
    pub max_configurations: usize,
    /// A send onto a queue holding this many messages is not explored (the search
    /// then can only give up, not conclude that the system is safe).
    pub max_queue: usize,
}

impl Default for Budget {
    /// 50 000 configurations, queues of at most 16 messages.
    fn default() -> Self {
        Budget {
            max_configurations: 50_000,
            max_queue: 16,
        }
    }
}

/// A run that goes wrong for good.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrongRun {
    /// What goes wrong: [`ViolationKind::Deadlock`], [`ViolationKind::Orphan`] or
    /// [`ViolationKind::UnspecifiedReception`].
    pub kind: ViolationKind,
    /// The run, from the initial configuration.
    pub trace: Vec<Step>,
    /// The configuration it reaches.
    pub configuration: Configuration,
    /// For an orphan its receiver could still take (beside a supertype's dual only):
    /// the sends by which the receiver leaves it unread for ever.
    pub escape: Option<Escape>,
}

/// How a machine leaves a message unread for ever: from its state in the configuration
/// reached, it sends `lead_in`, then `cycle` over and over, never receiving. A process
/// that always makes these choices is one of the candidate's (it has fewer internal
/// choices) or, when the receiver is the dual, the dual of a supertype of the
/// supertype (fewer external choices), so the message is an orphan for good there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escape {
    /// The machine's sends up to the cycle.
    pub lead_in: Vec<Step>,
    /// The sends it repeats for ever (at least one).
    pub cycle: Vec<Step>,
}

impl fmt::Display for WrongRun {
    /// The violation, the numbered run (one step per line) and the configuration.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.kind)?;
        if self.trace.is_empty() {
            writeln!(f, "in the initial configuration")?;
        } else {
            writeln!(f, "run:")?;
            for (i, step) in self.trace.iter().enumerate() {
                writeln!(f, "  {:>3}. {step}", i + 1)?;
            }
        }
        write!(f, "reaching {}", self.configuration)?;
        if let Some(escape) = &self.escape {
            let shown = |steps: &[Step]| {
                steps
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" . ")
            };
            write!(f, "\nwhere the receiver can leave it unread for ever: ")?;
            if !escape.lead_in.is_empty() {
                write!(f, "{}, then ", shown(&escape.lead_in))?;
            }
            write!(
                f,
                "({}) repeated for ever, never receiving",
                shown(&escape.cycle)
            )?;
        }
        Ok(())
    }
}

/// Why a search stopped before exhausting the reachable configurations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GaveUp {
    /// More than [`Budget::max_configurations`] configurations.
    Configurations(usize),
    /// A queue would have held more than [`Budget::max_queue`] messages.
    QueueLength(usize),
}

impl fmt::Display for GaveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GaveUp::Configurations(n) => {
                write!(f, "more than {}", crate::format::count(*n, "configuration"))
            }
            GaveUp::QueueLength(n) => write!(
                f,
                "a queue would hold more than {}",
                crate::format::count(*n, "message")
            ),
        }
    }
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Search {
    /// A run that goes wrong.
    Found(Box<WrongRun>),
    /// Every reachable configuration was explored (this many) and none is bad.
    Safe(usize),
    /// The budget stopped the search after this many configurations without a wrong
    /// run.
    GaveUp(GaveUp, usize),
}

impl Search {
    /// The wrong run, if one was found.
    pub fn wrong_run(&self) -> Option<&WrongRun> {
        match self {
            Search::Found(run) => Some(run),
            _ => None,
        }
    }
}

/// Searches the system (one machine per role, named by [`Fsm::role`], one FIFO queue
/// per ordered pair of roles) for a run that goes wrong.
///
/// # Errors
/// The system has no machine, two machines for one role, or an action whose peer is
/// not a role of the system.
pub fn find_wrong_run(system: &[Fsm], budget: &Budget) -> Result<Search, KmcError> {
    Ok(search(&Net::system(system)?, budget))
}

/// Searches `sub` beside the dual of `sup` for a run that goes wrong: the dual is one
/// machine playing every peer of `sup`, sending what `sup` receives and receiving what
/// `sup` sends, in `sup`'s order. When [`dual_is_a_context`] holds, `sup` composed
/// with its dual never goes wrong, so a wrong run refutes `sub ≤ sup`.
///
/// The candidate's role is `sub`'s (or `sup`'s, or `self`, if a machine talks to a
/// peer of that name).
pub fn against_dual(sub: &Fsm, sup: &Fsm, budget: &Budget) -> Search {
    search(&Net::dual(sub, sup), budget)
}

/// Whether `sup` composed with its dual never goes wrong, so that a wrong run of a
/// candidate beside that dual refutes the candidate: `sup` is deterministic and every
/// state is *directed* (its transitions all send to one peer or all receive from one
/// peer). With a choice among several peers, the dual (one machine) could pick a
/// branch the supertype did not, and even `sup` would go wrong beside it.
pub fn dual_is_a_context(sup: &Fsm) -> bool {
    sup.nondeterministic_state().is_none()
        && (0..sup.state_count()).all(|s| {
            let ts = sup.transitions(s);
            sup.kind(s) != StateKind::Mixed && ts.iter().all(|t| t.action.peer == ts[0].action.peer)
        })
}

/// Replays `trace` in the system (roles named by [`Fsm::role`]) with unbounded
/// queues and says whether it is a run of the system that ends in a configuration
/// that is bad for good (as [`find_wrong_run`] defines it). Tests use it to check
/// refutations independently of how they were found.
pub fn replays_to_wrong(system: &[Fsm], trace: &[Step]) -> bool {
    match Net::system(system) {
        Ok(net) => replay(&net, trace),
        Err(_) => false,
    }
}

/// Whether some run of `net` shown as `trace` ends in a bad configuration.
fn replay(net: &Net, trace: &[Step]) -> bool {
    let mut current = vec![net.initial()];
    for step in trace {
        let mut next: Vec<Vec<u32>> = current.iter().flat_map(|c| net.apply(c, step)).collect();
        next.sort();
        next.dedup();
        if next.is_empty() {
            return false;
        }
        current = next;
    }
    current.iter().any(|c| net.bad(c).is_some())
}

/// The dual of `sup` seen as separate roles is not a system of [`Fsm`]s; this is the
/// replay check of [`replays_to_wrong`] for [`against_dual`]'s composition.
pub fn replays_to_wrong_against_dual(sub: &Fsm, sup: &Fsm, trace: &[Step]) -> bool {
    replay(&Net::dual(sub, sup), trace)
}

/// Breadth-first search from the initial configuration.
fn search(net: &Net, budget: &Budget) -> Search {
    let mut index: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
    // For each configuration: (parent, machine, transition), and its words.
    let mut parents: Vec<(u32, u32, u32)> = Vec::new();
    let mut configs: Vec<Vec<u32>> = Vec::new();
    let start = net.initial();
    index.insert(start.clone(), 0);
    parents.push((u32::MAX, 0, 0));
    configs.push(start);
    let mut queue = VecDeque::from([0u32]);
    let mut capped = false;
    while let Some(c) = queue.pop_front() {
        let config = configs[c as usize].clone();
        if let Some(bad) = net.bad(&config) {
            let mut steps = Vec::new();
            let mut at = c;
            while parents[at as usize].0 != u32::MAX {
                let (parent, m, t) = parents[at as usize];
                steps.push(net.step(m, t, configs[parent as usize][m as usize]));
                at = parent;
            }
            steps.reverse();
            let escape = bad.escape.map(|m| {
                let (lead_in, cycle) = net.escape_lasso(m, config[m as usize]);
                Escape { lead_in, cycle }
            });
            return Search::Found(Box::new(WrongRun {
                kind: bad.kind,
                trace: steps,
                configuration: net.configuration(&config),
                escape,
            }));
        }
        for (m, t, next) in net.successors(&config, budget.max_queue, &mut capped) {
            if index.contains_key(&next) {
                continue;
            }
            if configs.len() >= budget.max_configurations {
                return Search::GaveUp(
                    GaveUp::Configurations(budget.max_configurations),
                    configs.len(),
                );
            }
            let id = configs.len() as u32;
            index.insert(next.clone(), id);
            parents.push((c, m, t));
            configs.push(next);
            queue.push_back(id);
        }
    }
    if capped {
        Search::GaveUp(GaveUp::QueueLength(budget.max_queue), configs.len())
    } else {
        Search::Safe(configs.len())
    }
}

/// The dual of an action: the peer's view of it, as the step `peer: self?m`.
fn dual_step(me: &str, action: &Action) -> Step {
    Step {
        role: action.peer.clone(),
        action: Action {
            peer: me.to_string(),
            direction: match action.direction {
                Direction::Send => Direction::Receive,
                Direction::Receive => Direction::Send,
            },
            message: action.message.clone(),
        },
    }
}

/// A message's identity: label and payload sorts.
fn message_key(message: &Message) -> (String, Vec<String>) {
    (
        message.label.clone(),
        message.payloads.iter().map(|p| p.ty.clone()).collect(),
    )
}

#[cfg(test)]
mod tests;
