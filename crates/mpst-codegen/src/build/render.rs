//! Diagnostics about the build's input files rendered as the CLI renders them
//! (codespan-reporting, no colour: a build script's output is no terminal): the message,
//! `file:line:col`, the source line with carets under the culprit, labels and notes.

use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::{Files, SimpleFile};
use codespan_reporting::term::termcolor::Buffer;
use codespan_reporting::term::{self, Config};
use mpst_fsm::format::DotError;
use mpst_scribble::{Diagnostic, FrontendError, Span};

use super::{BuildError, BuildErrorKind};

/// Lines longer than this (in bytes) are not quoted, only located: a diagnostic about a
/// DOT file written on one line does not print the whole file.
const MAX_QUOTED_LINE: usize = 400;

/// One input file: its name as given (relative to the crate, where build scripts run)
/// and its text.
#[derive(Clone, Copy)]
pub(super) struct Input<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

impl Input<'_> {
    /// A failure of `kind` made of `reports` about this file.
    pub fn error(&self, kind: BuildErrorKind, reports: &[Report<()>]) -> BuildError {
        let file = SimpleFile::new(self.name, self.text);
        let mut text = String::new();
        for report in reports {
            if report
                .labels
                .iter()
                .any(|l| self.longest_line(&l.range) > MAX_QUOTED_LINE)
            {
                // Located but not quoted: a one-line file is not printed whole.
                text.push_str(&format!("error: {}\n", self.headline(&file, report)));
                for note in &report.notes {
                    text.push_str(&format!("  = {note}\n"));
                }
                continue;
            }
            let mut buffer = Buffer::no_color();
            // Spans are clamped into the text, so only a failing write could fail, and
            // the buffer is memory.
            let _ = term::emit(&mut buffer, &Config::default(), &file, report);
            text.push_str(&String::from_utf8_lossy(buffer.as_slice()));
        }
        let headline = reports
            .first()
            .map_or_else(String::new, |first| self.headline(&file, first));
        BuildError::new(kind, text, headline)
    }

    /// `file:line:col: message` for `report`, or `file: message` if it has no label.
    fn headline(&self, file: &SimpleFile<&str, &str>, report: &Report<()>) -> String {
        let at = report.labels.first().map(|l| l.range.start);
        match at.and_then(|at| file.location((), at).ok()) {
            Some(l) => format!(
                "{}:{}:{}: {}",
                self.name, l.line_number, l.column_number, report.message
            ),
            None => format!("{}: {}", self.name, report.message),
        }
    }

    /// The length in bytes of the longest line that `range` touches.
    fn longest_line(&self, range: &Range<usize>) -> usize {
        let start = self.text[..range.start].rfind('\n').map_or(0, |i| i + 1);
        let end = self.text[range.end..]
            .find('\n')
            .map_or(self.text.len(), |i| range.end + i);
        self.text[start..end]
            .lines()
            .map(str::len)
            .max()
            .unwrap_or(0)
    }

    /// `span` clamped into the text on character boundaries.
    pub fn range(&self, span: Range<usize>) -> Range<usize> {
        let clamp = |mut i: usize| {
            i = i.min(self.text.len());
            while !self.text.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        let start = clamp(span.start);
        start..clamp(span.end).max(start)
    }

    /// A primary label at `span` saying `message`.
    pub fn primary(&self, span: Range<usize>, message: impl Into<String>) -> Label<()> {
        Label::primary((), self.range(span)).with_message(message)
    }

    /// A secondary label at `span` saying `message`.
    pub fn secondary(&self, span: Range<usize>, message: impl Into<String>) -> Label<()> {
        Label::secondary((), self.range(span)).with_message(message)
    }

    /// The front end's `error` about this Scribble file: each diagnostic rendered, or
    /// the selection error as one line.
    pub fn scribble(&self, error: FrontendError) -> BuildError {
        let rendered = match &error {
            FrontendError::Diagnostics { diagnostics, .. } => {
                let reports: Vec<_> = diagnostics.iter().map(|d| self.diagnostic(d)).collect();
                self.error(BuildErrorKind::Scribble, &reports)
            }
            FrontendError::NoSuchProtocol { .. } => {
                BuildError::plain(BuildErrorKind::Scribble, error.to_string())
            }
        };
        rendered.with_source(error)
    }

    fn diagnostic(&self, d: &Diagnostic) -> Report<()> {
        let span = |s: Span| s.start..s.end;
        let mut labels = vec![self.primary(span(d.span), d.kind.name())];
        labels.extend(
            d.labels
                .iter()
                .map(|l| self.secondary(span(l.span), &l.message)),
        );
        Report::error()
            .with_message(format!("{}: {}", d.kind.name(), d.message))
            .with_labels(labels)
            .with_notes(d.notes.clone())
    }

    /// The DOT reader's `error` about this file.
    pub fn dot(&self, error: DotError) -> BuildError {
        let report = Report::error()
            .with_message(format!("malformed DOT: {}", error.message))
            .with_labels(vec![self.primary(error.span(), "here")]);
        self.error(BuildErrorKind::Dot, &[report])
            .with_source(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpst_scribble::ErrorKind;

    #[test]
    fn scribble_diagnostics_render_location_excerpt_carets_labels_and_notes() {
        let text = "global protocol P(role A) {\n  x() from A to A;\n}\n";
        let d = Diagnostic::new(
            ErrorKind::ReflexiveMessage,
            Span::new(30, 46),
            "A sends to itself",
        )
        .with_label(Span::new(23, 24), "declared here")
        .with_note("use two roles");
        let past_the_end = Diagnostic::new(ErrorKind::Syntax, Span::new(500, 600), "far");
        let input = Input {
            name: "p.scr",
            text,
        };
        let error = input.scribble(FrontendError::diagnostics(
            "p.scr",
            text,
            vec![d, past_the_end],
        ));
        assert_eq!(error.kind(), BuildErrorKind::Scribble);
        let shown = error.to_string();
        assert!(
            shown.starts_with("reflexive message: A sends to itself\n"),
            "{shown}"
        );
        assert!(shown.contains("┌─ p.scr:2:3"), "{shown}");
        let lines: Vec<&str> = shown.lines().collect();
        let quoted = lines
            .iter()
            .position(|l| l.ends_with("x() from A to A;"))
            .expect("the line is quoted");
        let at = lines[quoted].find("x()").unwrap();
        assert_eq!(lines[quoted + 1].find('^'), Some(at), "{shown}");
        assert!(shown.contains("declared here"), "{shown}");
        assert!(shown.contains("= use two roles"), "{shown}");
        // The second diagnostic, clamped to the end of the text, keeps its `error: `.
        assert!(shown.contains("error: syntax error: far"), "{shown}");
        assert_eq!(
            error.headline(),
            "p.scr:2:3: reflexive message: A sends to itself"
        );
        // Debug renders too: `.unwrap()` and `main() -> Result` print no spans.
        assert_eq!(format!("{error:?}"), shown);
        assert!(!shown.contains("Span"), "{shown}");
        assert!(std::error::Error::source(&error).is_some());
    }

    #[test]
    fn dot_errors_render_the_line_and_a_caret() {
        let text = "digraph K {\n  0 -> 1 [label=\"S#m()\"];\n}\n";
        let input = Input {
            name: "k.dot",
            text,
        };
        let err = mpst_fsm::format::parse_dot(text).unwrap_err();
        let error = input.dot(err);
        assert_eq!(error.kind(), BuildErrorKind::Dot);
        let shown = error.to_string();
        assert!(shown.starts_with("malformed DOT: "), "{shown}");
        assert!(shown.contains("┌─ k.dot:2:19"), "{shown}");
        assert!(shown.contains("0 -> 1 [label=\"S#m()\"];"), "{shown}");
        assert!(error.headline().starts_with("k.dot:2:19: malformed DOT: "));

        // A long line is located, not quoted.
        let long = format!(
            "digraph K {{ {} 0 -> 1 [label=\"S#m()\"]; }}",
            "0; ".repeat(200)
        );
        let input = Input {
            name: "long.dot",
            text: &long,
        };
        let error = input.dot(mpst_fsm::format::parse_dot(&long).unwrap_err());
        assert_eq!(error.report().lines().count(), 1, "{}", error.report());
        assert!(error.report().starts_with("error: long.dot:1:"), "{error}");
    }
}
