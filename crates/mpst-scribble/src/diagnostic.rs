//! Errors about a Scribble source: what went wrong, where, and what was expected.
//!
//! The crate only produces [`Diagnostic`] values with byte [`Span`]s; rendering them
//! with excerpts and carets is the CLI's job. [`line_column`] turns a byte offset into
//! the 1-based line and column a person reads.

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
    /// Interactions after a `rec` or `do` that never finishes: they can never happen.
    Unreachable,
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
            ErrorKind::Unreachable => "unreachable interaction",
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

/// One problem found in a source; it displays as `kind: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", kind.name())]
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

/// The most diagnostics a phase returns: [`crate::parse`] and
/// [`crate::syntax::parse_module`] keep the first `MAX_DIAGNOSTICS` in source order
/// and, when there were more, end with one more diagnostic that says how many were left
/// out. This bounds the time and memory spent on a file full of errors.
pub const MAX_DIAGNOSTICS: usize = 100;

/// Collects diagnostics, storing at most [`MAX_DIAGNOSTICS`] and counting the rest.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    list: Vec<Diagnostic>,
    omitted: usize,
}

impl Collector {
    /// Records `d`, or counts it once the store is full.
    pub fn push(&mut self, d: Diagnostic) {
        if self.list.len() < MAX_DIAGNOSTICS {
            self.list.push(d);
        } else {
            self.omitted += 1;
        }
    }

    /// Records every one of `ds`.
    pub fn extend(&mut self, ds: impl IntoIterator<Item = Diagnostic>) {
        for d in ds {
            self.push(d);
        }
    }

    /// Whether nothing was recorded or counted.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && self.omitted == 0
    }

    /// The diagnostics in source order, at most [`MAX_DIAGNOSTICS`] of them, then one
    /// saying how many more there were (with the class of the last one shown, so that
    /// the summary does not change what the whole says: malformed or invalid).
    pub fn finish(self) -> Vec<Diagnostic> {
        let Collector { mut list, omitted } = self;
        list.sort_by_key(|d| (d.span.start, d.span.end));
        if omitted > 0 {
            if let Some(last) = list.last() {
                let more = Diagnostic::new(
                    last.kind,
                    last.span,
                    format!(
                        "{omitted} more error{} not shown (only the first {MAX_DIAGNOSTICS} are)",
                        if omitted == 1 { " is" } else { "s are" }
                    ),
                );
                list.push(more);
            }
        }
        list
    }
}

/// The 1-based line and column (in characters) of byte `offset` in `source`, offsets
/// past the end clamped to the end: the workspace's one rule, [`mpst_fsm::text`].
pub use mpst_fsm::text::line_column;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_are_capped_with_a_count_of_the_rest() {
        let mut c = Collector::default();
        for i in (0..1000).rev() {
            c.push(Diagnostic::new(ErrorKind::Syntax, Span::new(i, i + 1), "x"));
        }
        let list = c.finish();
        assert_eq!(list.len(), MAX_DIAGNOSTICS + 1);
        assert!(list.windows(2).all(|w| w[0].span.start <= w[1].span.start));
        let more = &list[MAX_DIAGNOSTICS];
        assert_eq!(
            more.message,
            "900 more errors are not shown (only the first 100 are)"
        );
        assert_eq!(more.kind, ErrorKind::Syntax);
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
