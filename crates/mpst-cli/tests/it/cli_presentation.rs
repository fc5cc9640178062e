//! One presentation layer: the command line shows what the build helper shows (a
//! refuted optimised role located in its DOT file), DOT errors follow `--color` like
//! Scribble's, and `--format json` places diagnostics from their labels.

use crate::support;

use std::path::PathBuf;

use mpst_codegen::build::{Build, BuildErrorKind};
use support::{example, mpst, scratch_file, stderr, stdout};

fn temp(name: &str, contents: &str) -> PathBuf {
    scratch_file("cli_presentation", name, contents)
}

/// Receiving the value before asking for it deadlocks.
const WAITS_FIRST: &str = r#"digraph K {
  0 -> 1 [label="S?value(i32)", ];
  1 -> 2 [label="S!ready()", ];
  2 -> 3 [label="T?ready()", ];
  3 -> 0 [label="T!value(i32)", ];
}"#;

#[test]
fn generate_optimised_shows_the_build_helpers_located_refutation() {
    let kernel = temp("waits_first.dot", WAITS_FIRST);
    let scr = example("double_buffering");
    let spec = format!("K={}", kernel.display());
    let out = mpst(&["generate", &scr, "--optimised", &spec, "--color", "never"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
    let shown = stderr(&out);
    // At the action where the rules stop, with the line quoted and the run in a note.
    let at = format!("┌─ {}:2:17", kernel.display());
    assert!(shown.contains(&at), "{shown}");
    assert!(
        shown.contains("the rules stop after this action"),
        "{shown}"
    );
    assert!(
        shown.contains("= not a subtype: beside the dual"),
        "{shown}"
    );
    // The very diagnostic the build helper fails with.
    let error = Build::scribble(&scr)
        .optimised("K", &kernel)
        .code()
        .unwrap_err();
    assert_eq!(error.kind(), BuildErrorKind::NotSubtype);
    assert!(
        shown.contains(error.report()),
        "{shown}\n---\n{}",
        error.report()
    );
}

#[test]
fn dot_errors_follow_color_like_scribble_errors() {
    let bad = temp("bad.dot", "digraph K {\n  0 -> 1 [label=\"S#m()\"];\n}\n");
    let bad = bad.display().to_string();
    let always = mpst(&["subtype", &bad, &bad, "--color", "always"]);
    assert_eq!(always.status.code(), Some(2));
    assert!(stderr(&always).contains("\u{1b}["), "{}", stderr(&always));
    let never = mpst(&["subtype", &bad, &bad, "--color", "never"]);
    assert_eq!(never.status.code(), Some(2));
    let text = stderr(&never);
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(text.starts_with("error: malformed DOT: "), "{text}");
    assert!(text.contains(&format!("┌─ {bad}:2:19")), "{text}");
}

/// The first diagnostic of the JSON document of a run that must exit 2.
fn first_diagnostic(args: &[&str]) -> serde_json::Value {
    let out = mpst(args);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one document");
    doc["diagnostics"][0].clone()
}

/// A diagnostic's file, line and column.
fn place(d: &serde_json::Value) -> (&str, u64, u64) {
    let number = |key: &str| d[key].as_u64().unwrap_or(0);
    (
        d["file"].as_str().unwrap_or(""),
        number("line"),
        number("column"),
    )
}

#[test]
fn json_places_come_from_labels_for_dot_and_bad_text() {
    // A role played twice: the place is the second digraph, in the second file.
    let a = temp("a.dot", "digraph A { 0 -> 1 [label=\"B!m()\"]; }\n");
    let twice = temp("twice.dot", "\n\ndigraph A { 0 -> 1 [label=\"B?m()\"]; }\n");
    let (a, twice) = (a.display().to_string(), twice.display().to_string());
    let d = first_diagnostic(&["kmc", &a, &twice, "--format", "json"]);
    assert_eq!(place(&d), (twice.as_str(), 3, 9), "{d}");
    assert!(d["message"].as_str().unwrap().contains("a second digraph"));
    // Invalid UTF-8: the place of the first bad byte, the message without it.
    let bad = scratch_file("cli_presentation", "bad.scr", b"global\n  \xff");
    let bad = bad.display().to_string();
    let d = first_diagnostic(&["check", &bad, "--format", "json"]);
    assert_eq!(place(&d), (bad.as_str(), 2, 3), "{d}");
    assert!(d["message"].as_str().unwrap().starts_with("invalid UTF-8"));
}
