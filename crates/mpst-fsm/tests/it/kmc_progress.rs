//! The k-MC exploration reports its progress: counts that grow, every
//! `REPORT_EVERY` configurations, never past the final count; and the verdict is the
//! same as without an observer.

use mpst_fsm::families;
use mpst_fsm::kmc::{KmcOptions, REPORT_EVERY, check_kmc_observed, check_kmc_with};

/// `n` pairs of roles that never talk across pairs: `a_i` streams `m` to `b_i`
/// forever. Without reduction the configurations are the product of the pairs'.
fn independent_pairs(n: usize) -> Vec<mpst_fsm::Fsm> {
    let mut dot = String::new();
    for i in 0..n {
        dot.push_str(&format!(
            "digraph a{i} {{ 0 -> 0 [label=\"b{i}!m()\"]; }}\n\
             digraph b{i} {{ 0 -> 0 [label=\"a{i}?m()\"]; }}\n"
        ));
    }
    mpst_fsm::format::parse_dot(&dot).expect("valid DOT")
}

#[test]
fn a_long_check_reports_growing_counts_and_the_same_verdict() {
    let system = independent_pairs(8);
    let mut options = KmcOptions::new(2);
    options.reduce = false;
    let mut seen = Vec::new();
    let report = check_kmc_observed(&system, &options, &mut |n| seen.push(n)).expect("runs");
    assert!(
        report.configurations > 2 * REPORT_EVERY,
        "the test needs a long check: {} configurations",
        report.configurations
    );
    assert!(seen.len() >= 2, "reported {seen:?}");
    assert!(
        seen.windows(2).all(|w| w[1] >= w[0] + REPORT_EVERY),
        "{seen:?}"
    );
    assert!(seen.iter().all(|&n| n <= report.configurations));
    assert_eq!(report, check_kmc_with(&system, &options).expect("runs"));
}

#[test]
fn a_short_check_reports_nothing() {
    let system = families::ring(2).projected;
    let mut seen = Vec::new();
    let report =
        check_kmc_observed(&system, &KmcOptions::new(1), &mut |n| seen.push(n)).expect("runs");
    assert!(report.configurations < REPORT_EVERY);
    assert!(seen.is_empty());
}
