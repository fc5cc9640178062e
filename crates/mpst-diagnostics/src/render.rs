//! The one renderer: a [`Report`] (sources and diagnostics about them) as a person reads
//! it (codespan-reporting: `file:line:col`, the source line, carets, labels and notes),
//! coloured or not, and the [`Place`] of each diagnostic for machines.

use std::fmt;

use codespan_reporting::diagnostic::{Diagnostic as Codespan, Label as CodespanLabel};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::termcolor::{Buffer, WriteColor};
use codespan_reporting::term::{self, Config};
use mpst_fsm::text::{LineIndex, clamp_range};

use crate::{Diagnostic, Severity};

/// Lines longer than this (in bytes) are not quoted: a diagnostic on them is its first
/// line and `--> file:line:column`, so a huge one-line file does not print its whole text
/// once per error.
pub const MAX_QUOTED_LINE: usize = 400;

/// One input: its name as given (a path, for messages) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The name shown in `file:line:col`.
    pub name: String,
    /// The text.
    pub text: String,
}

impl Source {
    /// A source called `name` holding `text`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Source {
            name: name.into(),
            text: text.into(),
        }
    }
}

/// A place in a file: 1-based line and column (in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The file as named.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Diagnostics about sources: the unit that is rendered, printed or added to a JSON
/// document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The sources the labels point into, by index.
    pub sources: Vec<Source>,
    /// The diagnostics, in the order they are shown.
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// `diagnostics` about `sources`.
    pub fn new(sources: Vec<Source>, diagnostics: Vec<Diagnostic>) -> Self {
        Report {
            sources,
            diagnostics,
        }
    }

    /// One diagnostic about one source (its labels' file 0).
    pub fn single(source: Source, diagnostic: Diagnostic) -> Self {
        Report::new(vec![source], vec![diagnostic])
    }

    /// The front end's `diagnostics` about the Scribble file `name` with `text`.
    pub fn scribble(name: &str, text: &str, diagnostics: &[mpst_scribble::Diagnostic]) -> Self {
        Report::new(
            vec![Source::new(name, text)],
            diagnostics
                .iter()
                .map(|d| Diagnostic::scribble(0, d))
                .collect(),
        )
    }

    /// Where `diagnostic` (one of this report's) is: its primary label's file, line and
    /// column; `None` if it has no label.
    pub fn place(&self, diagnostic: &Diagnostic) -> Option<Place> {
        let label = diagnostic.primary()?;
        let source = self.sources.get(label.file)?;
        let (line, column) = mpst_fsm::text::line_column(&source.text, label.span.start);
        Some(Place {
            file: source.name.clone(),
            line,
            column,
        })
    }

    /// One line about the first diagnostic: `file:line:col: kind: message`, or without
    /// the place when it has none.
    pub fn headline(&self) -> String {
        let Some(first) = self.diagnostics.first() else {
            return String::new();
        };
        match self.place(first) {
            Some(place) => format!("{place}: {}", first.headline()),
            None => first.headline(),
        }
    }

    /// Every diagnostic rendered, each starting with `error: ` or `warning: `, with ANSI
    /// colours if `colour`.
    pub fn render(&self, colour: bool) -> String {
        let mut buffer = if colour {
            Buffer::ansi()
        } else {
            Buffer::no_color()
        };
        self.write(&mut buffer);
        String::from_utf8_lossy(buffer.as_slice()).into_owned()
    }

    /// Writes every diagnostic to `out` (coloured as `out` allows). Write errors are
    /// ignored: the renderer writes to stderr or memory, where nothing better can be done.
    pub fn write(&self, out: &mut dyn WriteColor) {
        let mut files = SimpleFiles::new();
        for source in &self.sources {
            files.add(source.name.as_str(), source.text.as_str());
        }
        let lines: Vec<LineIndex> = self
            .sources
            .iter()
            .map(|s| LineIndex::new(&s.text))
            .collect();
        let config = Config::default();
        for d in &self.diagnostics {
            let labels: Vec<CodespanLabel<usize>> = d
                .labels
                .iter()
                .filter_map(|l| {
                    let text = &self.sources.get(l.file)?.text;
                    let range = clamp_range(text, l.span.start, l.span.end);
                    let label = if l.primary {
                        CodespanLabel::primary(l.file, range)
                    } else {
                        CodespanLabel::secondary(l.file, range)
                    };
                    Some(label.with_message(&l.message))
                })
                .collect();
            let long = labels.iter().any(|l| {
                lines[l.file_id].longest_between(l.range.start, l.range.end) > MAX_QUOTED_LINE
            });
            if long {
                let mut text = format!("{}: {}\n", d.severity.name(), d.headline());
                if let Some(place) = self.place(d) {
                    text.push_str(&format!("  --> {place}\n"));
                }
                for note in &d.notes {
                    text.push_str(&format!("  = {note}\n"));
                }
                let _ = out.write_all(text.as_bytes());
                continue;
            }
            let report = match d.severity {
                Severity::Error => Codespan::error(),
                Severity::Warning => Codespan::warning(),
            }
            .with_message(d.headline())
            .with_labels(labels)
            .with_notes(d.notes.clone());
            let _ = term::emit_to_write_style(out, &config, &files, &report);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpst_scribble::{ErrorKind, Span};

    #[test]
    fn renders_location_excerpt_caret_labels_and_notes() {
        let source = "global protocol P(role A) {\n  x() from A to A;\n}\n";
        let d = mpst_scribble::Diagnostic::new(
            ErrorKind::ReflexiveMessage,
            Span::new(30, 46),
            "A sends to itself",
        )
        .with_label(Span::new(23, 24), "declared here")
        .with_note("use two roles");
        let other =
            mpst_scribble::Diagnostic::new(ErrorKind::Syntax, Span::new(500, 600), "past the end");
        let report = Report::scribble("p.scr", source, &[d, other]);
        let text = report.render(false);
        assert!(
            text.starts_with("error: reflexive message: A sends to itself\n"),
            "{text}"
        );
        assert!(text.contains("┌─ p.scr:2:3"), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        let quoted = lines
            .iter()
            .position(|l| l.ends_with("x() from A to A;"))
            .expect("the line is quoted");
        let at = lines[quoted].find("x()").unwrap();
        assert_eq!(lines[quoted + 1].find('^'), Some(at), "{text}");
        crate::assert_shows(&text, &["declared here", "= use two roles"]);
        // Clamped to the end of the text, and still rendered.
        assert!(text.contains("error: syntax error: past the end"), "{text}");
        assert_eq!(
            report.headline(),
            "p.scr:2:3: reflexive message: A sends to itself"
        );
        let places: Vec<_> = report
            .diagnostics
            .iter()
            .map(|d| report.place(d).unwrap().to_string())
            .collect();
        assert_eq!(places, ["p.scr:2:3", "p.scr:4:1"]);
        // Colour is ANSI escapes around the same text.
        let coloured = report.render(true);
        assert!(coloured.contains("\u{1b}["), "{coloured}");
        assert!(!text.contains('\u{1b}'), "{text}");
    }

    #[test]
    fn a_long_line_is_located_not_quoted() {
        let long = format!("{}$ x", "a ".repeat(1000));
        let d = Diagnostic::error("unexpected `$`")
            .with_kind("syntax error")
            .with_primary(0, 2000..2001, "")
            .with_note("remove it");
        let report = Report::single(Source::new("long.scr", long), d);
        assert_eq!(
            report.render(false),
            "error: syntax error: unexpected `$`\n  --> long.scr:1:2001\n  = remove it\n"
        );
    }

    #[test]
    fn labels_across_files_name_their_files() {
        let report = Report::new(
            vec![
                Source::new("a.dot", "digraph A {}\n"),
                Source::new("b.dot", "\ndigraph A {}\n"),
            ],
            vec![
                Diagnostic::error("a second digraph for role `A`")
                    .with_primary(1, 9..10, "")
                    .with_secondary(0, 8..9, "the first"),
            ],
        );
        let text = report.render(false);
        crate::assert_shows(&text, &["b.dot:2:9", "a.dot:1:9", "the first"]);
        assert_eq!(
            report.headline(),
            "b.dot:2:9: a second digraph for role `A`"
        );
    }
}
