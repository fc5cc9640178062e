//! Rendering Scribble diagnostics for people: `file:line:col`, the source excerpt with
//! carets under the culprit, secondary labels and notes, several at once
//! (codespan-reporting). Colour as `--color` says: `auto` colours when stderr is a
//! terminal and `NO_COLOR` is not set. With `--format json` every diagnostic is also
//! added to the document, with its file, line and column.

use std::io::IsTerminal;
use std::sync::OnceLock;

use codespan_reporting::diagnostic::{Diagnostic as Report, Label, Severity};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::termcolor::{Buffer, WriteColor};
use codespan_reporting::term::{self, Config};
use mpst_scribble::{Diagnostic, Span};

/// A diagnostic of ours, or a warning made by the CLI.
pub enum Item<'a> {
    /// An error from the library.
    Error(&'a Diagnostic),
    /// A warning: where and what.
    Warning(Span, String),
}

/// The rendering of `items` about `source` (named `path`), without colour.
pub fn render(path: &str, source: &str, items: &[Item<'_>]) -> String {
    let mut buffer = Buffer::no_color();
    write(&mut buffer, path, source, items);
    String::from_utf8_lossy(buffer.as_slice()).into_owned()
}

/// The `--color` of the command line, set once by `main`.
static COLOR: OnceLock<clap::ColorChoice> = OnceLock::new();

/// Chooses when diagnostics are coloured (the first choice stays).
pub fn set_color(choice: clap::ColorChoice) {
    let _ = COLOR.set(choice);
}

/// Whether to colour: `always`, or `auto` with stderr a terminal and `NO_COLOR` unset
/// or empty (<https://no-color.org>).
fn colour(choice: clap::ColorChoice, terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    match choice {
        clap::ColorChoice::Always => true,
        clap::ColorChoice::Never => false,
        clap::ColorChoice::Auto => terminal && no_color.map_or(true, |v| v.is_empty()),
    }
}

/// Prints `items` to stderr, coloured as `--color` says; with `--format json`, also
/// adds them to the document.
pub fn emit(path: &str, source: &str, items: &[Item<'_>]) {
    if crate::json::enabled() {
        record(path, source, items);
    }
    let choice = COLOR.get().copied().unwrap_or_default();
    let no_color = std::env::var_os("NO_COLOR");
    if colour(choice, std::io::stderr().is_terminal(), no_color.as_deref()) {
        let mut buffer = Buffer::ansi();
        write(&mut buffer, path, source, items);
        crate::output::err(&String::from_utf8_lossy(buffer.as_slice()));
    } else {
        crate::output::err(&render(path, source, items));
    }
}

/// Adds `items` to the JSON document, each with its place.
fn record(path: &str, source: &str, items: &[Item<'_>]) {
    let lines = Lines::new(source);
    for item in items {
        let (severity, kind, message, span, notes) = match item {
            Item::Error(d) => (
                "error",
                Some(d.kind.name()),
                d.message.clone(),
                d.span,
                d.notes.clone(),
            ),
            Item::Warning(span, message) => ("warning", None, message.clone(), *span, Vec::new()),
        };
        let (line, column) = lines.line_column(source, range(source, span).start);
        let place = crate::json::Place {
            file: path.to_string(),
            line,
            column,
        };
        crate::json::diagnostic(severity, kind, &message, Some(place), &notes);
    }
}

/// Lines longer than this (in bytes) are not quoted: a diagnostic on them is one line
/// `error: ...` and its `--> file:line:column`, so a huge one-line file does not print
/// its whole text once per error.
const MAX_QUOTED_LINE: usize = 400;

fn write(out: &mut dyn WriteColor, path: &str, source: &str, items: &[Item<'_>]) {
    let file = SimpleFile::new(path, source);
    let config = Config::default();
    let lines = Lines::new(source);
    for item in items {
        let report = match item {
            Item::Error(d) => report(source, d),
            Item::Warning(span, message) => Report::new(Severity::Warning)
                .with_message(message)
                .with_labels(vec![Label::primary((), range(source, *span))]),
        };
        let long = report
            .labels
            .iter()
            .any(|l| lines.longest_between(l.range.start, l.range.end) > MAX_QUOTED_LINE);
        // Writing to stderr or a buffer: nothing sensible to do if it fails.
        if long {
            let (line, column) = lines.line_column(source, report.labels[0].range.start);
            let severity = match report.severity {
                Severity::Warning => "warning",
                _ => "error",
            };
            let mut text = format!(
                "{severity}: {}\n  --> {path}:{line}:{column}\n",
                report.message
            );
            for note in &report.notes {
                text.push_str(&format!("  = {note}\n"));
            }
            let _ = out.write_all(text.as_bytes());
        } else {
            let _ = term::emit(out, &config, &file, &report);
        }
    }
}

/// The start of every line of a source, to locate many diagnostics in one pass.
struct Lines {
    starts: Vec<usize>,
    len: usize,
}

impl Lines {
    fn new(source: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        Lines {
            starts,
            len: source.len(),
        }
    }

    /// The index of the line holding byte `offset`.
    fn line(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// The length of the longest line touched by `start..end`.
    fn longest_between(&self, start: usize, end: usize) -> usize {
        let (first, last) = (self.line(start), self.line(end));
        (first..=last)
            .map(|l| self.starts.get(l + 1).copied().unwrap_or(self.len) - self.starts[l])
            .max()
            .unwrap_or(0)
    }

    /// The 1-based line and column (in characters) of `offset`.
    fn line_column(&self, source: &str, offset: usize) -> (usize, usize) {
        let line = self.line(offset);
        let start = self.starts[line];
        let column = source
            .get(start..offset)
            .map_or(1, |s| s.chars().count() + 1);
        (line + 1, column)
    }
}

fn report(source: &str, d: &Diagnostic) -> Report<()> {
    let mut labels = vec![Label::primary((), range(source, d.span)).with_message(d.kind.name())];
    labels.extend(
        d.labels
            .iter()
            .map(|l| Label::secondary((), range(source, l.span)).with_message(&l.message)),
    );
    Report::error()
        .with_message(format!("{}: {}", d.kind.name(), d.message))
        .with_labels(labels)
        .with_notes(d.notes.clone())
}

/// `span` clamped into `source` on character boundaries.
fn range(source: &str, span: Span) -> std::ops::Range<usize> {
    let clamp = |mut i: usize| {
        i = i.min(source.len());
        while !source.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = clamp(span.start);
    start..clamp(span.end).max(start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpst_scribble::ErrorKind;

    #[test]
    fn renders_location_excerpt_caret_labels_and_notes() {
        let source = "global protocol P(role A) {\n  x() from A to A;\n}\n";
        let d = Diagnostic::new(
            ErrorKind::ReflexiveMessage,
            Span::new(30, 46),
            "A sends to itself",
        )
        .with_label(Span::new(23, 24), "declared here")
        .with_note("use two roles");
        let other = Diagnostic::new(ErrorKind::Syntax, Span::new(500, 600), "past the end");
        let text = render("p.scr", source, &[Item::Error(&d), Item::Error(&other)]);
        assert!(
            text.contains("error: reflexive message: A sends to itself"),
            "{text}"
        );
        assert!(text.contains("p.scr:2:3"), "{text}");
        assert!(text.contains("x() from A to A;"), "{text}");
        assert!(text.contains("^^^^"), "{text}");
        assert!(text.contains("declared here"), "{text}");
        assert!(text.contains("= use two roles"), "{text}");
        assert!(text.contains("error: syntax error: past the end"), "{text}");
        assert!(mpst_scribble::frontend::is_malformed(&[other]));

        // A long line is not quoted, only located.
        let long = format!("{}$ x", "a ".repeat(1000));
        let on_long = Diagnostic::new(ErrorKind::Syntax, Span::new(2000, 2001), "unexpected `$`");
        let text = render("long.scr", &long, &[Item::Error(&on_long)]);
        assert_eq!(
            text,
            "error: syntax error: unexpected `$`\n  --> long.scr:1:2001\n"
        );
        assert!(!mpst_scribble::frontend::is_malformed(&[d]));
    }

    #[test]
    fn colour_follows_the_flag_the_terminal_and_no_color() {
        use clap::ColorChoice::{Always, Auto, Never};
        let set = Some(std::ffi::OsStr::new("1"));
        let empty = Some(std::ffi::OsStr::new(""));
        assert!(colour(Always, false, set));
        assert!(!colour(Never, true, None));
        assert!(colour(Auto, true, None));
        assert!(colour(Auto, true, empty));
        assert!(!colour(Auto, true, set));
        assert!(!colour(Auto, false, None));
    }
}
