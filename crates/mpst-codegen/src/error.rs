//! Why an FSM or a protocol has no Rust API.

use std::fmt;

use mpst_fsm::StateId;

/// A system of FSMs the runtime's session types cannot express, or names that collide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodegenError {
    /// A state both sends and receives: session types have no mixed choice.
    MixedState {
        /// The role.
        role: String,
        /// The state.
        state: StateId,
    },
    /// A branch from several peers: `Branch` waits on one peer (a choice towards several
    /// peers is a `Choose`).
    SeveralPeers {
        /// The role.
        role: String,
        /// The state.
        state: StateId,
        /// The peers of the choice.
        peers: Vec<String>,
    },
    /// A payload sort that is not a Rust type path.
    BadSort {
        /// The label carrying it.
        label: String,
        /// The sort as written.
        sort: String,
    },
    /// Two protocol names become the same Rust identifier.
    NameClash {
        /// The identifier.
        ident: String,
        /// What the first use is, e.g. "role `a`".
        first: String,
        /// What the second use is.
        second: String,
    },
    /// Two FSMs describe the same role.
    DuplicateRole(String),
    /// No FSM was given.
    NoRoles,
}

impl fmt::Display for CodegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodegenError::MixedState { role, state } => write!(
                f,
                "role `{role}`, state {state}: the state both sends and receives; \
                 session types can only choose among sends or among receives"
            ),
            CodegenError::SeveralPeers { role, state, peers } => write!(
                f,
                "role `{role}`, state {state}: the state receives from several peers ({}); \
                 `Branch` receives from a single peer",
                peers.join(", ")
            ),
            CodegenError::BadSort { label, sort } => write!(
                f,
                "label `{label}` carries the sort `{sort}`, which is not a Rust type path; \
                 use a Rust type name (`i32`, `String`, `my::Type`)"
            ),
            CodegenError::NameClash {
                ident,
                first,
                second,
            } => write!(
                f,
                "{first} and {second} would both be called `{ident}` in Rust; rename one"
            ),
            CodegenError::DuplicateRole(role) => write!(f, "two FSMs describe role `{role}`"),
            CodegenError::NoRoles => f.write_str("a protocol needs at least one role"),
        }
    }
}

impl std::error::Error for CodegenError {}
