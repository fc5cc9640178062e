//! The pictures as a reader gets them: every SVG parses as XML and shows every label
//! of what it draws — for every protocol of the repository, the paper's benchmark
//! families, and odd machines — and a few small pictures are snapshot-tested.

use std::path::{Path, PathBuf};

use mpst_fsm::families;
use mpst_fsm::format::parse_dot;
use mpst_fsm::{Action, Fsm, Message};
use mpst_scribble::{Global, GlobalProtocol, parse, project_all};
use mpst_viz::{fsm_svg, global_chart, run_chart};

/// Every `.scr` of `examples/` and of `mpst-scribble`'s test protocols (valid or not).
fn scribble_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    let mut dirs = vec![
        root.join("examples"),
        root.join("crates/mpst-scribble/tests/protocols"),
    ];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "scr") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn protocols() -> Vec<(String, GlobalProtocol)> {
    let mut all = Vec::new();
    for file in scribble_files() {
        let source = std::fs::read_to_string(&file).expect("readable");
        if let Ok(protocols) = parse(&source) {
            let name = file.display().to_string();
            all.extend(protocols.into_iter().map(|p| (name.clone(), p)));
        }
    }
    assert!(all.len() >= 20, "found only {} protocols", all.len());
    all
}

/// The text of every `<text>` element (with its `<tspan>`s and `<textPath>`s),
/// unescaped and trimmed.
fn texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg)
        .unwrap_or_else(|e| panic!("the SVG does not parse as XML: {e}\n{svg}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "text")
        .map(|n| {
            n.descendants()
                .filter(|d| d.is_text())
                .filter_map(|d| d.text())
                .collect::<String>()
                .trim()
                .to_string()
        })
        .collect()
}

fn assert_fsm_picture(fsm: &Fsm, context: &str) {
    let svg = fsm_svg(fsm);
    let texts = texts(&svg);
    assert!(
        texts.iter().any(|t| t == fsm.role()),
        "{context}: no role name"
    );
    for (_, transition) in fsm.all_transitions() {
        let label = transition.action.to_string();
        assert!(
            texts.contains(&label),
            "{context}: role {}: no label `{label}` in {texts:?}",
            fsm.role()
        );
    }
    let states = (0..fsm.canonical().state_count()).map(|s| s.to_string());
    for state in states {
        assert!(texts.contains(&state), "{context}: no state {state}");
    }
}

fn messages(g: &Global, out: &mut Vec<String>) {
    match g {
        Global::End | Global::Continue(_) => {}
        Global::Message { message, cont, .. } => {
            out.push(message.to_string());
            messages(cont, out);
        }
        Global::Choice { branches, .. } => branches.iter().for_each(|b| messages(b, out)),
        Global::Rec { body, .. } => messages(body, out),
    }
}

#[test]
fn every_projection_of_every_protocol_is_drawn_with_every_label() {
    let mut drawn = 0;
    for (file, protocol) in protocols() {
        let Ok(projections) = project_all(&protocol) else {
            continue;
        };
        for p in projections {
            assert_fsm_picture(&p.fsm, &format!("{file}: {}", protocol.name.text));
            drawn += 1;
        }
    }
    assert!(drawn >= 50, "drew only {drawn} machines");
}

#[test]
fn every_protocol_is_charted_with_every_role_and_message() {
    for (file, protocol) in protocols() {
        let texts = texts(&global_chart(&protocol));
        for role in &protocol.roles {
            let heads = texts.iter().filter(|t| **t == role.text).count();
            assert_eq!(heads, 2, "{file}: role {} has a head and a foot", role.text);
        }
        let mut expected = Vec::new();
        messages(&protocol.body, &mut expected);
        for label in expected {
            assert!(texts.contains(&label), "{file}: no message `{label}`");
        }
    }
}

#[test]
fn the_benchmark_families_and_odd_machines_are_drawn() {
    for n in 1..=3 {
        for instance in [
            families::stream(n),
            families::ring(n + 1),
            families::nested_choice(n),
            families::k_buffering(n),
        ] {
            for fsm in instance.projected.iter().chain(&instance.optimised) {
                assert_fsm_picture(fsm, &format!("{:?} {n}", instance.family));
            }
        }
    }
    // Too large to lay out in reasonable time: a stand-in that says so.
    let big = &families::nested_choice(4).projected[0];
    assert!(big.state_count() > mpst_viz::fsm::MAX_STATES);
    let texts = texts(&fsm_svg(big));
    assert!(
        texts.iter().any(|t| t.contains("too large to draw")),
        "{texts:?}"
    );
    // A lone state; a self-loop; two edges between the same states; markup in names.
    let odd = [
        "digraph A { 0; }",
        "digraph A { 0 -> 0 [label=\"B!tick()\"]; }",
        "digraph A { 0 -> 1 [label=\"B!x()\"]; 0 -> 1 [label=\"B!y()\"]; 1 -> 0 [label=\"B?z()\"]; }",
        "digraph A { 0 -> 1 [label=\"B!m(Vec<i32>)\"]; 1 -> 2 [label=\"B?n(&str)\"]; 2 -> 0 [label=\"C!o()\"]; }",
    ];
    for dot in odd {
        for fsm in parse_dot(dot).expect("valid DOT") {
            assert_fsm_picture(&fsm, dot);
        }
    }
}

#[test]
fn a_run_is_charted_with_every_message_and_the_outcome() {
    let step = |role: &str, action: Action| mpst_fsm::kmc::Step {
        role: role.into(),
        action,
    };
    let trace = vec![
        step("A", Action::send("B", Message::new("ping"))),
        step("B", Action::receive("A", Message::new("ping"))),
        step("B", Action::send("C", Message::new("lost<&>"))),
    ];
    let svg = run_chart(&["A".into(), "B".into()], &trace, "deadlock: C waits");
    let texts = texts(&svg);
    for expected in [
        "A",
        "B",
        "C",
        "ping()",
        "lost<&>() (never received)",
        "deadlock: C waits",
    ] {
        assert!(
            texts.iter().any(|t| t == expected),
            "no `{expected}` in {texts:?}"
        );
    }
    // The empty run still shows its outcome.
    assert!(texts_of_empty_run().contains(&"deadlock at the start".to_string()));
}

fn texts_of_empty_run() -> Vec<String> {
    texts(&run_chart(&["A".into()], &[], "deadlock at the start"))
}

fn protocol(source: &str) -> GlobalProtocol {
    parse(source).expect("parses").remove(0)
}

#[test]
fn snapshot_a_two_party_machine_and_chart() {
    let p = protocol(
        "global protocol Adder(role C, role S) { add(i32) from C to S; add(i32) from C to S; \
         sum(i32) from S to C; }",
    );
    let projections = project_all(&p).expect("projects");
    insta::assert_snapshot!("adder_c_fsm", fsm_svg(&projections[0].fsm));
    insta::assert_snapshot!("adder_chart", global_chart(&p));
}

#[test]
fn snapshot_a_chart_with_a_loop_and_a_choice() {
    let p = protocol(
        "global protocol Stream(role S, role T) { rec Loop { ready() from T to S; \
         choice at S { value(i32) from S to T; continue Loop; } or { stop() from S to T; } } }",
    );
    insta::assert_snapshot!("stream_chart", global_chart(&p));
    let projections = project_all(&p).expect("projects");
    insta::assert_snapshot!("stream_t_fsm", fsm_svg(&projections[1].fsm));
}
