//! The DOT we write is tidy (no blank lines, no trailing separators or spaces), marks
//! the initial state (`style=bold`) and the final states (`peripheries=2`), and is
//! read back to the same machine both by our reader (the nuscr dialect) and by an
//! independent full DOT parser (graphviz-rust), which sees the same edges and marks.

use graphviz_rust::dot_structures::{Attribute, EdgeTy, Graph, Id, NodeId, Stmt, Vertex};
use mpst_fsm::format::{parse_dot, write_dot};
use mpst_fsm::{Action, Fsm, Message, Payload, StateKind, families};

/// Machines of every shape: the paper's families (loops, choices, several peers) and
/// machines with ends, named payloads and a role name that needs quoting.
fn machines() -> Vec<Fsm> {
    let mut all = Vec::new();
    for instance in [
        families::stream(3),
        families::nested_choice(2),
        families::ring(3),
        families::k_buffering(2),
    ] {
        all.extend(instance.projected.iter().cloned());
        all.extend(instance.optimised.iter().cloned());
    }
    let mut choice = Fsm::new("my role");
    let (more, done) = (choice.add_state(), choice.add_state());
    let add = Message::with_payloads(
        "add",
        vec![Payload::named("x", "i32"), Payload::new("String")],
    );
    choice
        .add_transition(0, Action::receive("C", add), more)
        .unwrap();
    choice
        .add_transition(0, Action::receive("C", Message::new("quit")), done)
        .unwrap();
    choice
        .add_transition(more, Action::send("C", Message::new("ok")), 0)
        .unwrap();
    all.push(choice);
    all.push(Fsm::new("idle"));
    all
}

/// An ID's text, unquoted.
fn text(id: &Id) -> String {
    match id {
        Id::Escaped(s) => s
            .trim_matches('"')
            .replace("\\\"", "\"")
            .replace("\\\\", "\\"),
        Id::Plain(s) | Id::Html(s) | Id::Anonymous(s) => s.clone(),
    }
}

fn attribute<'a>(attributes: &'a [Attribute], key: &str) -> Option<&'a Id> {
    attributes.iter().find(|a| text(&a.0) == key).map(|a| &a.1)
}

fn node(vertex: &Vertex) -> String {
    match vertex {
        Vertex::N(NodeId(id, _)) => text(id),
        Vertex::S(_) => panic!("no subgraphs are written"),
    }
}

#[test]
fn the_layout_is_tidy() {
    for fsm in machines() {
        let dot = write_dot(&fsm);
        for line in dot.lines() {
            assert!(!line.trim().is_empty(), "a blank line in\n{dot}");
            assert_eq!(line, line.trim_end(), "trailing spaces in\n{dot}");
            assert!(!line.contains(", ]") && !line.contains(",]"), "{dot}");
        }
        assert!(dot.ends_with("\n}\n"), "{dot}");
    }
}

#[test]
fn our_reader_reads_every_machine_back() {
    for fsm in machines() {
        let dot = write_dot(&fsm);
        let back = parse_dot(&dot).unwrap_or_else(|e| panic!("{e}\n{dot}"));
        assert_eq!(back.len(), 1);
        assert!(back[0].is_isomorphic(&fsm), "{dot}");
        assert_eq!(back[0].role(), fsm.role());
        assert_eq!(write_dot(&back[0]), dot, "writing is a fixed point");
    }
}

#[test]
fn a_full_dot_parser_sees_the_same_edges_and_the_marks() {
    for fsm in machines() {
        let dot = write_dot(&fsm);
        let canonical = fsm.canonical();
        let graph = graphviz_rust::parse(&dot).unwrap_or_else(|e| panic!("{e}\n{dot}"));
        let Graph::DiGraph { id, stmts, .. } = graph else {
            panic!("a digraph: {dot}");
        };
        assert_eq!(text(&id), fsm.role());
        let mut edges = Vec::new();
        let (mut bold, mut double) = (Vec::new(), Vec::new());
        for stmt in &stmts {
            match stmt {
                Stmt::Edge(edge) => {
                    let EdgeTy::Pair(from, to) = &edge.ty else {
                        panic!("one edge per statement: {dot}");
                    };
                    let label = attribute(&edge.attributes, "label").expect("a label");
                    edges.push((node(from), node(to), text(label)));
                }
                Stmt::Node(n) => {
                    let name = text(&n.id.0);
                    if attribute(&n.attributes, "style").map(text).as_deref() == Some("bold") {
                        bold.push(name.clone());
                    }
                    if attribute(&n.attributes, "peripheries").map(text).as_deref() == Some("2") {
                        double.push(name);
                    }
                }
                other => panic!("only nodes and edges are written, not {other:?}"),
            }
        }
        let expected: Vec<_> = canonical
            .all_transitions()
            .map(|(s, t)| (s.to_string(), t.target.to_string(), t.action.to_string()))
            .collect();
        assert_eq!(edges, expected, "{dot}");
        assert_eq!(bold, ["0"], "the initial state is bold: {dot}");
        let finals: Vec<String> = (0..canonical.state_count())
            .filter(|&s| canonical.kind(s) == StateKind::End)
            .map(|s| s.to_string())
            .collect();
        assert_eq!(double, finals, "{dot}");
    }
}
