//! From a Scribble source to generated Rust: the front end ([`mpst_scribble::frontend`])
//! parses, selects, checks and projects; optimised FSMs are proved asynchronous subtypes
//! of their projections and, when the system with them swapped in has a state that
//! receives from several peers (generated as an `Offer`), that system is proved safe as
//! the runtime runs it (k-MC under the `Offer` semantics,
//! [`mpst_fsm::kmc::check_kmc_offer`]); then the API is generated, the optimised FSMs
//! beside the projections.

use mpst_diagnostics::Report;
use mpst_diagnostics::optimised::Optimised;
use mpst_fsm::Fsm;
use mpst_fsm::kmc::{self, KmcError, KmcOptions, KmcViolation};
use mpst_fsm::subtype::{self, Refutation, Unknown, Verdict, check};
use mpst_scribble::{FrontendError, Loaded};

use crate::{CodegenError, Options, generate_optimised};

/// The default bound on visits per state pair used to check optimised FSMs: the same
/// as `mpst subtype`'s.
pub use mpst_fsm::subtype::DEFAULT_VISITS;

/// Why a protocol could not be turned into Rust.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The source does not parse, has no such protocol, or the protocol is ill-formed
    /// or cannot be projected.
    #[error("{0}")]
    Frontend(FrontendError),
    /// An optimised FSM is for a role the protocol does not have.
    #[error(
        "the optimised FSM is for role `{role}`, but the protocol's roles are: {}",
        available.join(", ")
    )]
    UnknownRole {
        /// The role of the optimised FSM.
        role: String,
        /// The roles of the protocol.
        available: Vec<String>,
    },
    /// An optimised FSM is not an asynchronous subtype of the projection: beside the
    /// projection's dual it has a run that goes wrong.
    #[error(
        "the optimised FSM of role `{role}` is not an asynchronous subtype of its \
         projection:\n{refutation}"
    )]
    NotSubtype {
        /// The role.
        role: String,
        /// The run, and where the rules stopped.
        refutation: Box<Refutation>,
    },
    /// An optimised FSM is neither shown to be an asynchronous subtype of the
    /// projection nor refuted (a bound or budget was reached, or the rules cannot
    /// decide): it is not used.
    #[error(
        "the optimised FSM of role `{role}` is not shown to be an asynchronous subtype \
         of its projection, nor refuted:\n{unknown}"
    )]
    Unknown {
        /// The role.
        role: String,
        /// Why, and where the rules stopped.
        unknown: Box<Unknown>,
    },
    /// With the optimised FSMs swapped in, a state receiving from several peers (an
    /// `Offer` of the runtime) can meet a message it does not take at the head of one
    /// of their queues: a run on which the generated code fails with
    /// `UnexpectedLabel`, though subtyping proved each optimised FSM (subtyping models
    /// queues where such a message waits). `role` is the optimised role blamed: the one
    /// with such a state, or the first one.
    #[error(
        "with the optimised FSM of role `{role}`, the runtime can fail: a role waiting on \
         several peers can take a message it does not expect there:\n{violation}"
    )]
    OfferRefuted {
        /// The optimised role.
        role: String,
        /// The run, ending where the unexpected message is at the head of its queue.
        violation: Box<KmcViolation>,
    },
    /// With the optimised FSMs swapped in, a state receives from several peers and k-MC
    /// under the `Offer` semantics neither proves the system safe nor refutes it (a
    /// property that is not a run going wrong fails for the bound, or the budget ran
    /// out): the optimised FSMs are not used.
    #[error(
        "with the optimised FSM of role `{role}`, a role waits on several peers, and k-MC \
         (k = {k}) does not prove the system safe as the runtime runs it, nor refute it:\n{why}"
    )]
    OfferUnproved {
        /// The optimised role.
        role: String,
        /// The bound.
        k: usize,
        /// What k-MC reported (a violation that is not a failing run, or why it gave up).
        why: String,
    },
    /// The FSMs have no Rust API.
    #[error("{0}")]
    Codegen(CodegenError),
}

impl GenerateError {
    /// A refusal of optimised roles (an unknown role, a refutation, an unknown answer)
    /// located in the DOT file of the role refused, one of `machines` (as read by
    /// [`mpst_diagnostics::optimised::read`]) for protocol `protocol` checked under
    /// `options`; `raise` says how to raise the bounds (`with --visits N`). The CLI's
    /// `generate --optimised` and the build helper print this same report. `None` for
    /// the other errors, or a role none of `machines` plays.
    pub fn located(
        &self,
        protocol: &str,
        machines: &[Optimised],
        options: &subtype::Options,
        raise: &str,
    ) -> Option<Report> {
        let (GenerateError::UnknownRole { role, .. }
        | GenerateError::NotSubtype { role, .. }
        | GenerateError::Unknown { role, .. }
        | GenerateError::OfferRefuted { role, .. }
        | GenerateError::OfferUnproved { role, .. }) = self
        else {
            return None;
        };
        let m = machines.iter().find(|m| m.machine.fsm.role() == role)?;
        Some(match self {
            GenerateError::UnknownRole { available, .. } => m.unknown_role(protocol, available),
            GenerateError::NotSubtype { refutation, .. } => m.not_subtype(protocol, refutation),
            GenerateError::Unknown { unknown, .. } => m.unknown(protocol, unknown, options, raise),
            GenerateError::OfferRefuted { violation, .. } => m.offer_refuted(protocol, violation),
            GenerateError::OfferUnproved { k, why, .. } => m.offer_unproved(protocol, *k, why),
            _ => return None,
        })
    }
}

impl From<FrontendError> for GenerateError {
    fn from(e: FrontendError) -> Self {
        GenerateError::Frontend(e)
    }
}

/// The FSM of every role of the `loaded` protocol (from [`mpst_scribble::load`]), with
/// each role that has an FSM in `optimised` replaced by it once it is shown to be an
/// asynchronous subtype of the projection ([`mpst_fsm::subtype::check`], bounded by
/// `visits` and the default budgets: an optimised FSM is refused both when it is refuted
/// and when the answer is unknown).
pub fn role_fsms(
    loaded: &Loaded,
    optimised: &[Fsm],
    visits: usize,
) -> Result<Vec<Fsm>, GenerateError> {
    role_fsms_with(loaded, optimised, &subtype::Options::new(visits))
}

/// As [`role_fsms`], with every bound and budget of the subtyping check given.
pub fn role_fsms_with(
    loaded: &Loaded,
    optimised: &[Fsm],
    options: &subtype::Options,
) -> Result<Vec<Fsm>, GenerateError> {
    prove_optimised(loaded, optimised, options)?;
    Ok(swap_in(loaded, optimised))
}

/// The FSM of every role of the `loaded` protocol, in the protocol's order: the
/// projection, or the `optimised` FSM of that role in its place. Nothing is checked:
/// call it after [`prove_optimised`] (as [`role_fsms`] does), or to explore a system
/// with candidates whose [`check_optimised`] verdicts are shown beside it (`mpst
/// report`).
pub fn swap_in(loaded: &Loaded, optimised: &[Fsm]) -> Vec<Fsm> {
    let mut fsms: Vec<Fsm> = loaded.projections.iter().map(|p| p.fsm.clone()).collect();
    for better in optimised {
        if let Some(slot) = fsms.iter_mut().find(|f| f.role() == better.role()) {
            *slot = better.clone();
        }
    }
    fsms
}

/// The projection of the role of `better` in `loaded`, or the error naming the roles.
fn projection_of<'a>(loaded: &'a Loaded, better: &Fsm) -> Result<&'a Fsm, GenerateError> {
    let mut projections = loaded.projections.iter().map(|p| &p.fsm);
    projections
        .find(|f| f.role() == better.role())
        .ok_or_else(|| GenerateError::UnknownRole {
            role: better.role().to_string(),
            available: loaded
                .protocol
                .roles
                .iter()
                .map(|r| r.text.clone())
                .collect(),
        })
}

/// The subtyping verdict of each `optimised` FSM against its role's projection in
/// `loaded` ([`mpst_fsm::subtype::check`] under `options`), in order: what
/// [`prove_optimised`] decides on, for a caller that shows every verdict.
///
/// # Errors
/// An FSM for a role the protocol does not have.
pub fn check_optimised(
    loaded: &Loaded,
    optimised: &[Fsm],
    options: &subtype::Options,
) -> Result<Vec<Verdict>, GenerateError> {
    optimised
        .iter()
        .map(|better| Ok(check(better, projection_of(loaded, better)?, options)))
        .collect()
}

/// Checks that each `optimised` FSM is for a role of the `loaded` protocol and is shown to
/// be an asynchronous subtype of that role's projection ([`mpst_fsm::subtype::check`]
/// under `options`): `Ok` only when every one is *proved*; a refutation and an unknown
/// answer are errors. Then, when the system with them swapped in has a state receiving
/// from several peers, [`check_offers`] must prove it as the runtime runs it.
pub fn prove_optimised(
    loaded: &Loaded,
    optimised: &[Fsm],
    options: &subtype::Options,
) -> Result<(), GenerateError> {
    prove_optimised_with(loaded, optimised, options, &kmc::offer_options())
}

/// [`prove_optimised`] with the bound and budget of the `Offer` check given
/// ([`check_offers_with`]; [`prove_optimised`] uses [`mpst_fsm::kmc::offer_options`]).
pub fn prove_optimised_with(
    loaded: &Loaded,
    optimised: &[Fsm],
    options: &subtype::Options,
    offers: &KmcOptions,
) -> Result<(), GenerateError> {
    for better in optimised {
        let projection = projection_of(loaded, better)?;
        let role = better.role().to_string();
        match check(better, projection, options) {
            Verdict::Subtype(_) => {}
            Verdict::NotSubtype(refutation) => {
                return Err(GenerateError::NotSubtype { role, refutation });
            }
            Verdict::Unknown(unknown) => return Err(GenerateError::Unknown { role, unknown }),
        }
    }
    check_offers_with(loaded, optimised, offers)
}

/// With the `optimised` FSMs swapped in ([`swap_in`]), the system of the `loaded`
/// protocol as the generated code runs it: when some state of it receives from several
/// peers (an `Offer`), it must be proved by k-MC under the `Offer` semantics
/// ([`mpst_fsm::kmc::check_kmc_offer`] with [`mpst_fsm::kmc::offer_options`], the check
/// projection makes), since subtyping models queues where a message the state does not
/// take waits, and the runtime fails on it. `Ok` when no optimised FSM is given, when no
/// state receives from several peers, or when k-MC proves the system; a refutation
/// (with its run) and an unproved answer are errors. [`prove_optimised`] calls it after
/// subtyping.
pub fn check_offers(loaded: &Loaded, optimised: &[Fsm]) -> Result<(), GenerateError> {
    check_offers_with(loaded, optimised, &kmc::offer_options())
}

/// [`check_offers`] with the bound and the budget of configurations given (`options`;
/// [`check_offers`] uses [`mpst_fsm::kmc::offer_options`]). A budget too small for the
/// system gives [`GenerateError::OfferUnproved`], never a refutation: the message says
/// how many configurations were tried and how to give the check more
/// ([`Build::offer_configurations`](crate::build::Build::offer_configurations)).
pub fn check_offers_with(
    loaded: &Loaded,
    optimised: &[Fsm],
    options: &KmcOptions,
) -> Result<(), GenerateError> {
    let Some(first) = optimised.first() else {
        return Ok(());
    };
    let system = swap_in(loaded, optimised);
    if !system.iter().any(|f| kmc::offer_state(f).is_some()) {
        return Ok(());
    }
    let role = optimised
        .iter()
        .find(|f| kmc::offer_state(f).is_some())
        .unwrap_or(first)
        .role()
        .to_string();
    let why = match kmc::check_kmc_offer(&system, options) {
        Ok(report) => match report.violation {
            None => return Ok(()),
            Some(violation) if violation.is_definitive() => {
                return Err(GenerateError::OfferRefuted {
                    role,
                    violation: Box::new(violation),
                });
            }
            Some(violation) => violation.to_string(),
        },
        Err(e @ KmcError::TooManyConfigurations { .. }) => format!(
            "{e}; give the check a larger budget of configurations \
             (`.offer_configurations(N)` in build.rs, `--offer-configurations N` of \
             `mpst generate`; the default is {})",
            kmc::OFFER_MAX_CONFIGURATIONS
        ),
        Err(e) => e.to_string(),
    };
    Err(GenerateError::OfferUnproved {
        role,
        k: options.k,
        why,
    })
}

/// Generates the Rust API of protocol `wanted` (or the only one) of the Scribble `source`
/// called `file` (for diagnostics): every role's projection, and beside them each of the
/// `optimised` FSMs under its own name (`KOptimised`, see [`generate_optimised`]) once
/// subtyping proves it (bounded by `visits`). Roles and labels are generated once, so
/// processes of the other roles compile unchanged beside an optimised one.
pub fn generate_scribble(
    file: &str,
    source: &str,
    wanted: Option<&str>,
    optimised: &[Fsm],
    visits: usize,
) -> Result<String, GenerateError> {
    let loaded = mpst_scribble::load(file, source, wanted)?;
    prove_optimised(&loaded, optimised, &subtype::Options::new(visits))?;
    let fsms: Vec<Fsm> = loaded.projections.iter().map(|p| p.fsm.clone()).collect();
    let protocol = &loaded.protocol.name.text;
    generate_optimised(protocol, &fsms, optimised, &Options::default())
        .map_err(GenerateError::Codegen)
}
