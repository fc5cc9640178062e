//! The conventions of the command line: shell completions, `--color`, and "gave up"
//! being exit 3 (unknown) in every subcommand that can give up.

use crate::support;

use std::process::{Command, Output};

use support::{example_file, exits_with, scratch_file, text};

fn mpst(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mpst"))
        .args(args)
        .env_remove("NO_COLOR")
        .output()
        .expect("the binary runs")
}

fn temp(name: &str, contents: &str) -> String {
    scratch_file("cli_conventions", name, contents)
        .display()
        .to_string()
}

#[test]
fn completions_name_every_subcommand_in_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let out = mpst(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        for command in ["check", "project", "subtype", "kmc", "generate", "report"] {
            assert!(script.contains(command), "{shell} completes `{command}`");
        }
        assert!(script.contains("color"), "{shell} completes --color");
    }
    let out = mpst(&["completions", "tcsh"]);
    exits_with(&out, 2, "invalid value 'tcsh'");
}

#[test]
fn color_never_has_no_escapes_and_always_has_them_even_on_a_pipe() {
    let invalid = temp(
        "unknown_role.scr",
        "global protocol P(role A, role B) {\n  x() from A to C;\n}\n",
    );
    let never = mpst(&["check", &invalid, "--color", "never"]);
    let always = mpst(&["check", &invalid, "--color", "always"]);
    let auto = mpst(&["check", &invalid]);
    for out in [&never, &always, &auto] {
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    }
    let (never, always, auto) = (
        text(&never.stderr),
        text(&always.stderr),
        text(&auto.stderr),
    );
    assert!(never.contains("2:"), "{never}");
    assert!(!never.contains('\x1b'), "{never:?}");
    assert!(always.contains("\x1b["), "{always:?}");
    // Auto on a pipe is plain, and the text is the same once the colours are gone.
    assert_eq!(auto, never);
    // NO_COLOR does not override an explicit `always`.
    let forced = Command::new(env!("CARGO_BIN_EXE_mpst"))
        .args(["check", &invalid, "--color=always"])
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs");
    assert!(text(&forced.stderr).contains("\x1b["));
    let bad = mpst(&["check", &invalid, "--color", "sometimes"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// Three readies ahead of the double-buffering kernel's projection: a true subtype,
/// whose proof needs more than one visit per pair of states.
const EAGER_KERNEL: &str = r#"digraph K {
  0 -> 1 [label="S!ready()"];
  1 -> 2 [label="S!ready()"];
  2 -> 3 [label="S!ready()"];
  3 -> 4 [label="S?value(i32)"];
  4 -> 5 [label="T?ready()"];
  5 -> 6 [label="T!value(i32)"];
  6 -> 3 [label="S!ready()"];
}"#;

#[test]
fn giving_up_is_exit_3_in_every_subcommand() {
    let scr = example_file("double_buffering/double_buffering.scr");
    let kernel = temp("eager_kernel.dot", EAGER_KERNEL);
    let spec = format!("K={kernel}");
    // generate --optimised: the subtyping of the optimised role is unknown.
    let out = mpst(&["generate", &scr, "--optimised", &spec, "--visits", "1"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    // report: the page is written, and the unknown verdict is the exit status.
    let out = mpst(&["report", &scr, "--optimised", &spec, "--visits", "1"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("<html"), "the report is written");
    // subtype: the search budget runs out.
    let projected = mpst(&["project", &scr, "--role", "K"]);
    assert_eq!(projected.status.code(), Some(0));
    let projected = temp("kernel.dot", &text(&projected.stdout));
    let out = mpst(&["subtype", &kernel, &projected, "--visits", "1"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    let out = mpst(&["subtype", &kernel, &projected, "--max-steps", "2"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("budget"),
        "{}",
        text(&out.stdout)
    );
    // kmc: the configuration budget runs out.
    let ring = mpst(&["gen", "ring", "6", "--set", "system"]);
    assert_eq!(ring.status.code(), Some(0));
    let ring = temp("ring.dot", &text(&ring.stdout));
    let budget = ["--no-reduction", "--max-configurations", "10"];
    let out = mpst(&[&["kmc", &ring, "--k", "2"][..], &budget].concat());
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("gave up"),
        "{}",
        text(&out.stdout)
    );
    // And the help says so.
    let help = text(&mpst(&["--help"]).stdout);
    assert!(help.contains("3 = unknown"), "{help}");
}

#[test]
fn sorts_print_with_one_spelling_their_rust_names() {
    let scr = temp(
        "sorts.scr",
        "global protocol P(role A, role B) {\n  x(int, string, boolean, Date) from A to B;\n}\n",
    );
    let out = mpst(&["project", &scr, "--role", "A"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let dot = text(&out.stdout);
    assert!(dot.contains("B!x(i32, String, bool, Date)"), "{dot}");
    // And counts are singular for one.
    let out = mpst(&["check", &scr]);
    assert!(
        text(&out.stdout).contains("A: 2 states, 1 transition\n"),
        "{}",
        text(&out.stdout)
    );
    // A file that spells them the Scribble way is read the same way.
    let written = temp(
        "sorts.dot",
        "digraph A { 0 -> 1 [label=\"B!x(int, string, boolean, Date)\"]; }",
    );
    let projected = temp("projected.dot", &dot);
    let out = mpst(&["subtype", &written, &projected]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}
