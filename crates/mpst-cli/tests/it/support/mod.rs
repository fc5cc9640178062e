//! What the command-line tests share: running the built `mpst`, reading its output,
//! finding the repository's examples and writing scratch files. Each test binary uses
//! only part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the built `mpst` with `args` and waits for it.
pub fn mpst(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mpst"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// The exit status of a run (a signal is a test failure).
pub fn code(out: &Output) -> i32 {
    out.status.code().expect("an exit code")
}

/// Bytes as text, invalid UTF-8 replaced.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A run's standard output as text.
pub fn stdout(out: &Output) -> String {
    text(&out.stdout)
}

/// A run's standard error as text.
pub fn stderr(out: &Output) -> String {
    text(&out.stderr)
}

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The protocol of example `name`: `examples/NAME/NAME.scr`.
pub fn example(name: &str) -> String {
    example_file(&format!("{name}/{name}.scr"))
}

/// A file below `examples/`.
pub fn example_file(path: &str) -> String {
    repo().join("examples").join(path).display().to_string()
}

/// Writes `contents` to `name` in a directory of the target's scratch space private to
/// `group` (a test binary, or one of its tests), and returns the path.
pub fn scratch_file(group: &str, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(group);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("writable");
    path
}

/// Asserts that a run exited with `expected` and said `needle` on standard error (the
/// message shows what it said instead); returns standard error.
pub fn exits_with(out: &Output, expected: i32, needle: &str) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(expected), "{err}");
    assert!(err.contains(needle), "expected {needle:?} in:\n{err}");
    err
}

/// Asserts that `text` (a run's output) contains every one of `needles`; the message names
/// the first missing one and shows the whole text.
pub fn assert_contains_all(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "expected {needle:?} in:\n{text}");
    }
}
