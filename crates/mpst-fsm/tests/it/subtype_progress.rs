//! The subtyping proof search reports its progress: counts that grow by at least
//! `REPORT_EVERY` configurations between reports, never past the configurations
//! explored; and the verdict is the same as without an observer.

use mpst_fsm::families;
use mpst_fsm::subtype::{Options, REPORT_EVERY, TreeBudget, Verdict, check, check_observed};

#[test]
fn a_long_proof_reports_growing_counts_and_the_same_verdict() {
    let instance = families::nested_choice(5);
    let (sub, sup) = instance.checks()[0];
    let options = Options::new(instance.visits);
    let mut seen = Vec::new();
    let verdict = check_observed(sub, sup, &options, &mut |n| seen.push(n));
    let Verdict::Subtype(stats) = &verdict else {
        panic!("nested choice is proved: {verdict}")
    };
    assert!(
        stats.pairs_explored > 2 * REPORT_EVERY,
        "the test needs a long check: {} configurations",
        stats.pairs_explored
    );
    assert_eq!(seen.len() as u64, stats.pairs_explored / REPORT_EVERY);
    assert_eq!(seen.first(), Some(&REPORT_EVERY));
    assert!(
        seen.windows(2).all(|w| w[1] == w[0] + REPORT_EVERY),
        "{seen:?}"
    );
    assert!(seen.iter().all(|&n| n <= stats.pairs_explored));
    assert_eq!(verdict, check(sub, sup, &options));
}

#[test]
fn a_search_stopped_by_its_budget_reports_up_to_the_budget() {
    // The same long proof with a budget it cannot finish in: the answer is unknown,
    // the reports stop at the budget and the verdict is `check`'s. (The witness trees,
    // which are not observed, would prove it: they get no budget here.)
    let instance = families::nested_choice(5);
    let (sub, sup) = instance.checks()[0];
    let options = Options {
        max_steps: 3 * REPORT_EVERY + 10,
        trees: TreeBudget {
            max_nodes: 1,
            ..TreeBudget::default()
        },
        ..Options::new(instance.visits)
    };
    let mut seen = Vec::new();
    let verdict = check_observed(sub, sup, &options, &mut |n| seen.push(n));
    assert!(matches!(verdict, Verdict::Unknown(_)), "{verdict}");
    assert_eq!(seen, [1, 2, 3].map(|i| i * REPORT_EVERY));
    assert_eq!(verdict, check(sub, sup, &options));
}

#[test]
fn a_short_check_reports_nothing() {
    let instance = families::ring(2);
    let mut seen = Vec::new();
    for (sub, sup) in instance.checks() {
        let options = Options::new(instance.visits);
        let verdict = check_observed(sub, sup, &options, &mut |n| seen.push(n));
        let Verdict::Subtype(stats) = &verdict else {
            panic!("the ring is proved: {verdict}")
        };
        assert!(stats.pairs_explored < REPORT_EVERY);
    }
    assert!(seen.is_empty(), "{seen:?}");
}
