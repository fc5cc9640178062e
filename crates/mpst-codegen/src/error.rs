//! Why an FSM or a protocol has no Rust API.

use mpst_fsm::StateId;

/// A system of FSMs the runtime's session types cannot express, or names that collide.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodegenError {
    /// A state both sends and receives: session types have no mixed choice.
    #[error(
        "role `{role}`, state {state}: the state both sends and receives; \
         session types can only choose among sends or among receives"
    )]
    MixedState {
        /// The role.
        role: String,
        /// The state.
        state: StateId,
    },
    /// A payload sort that is not a Rust type path.
    #[error(
        "label `{label}` carries the sort `{sort}`, which is not a Rust type path; \
         use a Rust type name (`i32`, `String`, `my::Type`)"
    )]
    BadSort {
        /// The label carrying it.
        label: String,
        /// The sort as written.
        sort: String,
    },
    /// Two protocol names become the same Rust identifier.
    #[error("{first} and {second} would both be called `{ident}` in Rust; rename one")]
    NameClash {
        /// The identifier.
        ident: String,
        /// What the first use is, e.g. "role `a`".
        first: String,
        /// What the second use is.
        second: String,
    },
    /// An optimised FSM is for a role that no projection has.
    #[error(
        "the optimised FSM is for role `{role}`, but the protocol's roles are: {}",
        available.join(", ")
    )]
    OptimisedUnknownRole {
        /// The role of the optimised FSM.
        role: String,
        /// The roles of the projections.
        available: Vec<String>,
    },
    /// Two FSMs describe the same role (or two optimised FSMs the same role).
    #[error("two FSMs describe role `{0}`")]
    DuplicateRole(String),
    /// No FSM was given.
    #[error("a protocol needs at least one role")]
    NoRoles,
}
