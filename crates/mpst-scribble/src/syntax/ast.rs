//! The Scribble syntax tree: what the file says, as written, with spans and annotations.
//!
//! Nothing here is checked or lowered yet: roles may be unbound and `do` may name
//! protocols that do not exist. [`super::check`] reports that; [`super::lower`] turns a
//! checked [`Module`] into [`crate::GlobalProtocol`]s. Constructs we do not support are
//! reported while parsing and have no node here.

use crate::{Name, Span};

/// A whole `.scr` file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Module {
    /// The entries of the pragma blocks `(*# A, B: v #*)`, in order.
    pub pragmas: Vec<Pragma>,
    /// The `module a.b.c;` declaration, if any.
    pub name: Option<Name>,
    /// The `type` and `sig` declarations.
    pub type_decls: Vec<TypeDecl>,
    /// The global protocols, in source order.
    pub protocols: Vec<Protocol>,
}

/// One pragma entry, e.g. `RefinementTypes` or `PrintUsage: true`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pragma {
    /// The pragma's name.
    pub key: String,
    /// The value after `:`, if any.
    pub value: Option<String>,
    /// Where the whole pragma block is.
    pub span: Span,
}

/// Whether a declaration introduces a payload type or a message signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeDeclKind {
    /// `type <schema> "ext" from "source" as Name;`
    Type,
    /// `sig <schema> "ext" from "source" as Name;`
    Sig,
}

/// `type <java> "java.lang.Integer" from "rt.jar" as Int;` (kept, not interpreted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeDecl {
    /// `type` or `sig`.
    pub kind: TypeDeclKind,
    /// The schema between angle brackets, e.g. `java`.
    pub schema: String,
    /// The external name, without quotes.
    pub external: String,
    /// Where it comes from, without quotes.
    pub source: String,
    /// The alias used in protocols.
    pub alias: Name,
    /// The whole declaration.
    pub span: Span,
}

/// An annotation `@"..."`: metadata for tools, ignored by projection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    /// The text between the quotes.
    pub text: String,
    /// Where `@"..."` is.
    pub span: Span,
}

/// `[aux] global protocol Name(role A, role B) [@"..."] { ... }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protocol {
    /// Its name.
    pub name: Name,
    /// Whether it was declared `aux`.
    pub aux: bool,
    /// The declared roles, in order (duplicates kept; the checker reports them).
    pub roles: Vec<Name>,
    /// The annotation after the header.
    pub annotation: Option<Annotation>,
    /// The body.
    pub body: Block,
    /// From the first keyword to the closing brace.
    pub span: Span,
}

/// `{ interaction* }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The interactions, in order.
    pub interactions: Vec<Interaction>,
    /// From `{` to `}`.
    pub span: Span,
}

/// One statement of a protocol body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interaction {
    /// What it does.
    pub kind: InteractionKind,
    /// The annotation after it, if any.
    pub annotation: Option<Annotation>,
    /// From its first token to its `;` or closing brace (annotation excluded).
    pub span: Span,
}

/// The interactions of a global protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InteractionKind {
    /// `label(payloads) from A to B, C;`
    Message {
        /// The label (may be empty only in the sense of carrying no payload).
        label: Name,
        /// The payloads, in order.
        payloads: Vec<PayloadDecl>,
        /// The sender.
        from: Name,
        /// The receivers, in order (several for a multicast).
        to: Vec<Name>,
    },
    /// `choice at A { ... } or { ... }`
    Choice {
        /// The choosing role.
        at: Name,
        /// The branches, in order.
        branches: Vec<Block>,
    },
    /// `rec X { ... }`
    Rec {
        /// The recursion variable.
        var: Name,
        /// The body.
        body: Block,
    },
    /// `continue X;`
    Continue {
        /// The recursion variable.
        var: Name,
    },
    /// `do P(A, B);`
    Do {
        /// The protocol called.
        protocol: Name,
        /// The role arguments, in order.
        roles: Vec<Name>,
        /// Where the argument list is (the protocol name if there is none).
        args_span: Span,
    },
}

/// One payload `x: T` or `T` of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayloadDecl {
    /// The variable name, if given.
    pub name: Option<Name>,
    /// The sort, verbatim (dotted names joined with `.`).
    pub ty: Name,
    /// The whole payload.
    pub span: Span,
}
