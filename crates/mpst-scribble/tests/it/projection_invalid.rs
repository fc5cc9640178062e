//! Malformed protocols (`tests/protocols/invalid/`, one per error class and variant):
//! each is rejected with the class its first line announces (`// expect: <class>`),
//! and its diagnostics (location, message, labels, notes) are recorded as snapshots.

use std::fmt::Write as _;
use std::path::Path;

use mpst_scribble::diagnostic::line_column;
use mpst_scribble::{check, parse};

#[test]
fn every_malformed_protocol_is_rejected_as_announced() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/protocols/invalid");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("a directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "scr"))
        .collect();
    files.sort();
    assert!(files.len() >= 15, "{files:?}");
    for file in files {
        let source = std::fs::read_to_string(&file).expect("readable");
        let expected = source
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// expect: "))
            .expect("a first line `// expect: <class>`");
        let protocols = parse(&source).expect("well-formedness errors only");
        let mut text = String::new();
        let mut kinds = Vec::new();
        for protocol in &protocols {
            for d in check(protocol) {
                kinds.push(d.kind.name());
                writeln!(text, "{}", d.located(&source)).expect("a string");
                for label in &d.labels {
                    let (line, column) = line_column(&source, label.span.start);
                    writeln!(text, "  {line}:{column}: {}", label.message).expect("a string");
                }
                for note in &d.notes {
                    writeln!(text, "  = {note}").expect("a string");
                }
            }
        }
        assert!(!kinds.is_empty(), "{} is accepted", file.display());
        assert!(
            kinds.iter().all(|k| *k == expected),
            "{}: expected {expected}, got {kinds:?}",
            file.display()
        );
        let stem = file.file_stem().and_then(|s| s.to_str()).expect("a name");
        insta::assert_snapshot!(stem, text);
    }
}
