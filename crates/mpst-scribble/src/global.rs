//! Global types: the checked, lowered form of a Scribble protocol that projection reads.
//!
//! The parser lowers its syntax tree into this form: sequences become continuations,
//! multicasts become one message per receiver, `do` is inlined (a recursive `do`
//! becoming a `Rec`/`Continue` pair), annotations are dropped. Every node keeps the
//! [`Span`] of the source it came from so later phases can report errors there.

use mpst_fsm::Message;

/// A byte range `start..end` in the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The range `start..end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
}

/// A name with the place it was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Name {
    /// The text of the name.
    pub text: String,
    /// Where it was written.
    pub span: Span,
}

impl Name {
    /// A name at `span`.
    pub fn new(text: impl Into<String>, span: Span) -> Self {
        Name {
            text: text.into(),
            span,
        }
    }
}

/// One global protocol, ready for well-formedness checks and projection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalProtocol {
    /// The protocol's name.
    pub name: Name,
    /// The declared roles, in order.
    pub roles: Vec<Name>,
    /// The interactions.
    pub body: Global,
}

/// A global type `G ::= end | p → q : {lᵢ(Sᵢ).Gᵢ} | µt.G | t`, with spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Global {
    /// Nothing more happens.
    End,
    /// `message from sender to receiver; cont`.
    Message {
        /// The sending role.
        from: Name,
        /// The receiving role.
        to: Name,
        /// Label and payloads.
        message: Message,
        /// Where the interaction was written.
        span: Span,
        /// What follows.
        cont: Box<Global>,
    },
    /// `choice at role { branch } or { branch } ...`.
    Choice {
        /// The role that chooses.
        at: Name,
        /// The branches, in source order.
        branches: Vec<Global>,
        /// Where the choice was written.
        span: Span,
    },
    /// `rec var { body }`.
    Rec {
        /// The recursion variable.
        var: Name,
        /// The body.
        body: Box<Global>,
    },
    /// `continue var;`.
    Continue(Name),
}
