//! `mpst check` and `mpst project` run as a user runs them: the built binary, its
//! stdout, stderr and exit status.

use crate::support;

use support::{
    assert_contains_all, code, example, exits_with, mpst, repo, scratch_file, stderr, stdout,
};

use mpst_fsm::format::{write_dot, write_mermaid, write_petrify};
use mpst_scribble::{parse, project_fsm};

/// Writes `source` to a fresh file named `name` and returns its path.
fn file(name: &str, source: &str) -> String {
    scratch_file("cli_check_project", name, source)
        .display()
        .to_string()
}

const UNMERGEABLE: &str = "global protocol P(role A, role B, role C) {\n  choice at A {\n    a() from A to B;\n  } or {\n    b() from A to B;\n    c() from B to C;\n  }\n}\n";

#[test]
fn check_accepts_a_valid_file_and_summarises_it() {
    let out = mpst(&["check", &example("authentication")]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("Authentication: valid, 3 roles\n"),
        "{text}"
    );
    assert!(text.contains("  S: 4 states, 4 transitions\n"), "{text}");
    assert_eq!(stderr(&out), "");
}

#[test]
fn check_accepts_every_example_and_classic() {
    let mut files = Vec::new();
    for dir in ["examples", "crates/mpst-scribble/tests/protocols"] {
        let mut stack = vec![repo().join(dir)];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).expect("a directory").flatten() {
                let p = entry.path();
                if p.is_dir() {
                    if !p.ends_with("invalid") {
                        stack.push(p);
                    }
                } else if p.extension().is_some_and(|e| e == "scr") {
                    files.push(p);
                }
            }
        }
    }
    assert!(files.len() >= 15, "{files:?}");
    for f in files {
        let out = mpst(&["check", &f.display().to_string()]);
        assert_eq!(code(&out), 0, "{}: {}", f.display(), stderr(&out));
        assert!(stdout(&out).contains(": valid, "));
    }
}

#[test]
fn check_rejects_every_invalid_classic_with_exit_1() {
    let dir = repo().join("crates/mpst-scribble/tests/protocols/invalid");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("a directory").flatten() {
        let path = entry.path().display().to_string();
        let out = mpst(&["check", &path]);
        // Well-formed Scribble that projection cannot handle yet: bad input, exit 2.
        if path.contains("/unsupported_") {
            assert_eq!(code(&out), 2, "{path}: {}", stderr(&out));
            assert!(stdout(&out).contains(": unsupported ("), "{path}");
            continue;
        }
        assert_eq!(code(&out), 1, "{path}: {}", stderr(&out));
        assert!(stdout(&out).contains(": invalid ("), "{path}");
        assert!(stderr(&out).contains("error: "), "{path}");
        count += 1;
    }
    assert!(count >= 10, "{count}");
}

#[test]
fn check_rejects_an_invalid_protocol_with_located_reasons() {
    let path = file("unmergeable.scr", UNMERGEABLE);
    let out = mpst(&["check", &path]);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout(&out), "P: invalid (1 error)\n");
    let err = stderr(&out);
    assert_contains_all(
        &err,
        &[
            "error: cannot merge projections: role `C`",
            "unmergeable.scr:5:5",
            "b() from A to B;",
        ],
    );
    assert!(err.contains('^'), "{err}");
    assert!(err.contains("behaves differently in this branch"), "{err}");
    assert!(err.contains("= in one branch `C` continues as"), "{err}");
}

#[test]
fn check_reports_several_errors_at_once() {
    let src = "global protocol P(role A, role B) {\n  x() from A to A;\n  rec X {\n    continue X;\n  }\n}\n";
    let path = file("several.scr", src);
    let out = mpst(&["check", &path]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert_contains_all(
        &err,
        &[
            "several.scr:2:3",
            "reflexive message",
            "several.scr:4:14",
            "unguarded recursion variable",
        ],
    );
}

#[test]
fn check_of_a_binding_error_found_by_the_parser_is_invalid_not_malformed() {
    let path = file(
        "unbound.scr",
        "global protocol P(role A, role B) {\n  x() from A to Z;\n}\n",
    );
    let out = mpst(&["check", &path]);
    exits_with(&out, 1, "unbound role");
}

#[test]
fn malformed_input_exits_2_with_a_location() {
    let path = file(
        "syntax.scr",
        "global protocol P(role A, role B) {\n  x() from A B;\n}\n",
    );
    for args in [
        vec!["check", path.as_str()],
        vec!["project", path.as_str(), "--role", "A"],
    ] {
        let out = mpst(&args);
        assert_eq!(code(&out), 2, "{args:?}");
        let err = stderr(&out);
        assert_contains_all(&err, &["syntax error", "syntax.scr:2:", "malformed input"]);
        assert_eq!(stdout(&out), "");
    }
}

#[test]
fn unreadable_file_and_bad_usage_exit_2() {
    let out = mpst(&["check", "/nonexistent/nothing.scr"]);
    exits_with(&out, 2, "cannot read /nonexistent/nothing.scr");
    let out = mpst(&["project", &example("streaming")]);
    assert_eq!(code(&out), 2, "--role is required");
    let out = mpst(&[
        "project",
        &example("streaming"),
        "--role",
        "T",
        "--format",
        "png",
    ]);
    assert_eq!(code(&out), 2, "an unknown format");
}

#[test]
fn unknown_protocol_exits_2_listing_the_protocols() {
    let out = mpst(&["check", &example("simple_auth"), "--protocol", "Nope"]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("no protocol `Nope`"), "{err}");
    assert!(err.contains("`Credentials`, `SimpleAuth`"), "{err}");
}

#[test]
fn check_of_one_protocol() {
    let out = mpst(&[
        "check",
        &example("simple_auth"),
        "--protocol",
        "Credentials",
    ]);
    assert_eq!(code(&out), 0);
    let text = stdout(&out);
    assert!(text.starts_with("Credentials: valid, 2 roles"), "{text}");
    assert!(!text.contains("SimpleAuth"), "{text}");
}

#[test]
fn unused_role_is_a_warning() {
    let path = file(
        "unused.scr",
        "global protocol P(role A, role B, role C) {\n  x() from A to B;\n}\n",
    );
    let out = mpst(&["check", &path]);
    assert_eq!(code(&out), 0);
    let err = stderr(&out);
    assert!(
        err.contains("warning: role `C` of `P` takes no part"),
        "{err}"
    );
    assert!(err.contains("unused.scr:1:40"), "{err}");
}

#[test]
fn project_prints_the_fsm_in_each_format() {
    let path = example("client_server_log");
    let source = std::fs::read_to_string(&path).expect("readable");
    let protocols = parse(&source).expect("parses");
    let fsm = project_fsm(&protocols[0], "S").expect("projects");
    let out = mpst(&["project", &path, "--role", "S"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), write_dot(&fsm));
    assert!(stdout(&out).starts_with("digraph S {"));
    assert!(stdout(&out).contains("label=\"L!log(i32)\""));
    let out = mpst(&["project", &path, "--role", "S", "--format", "petrify"]);
    assert_eq!(code(&out), 0);
    assert_eq!(stdout(&out), write_petrify(std::slice::from_ref(&fsm)));
    let out = mpst(&[
        "project",
        &path,
        "-r",
        "S",
        "-p",
        "ClientServerLog",
        "-f",
        "mermaid",
    ]);
    assert_eq!(code(&out), 0);
    assert_eq!(stdout(&out), write_mermaid(&fsm));
}

#[test]
fn project_unknown_role_exits_2_listing_the_roles() {
    let out = mpst(&["project", &example("authentication"), "--role", "Z"]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("no role `Z`"), "{err}");
    assert!(err.contains("`Authentication` has `C`, `A`, `S`"), "{err}");
}

#[test]
fn project_needs_a_protocol_when_several_have_the_role() {
    let path = example("simple_auth");
    let out = mpst(&["project", &path, "--role", "C"]);
    exits_with(&out, 2, "choose one with --protocol");
    let out = mpst(&["project", &path, "--role", "C", "--protocol", "SimpleAuth"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("label=\"S?retry()\""));
}

#[test]
fn project_of_an_invalid_protocol_exits_1() {
    let path = file("unmergeable_project.scr", UNMERGEABLE);
    let out = mpst(&["project", &path, "--role", "C"]);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout(&out), "");
    assert!(stderr(&out).contains("cannot merge projections"));
    // Roles that do project are printed even though another role cannot be.
    let out = mpst(&["project", &path, "--role", "B"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).starts_with("digraph B {"));
}

#[test]
fn help_documents_the_exit_status() {
    for cmd in ["check", "project"] {
        let out = mpst(&[cmd, "--help"]);
        assert_eq!(code(&out), 0);
        let text = stdout(&out);
        assert!(text.contains("Exit status"), "{text}");
        assert!(text.contains("malformed input"), "{text}");
    }
}
