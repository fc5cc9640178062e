//! The hybrid workflow (feature `scribble`): a hand-written session type against the
//! projection of its role from a Scribble protocol.

use std::fmt;

use mpst_fsm::subtype::{DEFAULT_VISITS, Options, Refutation, Stats, Unknown, Verdict, check};
use mpst_fsm::{Fsm, FsmError};

use super::{Mismatch, compare, normalise, rust_name};
use crate::introspect::SessionType;
use crate::serialize::{SerializeError, serialize};
use crate::{FromState, Labelled, Role};

/// Why a hybrid check failed: the protocol could not be projected, or the session type
/// does not conform to the projection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HybridError {
    /// The Scribble source does not parse, has no such protocol (or several, and none
    /// was named as `Protocol.Role`), or the protocol is ill-formed or cannot be projected:
    /// the front end's error, each problem located as `file:line:column`.
    #[error("{}", frontend(.0))]
    Frontend(mpst_scribble::FrontendError),
    /// The protocol has no such role.
    #[error(
        "protocol `{protocol}` has no role `{role}`; its roles are: {}",
        available.join(", ")
    )]
    NoSuchRole {
        /// The protocol.
        protocol: String,
        /// The role asked for.
        role: String,
        /// The protocol's roles.
        available: Vec<String>,
    },
    /// The session type has no FSM.
    #[error("{0}")]
    Serialize(Box<SerializeError>),
    /// The projection has no Rust names (two labels of one state are one Rust name).
    #[error("the projection has no Rust names: {0}")]
    Names(FsmError),
    /// The serialised session type is not an asynchronous subtype of the projection:
    /// beside the projection's dual it has a run that goes wrong.
    #[error(
        "the session type of role `{}` is not an asynchronous subtype of its \
         projection:\n{refutation}\n{sides}",
        sides.serialised.role()
    )]
    NotSubtype {
        /// The run, and where the rules stopped (the machines are the normalised ones
        /// of `sides`).
        refutation: Box<Refutation>,
        /// The two machines compared.
        sides: Box<Sides>,
    },
    /// Neither proved nor refuted: a bound or budget was reached, or the rules cannot
    /// decide and no run that goes wrong was found.
    #[error(
        "the session type of role `{}` is not shown to be an asynchronous subtype of \
         its projection (nor refuted):\n{unknown}\n{sides}",
        sides.serialised.role()
    )]
    Unknown {
        /// Why, and where the rules stopped.
        unknown: Box<Unknown>,
        /// The two machines compared.
        sides: Box<Sides>,
    },
    /// The serialised session type does not behave as the projection.
    #[error(
        "the session type of role `{}` is not its projection: {mismatch}\n{sides}",
        sides.serialised.role()
    )]
    NotEqual {
        /// Where they differ.
        mismatch: Box<Mismatch>,
        /// The two machines compared.
        sides: Box<Sides>,
    },
}

/// The two machines a hybrid check compares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sides {
    /// The serialised session type.
    pub serialised: Fsm,
    /// The projection, [`normalise`]d.
    pub projected: Fsm,
}

impl fmt::Display for Sides {
    /// `serialised session type: <fsm>projection: <fsm>` (each machine's text ends its
    /// own line).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "serialised session type: {}projection: {}",
            self.serialised, self.projected
        )
    }
}

/// The front end's message, with what a hybrid check adds to it: projection problems
/// are introduced, and an unnamed protocol is to be named as `Protocol.Role`.
fn frontend(e: &mpst_scribble::FrontendError) -> String {
    match e {
        mpst_scribble::FrontendError::Diagnostics { .. } => {
            format!("the protocol cannot be projected:\n{e}")
        }
        mpst_scribble::FrontendError::NoSuchProtocol { wanted: None, .. } => {
            format!("{e} as `Protocol.Role`")
        }
        e => e.to_string(),
    }
}

/// The projection of `role` from the Scribble `source`, as the protocol names it (not
/// normalised).
///
/// `role` is `"K"` when the source defines one protocol, or `"DoubleBuffering.K"` to pick a
/// protocol. The role is matched by its Scribble name, or else by its Rust name
/// ([`rust_name`]), so `"K"` finds role `k`.
pub fn projection(source: &str, role: &str) -> Result<Fsm, HybridError> {
    let (wanted, role) = match role.rsplit_once('.') {
        Some((protocol, role)) => (Some(protocol), role),
        None => (None, role),
    };
    let loaded = mpst_scribble::load(SOURCE_NAME, source, wanted).map_err(HybridError::Frontend)?;
    let protocol = &loaded.protocol;
    let declared = protocol
        .roles
        .iter()
        .find(|r| r.text == role)
        .or_else(|| {
            let key = rust_name(role, "R");
            protocol
                .roles
                .iter()
                .find(|r| rust_name(&r.text, "R") == key)
        })
        .ok_or_else(|| HybridError::NoSuchRole {
            protocol: protocol.name.text.clone(),
            role: role.to_string(),
            available: protocol.roles.iter().map(|r| r.text.clone()).collect(),
        })?;
    // The front end projects every declared role.
    loaded
        .projections
        .iter()
        .find(|p| p.role == declared.text)
        .map(|p| p.fsm.clone())
        .ok_or_else(|| HybridError::NoSuchRole {
            protocol: protocol.name.text.clone(),
            role: role.to_string(),
            available: protocol.roles.iter().map(|r| r.text.clone()).collect(),
        })
}

/// The name under which the front end's diagnostics locate a Scribble source given as
/// text (`<scribble>:1:40: ...`).
pub const SOURCE_NAME: &str = "<scribble>";

/// Both sides of a hybrid check, normalised: (serialised `S`, projection of `role`).
fn sides<'r, S>(source: &str, role: &str) -> Result<Box<Sides>, HybridError>
where
    S: SessionType + FromState<'r>,
    <S::Role as Role>::Message: Labelled,
{
    let projected = normalise(&projection(source, role)?).map_err(HybridError::Names)?;
    let serialised = serialize::<S>().map_err(|e| HybridError::Serialize(Box::new(e)))?;
    Ok(Box::new(Sides {
        serialised,
        projected,
    }))
}

/// Checks that the session type `S` is an asynchronous subtype of the projection of
/// `role` (see [`projection`]) from `source`: the hybrid workflow of PPoPP 2022 §2.3.
///
/// Both machines are [`normalise`]d; the bound on visits is
/// [`mpst_fsm::subtype::DEFAULT_VISITS`] (use [`check_subtype_of_projection_with`] for
/// another).
///
/// ```
/// # use mpst::{session, Message, Payload, Receive, Role, Roles, Send};
/// # type Channel = mpst::channel::Unbounded<Label>;
/// # #[derive(Roles)]
/// # struct Roles(K, S);
/// # #[derive(Role)]
/// # #[message(Label)]
/// # struct K(#[route(S)] Channel);
/// # #[derive(Role)]
/// # #[message(Label)]
/// # struct S(#[route(K)] Channel);
/// # #[derive(Message)]
/// # enum Label { Ready(Ready), Value(Value) }
/// # #[derive(Payload)]
/// # struct Ready;
/// # #[derive(Payload)]
/// # struct Value(i32);
/// const SCR: &str = "global protocol P(role K, role S) {
///     rec L { ready() from K to S; value(i32) from S to K; continue L; }
/// }";
/// // Two readies ahead of the projection.
/// #[session]
/// type Ahead = Send<S, Ready, Send<S, Ready, Loop>>;
/// #[session]
/// struct Loop(Receive<S, Value, Send<S, Ready, Self>>);
///
/// mpst::verify::assert_subtype_of_projection::<Ahead<'static, K>>(SCR, "K");
///
/// // Receiving first could deadlock.
/// #[session]
/// struct Wrong(Receive<S, Value, Send<S, Ready, Self>>);
/// let err = mpst::verify::check_subtype_of_projection::<Wrong<'static, K>>(SCR, "K");
/// let err = err.unwrap_err();
/// assert!(matches!(err, mpst::verify::HybridError::NotSubtype { .. }));
/// assert!(err.to_string().contains("deadlock"), "{err}");
/// ```
pub fn check_subtype_of_projection<'r, S>(source: &str, role: &str) -> Result<Stats, HybridError>
where
    S: SessionType + FromState<'r>,
    <S::Role as Role>::Message: Labelled,
{
    check_subtype_of_projection_with::<S>(source, role, DEFAULT_VISITS)
}

/// [`check_subtype_of_projection`] with an explicit bound on visits per pair of states.
pub fn check_subtype_of_projection_with<'r, S>(
    source: &str,
    role: &str,
    visits: usize,
) -> Result<Stats, HybridError>
where
    S: SessionType + FromState<'r>,
    <S::Role as Role>::Message: Labelled,
{
    let sides = sides::<S>(source, role)?;
    match check(&sides.serialised, &sides.projected, &Options::new(visits)) {
        Verdict::Subtype(stats) => Ok(stats),
        Verdict::NotSubtype(refutation) => Err(HybridError::NotSubtype { refutation, sides }),
        Verdict::Unknown(unknown) => Err(HybridError::Unknown { unknown, sides }),
    }
}

/// Asserts [`check_subtype_of_projection`], panicking with the explanation: the one-line
/// test of the hybrid workflow.
///
/// # Panics
/// If the check fails; the message says why (see [`HybridError`]).
#[track_caller]
pub fn assert_subtype_of_projection<'r, S>(source: &str, role: &str)
where
    S: SessionType + FromState<'r>,
    <S::Role as Role>::Message: Labelled,
{
    if let Err(e) = check_subtype_of_projection::<S>(source, role) {
        panic!("{e}");
    }
}

/// Checks that the session type `S` behaves exactly as the projection of `role` (see
/// [`projection`]) from `source`, both [`normalise`]d and compared with [`compare`]: what a
/// generated, unoptimised API must satisfy.
pub fn check_equals_projection<'r, S>(source: &str, role: &str) -> Result<(), HybridError>
where
    S: SessionType + FromState<'r>,
    <S::Role as Role>::Message: Labelled,
{
    let sides = sides::<S>(source, role)?;
    compare(&sides.projected, &sides.serialised).map_err(|mismatch| HybridError::NotEqual {
        mismatch: Box::new(mismatch),
        sides,
    })
}

/// Asserts [`check_equals_projection`], panicking with the first difference.
///
/// # Panics
/// If the check fails; the message says why (see [`HybridError`]).
#[track_caller]
pub fn assert_equals_projection<'r, S>(source: &str, role: &str)
where
    S: SessionType + FromState<'r>,
    <S::Role as Role>::Message: Labelled,
{
    if let Err(e) = check_equals_projection::<S>(source, role) {
        panic!("{e}");
    }
}
