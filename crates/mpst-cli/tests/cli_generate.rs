//! `mpst generate` run as a user runs it: the built binary, its output and exit status.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mpst(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mpst"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn double_buffering() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/double_buffering/double_buffering.scr")
        .display()
        .to_string()
}

fn temp(name: &str, contents: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_generate");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn generates_the_projected_api() {
    let out = mpst(&["generate", &double_buffering()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let code = text(&out.stdout);
    assert!(
        code.contains("pub struct KSession(pub Send<S, Ready, KState1>);"),
        "{code}"
    );
    assert!(
        code.contains("pub type KState1 = Receive<S, Value, KState2>;"),
        "{code}"
    );
}

#[test]
fn swaps_in_an_optimised_role_that_is_a_subtype() {
    // The kernel of Listing 3: two readies up front, then the loop.
    let kernel = temp(
        "kernel.dot",
        r#"digraph K {
  0; 1; 2; 3; 4;
  0 -> 1 [label="S!ready()", ];
  1 -> 2 [label="S!ready()", ];
  2 -> 3 [label="S?value(i32)", ];
  3 -> 4 [label="T?ready()", ];
  4 -> 1 [label="T!value(i32)", ];
}"#,
    );
    let output = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_generate/db.rs");
    let spec = format!("K={}", kernel.display());
    let out = mpst(&[
        "generate",
        &double_buffering(),
        "--optimised",
        &spec,
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let code = std::fs::read_to_string(&output).unwrap();
    assert!(
        code.contains("pub type KSession = Send<S, Ready, KState1>;"),
        "{code}"
    );
    assert!(
        code.contains("pub struct KState1(pub Send<S, Ready, KState2>);"),
        "{code}"
    );
}

#[test]
fn refuses_an_optimised_role_that_is_not_a_subtype() {
    // Receiving the value before asking for it deadlocks.
    let kernel = temp(
        "bad_kernel.dot",
        r#"digraph K {
  0 -> 1 [label="S?value(i32)", ];
  1 -> 2 [label="S!ready()", ];
  2 -> 3 [label="T?ready()", ];
  3 -> 0 [label="T!value(i32)", ];
}"#,
    );
    let spec = format!("K={}", kernel.display());
    let out = mpst(&["generate", &double_buffering(), "--optimised", &spec]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("is not an asynchronous subtype of its projection"),
        "{err}"
    );
    assert!(err.contains("deadlock"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn an_optimised_role_neither_proved_nor_refuted_exits_3_and_bounds_are_checked() {
    // Three readies ahead need more than one visit: with one the answer is unknown.
    let kernel = temp(
        "eager_kernel.dot",
        r#"digraph K {
  0 -> 1 [label="S!ready()", ];
  1 -> 2 [label="S!ready()", ];
  2 -> 3 [label="S!ready()", ];
  3 -> 4 [label="S?value(i32)", ];
  4 -> 5 [label="T?ready()", ];
  5 -> 6 [label="T!value(i32)", ];
  6 -> 3 [label="S!ready()", ];
}"#,
    );
    let spec = format!("K={}", kernel.display());
    let out = mpst(&[
        "generate",
        &double_buffering(),
        "--optimised",
        &spec,
        "--visits",
        "1",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("nor refuted"), "{err}");
    assert!(err.contains("the bound was reached"), "{err}");
    assert!(out.stdout.is_empty());
    let out = mpst(&["generate", &double_buffering(), "--optimised", &spec]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for bad in ["0", "18446744073709551615"] {
        let out = mpst(&["generate", &double_buffering(), "--visits", bad]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            text(&out.stderr).contains("a bound must be at"),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn bad_input_exits_2() {
    let broken = temp(
        "broken.scr",
        "global protocol P(role A, role B) { x() from A B; }",
    );
    let out = mpst(&["generate", broken.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("broken.scr:1:"),
        "{}",
        text(&out.stderr)
    );

    let out = mpst(&["generate", &double_buffering(), "--optimised", "K"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("ROLE=FSM.dot"));

    let kernel = temp("other.dot", "digraph Z { 0 -> 1 [label=\"S!ready()\"]; }");
    let spec = format!("Z={}", kernel.display());
    let out = mpst(&["generate", &double_buffering(), "--optimised", &spec]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("has roles"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_protocol_without_rust_api_exits_1() {
    // Label `b` and role `B` would both be the Rust type `B`.
    let clash = temp(
        "clash.scr",
        "global protocol P(role A, role B) { b() from A to B; }",
    );
    let out = mpst(&["generate", clash.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("label `b`") && err.contains("role `B`"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn an_invalid_protocol_exits_1_with_its_diagnostics() {
    let reflexive = temp(
        "reflexive.scr",
        "global protocol P(role A, role B) {\n  x() from A to A;\n}\n",
    );
    let out = mpst(&["generate", reflexive.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("reflexive.scr:2:"), "{err}");
    assert!(err.contains("is invalid"), "{err}");
    assert!(out.stdout.is_empty());
}
