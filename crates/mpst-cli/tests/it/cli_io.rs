//! Input and output at the edges of `mpst`: closed and full stdout and stderr, the
//! input size limit, byte-order marks, invalid UTF-8, empty files, files full of
//! errors. Every subcommand goes through the same reader and writer guard.

use crate::support;

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{example, example_file, exits_with, scratch_file, text};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mpst"))
}

fn file(name: &str, bytes: &[u8]) -> PathBuf {
    scratch_file("cli_io", name, bytes)
}

fn full() -> Option<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .ok()
}

/// Every subcommand with output, on valid input.
fn commands() -> Vec<Vec<String>> {
    let scr = example("double_buffering");
    let dot = example_file("streaming/s_optimised.dot");
    vec![
        vec!["check".into(), scr.clone()],
        vec!["project".into(), scr.clone(), "--role".into(), "K".into()],
        vec!["generate".into(), scr],
        vec!["subtype".into(), dot.clone(), dot.clone()],
        vec!["kmc".into(), dot],
        vec!["--help".into()],
    ]
}

#[test]
fn writing_to_a_full_stdout_is_an_error_not_a_panic() {
    let Some(_) = full() else { return };
    for args in commands() {
        let out = bin()
            .args(&args)
            .stdout(full().unwrap())
            .output()
            .expect("runs");
        let code = out.status.code();
        assert_ne!(code, Some(101), "{args:?}: {}", text(&out.stderr));
        assert!(!text(&out.stderr).contains("panicked"), "{args:?}");
    }
    let out = bin()
        .args(["generate", &example("double_buffering")])
        .stdout(full().unwrap())
        .output()
        .unwrap();
    exits_with(&out, 2, "cannot write");
}

#[test]
fn writing_to_a_full_stderr_is_not_a_panic() {
    let Some(_) = full() else { return };
    let bad = file("bad.scr", b"global protocol P(role A) { x( from A to ; }");
    let mut all = commands();
    all.push(vec!["check".into(), bad.display().to_string()]);
    all.push(vec!["check".into(), "/no/such/file".into()]);
    for args in all {
        let out = bin()
            .args(&args)
            .stdout(Stdio::null())
            .stderr(full().unwrap())
            .output()
            .expect("runs");
        assert_ne!(out.status.code(), Some(101), "{args:?}");
        assert!(out.status.code().is_some(), "{args:?}: killed");
    }
}

/// Runs `mpst ARGS` with its stdout's reading end closed at once, like `mpst ... | true`;
/// returns its exit status and what it said on stderr.
fn with_stdout_closed(args: &[impl AsRef<std::ffi::OsStr>]) -> (std::process::ExitStatus, String) {
    let mut child = bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    drop(child.stdout.take());
    let mut err = String::new();
    let mut stderr = child.stderr.take().expect("piped");
    stderr.read_to_string(&mut err).expect("stderr is readable");
    (child.wait().expect("the binary runs"), err)
}

#[test]
fn writing_to_a_closed_pipe_is_not_a_panic() {
    for args in commands() {
        let (status, err) = with_stdout_closed(&args);
        assert_ne!(status.code(), Some(101), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        // Either everything fitted in the pipe before it closed, or the command stopped
        // quietly at the closed pipe with SIGPIPE's shell status (141).
        assert!(!err.contains("cannot write"), "{args:?}: {err}");
        if status.code() == Some(141) {
            assert_eq!(err, "", "{args:?}");
        }
    }
}

#[test]
fn output_larger_than_a_pipe_stops_quietly_with_141_when_the_reader_closes() {
    // More than any pipe buffer (270 KB), so the write must meet the closed pipe.
    let (status, err) = with_stdout_closed(&["gen", "stream", "3000"]);
    assert_eq!(status.code(), Some(141), "{err}");
    assert_eq!(err, "", "a closed pipe is not reported");
}

#[test]
fn input_over_the_size_limit_is_refused_quickly() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let start = Instant::now();
    let out = bin().args(["check", "/dev/zero"]).output().unwrap();
    exits_with(&out, 2, "larger than the limit of 16 MiB");
    // Generous: the point is that it does not read until memory runs out.
    assert!(start.elapsed() < Duration::from_secs(60));
}

#[test]
fn utf8_byte_order_mark_is_accepted_by_check() {
    let source = std::fs::read(example("double_buffering")).unwrap();
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(source);
    let path = file("bom.scr", &bom);
    let out = bin().arg("check").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn invalid_utf8_and_empty_files_are_located_errors() {
    let path = file(
        "latin1.scr",
        b"global protocol P(role A, role B) {\n  caf\xe9() from A to B;\n}\n",
    );
    let out = bin().arg("check").arg(&path).output().unwrap();
    exits_with(&out, 2, "latin1.scr:2:6: invalid UTF-8");

    let path = file("empty.dot", b"");
    for args in [
        &["check"][..],
        &["kmc"],
        &["subtype", path.to_str().unwrap()],
    ] {
        let out = bin().args(args).arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains("empty.dot:1:1: the file is empty"),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_file_full_of_syntax_errors_gets_a_hundred_diagnostics_and_a_count() {
    let line = "global protocol P(role A) { x( from A to ; }\n";
    let path = file("errors.scr", line.repeat(20_000).as_bytes());
    let out = bin().arg("check").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert_eq!(
        err.matches("error: syntax error").count(),
        101,
        "{}",
        &err[..2000.min(err.len())]
    );
    assert!(
        err.contains("more errors are not shown (only the first 100 are)"),
        "{}",
        &err[err.len().saturating_sub(2000)..]
    );
    assert!(err.len() < 100_000, "{} bytes of diagnostics", err.len());
}

#[test]
fn choice_to_different_receivers_is_accepted_and_its_ill_formed_variant_invalid() {
    let good = file(
        "receivers.scr",
        b"global protocol P(role A, role B, role C) {\n  choice at A {\n    l() from A to B;\n    l() from A to C;\n  } or {\n    r() from A to C;\n    r() from A to B;\n  }\n}\n",
    );
    let out = bin().arg("check").arg(&good).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = bin()
        .args(["project", "--role", "A"])
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let projected = text(&out.stdout);
    assert!(
        projected.contains("B!l()") && projected.contains("C!r()"),
        "{projected}"
    );
    // B and C each learn the choice from whichever of two roles speaks first: valid.
    let learnt = file(
        "learnt.scr",
        b"global protocol P(role A, role B, role C) {\n  choice at A {\n    l() from A to B;\n    x() from B to C;\n  } or {\n    r() from A to C;\n    y() from C to B;\n  }\n}\n",
    );
    let out = bin().arg("check").arg(&learnt).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // B is told in one branch only, so it cannot tell the branches apart: invalid (exit
    // 1), no longer unsupported.
    let bad = file(
        "unlearnt.scr",
        b"global protocol P(role A, role B, role C) {\n  choice at A {\n    l() from A to B;\n    x() from B to C;\n  } or {\n    r() from A to C;\n  }\n}\n",
    );
    for args in [&["check"][..], &["project"]] {
        let mut cmd = bin();
        cmd.args(args).arg(&bad);
        if args == ["project"] {
            cmd.args(["--role", "B"]);
        }
        let out = cmd.output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("cannot merge projections"), "{args:?}: {err}");
        assert!(err.contains("unlearnt.scr:6:5"), "{args:?}: {err}");
    }
}
