//! Inputs over 1 MiB with several digraphs are read on several threads: the machines,
//! and the first error, are exactly those of reading digraph after digraph.

use mpst_fsm::Fsm;
use mpst_fsm::families;
use mpst_fsm::format::{DotError, parse_dot, parse_dot_nondeterministic, write_dot};

/// A ring large enough (over 1 MiB of DOT) to be read in shares.
fn ring_dot() -> (Vec<Fsm>, Vec<String>) {
    let system = families::ring(12_000).optimised_system();
    let texts: Vec<String> = system.iter().map(write_dot).collect();
    assert!(texts.iter().map(String::len).sum::<usize>() > 1 << 20);
    (system, texts)
}

/// The line (1-based) on which digraph `i` of `texts` starts.
fn line_of(texts: &[String], i: usize) -> usize {
    texts[..i].iter().map(|t| t.lines().count()).sum::<usize>() + 1
}

#[test]
fn a_large_system_reads_as_its_digraphs_one_by_one() {
    let (system, texts) = ring_dot();
    let read = parse_dot(&texts.concat()).unwrap();
    assert_eq!(read.len(), system.len());
    for (i, (fsm, text)) in read.iter().zip(&texts).enumerate() {
        assert_eq!(fsm, &system[i].canonical(), "digraph {i}");
        if i % 101 == 0 {
            assert_eq!(fsm, &parse_dot(text).unwrap()[0], "digraph {i}");
        }
    }
}

#[test]
fn the_first_error_is_reported_wherever_the_shares_are_cut() {
    let (_, texts) = ring_dot();
    let n = texts.len();
    // A bad label near the end, and another near the start: the earlier one is
    // reported, with its line.
    for bad in [n - 3, 5] {
        let mut broken = texts.clone();
        broken[bad] = broken[bad].replacen("label=\"", "label=\"#", 1);
        let mut twice = broken.clone();
        twice[n / 2] = broken[bad].clone();
        for (input, first) in [(broken.concat(), bad), (twice.concat(), bad.min(n / 2))] {
            let err: DotError = parse_dot(&input).unwrap_err();
            let want_line = line_of(&texts, first);
            assert!(
                (want_line..want_line + 6).contains(&err.line),
                "bad digraph {bad}: error on line {} ({}), expected just after {want_line}",
                err.line,
                err.message
            );
            assert!(err.message.contains("label"), "{}", err.message);
        }
    }
}

#[test]
fn a_duplicate_role_across_shares_is_reported_at_the_second() {
    let (_, mut texts) = ring_dot();
    let n = texts.len();
    texts.push(texts[3].clone());
    let err = parse_dot(&texts.concat()).unwrap_err();
    assert_eq!(err.line, line_of(&texts, n), "{}", err.message);
    let first = line_of(&texts, 3);
    assert!(
        err.message.contains(&format!(
            "two digraphs are named `r3` (the first on line {first})"
        )),
        "{}",
        err.message
    );
}

#[test]
fn a_scan_misled_by_a_comment_falls_back_to_one_thread() {
    // An ideographic space before `#` still makes a comment line for the reader,
    // but the light scan takes its `}` for the end of the digraph.
    let (system, texts) = ring_dot();
    let misleading: Vec<String> = texts
        .iter()
        .map(|t| t.replacen('{', "{\n\u{3000}# } digraph x {\n", 1))
        .collect();
    let read = parse_dot_nondeterministic(&misleading.concat()).unwrap();
    assert_eq!(read.len(), system.len());
    for (fsm, want) in read.iter().zip(&system) {
        assert_eq!(fsm, &want.canonical());
    }
}
