//! The three answers of a subtyping check ([`Verdict`]): proved, refuted with a run
//! that goes wrong, or unknown with the reason and the place.

use std::fmt;

use super::explain::{NotProved, Proof, Stats};
use super::witness_tree::NotWitnessed;
use crate::witness::{Search, WrongRun};

/// The answer of [`check`](super::check).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Proved: the rules of Fig. 5 derive `sub ≤ sup`, or the witness trees of
    /// CONCUR 2019 show it ([`Stats::proof`] says which).
    Subtype(Stats),
    /// Refuted: the candidate beside the dual of the supertype has a run that goes
    /// wrong (deadlock, orphan message or unspecified reception).
    NotSubtype(Box<Refutation>),
    /// Neither: a bound or budget was reached, or the rules cannot decide and no
    /// wrong run was found within the witness budget.
    Unknown(Box<Unknown>),
}

impl Verdict {
    /// Whether the subtyping is proved.
    pub fn is_subtype(&self) -> bool {
        matches!(self, Verdict::Subtype(_))
    }

    /// Whether the subtyping is refuted.
    pub fn is_refuted(&self) -> bool {
        matches!(self, Verdict::NotSubtype(_))
    }
}

/// A definitive "not a subtype": the run that goes wrong, and where the rules stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refutation {
    /// The run of the candidate beside the dual of the supertype (the dual plays every
    /// peer of the supertype, so its steps are shown as those peers').
    pub run: WrongRun,
    /// Where and why the rules failed to prove the subtyping.
    pub not_proved: NotProved,
}

/// Why the answer is unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown {
    /// Where and why the rules failed to prove the subtyping (a bound, the budget,
    /// or a configuration where no rule applies).
    pub not_proved: NotProved,
    /// Why the witness trees did not prove it either (`None` when they were not tried:
    /// a machine is not deterministic).
    pub witness_trees: Option<NotWitnessed>,
    /// What the search for a wrong run found instead: it gave up (with how many
    /// configurations), or explored every configuration without a wrong run; `None`
    /// when no search was run (the supertype has a non-deterministic state or a choice
    /// that mixes directions or peers, so even the supertype could go wrong beside its
    /// dual, and a run there would prove nothing).
    pub search: Option<Search>,
}

impl fmt::Display for Verdict {
    /// `subtype (...)`, `not a subtype: ...` with the run, or `unknown: ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Subtype(stats) => match stats.proof {
                Proof::Rules => write!(
                    f,
                    "subtype ({} explored, search depth {})",
                    crate::format::count(stats.pairs_explored, "configuration"),
                    stats.max_depth
                ),
                Proof::WitnessTrees {
                    nodes,
                    candidates,
                    on_duals,
                    ..
                } => write!(
                    f,
                    "subtype (proved by witness trees{}: {nodes} simulation-tree nodes, \
                     {candidates} witness subtrees; the rules explored {})",
                    if on_duals {
                        " on the duals, dual(supertype) ≤ dual(subtype)"
                    } else {
                        ""
                    },
                    crate::format::count(stats.pairs_explored, "configuration")
                ),
            },
            Verdict::NotSubtype(refutation) => write!(f, "{refutation}"),
            Verdict::Unknown(unknown) => write!(f, "{unknown}"),
        }
    }
}

impl fmt::Display for Refutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "not a subtype: beside the dual of the supertype this run goes wrong: {}",
            self.run
        )?;
        write!(f, "{}", self.not_proved)
    }
}

impl fmt::Display for Unknown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "unknown: neither proved nor refuted")?;
        let search = match &self.search {
            None => "no run was searched for: the supertype has a choice among several peers \
                     or directions, or is not deterministic, so a run beside its dual would \
                     prove nothing"
                .to_string(),
            Some(Search::Safe(n)) => format!(
                "beside the dual of the supertype no run goes wrong (all {} explored), but \
                 the rules cannot prove it",
                crate::format::count(*n, "configuration")
            ),
            Some(Search::GaveUp(why, n)) => format!(
                "no run that goes wrong beside the dual of the supertype within the budget \
                 ({why}; {} explored)",
                crate::format::count(*n, "configuration")
            ),
            Some(Search::Found(_)) => "a run goes wrong".to_string(),
        };
        writeln!(f, "  {search}")?;
        if let Some(why) = &self.witness_trees {
            writeln!(f, "  {why}")?;
        }
        write!(f, "{}", self.not_proved)
    }
}
