//! Reading FSMs from DOT files for `mpst subtype`, `mpst kmc`, `generate --optimised` and
//! `report`: sorts normalised by the rule projection applies (Scribble's table, so nuscr's
//! `int` is `i32`), malformed input rendered as a diagnostic: `file:line:col`, the source
//! line and a caret.

use std::path::Path;

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::{Files, SimpleFile, SimpleFiles};
use codespan_reporting::term::termcolor::Buffer;
use codespan_reporting::term::{self, Config};
use mpst_fsm::format::{check_system, parse_dot_located, DotError, LocatedFsm, SystemError};
use mpst_fsm::Fsm;

use mpst_scribble::sorts::SCRIBBLE;

use crate::UsageError;

/// Reads every digraph of every file in `paths`, in order, one [`Fsm`] per digraph
/// (its role is the digraph name).
///
/// # Errors
/// A file that cannot be read; malformed DOT (the message is a rendered diagnostic
/// naming `file:line:col`, with the offending line and a caret); or two digraphs with
/// the same role name (a system has one machine per role).
pub fn read_fsms<P: AsRef<Path>>(paths: &[P]) -> Result<Vec<Fsm>, UsageError> {
    read(paths, true, false, super::MAX_INPUT_BYTES, "")
}

/// [`read_fsms`] accepting non-deterministic machines, for k-MC: the system is closed,
/// so an action whose peer no digraph is named after is an error at its label. Each
/// file may hold at most `max_bytes` bytes (`mpst kmc --max-input-size`; the default is
/// [`MAX_INPUT_BYTES`](super::MAX_INPUT_BYTES)).
pub fn read_nondeterministic_fsms<P: AsRef<Path>>(
    paths: &[P],
    max_bytes: u64,
) -> Result<Vec<Fsm>, UsageError> {
    read(
        paths,
        false,
        true,
        max_bytes,
        "; raise it with --max-input-size BYTES",
    )
}

fn read<P: AsRef<Path>>(
    paths: &[P],
    deterministic: bool,
    closed: bool,
    max_bytes: u64,
    hint: &str,
) -> Result<Vec<Fsm>, UsageError> {
    // Each file's name and text; codespan's line index of a file is only built when a
    // problem across files is reported (it costs a pass over a large input).
    let mut sources: Vec<(String, String)> = Vec::new();
    // Each machine with the file it was read from.
    let mut machines: Vec<(LocatedFsm, usize)> = Vec::new();
    for path in paths {
        let path = path.as_ref();
        let source = super::read_limited_or(path, max_bytes, hint)?;
        let name = path.display().to_string();
        let read = parse_dot_located(&source, deterministic, &SCRIBBLE)
            .map_err(|err| UsageError(render_dot_error(&name, &source, &err)))?;
        let file = sources.len();
        sources.push((name, source));
        machines.extend(read.into_iter().map(|m| (m, file)));
    }
    let located: Vec<&LocatedFsm> = machines.iter().map(|(m, _)| m).collect();
    if let Err(err) = check_system(&located, closed) {
        let mut files = SimpleFiles::new();
        for (name, source) in sources {
            files.add(name, source);
        }
        // `SimpleFiles` numbers files in the order they are added.
        let file_of = |machine: usize| machines[machine].1;
        return Err(UsageError(render_system_error(&files, file_of, &err)));
    }
    Ok(machines.into_iter().map(|(m, _)| m.fsm).collect())
}

/// `err` as a diagnostic over several files, like [`render_dot_error`]; `file_of`
/// gives the file of a machine.
fn render_system_error(
    files: &SimpleFiles<String, String>,
    file_of: impl Fn(usize) -> usize,
    err: &SystemError,
) -> String {
    let mut labels = vec![Label::primary(file_of(err.machine), err.span.clone())];
    if let Some((machine, span, message)) = &err.related {
        labels.push(Label::secondary(file_of(*machine), span.clone()).with_message(message));
    }
    let report = Diagnostic::error()
        .with_message(&err.message)
        .with_labels(labels);
    emit(files, &report).unwrap_or_else(|| err.message.clone())
}

/// `report` rendered without colour and without codespan's leading `error: ` (the CLI
/// prints its own), or `None` if a span does not fit its file.
fn emit<'f, F: Files<'f>>(files: &'f F, report: &Diagnostic<F::FileId>) -> Option<String> {
    let mut buffer = Buffer::no_color();
    term::emit(&mut buffer, &Config::default(), files, report).ok()?;
    let text = String::from_utf8_lossy(buffer.as_slice()).into_owned();
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    Some(text.trim_end().to_owned())
}

/// `err` as a codespan-reporting diagnostic without colour, e.g.
///
/// ```text
/// malformed DOT: in the label `"B#m()"`: expected `!` (send) or `?` (receive) ...
///   ┌─ k.dot:2:19
///   │
/// 2 │   0 -> 1 [label="B#m()"];
///   │                   ^
/// ```
///
/// The leading `error: ` of codespan's header is left out: the CLI prints its own.
pub fn render_dot_error(name: &str, source: &str, err: &DotError) -> String {
    let malformed = DotError {
        message: format!("malformed DOT: {}", err.message),
        ..err.clone()
    };
    render_at(name, source, &malformed)
}

/// A problem of well-formed DOT (e.g. a mixed state where one is refused) rendered as
/// [`render_dot_error`] does, without "malformed DOT".
pub fn render_at(name: &str, source: &str, err: &DotError) -> String {
    let file = SimpleFile::new(name, source);
    let report = Diagnostic::error()
        .with_message(&err.message)
        .with_labels(vec![Label::primary((), err.span())]);
    // A span that does not fit the source (cannot happen for the reader's errors) falls
    // back to the plain position.
    emit(&file, &report).unwrap_or_else(|| format!("{name}:{err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses the DOT text `source` of the file called `name`; a [`DotError`] becomes a
    /// [`UsageError`] whose message is [`render_dot_error`]'s diagnostic.
    fn parse_fsms(name: &str, source: &str) -> Result<Vec<Fsm>, UsageError> {
        mpst_fsm::format::parse_dot_with(source, &SCRIBBLE)
            .map_err(|err| UsageError(render_dot_error(name, source, &err)))
    }

    #[test]
    fn malformed_dot_renders_file_line_column_and_caret() {
        let source = "digraph k {\n  0 -> 1 [label=\"B#m()\"];\n}\n";
        let Err(UsageError(message)) = parse_fsms("k.dot", source) else {
            panic!("malformed DOT was accepted");
        };
        assert!(
            message.starts_with("malformed DOT: in the label `\"B#m()\"`: expected `!`"),
            "{message}"
        );
        assert!(message.contains("k.dot:2:19"), "{message}");
        // The excerpt line, and a caret under the `#` (column 19).
        let lines: Vec<&str> = message.lines().collect();
        let excerpt = lines
            .iter()
            .position(|l| l.ends_with("0 -> 1 [label=\"B#m()\"];"))
            .expect("the offending line is quoted");
        let caret_line = lines[excerpt + 1];
        let excerpt_col = lines[excerpt].find('#').unwrap();
        assert_eq!(caret_line.find('^'), Some(excerpt_col), "{message}");
    }

    #[test]
    fn reads_files_and_rejects_duplicate_roles() {
        let dir = std::env::temp_dir().join(format!("mpst-dotfiles-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a.dot");
        let b = dir.join("b.dot");
        std::fs::write(&a, "digraph A { 0 -> 1 [label=\"B!m()\", ]; }").unwrap();
        std::fs::write(&b, "digraph \"B\" { 0 -> 1 [label=\"A?m\"]; }").unwrap();
        let fsms = read_fsms(&[&a, &b]).unwrap();
        let roles: Vec<&str> = fsms.iter().map(Fsm::role).collect();
        assert_eq!(roles, ["A", "B"]);
        let Err(UsageError(message)) = read_fsms(&[&a, &a]) else {
            panic!("a duplicate role was accepted");
        };
        assert!(
            message.contains("a second digraph for role `A`"),
            "{message}"
        );
        // Both places are shown, with their files.
        assert_eq!(message.matches("a.dot:1:9").count(), 2, "{message}");
        let missing = dir.join("missing.dot");
        let Err(UsageError(message)) = read_fsms(&[&missing]) else {
            panic!("a missing file was read");
        };
        assert!(message.contains("missing.dot"), "{message}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
