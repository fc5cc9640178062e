//! Soundness of what the front end accepts: the projections of every protocol of the
//! repository (`examples/`, `tests/protocols/`) and of `continue`-led and non-tail `do`
//! shapes form a system that is k-multiparty compatible for a small k.

use std::path::{Path, PathBuf};

use mpst_fsm::kmc::check_kmc;
use mpst_scribble::{check, parse, project_all};

fn scribble_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() && !path.ends_with("invalid") {
            scribble_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "scr") {
            out.push(path);
        }
    }
}

/// Asserts that every protocol of `source` is well-formed and its projections k-MC.
fn assert_kmc(name: &str, source: &str, k: usize) -> usize {
    let protocols = parse(source).unwrap_or_else(|d| panic!("{name}: {d:?}"));
    for protocol in &protocols {
        assert!(check(protocol).is_empty(), "{name}: {:?}", check(protocol));
        let fsms: Vec<_> = project_all(protocol)
            .unwrap_or_else(|d| panic!("{name}: {d:?}"))
            .into_iter()
            .map(|p| p.fsm)
            .collect();
        let report = check_kmc(&fsms, k).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            report.is_kmc(),
            "{name} `{}`: {report:?}",
            protocol.name.text
        );
    }
    protocols.len()
}

#[test]
fn every_repository_protocol_projects_to_a_kmc_system() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    scribble_files(&manifest.join("../../examples"), &mut files);
    scribble_files(&manifest.join("tests/protocols"), &mut files);
    let mut count = 0;
    for file in &files {
        let source = std::fs::read_to_string(file).unwrap();
        count += assert_kmc(&file.display().to_string(), &source, 2);
    }
    assert!(count >= 20, "{count} protocols in {files:?}");
}

#[test]
fn continue_led_branches_accepted_by_unfolding_are_kmc() {
    let shapes = [
        // The branch loops back to the start of the recursion.
        "global protocol P(role A, role B) { rec X { tick() from A to B; choice at A { continue X; } or { stop() from A to B; } } }",
        // A third role learns the choice from a relay.
        "global protocol P(role A, role B, role C) { rec X { a() from A to B; a() from B to C; choice at A { b() from A to B; b() from B to C; continue X; } or { continue X; } } }",
        // The loop-back branch of a choice with more than the choice after it.
        "global protocol P(role A, role B) { rec X { a() from A to B; x() from B to A; choice at A { b() from A to B; c() from B to A; } or { continue X; } } }",
    ];
    for (i, source) in shapes.iter().enumerate() {
        assert_kmc(&format!("shape {i}"), source, 2);
    }
}

#[test]
fn two_choices_with_continue_led_branches_to_one_rec_are_still_rejected() {
    // Unfolded (see `unfold.rs`), but the inner branch then starts with A's message
    // while B chooses: still "choice not directed".
    let source = "global protocol P(role A, role B) { rec X { a() from A to B; x() from B to A; choice at A { continue X; } or { b() from A to B; choice at B { continue X; } or { c() from B to A; } } } }";
    let protocols = parse(source).expect("parses");
    let errors = check(&protocols[0]);
    assert!(!errors.is_empty());
    assert!(
        errors
            .iter()
            .all(|d| d.kind == mpst_scribble::ErrorKind::UndirectedChoice)
    );
}

#[test]
fn non_tail_do_of_a_recursive_protocol_is_kmc() {
    let source = "global protocol Clock(role A, role B) { choice at A { tick() from A to B; do Clock(A, B); } or { stop() from A to B; } }
global protocol Main(role A, role B) { do Clock(A, B); done() from B to A; do Clock(B, A); }";
    assert_eq!(assert_kmc("clock", source, 2), 2);
}

/// scribble-java's good `Choice11`: B learns the choice only from the first message of
/// the next round (`1` when A looped back, `2` otherwise). Merging unfolds the loop.
#[test]
fn choice11_merges_a_loop_back_with_a_reception_into_a_2mc_system() {
    let source = "global protocol Choice11(role A, role B, role C) { rec X { 1() from A to B; choice at A { 1() from A to C; continue X; } or { 2() from A to B; 2() from A to C; } } }";
    let protocols = parse(source).expect("parses");
    let b = mpst_scribble::project(&protocols[0], "B").expect("B projects");
    assert_eq!(b.to_string(), "A?1(). rec M0. A?{1(). M0, 2(). end}");
    assert_eq!(assert_kmc("Choice11", source, 2), 1);
}

/// `Choice11` with more exits, and with an inner loop the bystander stays in: unfolding
/// merges with three branches at once and under a second `rec`.
#[test]
fn loop_backs_merged_with_several_receptions_are_2mc() {
    let shapes = [
        (
            "global protocol P(role A, role B, role C) { rec X { 1() from A to B; choice at A { 1() from A to C; continue X; } or { 2() from A to B; 2() from A to C; } or { 3() from A to B; 3() from A to C; } } }",
            "A?1(). rec M0. A?{1(). M0, 2(). end, 3(). end}",
        ),
        (
            "global protocol P(role A, role B, role C) { rec X { 1() from A to B; rec Y { choice at A { 1() from A to C; continue X; } or { 2() from A to B; 2() from A to C; continue Y; } or { 3() from A to B; 3() from A to C; } } } }",
            "A?1(). rec Y. rec M0. A?{1(). M0, 2(). Y, 3(). end}",
        ),
    ];
    for (i, (source, b)) in shapes.iter().enumerate() {
        let protocols = parse(source).expect("parses");
        let local = mpst_scribble::project(&protocols[0], "B").expect("B projects");
        assert_eq!(local.to_string(), *b, "shape {i}");
        assert_kmc(&format!("shape {i}"), source, 2);
    }
}
