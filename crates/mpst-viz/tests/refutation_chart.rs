//! A subtyping refutation drawn by `run_chart`, the one drawer of runs (`mpst subtype
//! --trace-format svg` and `mpst report` both use it), and written as Mermaid text:
//! every message of the run that goes wrong is an arrow with its label.

use mpst_fsm::format::write_sequence_mermaid;
use mpst_fsm::subtype::{Options, Verdict, check};
use mpst_fsm::{Fsm, LocalType};
use mpst_viz::run_chart;

fn fsm(text: &str) -> Fsm {
    LocalType::parse(text).unwrap().to_fsm("r").unwrap()
}

#[test]
fn a_refutation_is_charted_with_every_message_of_its_run() {
    let (sub, sup) = (fsm("q!a(). q!b(). q?c(). end"), fsm("q!a(). q?c(). end"));
    let Verdict::NotSubtype(refutation) = check(&sub, &sup, &Options::default()) else {
        panic!("not refuted")
    };
    let run = &refutation.run;
    let sends: Vec<_> = run.trace.iter().filter(|s| s.action.is_send()).collect();
    assert!(!sends.is_empty());
    let outcome = run.kind.to_string();
    let svg = run_chart(&[], &run.trace, &outcome);
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    let messages = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("message"))
        .count();
    assert_eq!(messages, sends.len(), "{svg}");
    for step in &sends {
        let label = format!("{}()", step.action.message.label);
        assert!(
            doc.descendants()
                .any(|n| n.text().is_some_and(|t| t.starts_with(&label))),
            "{label} missing from {svg}"
        );
    }
    assert!(
        doc.descendants()
            .any(|n| n.text() == Some(outcome.as_str())),
        "no outcome in {svg}"
    );
    // Its Mermaid text (`--trace-format mermaid`) holds every message too.
    let mermaid = write_sequence_mermaid(&[], &run.trace, &outcome);
    assert!(mermaid.starts_with("sequenceDiagram\n"), "{mermaid}");
    let arrows = mermaid.matches("-)").count() + mermaid.matches("-x").count();
    assert_eq!(arrows, sends.len(), "{mermaid}");
}
