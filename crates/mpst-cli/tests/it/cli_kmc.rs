//! `mpst kmc` run as a user runs it: DOT files in, verdict and counterexample out,
//! exit status 0 (k-MC), 1 (not k-MC), 2 (bad input) or 3 (gave up).

use crate::support;

use std::path::PathBuf;
use std::process::Output;

use mpst_fsm::Fsm;
use mpst_fsm::families;
use mpst_fsm::format::write_dot;

use support::{assert_contains_all, code, exits_with, mpst, repo, scratch_file, stderr, stdout};

/// Writes `source` to a fresh file `dir/name` and returns its path.
fn file(dir: &str, name: &str, source: &str) -> String {
    scratch_file(&format!("cli_kmc/{dir}"), name, source)
        .display()
        .to_string()
}

/// One DOT file per role of `system`, in directory `dir`.
fn dot_files(dir: &str, system: &[Fsm]) -> Vec<String> {
    system
        .iter()
        .map(|fsm| file(dir, &format!("{}.dot", fsm.role()), &write_dot(fsm)))
        .collect()
}

fn run(files: &[String], extra: &[&str]) -> Output {
    let mut args = vec!["kmc"];
    args.extend(files.iter().map(String::as_str));
    args.extend_from_slice(extra);
    mpst(&args)
}

/// Every protocol of every example: its projections, one DOT file per role, are
/// k-MC for k = 1 (a projected global type is safe with one-place queues).
#[test]
fn every_example_protocol_projects_to_a_1_mc_system() {
    let examples: PathBuf = repo().join("examples");
    let mut checked = 0;
    for entry in std::fs::read_dir(&examples).expect("the examples directory") {
        let dir = entry.expect("a directory entry").path();
        let Some(name) = dir.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
            continue;
        };
        let scr = dir.join(format!("{name}.scr"));
        let Ok(source) = std::fs::read_to_string(&scr) else {
            continue;
        };
        let protocols = mpst_scribble::parse(&source).expect("the example parses");
        for protocol in &protocols {
            let projections = mpst_scribble::project_all(protocol).expect("it projects");
            let system: Vec<Fsm> = projections.into_iter().map(|p| p.fsm).collect();
            let files = dot_files(&format!("{name}_{}", protocol.name.text), &system);
            let out = run(&files, &["--k", "1"]);
            assert_eq!(
                code(&out),
                0,
                "{name}/{}: {}{}",
                protocol.name.text,
                stdout(&out),
                stderr(&out)
            );
            assert!(stdout(&out).contains("k-MC holds for k = 1"));
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} example protocols found");
}

#[test]
fn double_buffering_holds_and_the_least_k_is_printed() {
    let files = dot_files(
        "double_buffering",
        &families::k_buffering(1).optimised_system(),
    );
    let out = run(&files, &[]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert_contains_all(
        &text,
        &[
            "roles: s, k, t",
            "least k in 1..=4: 1",
            "k-MC holds for k = 1",
            "CSA, directed, basic",
        ],
    );
}

#[test]
fn streaming_with_three_unrolls_needs_k_2() {
    let files = dot_files("stream3", &families::stream(3).optimised_system());
    let out = run(&files, &["--k", "1"]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert_contains_all(
        &text,
        &[
            "not 1-MC",
            "execution:",
            "1. s: t!value()",
            "reaching states",
        ],
    );

    let out = run(&files, &["--k", "1..=3"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(stdout(&out).contains("least k in 1..=3: 2"));
    // The unreduced exploration agrees.
    let out = run(&files, &["--k", "2", "--no-reduction"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
}

#[test]
fn all_roles_from_one_file() {
    let system = families::ring(4).optimised_system();
    let all: String = system.iter().map(write_dot).collect();
    let path = file("ring", "ring.dot", &all);
    let out = mpst(&["kmc", &path, "--k", "1"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("roles: r0, r1, r2, r3"));
}

#[test]
fn an_unspecified_reception_is_shown_with_its_execution() {
    let a = file(
        "unspecified",
        "a.dot",
        "digraph a {\n  0 -> 1 [label=\"b!x()\"];\n}\n",
    );
    let b = file(
        "unspecified",
        "b.dot",
        "digraph b {\n  0 -> 1 [label=\"a?y()\"];\n}\n",
    );
    let out = run(&[a, b], &["--k", "1..=2"]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert_contains_all(
        &text,
        &[
            "not k-MC for any k in 1..=2",
            "not 2-MC: no unspecified reception fails: b cannot",
            "b cannot receive x() from a",
            "1. a: b!x()",
            "a→b [x()]",
        ],
    );
}

#[test]
fn bad_input_exits_2_with_a_reason() {
    let missing = mpst(&["kmc", "/nonexistent/role.dot"]);
    exits_with(&missing, 2, "cannot read");

    let broken = file(
        "bad",
        "broken.dot",
        "digraph a {\n  0 -> [label=\"b!x()\"];\n}\n",
    );
    let out = mpst(&["kmc", &broken]);
    exits_with(&out, 2, "broken.dot:2:");

    // A role talks to a peer that has no machine.
    let lonely = file(
        "bad",
        "lonely.dot",
        "digraph a {\n  0 -> 1 [label=\"b!x()\"];\n}\n",
    );
    let out = mpst(&["kmc", &lonely]);
    assert_eq!(code(&out), 2);
    // kmc_unknown_peer_is_located: at the label, with the roles there are.
    assert!(
        stderr(&out).contains("talks to `b`, which no digraph of the system is named after"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("lonely.dot:2:17"), "{}", stderr(&out));

    for k in ["0", "3..=1", "two"] {
        let out = mpst(&["kmc", &lonely, "--k", k]);
        assert_eq!(code(&out), 2, "--k {k}");
        assert!(stderr(&out).contains("--k"), "{}", stderr(&out));
    }
    assert_eq!(code(&mpst(&["kmc"])), 2);
}

#[test]
fn giving_up_is_unknown_with_the_reason() {
    let files = dot_files("limit", &families::ring(6).optimised_system());
    let out = run(
        &files,
        &["--k", "2", "--no-reduction", "--max-configurations", "10"],
    );
    assert_eq!(code(&out), 3);
    assert!(
        stdout(&out).contains("unknown: gave up at k = 2: the budget of 10 configurations"),
        "{}",
        stdout(&out)
    );
}

/// `a` sends for ever; `b` acknowledges what `a` never reads: not k-MC for any k, and
/// the state space grows with k.
fn never_kmc() -> Vec<String> {
    vec![
        file("never", "a.dot", "digraph a { 0 -> 0 [label=\"b!m()\"]; }"),
        file(
            "never",
            "b.dot",
            "digraph b { 0 -> 1 [label=\"a?m()\"]; 1 -> 0 [label=\"a!ack()\"]; }",
        ),
    ]
}

#[test]
fn huge_bounds_and_ranges_answer_within_the_budget() {
    let files = never_kmc();
    let out = run(
        &files,
        &["--k", "1..=1048576", "--max-configurations", "20000"],
    );
    assert_eq!(code(&out), 3, "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("unknown: gave up at k = "), "{text}");
    assert!(text.contains("not k-MC for any k in 1..="), "{text}");
    let out = run(&files, &["--k", "100000", "--max-configurations", "20000"]);
    assert_eq!(code(&out), 3, "{}", stdout(&out));
    let out = run(&files, &["--k", "1..=3"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    for bad in ["0", "18446744073709551615", "1..=18446744073709551615"] {
        let out = run(&files, &["--k", bad]);
        assert_eq!(code(&out), 2, "--k {bad}");
    }
}

#[test]
fn nondeterministic_machines_are_checked_and_violations_print_as_charts() {
    // `a` may send `m` and then wait for `n`, which `b` never sends.
    let a = file(
        "nd",
        "a.dot",
        "digraph a { 0 -> 1 [label=\"b!m()\"]; 0 -> 2 [label=\"b!m()\"]; 1 -> 3 [label=\"b?n()\"]; }",
    );
    let b = file("nd", "b.dot", "digraph b { 0 -> 1 [label=\"a?m()\"]; }");
    let out = run(&[a.clone(), b.clone()], &["--k", "1"]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("not 1-MC"), "{}", stdout(&out));
    let out = run(&[a, b], &["--k", "1", "--trace-format", "mermaid"]);
    assert_eq!(code(&out), 1);
    let chart = stdout(&out);
    assert!(
        chart.starts_with("sequenceDiagram\n    participant a\n    participant b\n"),
        "{chart}"
    );
    assert!(chart.contains("a-)b: m()"), "{chart}");
    assert!(stderr(&out).contains("not 1-MC"), "{}", stderr(&out));
    // Deterministic machines are k-MC as before.
    let a = file("nd", "a2.dot", "digraph a { 0 -> 1 [label=\"b!m()\"]; }");
    let b = file("nd", "b2.dot", "digraph b { 0 -> 1 [label=\"a?m()\"]; }");
    assert_eq!(code(&run(&[a, b], &["--k", "1"])), 0);
}

#[test]
fn kmc_duplicate_digraphs_across_files_are_located_in_both() {
    let a = file(
        "dup",
        "a.dot",
        "digraph a {\n  0 -> 1 [label=\"b!x()\"];\n}\n",
    );
    let b = file(
        "dup",
        "b.dot",
        "digraph b {\n  0 -> 1 [label=\"a?x()\"];\n}\ndigraph a { }\n",
    );
    let out = mpst(&["kmc", &a, &b]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("a second digraph for role `a`"), "{err}");
    assert!(err.contains("b.dot:4:9"), "{err}");
    assert!(
        err.contains("a.dot:1:9"),
        "the first one is shown too: {err}"
    );
}

#[test]
fn the_time_limit_of_a_range_is_checked() {
    let files = dot_files("time_limit", &families::k_buffering(1).optimised_system());
    let out = run(&files, &["--time-limit", "30"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    for bad in ["0", "86401", "NaN", "later"] {
        let out = run(&files, &["--time-limit", bad]);
        assert_eq!(code(&out), 2, "--time-limit {bad}");
        assert!(stderr(&out).contains("--time-limit"), "{}", stderr(&out));
    }
}

/// A file over the input limit is refused with the limit named (exit 2); the same
/// file under a raised `--max-input-size` is checked. The limit is on each file.
#[test]
fn max_input_size_raises_or_lowers_the_input_limit() {
    let system = families::ring(3).optimised_system();
    let files = dot_files("max_input_size", &system);
    let largest = files
        .iter()
        .map(|f| std::fs::metadata(f).expect("written").len())
        .max()
        .expect("three files");
    let below = (largest - 1).to_string();
    let out = run(&files, &["--k", "1", "--max-input-size", &below]);
    exits_with(
        &out,
        2,
        &format!(
            "is larger than the limit of 0.000 MiB ({below} bytes); raise it with \
             --max-input-size BYTES"
        ),
    );
    let exact = largest.to_string();
    let out = run(&files, &["--k", "1", "--max-input-size", &exact]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("k-MC holds for k = 1"),
        "{}",
        stdout(&out)
    );
    let out = run(&files, &["--k", "1", "--max-input-size", "0"]);
    exits_with(&out, 2, "at least 1");
}
