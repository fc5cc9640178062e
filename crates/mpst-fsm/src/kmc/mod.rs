//! k-multiparty compatibility (k-MC, Lange & Yoshida, CAV 2019) of a system of
//! communicating FSMs, with counterexamples.
//!
//! A *system* is a slice of [`Fsm`]s, one per role (named by [`Fsm::role`]); every
//! ordered pair of roles has a FIFO queue. The *k-bounded* transition system only
//! lets a role send when the queue to the receiver holds fewer than `k` messages.
//! The system is **k-MC** when, in every configuration reachable within the bound:
//!
//! - **progress**: a role in a receiving state can eventually receive (in particular
//!   there is no global deadlock: every stuck configuration has all roles final and
//!   all queues empty);
//! - **eventual reception**: the message at the head of every queue is eventually
//!   received;
//! - **no unspecified reception**: no role sits in a receiving state in which, for
//!   every transition, the queue it reads holds a different message at its head;
//! - **k-exhaustivity**: for every send `p → q` that a role `p` can do in its state,
//!   there is an execution within the bound in which `p` does not move and after which
//!   the send is enabled (the queue `p → q` is not full).
//!
//! The first three are k-safety. Messages match by label and payload sorts.
//! "Eventually" means along some k-bounded execution, as in the paper. States that
//! both send and receive ("mixed", not a session type) are accepted; for them
//! progress is not required and exhaustivity applies to their sends. Machines may be
//! non-deterministic (several transitions with one action in a state, built with
//! [`Fsm::add_nondeterministic_transition`]).
//!
//! The semantics is that of CFSMs: a state receiving from several peers takes a message
//! it has a transition for and leaves the others queued. [`check_kmc_offer`] checks a
//! system as the runtime's `Offer` runs such a state instead (the first message of any
//! of those peers, failing on one it does not take); a refutation there, and an
//! unspecified reception here, are runs that go wrong ([`KmcViolation::is_definitive`]);
//! the other violations say only that k-MC is not proved for that `k`.
//!
//! # Algorithm
//!
//! Roles, queues and messages are interned to small integers and every reachable
//! configuration is stored once, as a compact slice of words in a hash-consed arena
//! (`store`), each queue run-length encoded (`queue`: `k` copies of one message take
//! two words, whatever `k`). The exploration (`explore`) expands a configuration with
//! the transitions of a single role when they are *persistent*: enabled or blocked
//! for good, and independent of whatever the other roles can do before that role
//! moves. Independent roles are then interleaved in one order instead of all orders.
//! Which eligible role is taken decides only how many configurations are explored:
//! the round of roles starts at the one that moved last, so that a wave of moves
//! carries on around the system; the optimised ring of `n` roles then has `2n`
//! configurations (a fixed order gave `n(n + 1) / 2`, no reduction more than `2^n`).
//! Reduction alone could postpone a role forever while the others cycle, so (`scc`)
//! every terminal strongly connected component of the explored graph must take every
//! transition enabled in it; configurations where one is ignored are expanded fully
//! and the exploration resumes, until none is.
//!
//! Progress, eventual reception and exhaustivity ask whether some receive can still
//! happen (for exhaustivity, without the blocked sender moving). They are decided on
//! the explored graph by backward reachability from the configurations where such a
//! receive is explored (`analysis`). Why this is exact: from any explored
//! configuration, a full execution `w` that ends with a receive can be rearranged
//! into an explored one — at each explored configuration, either its persistent set
//! contains a transition of `w` (the first one can be moved to the front), or every
//! transition of the set is independent of all of `w` and can be taken first; the
//! ignoring proviso guarantees the second case cannot repeat forever. The added
//! transitions never belong to a role that has a move in `w` and never to a sender
//! whose queue is full (it is not eligible), so "without that role moving" is
//! preserved too. The same rearrangement of an execution reaching a violation ends in
//! an explored configuration reached from it by other roles' moves, and each
//! violation persists under those moves (a stuck message stays stuck, a starving role
//! keeps starving, a full queue stays full). Counterexamples are shortest executions
//! in the explored graph (`paths`). The test-suite compares the reduced check with an
//! unreduced one and with a naive checker written from the definitions.
//!
//! # Example
//!
//! ```
//! use mpst_fsm::{kmc, LocalType, Message};
//!
//! let t = LocalType::send("s", Message::new("ready"), LocalType::End).to_fsm("t").unwrap();
//! let s = LocalType::receive("t", Message::new("ready"), LocalType::End).to_fsm("s").unwrap();
//! let report = kmc::check_kmc(&[t.clone(), s], 1).unwrap();
//! assert!(report.is_kmc());
//!
//! // Without the receiver, `ready` stays in its queue for ever.
//! let silent = LocalType::End.to_fsm("s").unwrap();
//! let report = kmc::check_kmc(&[t, silent], 1).unwrap();
//! let violation = report.violation.unwrap();
//! assert_eq!(violation.property(), kmc::Property::EventualReception);
//! assert_eq!(violation.trace[0].to_string(), "t: s!ready()");
//! ```

mod analysis;
mod explore;
mod offer;
mod paths;
mod queue;
mod scc;
mod store;
mod system;
mod violation;

use std::fmt;

pub use offer::{
    OFFER_K, OFFER_MAX_CONFIGURATIONS, check_kmc_offer, offer_options, offer_state, receives_from,
};
pub use violation::{Configuration, KmcViolation, Property, Step, ViolationKind};

use crate::{Action, Fsm, StateId};
use explore::{Explored, Explorer, Graph};
use paths::Paths;
use system::System;

/// Structural facts about a system, independent of `k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Communicating session automata: deterministic machines where no state both
    /// sends and receives.
    pub csa: bool,
    /// Every state's transitions all send to one peer, or all receive from one peer.
    pub directed: bool,
    /// Both CSA and directed: the "basic" machines of Deniélou & Yoshida (ICALP 2013),
    /// deterministic, directed and without mixed states.
    pub basic: bool,
}

/// Settings of a check beyond `k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KmcOptions {
    /// The bound on every queue (at least 1).
    pub k: usize,
    /// Use the partial-order reduction (on by default; off explores every
    /// interleaving, for comparison).
    pub reduce: bool,
    /// Give up with [`KmcError::TooManyConfigurations`] beyond this many
    /// configurations, or beyond the memory that many configurations take with 4
    /// runs of one message queued each on average (queues are run-length encoded and
    /// can grow with `k`, so this bounds memory whatever the bound). Nothing is
    /// allocated in proportion to `k`.
    pub max_configurations: usize,
}

impl KmcOptions {
    /// Bound `k`, reduction on, at most 5 million configurations (about 2 GB for a
    /// system of 30 roles).
    pub fn new(k: usize) -> Self {
        KmcOptions {
            k,
            reduce: true,
            max_configurations: 5_000_000,
        }
    }
}

/// The result of a check that could run: the facts found and, if the system is not
/// k-MC, the counterexample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KmcReport {
    /// The bound used.
    pub k: usize,
    /// CSA / directed / basic.
    pub shape: Shape,
    /// How many configurations were explored (after reduction).
    pub configurations: usize,
    /// How many transitions between them were explored.
    pub transitions: usize,
    /// `None` when the system is k-MC; otherwise the first violation found.
    pub violation: Option<KmcViolation>,
}

impl KmcReport {
    /// Whether the system is k-MC (k-safe and k-exhaustive).
    pub fn is_kmc(&self) -> bool {
        self.violation.is_none()
    }
}

impl fmt::Display for KmcReport {
    /// `k-MC holds for k = 2` or the violation (see [`KmcViolation`]), then a line
    /// `(CSA, directed, basic; 12 configurations, 14 transitions explored)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.violation {
            None => write!(f, "k-MC holds for k = {}", self.k)?,
            Some(v) => write!(f, "{v}")?,
        }
        let yes_no = |b: bool, s: &'static str| if b { s.to_string() } else { format!("not {s}") };
        write!(
            f,
            "\n({}, {}, {}; {}, {} explored)",
            yes_no(self.shape.csa, "CSA"),
            yes_no(self.shape.directed, "directed"),
            yes_no(self.shape.basic, "basic"),
            crate::format::count(self.configurations, "configuration"),
            crate::format::count(self.transitions, "transition")
        )
    }
}

/// Why a system could not be checked at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KmcError {
    /// The system has no machine.
    #[error("the system has no role")]
    EmptySystem,
    /// Two machines describe the same role.
    #[error("two machines for role `{0}`")]
    DuplicateRole(String),
    /// A machine talks to a role that is not in the system.
    #[error(
        "role `{role}`, state {state}: `{action}` talks to `{}`, which is not a role of the system",
        action.peer
    )]
    UnknownPeer {
        /// The machine's role.
        role: String,
        /// The state of the transition.
        state: StateId,
        /// The action naming the unknown peer.
        action: Action,
    },
    /// `k` must be at least 1.
    #[error("the bound k must be at least 1")]
    ZeroBound,
    /// The exploration exceeded [`KmcOptions::max_configurations`].
    #[error(
        "gave up after {} (or their memory); the answer is unknown",
        crate::format::count(*limit, "configuration")
    )]
    TooManyConfigurations {
        /// The limit.
        limit: usize,
    },
}

/// Checks that `system` is k-MC for bound `k`, with the default [`KmcOptions`].
///
/// `Ok` means the check ran: [`KmcReport::is_kmc`] says whether the property holds and
/// [`KmcReport::violation`] gives the counterexample otherwise. `Err` means the system
/// is malformed (see [`KmcError`]).
pub fn check_kmc(system: &[Fsm], k: usize) -> Result<KmcReport, KmcError> {
    check_kmc_with(system, &KmcOptions::new(k))
}

/// Checks that `system` is k-MC with explicit options.
pub fn check_kmc_with(system: &[Fsm], options: &KmcOptions) -> Result<KmcReport, KmcError> {
    check_kmc_observed(system, options, &mut |_| {})
}

/// How many new configurations [`check_kmc_observed`] explores between two reports.
pub const REPORT_EVERY: usize = 1024;

/// [`check_kmc_with`], telling `observe` how many configurations have been found
/// every [`REPORT_EVERY`] new ones, so a long check can show its progress.
pub fn check_kmc_observed(
    system: &[Fsm],
    options: &KmcOptions,
    observe: &mut dyn FnMut(usize),
) -> Result<KmcReport, KmcError> {
    if options.k == 0 {
        return Err(KmcError::ZeroBound);
    }
    let sys = System::compile(system)?;
    let explorer = Explorer::new(&sys, options.k, options.reduce, options.max_configurations);
    let (graph, paths, bad) = match explorer.run(observe)? {
        Explored::Stopped(graph, c, kind) => {
            let paths = Paths::new(&graph);
            (graph, paths, Some((c, kind)))
        }
        Explored::Complete(graph) => {
            let paths = Paths::new(&graph);
            let bad = analysis::analyse(&sys, options.k, &graph, &paths);
            (graph, paths, bad)
        }
    };
    Ok(report(&sys, options.k, sys.shape(), &graph, &paths, bad))
}

/// The report of an exploration of `sys` with bound `k`, of shape `shape`, that found
/// `bad` (a configuration and what goes wrong there), with the shortest run to it.
fn report(
    sys: &System<'_>,
    k: usize,
    shape: Shape,
    graph: &Graph,
    paths: &Paths,
    bad: Option<(u32, ViolationKind)>,
) -> KmcReport {
    let violation = bad.map(|(c, kind)| KmcViolation {
        k,
        kind,
        trace: trace(sys, graph, paths, c),
        configuration: configuration(sys, graph, c),
    });
    KmcReport {
        k,
        shape,
        configurations: graph.store.len(),
        transitions: graph.edges.len(),
        violation,
    }
}

/// The least `k` in `1..=max_k` for which `system` is k-MC: the report for that `k`,
/// or, if there is none, the (failing) report for `max_k`. Look at
/// [`KmcReport::is_kmc`] and [`KmcReport::k`].
pub fn least_k(system: &[Fsm], max_k: usize) -> Result<KmcReport, KmcError> {
    if max_k == 0 {
        return Err(KmcError::ZeroBound);
    }
    let mut last = None;
    for k in 1..=max_k {
        let report = check_kmc(system, k)?;
        if report.is_kmc() {
            return Ok(report);
        }
        last = Some(report);
    }
    last.ok_or(KmcError::ZeroBound)
}

/// A shortest execution from the initial configuration to configuration `c`.
fn trace(sys: &System<'_>, graph: &Graph, paths: &Paths, c: u32) -> Vec<Step> {
    paths
        .edges_to(graph, c)
        .into_iter()
        .map(|e| {
            let edge = graph.edges[e as usize];
            Step {
                role: sys.role(edge.machine).to_string(),
                action: sys.action(edge.machine, edge.trans as usize).clone(),
            }
        })
        .collect()
}

/// Configuration `c` in terms of the input machines.
fn configuration(sys: &System<'_>, graph: &Graph, c: u32) -> Configuration {
    let words = graph.store.get(c);
    let n = sys.machines.len();
    let mut offs = Vec::new();
    queue::offsets(n, sys.queues.len(), words, &mut offs);
    let states = (0..n)
        .map(|m| (sys.role(m as u32).to_string(), words[m] as StateId))
        .collect();
    let queues = sys
        .queues
        .iter()
        .zip(&offs)
        .filter(|&(_, &o)| queue::len(words, o) > 0)
        .map(|(&(from, to), &o)| {
            (
                sys.role(from).to_string(),
                sys.role(to).to_string(),
                queue::messages(words, o)
                    .map(|msg| sys.messages[msg as usize].clone())
                    .collect(),
            )
        })
        .collect();
    Configuration { states, queues }
}
