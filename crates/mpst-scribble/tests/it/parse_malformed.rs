//! Data-driven tests of malformed protocols: every `tests/malformed/NAME.scr` must be
//! rejected with exactly the diagnostics written in `NAME.expected` next to it (kind,
//! line, column, message, the line and column of each secondary label, and the notes).
//!
//! To (re)write the expected files after an intended change, run with
//! `UPDATE_EXPECT=1` and review the diff.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mpst_scribble::diagnostic::line_column;
use mpst_scribble::{Diagnostic, ErrorKind, parse};

fn render(source: &str, diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for diagnostic in diagnostics {
        out.push_str(&diagnostic.located(source));
        out.push('\n');
        for label in &diagnostic.labels {
            let (line, column) = line_column(source, label.span.start);
            out.push_str(&format!("  label {line}:{column}: {}\n", label.message));
        }
        for note in &diagnostic.notes {
            out.push_str(&format!("  note: {note}\n"));
        }
    }
    out
}

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/malformed exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "scr"))
        .collect();
    cases.sort();
    cases
}

#[test]
fn malformed_inputs_give_their_expected_diagnostics() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let cases = cases();
    assert!(cases.len() >= 25, "only {} malformed inputs", cases.len());
    let mut failures = Vec::new();
    let mut kinds = BTreeSet::new();
    for path in &cases {
        let source = std::fs::read_to_string(path).expect("readable case");
        let diagnostics = match parse(&source) {
            Ok(_) => {
                failures.push(format!("{}: accepted", path.display()));
                continue;
            }
            Err(diagnostics) => diagnostics,
        };
        for diagnostic in &diagnostics {
            kinds.insert(format!("{:?}", diagnostic.kind));
            let spans =
                std::iter::once(diagnostic.span).chain(diagnostic.labels.iter().map(|l| l.span));
            for span in spans {
                assert!(
                    span.start <= span.end
                        && span.end <= source.len()
                        && source.is_char_boundary(span.start)
                        && source.is_char_boundary(span.end),
                    "{}: bad span {span:?}",
                    path.display()
                );
            }
        }
        let actual = render(&source, &diagnostics);
        let expected_path = path.with_extension("expected");
        if update {
            std::fs::write(&expected_path, &actual).expect("writable expected file");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            failures.push(format!(
                "{}:\n--- expected\n{expected}--- actual\n{actual}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for kind in [
        ErrorKind::Syntax,
        ErrorKind::Unsupported,
        ErrorKind::UnboundRole,
        ErrorKind::DuplicateRole,
        ErrorKind::DuplicateProtocol,
        ErrorKind::UnknownProtocol,
        ErrorKind::ArityMismatch,
        ErrorKind::UnboundVariable,
    ] {
        assert!(
            kinds.contains(&format!("{kind:?}")),
            "no malformed input exercises {kind:?}"
        );
    }
}

#[test]
fn unsupported_constructs_are_not_syntax_errors() {
    for path in cases() {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if !name.starts_with("unsupported_") {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("readable case");
        let diagnostics = parse(&source).expect_err("unsupported input is rejected");
        assert!(
            diagnostics.iter().all(|d| d.kind == ErrorKind::Unsupported),
            "{}: {}",
            path.display(),
            render(&source, &diagnostics)
        );
    }
}
