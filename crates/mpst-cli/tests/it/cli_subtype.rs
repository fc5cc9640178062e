//! `mpst subtype` (and the hidden `mpst gen`) run as a user runs them: the built
//! binary, its output and exit status (0 subtype, 1 not, 2 bad input).

use crate::support;

use support::{assert_contains_all, code, exits_with, mpst, repo, stderr, stdout};

use mpst_fsm::families::Family;
use mpst_fsm::{parse_dot, write_dot};

/// A file in a directory private to this test binary and test.
fn file(test: &str, name: &str, contents: &str) -> String {
    let dir = std::env::temp_dir().join(format!("mpst-cli-subtype-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("temp file");
    path.display().to_string()
}

fn family_dot(family: &str, n: &str, set: &str) -> String {
    let out = mpst(&["gen", family, n, "--set", set]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn every_family_passes_through_gen_and_subtype() {
    for family in Family::ALL {
        let n = if family == Family::NestedChoice {
            "3"
        } else {
            "10"
        };
        let name = format!("{family}-{n}");
        let sub = file(
            "families",
            &format!("{name}-sub.dot"),
            &family_dot(family.name(), n, "optimised"),
        );
        let sup = file(
            "families",
            &format!("{name}-sup.dot"),
            &family_dot(family.name(), n, "projected"),
        );
        let out = mpst(&["subtype", &sub, &sup]);
        assert_eq!(code(&out), 0, "{name}: {}{}", stdout(&out), stderr(&out));
        let optimised = parse_dot(&std::fs::read_to_string(&sub).unwrap()).unwrap();
        let lines: Vec<_> = stdout(&out).lines().map(str::to_owned).collect();
        assert_eq!(lines.len(), optimised.len(), "{name}: {lines:?}");
        for (line, fsm) in lines.iter().zip(&optimised) {
            assert!(
                line.starts_with(&format!("`{}`: subtype (", fsm.role())),
                "{line}"
            );
        }
    }
}

#[test]
fn several_digraphs_are_paired_by_role_name() {
    let system = family_dot("k-buffering", "3", "system");
    let mut projected = parse_dot(&family_dot("k-buffering", "3", "projected")).unwrap();
    projected.reverse();
    let reversed: String = projected.iter().map(write_dot).collect();
    let sub = file("pairing", "sub.dot", &system);
    let sup = file("pairing", "sup.dot", &reversed);
    let out = mpst(&["subtype", &sub, &sup]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    let roles: Vec<_> = stdout(&out)
        .lines()
        .map(|l| l.split('`').nth(1).unwrap_or_default().to_owned())
        .collect();
    assert_eq!(roles, ["s", "k", "t"]);
    // The other way round the projected kernel is not a subtype of the optimised one.
    let out = mpst(&["subtype", &sup, &sub]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("`k`: not a subtype"),
        "{}",
        stdout(&out)
    );
}

const EXAMPLE_2_P: &str =
    "digraph p {\n  0 -> 1 [label=\"q!l1()\"];\n  1 -> 2 [label=\"q?l2()\"];\n}\n";
const EXAMPLE_2_P_REORDERED: &str =
    "digraph p {\n  0 -> 1 [label=\"q?l2()\"];\n  1 -> 2 [label=\"q!l1()\"];\n}\n";

#[test]
fn a_receive_moved_before_a_send_is_explained() {
    let sub = file("example2", "sub.dot", EXAMPLE_2_P_REORDERED);
    let sup = file("example2", "sup.dot", EXAMPLE_2_P);
    let out = mpst(&["subtype", &sub, &sup]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    assert!(
        text.starts_with(
            "`p`: not a subtype: beside the dual of the supertype this run goes wrong: \
             deadlock: no role can move; waiting to receive: p, q\nin the initial configuration"
        ),
        "{text}"
    );
    assert_contains_all(
        &text,
        &[
            "not proved: the rules stop at subtype state 1 / supertype state 1",
            "receive `q?l2()` would have to overtake",
            "send `q!l1()`",
            "subtype prefix (unmatched):   q?l2()",
        ],
    );
    // The safe direction holds.
    let out = mpst(&["subtype", &sup, &sup]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
}

#[test]
fn a_bound_too_small_is_reported_and_visits_raise_it() {
    let sub = file(
        "bound",
        "sub.dot",
        &family_dot("k-buffering", "20", "optimised"),
    );
    let sup = file(
        "bound",
        "sup.dot",
        &family_dot("k-buffering", "20", "projected"),
    );
    let out = mpst(&["subtype", &sub, &sup, "--visits", "3"]);
    assert_eq!(code(&out), 3, "unknown, not refuted: {}", stdout(&out));
    assert!(!stdout(&out).contains("not a subtype"), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("unknown: neither proved nor refuted"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("the bound was reached"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("visited 3 times"), "{}", stdout(&out));
    let out = mpst(&["subtype", &sub, &sup, "--visits", "30"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
}

#[test]
fn bad_input_exits_with_2_and_says_where() {
    let good = file("bad", "good.dot", EXAMPLE_2_P);
    let out = mpst(&["subtype", &good, "/nonexistent/dir/x.dot"]);
    exits_with(&out, 2, "cannot read /nonexistent/dir/x.dot");

    let malformed = file(
        "bad",
        "malformed.dot",
        "digraph p {\n  0 -> 1 [label=\"q!\"];\n}\n",
    );
    let out = mpst(&["subtype", &malformed, &good]);
    exits_with(&out, 2, &format!("{malformed}:2:"));

    let two = file(
        "bad",
        "two.dot",
        &family_dot("k-buffering", "1", "projected"),
    );
    let other = file(
        "bad",
        "other.dot",
        &format!(
            "{EXAMPLE_2_P}{}",
            EXAMPLE_2_P.replace("digraph p", "digraph z")
        ),
    );
    let out = mpst(&["subtype", &other, &two]);
    exits_with(&out, 2, "role `p`");

    let twice = file("bad", "twice.dot", &format!("{EXAMPLE_2_P}{EXAMPLE_2_P}"));
    let out = mpst(&["subtype", &twice, &good]);
    exits_with(&out, 2, "two digraphs are named `p`");
    assert!(stderr(&out).contains("twice.dot:"), "{}", stderr(&out));

    let mixed = file(
        "bad",
        "mixed.dot",
        "digraph p {\n  0 -> 1 [label=\"q!a()\"];\n  0 -> 1 [label=\"q?b()\"];\n}\n",
    );
    let out = mpst(&["subtype", &mixed, &good]);
    exits_with(&out, 2, "both sends and receives");
    // dot_mixed_state_is_located: at the state's first mention.
    assert!(stderr(&out).contains("mixed.dot:2:3"), "{}", stderr(&out));

    let out = mpst(&["subtype", &good, &good, "--visits", "0"]);
    assert_eq!(code(&out), 2);
    let out = mpst(&["subtype", &good]);
    assert_eq!(code(&out), 2);
}

#[test]
fn help_prints_the_default_bound_and_gen_is_hidden() {
    let out = mpst(&["subtype", "--help"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("[default: 100]"), "{}", stdout(&out));
    let out = mpst(&["--help"]);
    assert!(!stdout(&out).contains("gen "), "{}", stdout(&out));
    let out = mpst(&["gen", "tree", "3"]);
    exits_with(&out, 2, "unknown family `tree`");
    let out = mpst(&["gen", "nested-choice", "9"]);
    assert_eq!(code(&out), 2);
    let fsms = parse_dot(&family_dot("nested", "2", "system")).unwrap();
    assert_eq!(
        fsms.iter().map(|f| f.role()).collect::<Vec<_>>(),
        ["p", "q"]
    );
}

#[test]
fn every_projection_of_the_examples_is_a_subtype_of_itself() {
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(repo().join("examples"))
        .expect("examples/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for dir in entries {
        let Some(name) = dir.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
            continue;
        };
        let scr = dir.join(format!("{name}.scr"));
        let Ok(source) = std::fs::read_to_string(&scr) else {
            continue;
        };
        let Ok(protocols) = mpst_scribble::parse(&source) else {
            continue;
        };
        for protocol in &protocols {
            let Ok(projections) = mpst_scribble::project_all(protocol) else {
                continue;
            };
            let dot: String = projections.iter().map(|p| write_dot(&p.fsm)).collect();
            let path = file(
                "examples",
                &format!("{name}-{}.dot", protocol.name.text),
                &dot,
            );
            let out = mpst(&["subtype", &path, &path]);
            assert_eq!(
                code(&out),
                0,
                "{}: {}{}",
                scr.display(),
                stdout(&out),
                stderr(&out)
            );
            assert_eq!(stdout(&out).lines().count(), projections.len());
            checked += projections.len();
        }
    }
    assert!(checked >= 20, "only {checked} projections checked");
}

#[test]
fn the_optimised_double_buffering_kernel_of_the_examples_is_a_subtype() {
    let source =
        std::fs::read_to_string(repo().join("examples/double_buffering/double_buffering.scr"))
            .expect("the example");
    let protocols = mpst_scribble::parse(&source).expect("parses");
    let kernel = mpst_scribble::project_fsm(&protocols[0], "K").expect("projects");
    let sup = file("kernel", "k.dot", &write_dot(&kernel));
    let sub = repo().join("examples/double_buffering/kernel_optimised.dot");
    let out = mpst(&["subtype", &sub.display().to_string(), &sup]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).starts_with("`K`: subtype"), "{}", stdout(&out));
    let out = mpst(&["subtype", &sup, &sub.display().to_string()]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
}

#[test]
fn refutations_print_as_mermaid_or_svg_charts() {
    let sub = file("charts", "sub.dot", EXAMPLE_2_P_REORDERED);
    let sup = file("charts", "sup.dot", EXAMPLE_2_P);
    let orphan = file(
        "charts",
        "orphan.dot",
        "digraph p {\n  0 -> 1 [label=\"q!l1()\"];\n  1 -> 2 [label=\"q!l3()\"];\n  2 -> 3 [label=\"q?l2()\"];\n}\n",
    );
    let out = mpst(&["subtype", &orphan, &sup, "--trace-format", "mermaid"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let chart = stdout(&out);
    assert!(
        chart.starts_with("sequenceDiagram\n    participant p\n"),
        "{chart}"
    );
    assert!(chart.contains("p-)q: l1()"), "{chart}");
    assert!(
        chart.contains("never received") || chart.contains("Note over"),
        "{chart}"
    );
    assert!(stderr(&out).contains("not a subtype"), "{}", stderr(&out));
    let out = mpst(&["subtype", &sub, &sup, "--trace-format", "svg"]);
    assert_eq!(code(&out), 1);
    let svg = stdout(&out);
    // mpst-viz's `run_chart`, the picture `mpst report` shows: a standalone SVG file.
    let doc = roxmltree::Document::parse(&svg).expect("the chart is XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg", "{svg}");
    assert!(svg.trim_end().ends_with("</svg>"), "{svg}");
    assert!(svg.contains("deadlock"), "{svg}");
    let out = mpst(&["subtype", &sub, &sup, "--trace-format", "png"]);
    assert_eq!(code(&out), 2);
}

#[test]
fn huge_bounds_answer_within_the_budget_and_bounds_are_checked() {
    let send_loop = file(
        "huge",
        "loop.dot",
        "digraph r { 0 -> 0 [label=\"p!a()\"]; }",
    );
    let out = mpst(&["subtype", &send_loop, &send_loop, "--visits", "10000000"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    // Sending ahead for ever while the supertype waits for q first: refuted.
    let waits = file(
        "huge",
        "waits.dot",
        "digraph r { 0 -> 1 [label=\"q?b()\"]; 1 -> 0 [label=\"p!a()\"]; }",
    );
    let out = mpst(&["subtype", &send_loop, &waits, "--visits", "10000000"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(stdout(&out).contains("never received"), "{}", stdout(&out));
    // Sending ahead of a loop of receives the supertype may never leave: refuted, the
    // dual sending `b` for ever instead of taking `a`.
    let ahead = file(
        "huge",
        "ahead.dot",
        "digraph r { 0 -> 1 [label=\"p!a()\"]; 1 -> 1 [label=\"q?b()\"]; 1 -> 0 [label=\"q?c()\"]; }",
    );
    let receive_loop = file(
        "huge",
        "receive_loop.dot",
        "digraph r { 0 -> 0 [label=\"q?b()\"]; 0 -> 1 [label=\"q?c()\"]; 1 -> 0 [label=\"p!a()\"]; }",
    );
    let out = mpst(&["subtype", &ahead, &receive_loop, "--visits", "10000000"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("(q: r!b()) repeated for ever"),
        "{}",
        stdout(&out)
    );
    // A true subtype beyond the rules (and the witness trees): unknown, with the place
    // (`ctxta1 ≤ ctxta2` of the CONCUR'19 tool's tests).
    let sub = file(
        "huge",
        "acc_sub.dot",
        "digraph r { 0 -> 1 [label=\"p?a()\"]; 0 -> 2 [label=\"p?b()\"]; 1 -> 3 [label=\"p!x()\"]; \
         2 -> 4 [label=\"p!y()\"]; 3 -> 0 [label=\"p!x()\"]; 4 -> 5 [label=\"p?a()\"]; \
         4 -> 4 [label=\"p?b()\"]; 5 -> 6 [label=\"p!x()\"]; 6 -> 0 [label=\"p!x()\"]; }",
    );
    let sup = file(
        "huge",
        "acc_sup.dot",
        "digraph r { 0 -> 1 [label=\"p?a()\"]; 1 -> 2 [label=\"p?a()\"]; 1 -> 3 [label=\"p?b()\"]; \
         2 -> 1 [label=\"p!x()\"]; 3 -> 4 [label=\"p!x()\"]; 3 -> 0 [label=\"p!y()\"]; \
         4 -> 3 [label=\"p?b()\"]; }",
    );
    let out = mpst(&[
        "subtype",
        &sub,
        &sup,
        "--visits",
        "10000000",
        "--max-steps",
        "5000",
    ]);
    assert_eq!(code(&out), 3, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("the search budget ran out (5000 configurations"),
        "{}",
        stdout(&out)
    );
    for bad in ["0", "18446744073709551615", "three"] {
        let out = mpst(&["subtype", &sub, &sup, "--visits", bad]);
        assert_eq!(code(&out), 2, "--visits {bad}");
        assert!(stderr(&out).contains("--visits"), "{}", stderr(&out));
    }
}

#[test]
fn nondeterministic_machines_are_refused_with_the_readers_error() {
    let nd = file(
        "nd",
        "nd.dot",
        "digraph r { 0 -> 1 [label=\"p!a()\"]; 0 -> 2 [label=\"p!a()\"]; }",
    );
    let out = mpst(&["subtype", &nd, &nd]);
    exits_with(&out, 2, "machines must be deterministic");
}

#[test]
fn the_witness_trees_prove_growing_pending_receives_and_time_limits_are_checked() {
    // The running example of CONCUR'19: the subtype sends a picture ahead of each
    // answer, and a second one after `KO`; the answers pending grow without bound.
    let sub = file(
        "trees",
        "sub.dot",
        "digraph r { 0 -> 1 [label=\"p!HQ()\"]; 1 -> 0 [label=\"p?OK()\"]; \
         1 -> 2 [label=\"p?KO()\"]; 2 -> 0 [label=\"p!LQ()\"]; }",
    );
    let sup = file(
        "trees",
        "sup.dot",
        "digraph r { 0 -> 1 [label=\"p!HQ()\"]; 0 -> 1 [label=\"p!LQ()\"]; \
         1 -> 0 [label=\"p?OK()\"]; 1 -> 0 [label=\"p?KO()\"]; }",
    );
    let out = mpst(&["subtype", &sub, &sup]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("proved by witness trees"),
        "{}",
        stdout(&out)
    );
    let out = mpst(&["subtype", &sub, &sup, "--time-limit", "2.5"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    for bad in ["0", "0.0001", "100000", "soon"] {
        let out = mpst(&["subtype", &sub, &sup, "--time-limit", bad]);
        assert_eq!(code(&out), 2, "--time-limit {bad}");
        assert!(stderr(&out).contains("--time-limit"), "{}", stderr(&out));
    }
}
