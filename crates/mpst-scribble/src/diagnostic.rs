//! Errors about a Scribble source: what went wrong, where, and what was expected.
//!
//! The crate only produces [`Diagnostic`] values with byte [`Span`]s; rendering them
//! with excerpts and carets is the CLI's job. [`line_column`] turns a byte offset into
//! the 1-based line and column a person reads.

use std::fmt;

use crate::Span;

/// The class of a problem, one per error class of nuscr (and ours).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The text is not Scribble.
    Syntax,
    /// Valid Scribble that we do not support yet (refinements, nested protocols, ...).
    Unsupported,
    /// A role used but not declared.
    UnboundRole,
    /// A role declared twice in one protocol.
    DuplicateRole,
    /// Two protocols with the same name.
    DuplicateProtocol,
    /// `do P(...)` of a protocol that does not exist.
    UnknownProtocol,
    /// `do P(...)` with the wrong number of roles.
    ArityMismatch,
    /// `continue X` outside `rec X`.
    UnboundVariable,
    /// A recursion whose body can loop without any interaction.
    UnguardedVariable,
    /// A role sending to itself.
    ReflexiveMessage,
    /// A choice whose branches do not start with distinct messages from the chooser.
    UndirectedChoice,
    /// A role whose behaviour differs across the branches of a choice in a way that
    /// projection cannot merge.
    Unmergeable,
}

impl ErrorKind {
    /// A short name for the class, e.g. `unbound role`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "syntax error",
            ErrorKind::Unsupported => "unsupported construct",
            ErrorKind::UnboundRole => "unbound role",
            ErrorKind::DuplicateRole => "duplicate role",
            ErrorKind::DuplicateProtocol => "duplicate protocol",
            ErrorKind::UnknownProtocol => "unknown protocol",
            ErrorKind::ArityMismatch => "arity mismatch",
            ErrorKind::UnboundVariable => "unbound recursion variable",
            ErrorKind::UnguardedVariable => "unguarded recursion variable",
            ErrorKind::ReflexiveMessage => "reflexive message",
            ErrorKind::UndirectedChoice => "choice not directed",
            ErrorKind::Unmergeable => "cannot merge projections",
        }
    }
}

/// A secondary location with its own short message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What is there, e.g. `first declared here`.
    pub message: String,
}

/// One problem found in a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The class of the problem.
    pub kind: ErrorKind,
    /// A sentence saying what is wrong and, where it helps, what was expected.
    pub message: String,
    /// The main location.
    pub span: Span,
    /// Other relevant locations.
    pub labels: Vec<Label>,
    /// Extra explanations or hints, shown after the excerpt.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A diagnostic with no labels or notes.
    pub fn new(kind: ErrorKind, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            kind,
            message: message.into(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Adds a secondary location.
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// `line:column: kind: message` for this diagnostic in `source`.
    pub fn located(&self, source: &str) -> String {
        let (line, column) = line_column(source, self.span.start);
        format!("{line}:{column}: {}: {}", self.kind.name(), self.message)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.message)
    }
}

impl std::error::Error for Diagnostic {}

/// The 1-based line and column (in characters) of byte `offset` in `source`.
/// Offsets past the end are clamped to the end.
pub fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = source[line_start..offset].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_from_one_and_clamps() {
        let src = "ab\ncdé\nf";
        assert_eq!(line_column(src, 0), (1, 1));
        assert_eq!(line_column(src, 3), (2, 1));
        assert_eq!(line_column(src, 7), (2, 4));
        assert_eq!(line_column(src, 1000), (3, 2));
    }

    #[test]
    fn located_names_the_class() {
        let d = Diagnostic::new(
            ErrorKind::UnboundRole,
            Span::new(3, 4),
            "role `C` is not declared",
        );
        assert_eq!(
            d.located("ab\ncd"),
            "2:1: unbound role: role `C` is not declared"
        );
    }
}
