//! Random pairs of small machines through `subtype::check`: every answer arrives
//! within the budget (counted in steps, never in time), what is proved is safe beside
//! the supertype's dual (an independent search finds no run that goes wrong), and
//! every refutation's run really goes wrong when replayed — and not beside the
//! supertype itself.

use mpst_fsm::subtype::{NotWitnessed, Options, Proof, Verdict, check};
use mpst_fsm::witness::{Search, against_dual, dual_is_a_context, replays_to_wrong_against_dual};
use mpst_fsm::{Action, Message};
use proptest::prelude::*;

use crate::spec_machine;
use crate::support;
use spec_machine::{Spec, machine};

fn specs() -> impl Strategy<Value = Vec<Spec>> {
    prop::collection::vec(
        (0..5usize, 0..2usize, any::<bool>(), 0..3usize, 0..5usize),
        1..9,
    )
}

const OPTIONS: Options = support::subtyping_options(1000);

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_answer_is_within_the_budget_and_sound(sub in specs(), sup in specs(), mutate in any::<bool>()) {
        let sup = machine(&sup);
        // Half of the pairs are a machine against a variant of itself.
        let sub = if mutate { machine(&sub) } else {
            let mut same = sup.clone();
            if let Some(s) = (0..same.state_count()).find(|&s| !same.is_final(s)) {
                let first = same.transitions(s)[0].action.clone();
                let extra = same.add_state();
                let _ = same.add_transition(s, Action { message: Message::new("d"), ..first }, extra);
            }
            same
        };
        let verdict = check(&sub, &sup, &OPTIONS);
        match &verdict {
            Verdict::Subtype(stats) => {
                prop_assert!(stats.pairs_explored <= OPTIONS.max_steps);
                prop_assert!(stats.max_depth <= OPTIONS.max_depth);
                // Soundness: beside the supertype's dual nothing goes wrong (when the
                // dual is a context the supertype itself is safe in).
                if dual_is_a_context(&sup) {
                    let search = against_dual(&sub, &sup, &OPTIONS.witness);
                    prop_assert!(search.wrong_run().is_none(), "proved, yet {}", search.wrong_run().unwrap());
                }
            }
            Verdict::NotSubtype(refutation) => {
                prop_assert!(dual_is_a_context(&sup));
                prop_assert!(refutation.not_proved.steps <= OPTIONS.max_steps + 1);
                prop_assert!(replays_to_wrong_against_dual(&sub, &sup, &refutation.run.trace), "{}", verdict);
                prop_assert!(!replays_to_wrong_against_dual(&sup, &sup, &refutation.run.trace), "{}", verdict);
            }
            Verdict::Unknown(unknown) => {
                prop_assert!(unknown.not_proved.steps <= OPTIONS.max_steps + 1);
                match &unknown.search {
                    Some(Search::Safe(n)) | Some(Search::GaveUp(_, n)) => {
                        prop_assert!(*n <= OPTIONS.witness.max_configurations);
                    }
                    Some(Search::Found(_)) => prop_assert!(false, "a wrong run found, yet unknown"),
                    None => {}
                }
                prop_assert!(!verdict.to_string().contains("not a subtype"), "{}", verdict);
            }
        }
    }
}

/// Up to 20 states and 40 transitions.
fn specs20() -> impl Strategy<Value = Vec<Spec>> {
    prop::collection::vec(
        (0..20usize, 0..2usize, any::<bool>(), 0..3usize, 0..20usize),
        1..41,
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Machines of up to 20 states: every answer is reached within each budget, as the
    /// searches account for them (steps of the rules, nodes and work of the witness
    /// trees, configurations of the search for a wrong run) — never measured in time.
    /// (Release-mode wall times with the *default* budgets are measured by
    /// `examples/budget_times.rs` and tabulated in BENCHMARKS.md.)
    #[test]
    fn every_answer_on_twenty_states_is_within_each_budget(sub in specs20(), sup in specs20()) {
        let (sub, sup) = (machine(&sub), machine(&sup));
        let verdict = check(&sub, &sup, &OPTIONS);
        let (steps, trees) = match &verdict {
            Verdict::Subtype(stats) => {
                let nodes = match stats.proof {
                    Proof::Rules => {
                        prop_assert!(stats.max_depth <= OPTIONS.max_depth);
                        None
                    }
                    Proof::WitnessTrees { nodes, work, .. } => Some((nodes, work)),
                };
                (stats.pairs_explored, nodes)
            }
            Verdict::NotSubtype(r) => (r.not_proved.steps, None),
            Verdict::Unknown(u) => {
                if let Some(Search::Safe(n) | Search::GaveUp(_, n)) = &u.search {
                    prop_assert!(*n <= OPTIONS.witness.max_configurations);
                }
                let nodes = match &u.witness_trees {
                    Some(NotWitnessed::Budget { nodes, work, .. }) => Some((*nodes, *work)),
                    _ => None,
                };
                (u.not_proved.steps, nodes)
            }
        };
        prop_assert!(steps <= OPTIONS.max_steps + 1, "{steps} steps: {verdict}");
        if let Some((nodes, work)) = trees {
            prop_assert!(nodes <= OPTIONS.trees.max_nodes, "{nodes} nodes: {verdict}");
            prop_assert!(work <= OPTIONS.trees.max_work, "{work} units of work: {verdict}");
        }
    }
}
