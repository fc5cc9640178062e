//! [`Diagnostic`]: what went wrong, where (structured: file and byte range), and notes.

use std::ops::Range;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The input is refused.
    Error,
    /// Worth knowing; the input is accepted.
    Warning,
}

impl Severity {
    /// `error` or `warning`, as rendered and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A place a diagnostic points at: a byte range of one source of its
/// [`Report`](crate::Report), and what is there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// The index of the source in the report.
    pub file: usize,
    /// The bytes pointed at (clamped into the source when rendered).
    pub span: Range<usize>,
    /// What is there (may be empty).
    pub message: String,
    /// The culprit (carets) rather than context (dashes). The first primary label is
    /// the diagnostic's [`Place`](crate::Place).
    pub primary: bool,
}

/// One problem: its severity, an optional short kind (`syntax error`), the message,
/// where, and notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A short name of the class of problem, e.g. `reflexive message` (Scribble's
    /// error classes), rendered before the message.
    pub kind: Option<String>,
    /// What went wrong and what was expected.
    pub message: String,
    /// Where: primary labels first.
    pub labels: Vec<Label>,
    /// Notes under the excerpt: why, and how to fix it.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error saying `message`, located nowhere yet.
    pub fn error(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            kind: None,
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A warning saying `message`, located nowhere yet.
    pub fn warning(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(message)
        }
    }

    /// With the short name of its class.
    #[must_use]
    pub fn with_kind(mut self, kind: impl Into<String>) -> Self {
        self.kind = Some(kind.into());
        self
    }

    /// With a primary label at `span` of source `file`.
    #[must_use]
    pub fn with_primary(self, file: usize, span: Range<usize>, message: impl Into<String>) -> Self {
        self.with_label(file, span, message.into(), true)
    }

    /// With a secondary label at `span` of source `file`.
    #[must_use]
    pub fn with_secondary(
        self,
        file: usize,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> Self {
        self.with_label(file, span, message.into(), false)
    }

    fn with_label(
        mut self,
        file: usize,
        span: Range<usize>,
        message: String,
        primary: bool,
    ) -> Self {
        self.labels.push(Label {
            file,
            span,
            message,
            primary,
        });
        self
    }

    /// With a note.
    #[must_use]
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The first line as rendered, without the severity: `kind: message`, or the
    /// message.
    pub fn headline(&self) -> String {
        match &self.kind {
            Some(kind) => format!("{kind}: {}", self.message),
            None => self.message.clone(),
        }
    }

    /// The first primary label, else the first label: where the diagnostic is.
    pub fn primary(&self) -> Option<&Label> {
        self.labels
            .iter()
            .find(|l| l.primary)
            .or_else(|| self.labels.first())
    }

    /// The front end's diagnostic `d` about source `file`: its class as the kind, a
    /// primary label at its span naming the class, its secondary labels and notes.
    pub fn scribble(file: usize, d: &mpst_scribble::Diagnostic) -> Self {
        let span = |s: mpst_scribble::Span| s.start..s.end;
        let mut out = Diagnostic::error(d.message.clone())
            .with_kind(d.kind.name())
            .with_primary(file, span(d.span), d.kind.name());
        for label in &d.labels {
            out = out.with_secondary(file, span(label.span), label.message.clone());
        }
        out.notes.clone_from(&d.notes);
        out
    }
}

/// A warning for each role of `protocol` (in source number `file`) that takes no part
/// in any interaction, at the role's declaration: what `mpst check` prints and `mpst
/// report` marks.
pub fn unused_roles(file: usize, protocol: &mpst_scribble::GlobalProtocol) -> Vec<Diagnostic> {
    mpst_scribble::wf::unused_roles(protocol)
        .into_iter()
        .map(|role| {
            Diagnostic::warning(format!(
                "role `{}` of `{}` takes no part in any interaction",
                role.text, protocol.name.text
            ))
            .with_primary(file, role.span.start..role.span.end, "")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Report, Source};

    #[test]
    fn an_unused_role_is_a_warning_at_its_declaration() {
        let text = "global protocol P(role A, role B, role C) {\n  m() from A to B;\n}\n";
        let parsed = mpst_scribble::frontend::parse_source("p.scr", text).unwrap();
        let protocol = parsed.select(None).unwrap();
        let warnings = unused_roles(0, protocol);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].severity, Severity::Warning);
        assert_eq!(
            warnings[0].message,
            "role `C` of `P` takes no part in any interaction"
        );
        let report = Report::new(vec![Source::new("p.scr", text)], warnings);
        assert_eq!(
            report.headline(),
            "p.scr:1:40: role `C` of `P` takes no part in any interaction"
        );
        assert!(report.render(false).starts_with("warning: "));
    }
}
