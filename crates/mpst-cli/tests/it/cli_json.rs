//! `--format json`: every verdict of `check`, `subtype` and `kmc` (holds, fails, bad
//! input, unknown) is one document on stdout that the published schema accepts, whose
//! `exit_code` is the process's; the shapes are pinned by snapshots.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// A fresh directory for this test's files; the commands run in it so that the file
/// names in the documents are short and stable.
fn dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_json")
        .join(name);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("writable");
}

fn mpst(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mpst"))
        .current_dir(dir)
        .args(args)
        .env_remove("NO_COLOR")
        .output()
        .expect("the binary runs")
}

fn schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/verdict.schema.json");
    let text = std::fs::read_to_string(path).expect("the schema is readable");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema")
}

/// Runs `mpst --format json ARGS`, checks the document against the schema and its exit
/// code against the process's, and returns it.
fn document(dir: &Path, args: &[&str], expected_code: i32) -> Value {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--format", "json"]);
    let out = mpst(dir, &all);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(expected_code), "{stdout}\n{stderr}");
    let doc: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout is one JSON document ({e}):\n{stdout}"));
    let validator = schema();
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}\n{stdout}");
    assert_eq!(doc["exit_code"], expected_code);
    doc
}

const VALID: &str =
    "global protocol P(role A, role B) {\n  ping(i32) from A to B;\n  pong() from B to A;\n}\n";

const INVALID: &str = "global protocol Q(role A, role B, role C) {\n  choice at A {\n    x() from A to B;\n    y() from B to C;\n  } or {\n    z() from A to B;\n  }\n}\n";

#[test]
fn check_documents_valid_invalid_and_malformed_input() {
    let dir = dir("check");
    write(&dir, "valid.scr", VALID);
    write(&dir, "invalid.scr", INVALID);
    write(
        &dir,
        "malformed.scr",
        "global protocol P(role A) {\n  x( from A to B;\n}\n",
    );
    let valid = document(&dir, &["check", "valid.scr"], 0);
    assert_eq!(valid["verdict"], "holds");
    insta::assert_snapshot!("check_valid", pretty(&valid));
    let invalid = document(&dir, &["check", "invalid.scr"], 1);
    assert_eq!(invalid["results"][0]["verdict"], "invalid");
    let first = &invalid["diagnostics"][0];
    assert_eq!(first["file"], "invalid.scr");
    assert!(first["line"].as_u64().is_some_and(|l| l > 1), "{first}");
    insta::assert_snapshot!("check_invalid", pretty(&invalid));
    let malformed = document(&dir, &["check", "malformed.scr"], 2);
    assert_eq!(malformed["verdict"], "error");
    let syntax = &malformed["diagnostics"][0];
    assert_eq!(
        (syntax["line"].as_u64(), syntax["kind"].as_str()),
        (Some(2), Some("syntax error"))
    );
    let missing = document(&dir, &["check", "missing.scr"], 2);
    assert!(
        missing["diagnostics"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("missing.scr"))
    );
}

const SUPER: &str = "digraph p { 0 -> 1 [label=\"q!l1()\"]; 1 -> 2 [label=\"q?l2()\"]; }\n";
const SUB: &str = "digraph p { 0 -> 1 [label=\"q?l2()\"]; 1 -> 2 [label=\"q!l1()\"]; }\n";
const EAGER: &str = "digraph p { 0 -> 1 [label=\"q!l1()\"]; 1 -> 2 [label=\"q!l1()\"]; 2 -> 3 [label=\"q?l2()\"]; 3 -> 1 [label=\"q?l2()\"]; }\n";
const LAZY: &str = "digraph p { 0 -> 1 [label=\"q!l1()\"]; 1 -> 0 [label=\"q?l2()\"]; }\n";

#[test]
fn subtype_documents_proofs_refutations_with_their_run_and_unknowns() {
    let dir = dir("subtype");
    write(&dir, "super.dot", SUPER);
    write(&dir, "sub.dot", SUB);
    write(&dir, "bad.dot", "digraph p { 0 -> }\n");
    let proved = document(&dir, &["subtype", "super.dot", "super.dot"], 0);
    assert_eq!(proved["results"][0]["verdict"], "proved");
    let refuted = document(&dir, &["subtype", "sub.dot", "super.dot"], 1);
    assert_eq!(refuted["results"][0]["verdict"], "refuted");
    // Sending twice ahead and receiving twice: the run that deadlocks, step by step.
    write(&dir, "eager.dot", EAGER);
    write(&dir, "lazy.dot", LAZY);
    let refuted = document(&dir, &["subtype", "eager.dot", "lazy.dot"], 1);
    let result = &refuted["results"][0];
    assert_eq!(result["verdict"], "refuted");
    assert_eq!(result["violation"]["property"], "progress");
    assert_eq!(result["violation"]["run"][0]["text"], "p: q!l1()");
    insta::assert_snapshot!("subtype_refuted", pretty(&refuted));
    let bad = document(&dir, &["subtype", "bad.dot", "super.dot"], 2);
    let place = &bad["diagnostics"][0];
    assert_eq!(
        (place["file"].as_str(), place["line"].as_u64()),
        (Some("bad.dot"), Some(1))
    );
    // A true subtype that needs more visits than allowed: unknown.
    for (name, set) in [
        ("optimised.dot", "optimised"),
        ("projected.dot", "projected"),
    ] {
        let out = mpst(&dir, &["gen", "k-buffering", "20", "--set", set]);
        assert_eq!(out.status.code(), Some(0));
        std::fs::write(dir.join(name), &out.stdout).expect("writable");
    }
    let args = ["subtype", "optimised.dot", "projected.dot", "--visits", "3"];
    let unknown = document(&dir, &args, 3);
    assert_eq!(unknown["verdict"], "unknown");
    assert_eq!(unknown["results"][0]["verdict"], "unknown");
}

#[test]
fn kmc_documents_every_bound_tried_and_the_counterexample_as_events() {
    let dir = dir("kmc");
    write(
        &dir,
        "a.dot",
        "digraph a { 0 -> 1 [label=\"b!m(i32)\"]; }\n",
    );
    write(&dir, "b.dot", "digraph b { 0 -> 1 [label=\"a?n()\"]; }\n");
    write(
        &dir,
        "c.dot",
        "digraph b { 0 -> 1 [label=\"a?m(i32)\"]; }\n",
    );
    let holds = document(&dir, &["kmc", "a.dot", "c.dot"], 0);
    assert_eq!(holds["results"][0]["verdict"], "kmc");
    let fails = document(&dir, &["kmc", "a.dot", "b.dot", "--k", "1..=2"], 1);
    let results = fails["results"].as_array().expect("results");
    assert_eq!(results.len(), 2, "one result per k");
    let run = &results[0]["violation"]["run"];
    assert_eq!(run[0]["action"], "send");
    assert_eq!(run[0]["payloads"][0], "i32");
    insta::assert_snapshot!("kmc_fails", pretty(&fails));
    let gave_up = document(
        &dir,
        &[
            "kmc",
            "a.dot",
            "b.dot",
            "--k",
            "1",
            "--max-configurations",
            "1",
        ],
        3,
    );
    assert_eq!(gave_up["results"][0]["verdict"], "unknown");
}

#[test]
fn json_is_refused_where_there_is_no_verdict() {
    let dir = dir("refused");
    write(&dir, "valid.scr", VALID);
    let out = mpst(&dir, &["chart", "valid.scr", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unexpected argument '--format'"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

fn pretty(doc: &Value) -> String {
    serde_json::to_string_pretty(doc).expect("printable")
}
