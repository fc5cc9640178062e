//! Progress is for people at a terminal: a check long enough to show it prints
//! nothing on stderr when stderr is a pipe, even with `--color always` (progress is not
//! colour), nothing stray on stdout, and its result is unchanged.

use std::process::Command;

/// `n` pairs of roles, each streaming to its partner forever: without reduction, the
/// exploration visits 3^n configurations for k = 2 — seconds for n = 9.
fn pairs(n: usize) -> String {
    let mut dot = String::new();
    for i in 0..n {
        dot.push_str(&format!(
            "digraph a{i} {{ 0 -> 0 [label=\"b{i}!m()\"]; }}\n\
             digraph b{i} {{ 0 -> 0 [label=\"a{i}?m()\"]; }}\n"
        ));
    }
    dot
}

#[test]
fn a_long_check_is_silent_on_a_piped_stderr() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_progress");
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let file = dir.join("pairs.dot");
    std::fs::write(&file, pairs(9)).expect("writable");
    let out = Command::new(env!("CARGO_BIN_EXE_mpst"))
        .args([
            "kmc",
            file.to_str().expect("UTF-8"),
            "--k",
            "2",
            "--no-reduction",
            "--color",
            "always",
        ])
        .output()
        .expect("the binary runs");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "no progress on a pipe"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("19683 configurations"), "{stdout}");
    assert!(
        !stdout.contains(['\r', '\x1b']),
        "no carriage return or escape on stdout: {stdout:?}"
    );
}
