//! Checking hand-written session types (feature `serialize`): the bottom-up workflow (k-MC
//! of serialised roles) and, with feature `scribble`, the hybrid one (subtyping against a
//! projection), PPoPP 2022 §2.2–2.3.
//!
//! # One normalisation
//!
//! A projection speaks Scribble (`k`, `s?value(int)`, `get_price`), a serialised session
//! type speaks Rust (`K`, `S?Value(i32)`, `GetPrice`). Every comparison here first puts the
//! projection through [`normalise`]: role, peer and label names become the identifiers
//! `mpst generate` gives them ([`rust_name`]: `ready` -> `Ready`) and payload sorts the
//! Rust types it writes ([`sort_key`] of the sort the front end has already put in
//! normal form: `int` -> `i32`, paths shortened to their last segment). Name your roles and label variants as the generator would, give
//! each label struct the fields the protocol names (`#[derive(Payload)] struct Value(i32)`
//! for `value(int)`) and a hand-written API compares with its protocol; a label carrying
//! `u8` where the protocol says `int` is a difference. Type aliases are not resolved:
//! write the sort the protocol names.
//!
//! # Branches across peers
//!
//! The k-MC checks here ([`check_kmc`], [`least_k`], [`assert_kmc`]) check a state
//! receiving from several peers (an [`Offer`](crate::Offer)) as the runtime runs it:
//! it fails on a label at the head of any of their queues that it does not take from that
//! peer ([`mpst_fsm::kmc::check_kmc_offer`]). The hybrid checks compare one role with its
//! projection, and asynchronous subtyping lets a message wait in a queue where an `Offer`
//! fails on it: when a hand-written role that is not its projection has such a state,
//! check the whole system with [`check_kmc`] too.
//!
//! # Bottom-up
//!
//! ```
//! use mpst::{session, Message, Payload, Receive, Role, Roles, Send};
//! use mpst::serialize::serialize;
//!
//! type Channel = mpst::channel::Unbounded<Label>;
//! #[derive(Roles)]
//! struct Roles(A, B);
//! #[derive(Role)]
//! #[message(Label)]
//! struct A(#[route(B)] Channel);
//! #[derive(Role)]
//! #[message(Label)]
//! struct B(#[route(A)] Channel);
//! #[derive(Message)]
//! enum Label {
//!     Ping(Ping),
//!     Pong(Pong),
//! }
//! #[derive(Payload)]
//! struct Ping;
//! #[derive(Payload)]
//! struct Pong;
//!
//! #[session]
//! struct PingA(Send<B, Ping, Receive<B, Pong, Self>>);
//! #[session]
//! struct PongB(Receive<A, Ping, Send<A, Pong, Self>>);
//! // B waits for a `Pong` that A never sends: k-MC finds it.
//! #[session]
//! struct WrongB(Receive<A, Pong, Send<A, Ping, Self>>);
//!
//! let a = serialize::<PingA<'static, A>>().unwrap();
//! let b = serialize::<PongB<'static, B>>().unwrap();
//! mpst::verify::assert_kmc(&[a.clone(), b], 1);
//!
//! let wrong = serialize::<WrongB<'static, B>>().unwrap();
//! let failure = mpst::verify::check_kmc(&[a, wrong], 1).unwrap_err();
//! assert!(failure.to_string().contains("not 1-MC"), "{failure}");
//! ```

mod compare;
#[cfg(feature = "scribble")]
mod hybrid;
mod names;

use mpst_fsm::Fsm;
use mpst_fsm::kmc::{KmcError, KmcOptions, KmcReport};

pub use compare::{Mismatch, compare};
#[cfg_attr(docsrs, doc(cfg(feature = "scribble")))]
#[cfg(feature = "scribble")]
pub use hybrid::{
    HybridError, Sides, assert_equals_projection, assert_subtype_of_projection,
    check_equals_projection, check_subtype_of_projection, check_subtype_of_projection_with,
    projection,
};
/// The Scribble front end's error, which [`HybridError::Frontend`] carries.
#[cfg(feature = "scribble")]
pub use mpst_scribble::FrontendError;
pub use names::{normalise, rust_name, sort_key};

/// Why a system of FSMs is not shown to be k-MC.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KmcFailure {
    /// The system cannot be checked (no role, a role twice, a peer without a machine, a
    /// bound of 0).
    #[error("the system cannot be checked: {0}")]
    Invalid(KmcError),
    /// The check gave up before an answer: the exploration reached its budget (the
    /// reason says which). The system is neither shown k-MC nor refuted.
    #[error("unknown: {0}")]
    Unknown(KmcError),
    /// The check ran and found a violation; the report holds the counterexample.
    #[error("{0}")]
    Violation(Box<KmcReport>),
}

/// Checks that the system `fsms` (one machine per role, e.g. serialised session types) is
/// k-multiparty compatible for the bound `k`: then processes following them cannot
/// deadlock or leave messages unread (bottom-up workflow, PPoPP 2022 §2.2).
///
/// The system is checked as the runtime runs it: a state receiving from several peers
/// (an [`Offer`](crate::Offer), serialised as one state with a transition per variant)
/// takes the first label at the head of *any* of their queues, and fails on one it does
/// not take from that peer, where a CFSM would leave it queued and wait
/// ([`mpst_fsm::kmc::check_kmc_offer`]). Such a run is a [`KmcFailure::Violation`] whose
/// report ends where the label the `Offer` refuses heads its queue: a run on which the
/// runtime fails with `UnexpectedLabel`. A system without such a state gets the
/// standard check.
///
/// On success the report says what was explored; on failure the error renders the
/// violated property and the execution that reaches it.
pub fn check_kmc(fsms: &[Fsm], k: usize) -> Result<KmcReport, KmcFailure> {
    check_kmc_with(fsms, &KmcOptions::new(k))
}

/// [`check_kmc`] with explicit settings (the bound, the partial-order reduction and the
/// budget of configurations). A check that reaches the budget fails with
/// [`KmcFailure::Unknown`].
pub fn check_kmc_with(fsms: &[Fsm], options: &KmcOptions) -> Result<KmcReport, KmcFailure> {
    let report = mpst_fsm::kmc::check_kmc_offer(fsms, options).map_err(failure)?;
    if report.is_kmc() {
        Ok(report)
    } else {
        Err(KmcFailure::Violation(Box::new(report)))
    }
}

/// The least `k` in `1..=max_k` for which the system `fsms` is k-MC (as [`check_kmc`]
/// checks it: an `Offer` as the runtime runs it), with its report; if there is none, the
/// counterexample for `max_k`.
pub fn least_k(fsms: &[Fsm], max_k: usize) -> Result<KmcReport, KmcFailure> {
    if max_k == 0 {
        return Err(KmcFailure::Invalid(KmcError::ZeroBound));
    }
    let mut last = Err(KmcFailure::Invalid(KmcError::ZeroBound));
    for k in 1..=max_k {
        last = check_kmc(fsms, k);
        match &last {
            Err(KmcFailure::Violation(_)) => continue,
            _ => return last,
        }
    }
    last
}

/// Giving up (a budget reached) is [`KmcFailure::Unknown`]; every other error says the
/// system cannot be checked at all.
fn failure(e: KmcError) -> KmcFailure {
    match e {
        KmcError::TooManyConfigurations { .. } => KmcFailure::Unknown(e),
        e => KmcFailure::Invalid(e),
    }
}

/// Asserts [`check_kmc`], panicking with the counterexample.
///
/// # Panics
/// If the system is not shown to be k-MC; the message is the rendered [`KmcFailure`].
#[track_caller]
pub fn assert_kmc(fsms: &[Fsm], k: usize) {
    if let Err(e) = check_kmc(fsms, k) {
        panic!("{e}");
    }
}
