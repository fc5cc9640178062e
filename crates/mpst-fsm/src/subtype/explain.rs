//! What the proof search reports: [`Stats`] on success, otherwise a [`NotProved`]
//! explanation a person can act on — where the rules of Fig. 5 stopped and why. Not
//! proved is not refuted: the rules are sound but incomplete.

use std::fmt;

use crate::{Action, StateId};

/// Which of the two machines something refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The candidate subtype (the optimised FSM).
    Sub,
    /// The supertype (usually the projected FSM).
    Super,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Sub => "subtype",
            Side::Super => "supertype",
        })
    }
}

/// What a successful check explored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// How many (state pair, prefixes) configurations were visited, counting every
    /// visit (a pair reached again with other prefixes counts again).
    pub pairs_explored: u64,
    /// The longest search path, in configurations.
    pub max_depth: usize,
    /// Which technique proved the pair.
    pub proof: Proof,
}

/// Which technique proved a subtyping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Proof {
    /// The rules of PPoPP 2022 (Fig. 5); [`Stats`] counts their configurations.
    #[default]
    Rules,
    /// The rules did not prove it (their configurations are counted in [`Stats`]); the
    /// witness trees of CONCUR 2019 did.
    WitnessTrees {
        /// Nodes of the simulation tree.
        nodes: usize,
        /// Candidate subtrees shown to be finite or witnesses.
        candidates: usize,
        /// Units of work the witness-tree search spent (at most
        /// [`TreeBudget::max_work`](super::TreeBudget::max_work)).
        work: u64,
        /// The trees proved the pair of duals, `dual(sup) ≤ dual(sub)`, which holds
        /// exactly when `sub ≤ sup` does (subtyping is closed under duality); the
        /// counts include the first, failed attempt on the pair itself.
        on_duals: bool,
    },
}

/// Why no rule of Fig. 5 applies at the configuration of a [`NotProved`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The subtype receives `receive` before the supertype's pending `send`; only
    /// receives from *other* peers may be anticipated past pending receives, never
    /// past a send (\[→A\]), so the reordering could deadlock.
    ReceiveOvertakesSend {
        /// The subtype's anticipated receive.
        receive: Action,
        /// The supertype's send it would overtake.
        send: Action,
    },
    /// The subtype performs `sub` where the supertype's next action with the same peer
    /// and direction is `sup`: a different label or payload sorts. Messages to or from
    /// one peer are never reordered, so they can never be matched.
    Mismatch {
        /// The subtype's action.
        sub: Action,
        /// The supertype's action.
        sup: Action,
    },
    /// The search came back to a configuration it already assumed (same states, same
    /// pending actions) but, on the way round, the subtype never performed an action of
    /// the kind `action` (same peer and direction), which the supertype is still waiting
    /// for: the subtype would loop forever without it (\[ASM\]'s check
    /// `act(ρ') ⊇ act(π')`, Fig. A.14).
    ForgottenAction {
        /// The supertype's action that is never matched.
        action: Action,
    },
    /// One machine has ended while the other still has transitions.
    EndAgainstNonEnd {
        /// The machine that has ended.
        ended: Side,
    },
    /// Both machines have ended but some actions were never matched (shown in the
    /// prefixes).
    PendingAtEnd,
    /// The pair of states has been visited `visits` times on this search path without
    /// the prefixes settling: the bound was reached (\[µL\]/\[µR\]). A larger `--visits`
    /// may prove the subtyping; the search is bounded, so it cannot be complete.
    BoundReached {
        /// The bound in force.
        visits: usize,
    },
    /// A state both sends and receives: it is not a local session type (Definition 1),
    /// so no rule applies. k-MC can check such machines.
    MixedState {
        /// The machine with the mixed state.
        side: Side,
        /// The state.
        state: StateId,
    },
    /// A state has two transitions with the same peer, direction and label: subtyping
    /// is defined for deterministic machines only (k-MC accepts the others).
    Nondeterministic {
        /// The machine.
        side: Side,
        /// The state.
        state: StateId,
    },
    /// The search visited `steps` configurations, or a path reached `depth`
    /// configurations, without deciding: it stopped there (the answer is unknown).
    BudgetExhausted {
        /// The step budget in force.
        steps: u64,
        /// The depth budget in force.
        depth: usize,
    },
    /// The check's wall-clock budget ([`Options::time_limit`](super::Options)) ran out
    /// after `steps` configurations (the answer is unknown).
    TimeLimit {
        /// The limit in force.
        limit: std::time::Duration,
        /// The configurations visited by then.
        steps: u64,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::ReceiveOvertakesSend { receive, send } => write!(
                f,
                "the subtype's receive `{receive}` would have to overtake the supertype's \
                 send `{send}`; a receive may only be anticipated past receives from other peers"
            ),
            Reason::Mismatch { sub, sup } => write!(
                f,
                "the subtype's `{sub}` cannot be matched: the supertype's next action with \
                 that peer and direction is `{sup}`, and actions with one peer keep their order"
            ),
            Reason::ForgottenAction { action } => write!(
                f,
                "the subtype forgets `{action}`: it loops back to this configuration without \
                 ever performing an action like it, while the supertype still waits for it"
            ),
            Reason::EndAgainstNonEnd { ended } => {
                let other = match ended {
                    Side::Sub => Side::Super,
                    Side::Super => Side::Sub,
                };
                write!(f, "the {ended} has ended but the {other} has not")
            }
            Reason::PendingAtEnd => f.write_str(
                "both machines have ended but the prefixes still hold unmatched actions",
            ),
            Reason::BoundReached { visits } => write!(
                f,
                "the bound was reached: this pair of states was visited {} on one path \
                 without the prefixes settling (try a larger --visits)",
                crate::format::count(*visits, "time")
            ),
            Reason::Nondeterministic { side, state } => write!(
                f,
                "state {state} of the {side} has two transitions with the same peer, direction \
                 and label: subtyping needs deterministic machines (check such machines with k-MC)"
            ),
            Reason::BudgetExhausted { steps, depth } => write!(
                f,
                "the search budget ran out ({}, or a path of {depth}) before the rules \
                 decided (try a larger --max-steps)",
                crate::format::count(*steps, "configuration")
            ),
            Reason::TimeLimit { limit, steps } => write!(
                f,
                "the time limit of {limit:?} ran out after {steps} configurations, before \
                 the rules decided (try a larger --time-limit)"
            ),
            Reason::MixedState { side, state } => write!(
                f,
                "state {state} of the {side} both sends and receives, which a local session \
                 type cannot do (check such machines with k-MC)"
            ),
        }
    }
}

/// The explanation of a failed proof search: where the rules stopped and why. It is
/// not a refutation (see [`Verdict`](super::Verdict)).
///
/// For a ∀-quantified rule (\[OI\], and the outer quantifier of \[OO\], \[II\]) this is the
/// failure of the branch that failed; where every alternative of an ∃ failed, the
/// alternative that got furthest is reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotProved {
    /// The state of the subtype.
    pub sub_state: StateId,
    /// The state of the supertype.
    pub super_state: StateId,
    /// The subtype's actions not yet matched (the prefix π), oldest first.
    pub sub_prefix: Vec<Action>,
    /// The supertype's actions not yet matched (the prefix π'), oldest first.
    pub super_prefix: Vec<Action>,
    /// Every action the subtype performed on the failing path (ρ), oldest first.
    pub sub_trace: Vec<Action>,
    /// Every action the supertype performed on the failing path, oldest first.
    pub super_trace: Vec<Action>,
    /// Why no rule applies.
    pub reason: Reason,
    /// How many configurations the search visited before it stopped (at most the
    /// step budget, plus one).
    pub steps: u64,
}

fn write_actions(f: &mut fmt::Formatter<'_>, actions: &[Action]) -> fmt::Result {
    if actions.is_empty() {
        return f.write_str("ε");
    }
    for (i, action) in actions.iter().enumerate() {
        if i > 0 {
            f.write_str(" . ")?;
        }
        write!(f, "{action}")?;
    }
    Ok(())
}

/// How many of the last actions of a path [`NotProved`]'s `Display` shows.
const PATH_SHOWN: usize = 24;

fn write_path(f: &mut fmt::Formatter<'_>, actions: &[Action]) -> fmt::Result {
    if actions.len() > PATH_SHOWN {
        write!(f, "({} earlier) ... ", actions.len() - PATH_SHOWN)?;
        return write_actions(f, &actions[actions.len() - PATH_SHOWN..]);
    }
    write_actions(f, actions)
}

impl fmt::Display for NotProved {
    /// Several lines: the reason, the states, the two prefixes and the two paths (the
    /// last 24 actions of each; the fields hold them all).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "not proved: the rules stop at subtype state {} / supertype state {}:",
            self.sub_state, self.super_state
        )?;
        writeln!(f, "  {}", self.reason)?;
        f.write_str("  subtype prefix (unmatched):   ")?;
        write_actions(f, &self.sub_prefix)?;
        f.write_str("\n  supertype prefix (unmatched): ")?;
        write_actions(f, &self.super_prefix)?;
        f.write_str("\n  subtype path:   ")?;
        write_path(f, &self.sub_trace)?;
        f.write_str("\n  supertype path: ")?;
        write_path(f, &self.super_trace)
    }
}

impl std::error::Error for NotProved {}
