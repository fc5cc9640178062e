//! Asynchronous multiparty subtyping: is an optimised FSM a safe replacement for the
//! projected one? The bounded, sound and terminating algorithm of PPoPP 2022 (§3.2,
//! Fig. 5) as implemented in its Appendix B.5, written from scratch.
//!
//! # Three answers
//!
//! [`check`] answers [`Verdict::Subtype`] when the rules below prove the pair, or else
//! when the witness trees of CONCUR 2019 do, on the pair or on its duals
//! (`witness_tree`: pending receives that grow without bound, which no bound on visits
//! can follow; [`Stats::proof`] says which), [`Verdict::NotSubtype`] only with a run
//! that goes wrong — the candidate beside the dual of the supertype reaches a deadlock,
//! an orphan message (one its receiver can never take, or can leave unread for ever by
//! sending for ever) or an unspecified reception ([`crate::witness`]) — and
//! [`Verdict::Unknown`] otherwise, with where and
//! why the rules stopped. Every search has a budget ([`Options`]), so every check
//! answers quickly and in bounded memory.
//!
//! Failing searches on nested cycles cost a factor per extra visit: the pending
//! actions grow with every round of a cycle, and each interleaving of the branches
//! taken is a different configuration (pair of states and pending actions), so the
//! number of *distinct* configurations within the bound grows exponentially with it
//! (remembering failed configurations was measured not to help: none recurs). The
//! budgets bound that search; the answer is then [`Verdict::Unknown`] unless a run
//! that goes wrong is found.
//!
//! # The algorithm
//!
//! The search walks both machines together, depth first, one pair of states at a time.
//! Each side keeps a *prefix*: the actions it performed that the other side has not
//! matched yet. At every configuration it
//!
//! 1. **reduces** the prefixes (\[SUB\] with \[→I\], \[→O\], \[→A\], \[→B\]): the subtype's oldest
//!    pending action is matched with the supertype's first equal action, provided that
//!    everything it overtakes may be overtaken — a receive only overtakes receives from
//!    other peers, a send overtakes receives and sends to other peers. When the oldest
//!    pending action can *never* be matched (it would overtake a send, or a different
//!    message with the same peer and direction stands in the way) the path fails at once
//!    (fail early);
//! 2. succeeds by **assumption** (\[ASM\]) when the pair of states was already visited on
//!    this path with exactly the same pending actions, provided the subtype did not
//!    *forget* anything meanwhile: every pending action of the supertype must have the
//!    peer and direction of some action the subtype performed since (`act(ρ') ⊇
//!    act(π')`). If that check fails the configuration repeats forever, so the path fails
//!    with [`Reason::ForgottenAction`];
//! 3. succeeds at **end** (\[END\]) when both machines have ended with empty prefixes;
//! 4. fails when the pair has already been visited `visits` times on this path (the
//!    bound of \[µL\]/\[µR\]);
//! 5. otherwise pushes one transition of each side onto the prefixes and recurses, with
//!    the quantifiers of \[OI\] (∀∀), \[OO\] (∀ subtype, ∃ supertype), \[II\] (∀ supertype, ∃
//!    subtype) and \[IO\] (∃∃).
//!
//! Prefixes are never copied: removals are marked lazily and undone through snapshots.
//! The history (the assumptions Σ with their remaining visits) is a hash map holding an
//! entry only for the pairs on the current path, so memory grows with the depth of the
//! search, not with `|M| × |M'|`. The search uses an explicit stack.
//!
//! # Example
//!
//! ```
//! use mpst_fsm::{subtype::{check, is_subtype, Options, Reason, Verdict}, LocalType};
//!
//! let projected = LocalType::parse("rec x. s!ready(). s?value(). t?ready(). t!value(). x")?
//!     .to_fsm("k")?;
//! let optimised =
//!     LocalType::parse("s!ready(). rec x. s!ready(). s?value(). t?ready(). t!value(). x")?
//!         .to_fsm("k")?;
//! assert!(is_subtype(&optimised, &projected, 10).is_ok());
//!
//! // Receiving before sending can deadlock (Example 2 of the paper):
//! let t_p = LocalType::parse("q!l1(). q?l2(). end")?.to_fsm("p")?;
//! let t_p_reordered = LocalType::parse("q?l2(). q!l1(). end")?.to_fsm("p")?;
//! let err = is_subtype(&t_p_reordered, &t_p, 10).unwrap_err();
//! assert!(matches!(err.reason, Reason::ReceiveOvertakesSend { .. }));
//! // Not proved is not refuted; `check` looks for a run that goes wrong:
//! let verdict = check(&t_p_reordered, &t_p, &Options::default());
//! let Verdict::NotSubtype(refutation) = verdict else { panic!("{verdict}") };
//! assert!(refutation.to_string().contains("deadlock"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod explain;
mod machine;
mod prefix;
mod verdict;
mod visitor;
mod witness_tree;

pub use explain::{NotProved, Proof, Reason, Side, Stats};
pub use verdict::{Refutation, Unknown, Verdict};
pub use witness_tree::{Budget as TreeBudget, NotWitnessed};

use std::time::{Duration, Instant};

use crate::Fsm;
use crate::witness::{self, Search};
use visitor::Limits;

/// The default bound on how many times one pair of states may be visited on one search
/// path (the `--visits` of `mpst subtype`). Unrolling `n` messages ahead typically
/// needs a bound of about `n`; branching protocols cost more as the bound grows.
pub const DEFAULT_VISITS: usize = 100;

/// The default budget of one proof search, in configurations visited.
pub const DEFAULT_MAX_STEPS: u64 = 1_000_000;

/// The default bound on the length of one search path, in configurations (memory
/// grows with it: about 150 bytes per configuration on the path).
pub const DEFAULT_MAX_DEPTH: usize = 100_000;

/// The limits of a [`check`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// How many times one pair of states may be visited on one search path.
    pub visits: usize,
    /// At most this many configurations visited by the proof search (a search that
    /// fails for another reason runs a second time, to record its explanation).
    pub max_steps: u64,
    /// At most this many configurations on one search path.
    pub max_depth: usize,
    /// The budget of the search for a run that goes wrong.
    pub witness: witness::Budget,
    /// The budget of the witness-tree proof, tried when the rules fail.
    pub trees: TreeBudget,
    /// A wall-clock budget for the two proof searches (`None`: none, the default; the
    /// step budgets bound them anyway, deterministically). When it passes the answer
    /// is unknown, with the reason; the bounded search for a wrong run still runs.
    pub time_limit: Option<Duration>,
}

impl Options {
    /// The default budgets with the bound `visits`.
    pub fn new(visits: usize) -> Self {
        Options {
            visits,
            max_steps: DEFAULT_MAX_STEPS,
            max_depth: DEFAULT_MAX_DEPTH,
            witness: witness::Budget::default(),
            trees: TreeBudget::default(),
            time_limit: None,
        }
    }
}

impl Default for Options {
    /// [`DEFAULT_VISITS`] and the default budgets.
    fn default() -> Self {
        Options::new(DEFAULT_VISITS)
    }
}

/// Checks that `sub` is an asynchronous subtype of `sup` (`sub ≤ sup`): a process
/// following `sub` can safely replace one following `sup`. Three answers: proved,
/// refuted with a run that goes wrong, or unknown (see [`Verdict`]).
///
/// Actions are compared by peer, direction, label and payload *sorts* (payload names
/// are ignored). Role names are not compared. The time and memory are bounded by
/// `options` whatever the bound on visits.
pub fn check(sub: &Fsm, sup: &Fsm, options: &Options) -> Verdict {
    check_observed(sub, sup, options, &mut |_| {})
}

/// How many configurations (pairs of states with their pending actions) the proof
/// search of [`check_observed`] explores between two reports.
pub const REPORT_EVERY: u64 = visitor::REPORT_EVERY;

/// [`check`], telling `observe` how many configurations the proof search has explored
/// so far every [`REPORT_EVERY`] of them, so that a long check can show its progress.
/// The counts reported increase; when a failed search runs again to explain itself,
/// the second run's count is added to the first's. The search for a run that goes
/// wrong is not observed. The verdict is the same as [`check`]'s.
pub fn check_observed(
    sub: &Fsm,
    sup: &Fsm,
    options: &Options,
    observe: &mut dyn FnMut(u64),
) -> Verdict {
    let deadline = options.time_limit.map(|d| (Instant::now() + d, d));
    let limits = Limits {
        visits: options.visits,
        max_steps: options.max_steps,
        max_depth: options.max_depth,
        deadline,
    };
    let not_proved = match search(sub, sup, limits, observe) {
        Ok(stats) => return Verdict::Subtype(stats),
        Err(not_proved) => *not_proved,
    };
    let witness_trees = if matches!(not_proved.reason, Reason::Nondeterministic { .. }) {
        None
    } else {
        match witness_tree::prove(sub, sup, &options.trees, deadline.map(|(at, _)| at)) {
            Ok(proved) => {
                return Verdict::Subtype(Stats {
                    pairs_explored: not_proved.steps,
                    max_depth: 0,
                    proof: Proof::WitnessTrees {
                        nodes: proved.nodes,
                        candidates: proved.candidates,
                        work: proved.work,
                        on_duals: proved.dual,
                    },
                });
            }
            Err(why) => Some(why),
        }
    };
    if !witness::dual_is_a_context(sup) {
        return Verdict::Unknown(Box::new(Unknown {
            not_proved,
            witness_trees,
            search: None,
        }));
    }
    match witness::against_dual(sub, sup, &options.witness) {
        Search::Found(run) => Verdict::NotSubtype(Box::new(Refutation {
            run: *run,
            not_proved,
        })),
        search => Verdict::Unknown(Box::new(Unknown {
            not_proved,
            witness_trees,
            search: Some(search),
        })),
    }
}

/// The proof search alone: `Ok` when the rules prove `sub ≤ sup`, otherwise where
/// and why they stopped. An `Err` is **not** a refutation (the rules are sound but
/// incomplete); [`check`] gives the three-valued answer.
///
/// `visits` bounds how many times each pair of states may be visited on one search
/// path (\[µL\]/\[µR\]); the default step and depth budgets of [`Options`] apply.
///
/// # Errors
/// A [`NotProved`] explaining where and why no rule applied. A failing check
/// runs the search twice: the second run records the prefixes and paths, so that
/// successful checks never pay for explanations.
// The explanation is the point of the error value (several prefixes and paths), so it
// is large; returning it unboxed keeps the API simple for callers that box it anyway.
#[allow(clippy::result_large_err)]
pub fn is_subtype(sub: &Fsm, sup: &Fsm, visits: usize) -> Result<Stats, NotProved> {
    let options = Options::new(visits);
    let limits = Limits {
        visits,
        max_steps: options.max_steps,
        max_depth: options.max_depth,
        deadline: None,
    };
    search(sub, sup, limits, &mut |_| {}).map_err(|e| *e)
}

/// The proof search, after checking that both machines are deterministic.
fn search(
    sub: &Fsm,
    sup: &Fsm,
    limits: Limits,
    observe: &mut dyn FnMut(u64),
) -> Result<Stats, Box<NotProved>> {
    for (side, fsm) in [(Side::Sub, sub), (Side::Super, sup)] {
        if let Some((state, _)) = fsm.nondeterministic_state() {
            let (sub_state, super_state) = match side {
                Side::Sub => (state, sup.initial()),
                Side::Super => (sub.initial(), state),
            };
            return Err(Box::new(NotProved {
                sub_state,
                super_state,
                sub_prefix: Vec::new(),
                super_prefix: Vec::new(),
                sub_trace: Vec::new(),
                super_trace: Vec::new(),
                reason: Reason::Nondeterministic { side, state },
                steps: 0,
            }));
        }
    }
    visitor::check(sub, sup, limits, observe)
}
