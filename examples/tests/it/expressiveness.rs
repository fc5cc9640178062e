//! The committed expressiveness table (`docs/EXPRESSIVENESS.md`) is what
//! `cargo run -p mpst-examples --bin expressiveness` computes from the examples now, and
//! its rows say what the examples' own tests assert.

use std::path::Path;

use mpst_examples::expressiveness::{COMMAND, Row, Verdict, render, rows};

fn computed() -> Vec<Row> {
    rows(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn row<'a>(rows: &'a [Row], name: &str) -> &'a Row {
    rows.iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no row `{name}`"))
}

#[test]
fn the_committed_table_is_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/EXPRESSIVENESS.md");
    let committed = std::fs::read_to_string(&path).unwrap();
    let table = render(&computed());
    assert!(table.contains(COMMAND));
    assert!(
        committed == table,
        "docs/EXPRESSIVENESS.md is stale: run `{COMMAND}` and commit it"
    );
}

#[test]
fn the_rows_agree_with_the_examples_tests() {
    let rows = computed();
    // Hospital: the plain protocol is verified; the unbounded optimisation by subtyping
    // (the witness trees of CONCUR'19 prove it), never by k-MC.
    let plain = row(&rows, "Hospital");
    assert_eq!(plain.bottom_up, Verdict::Verified("k = 1".into()));
    let optimised = row(&rows, "Optimised Hospital");
    assert!(optimised.amr && optimised.infinite && optimised.choice);
    assert_eq!(optimised.hybrid, Verdict::Verified(String::new()));
    assert!(matches!(&optimised.top_down, Verdict::Verified(_)));
    assert!(matches!(&optimised.bottom_up, Verdict::Rejected(why) if why.contains("not k-MC")));
    // Optimised streaming needs queues of 3, as its test asserts.
    let streaming = row(&rows, "Optimised Streaming");
    assert_eq!(streaming.bottom_up, Verdict::Verified("k = 3".into()));
    assert_eq!(streaming.hybrid, Verdict::Verified(String::new()));
    // Every other row is verified by every workflow that applies to it.
    for r in &rows {
        assert!(matches!(r.top_down, Verdict::Verified(_)), "{r:?}");
        if r.name != "Optimised Hospital" {
            assert!(matches!(r.bottom_up, Verdict::Verified(_)), "{r:?}");
        }
        assert!(!matches!(r.hybrid, Verdict::Rejected(_)), "{r:?}");
        assert_eq!(r.amr, r.name.starts_with("Optimised"), "{r:?}");
    }
    // Every example with an optimised process has its optimised row, and only those.
    let examples = Path::new(env!("CARGO_MANIFEST_DIR"));
    for plain in rows.iter().filter(|r| !r.amr) {
        let has_optimised = examples
            .join(&plain.directory)
            .join("optimised.rs")
            .is_file();
        let optimised_row = rows.iter().any(|r| r.amr && r.directory == plain.directory);
        assert_eq!(has_optimised, optimised_row, "{}", plain.directory);
    }
    // The classics of the protocol toolchain are generated at build time.
    for classic in [
        "ThreeBuyers",
        "TravelAgency",
        "OAuth",
        "PlusMinus",
        "RingMax",
        "MapReduce",
        "SimpleAuth",
    ] {
        assert_eq!(row(&rows, classic).api, "generated at build time");
    }
    // The features of a few rows, as Table 1 gives them.
    let fft = row(&rows, "Fft");
    assert_eq!((fft.roles, fft.choice, fft.recursion), (8, false, false));
    let ring = row(&rows, "Ring");
    assert_eq!(
        (ring.roles, ring.choice, ring.recursion, ring.infinite),
        (3, false, true, true)
    );
    let two = row(&rows, "TwoAdder");
    assert_eq!(
        (two.roles, two.choice, two.recursion, two.infinite),
        (2, true, true, false)
    );
}
