//! Soundness of the witness trees on pairs they prove: random members of the CONCUR'19
//! families (random sizes, labels and extra branches) and random mutations of them,
//! and random subtypes with an outer and an inner loop that both send ahead (the
//! shape of the tool's `snewex1`, whose paths mix the loops).
//! Whatever `check` proves is safe beside the supertype's dual under a bounded
//! exploration; whatever it refutes really goes wrong there.

use mpst_fsm::subtype::{Options, Proof, TreeBudget, Verdict, check};
use mpst_fsm::witness::{Budget, against_dual, replays_to_wrong_against_dual};
use mpst_fsm::{Fsm, LocalType};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

fn fsm(text: &str) -> Fsm {
    LocalType::parse(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .to_fsm("r")
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

const OPTIONS: Options = Options {
    visits: 100,
    max_steps: 5_000,
    max_depth: 5_000,
    witness: Budget {
        max_configurations: 20_000,
        max_queue: 8,
    },
    trees: TreeBudget {
        max_nodes: 5_000,
        max_work: 500_000,
        max_tree: 65_536,
    },
    time_limit: None,
};

/// One family member: per round the subtype sends `sends` messages (labels `a…`) ahead
/// and then receives one of `offered` labels (`b…`); the supertype sends one of its
/// `choices` labels and receives one of `expected` labels. A subtype when
/// `sends ≤ choices` and `expected ≤ offered` (and one send per round with `tail`,
/// which adds a send `z` after the receive in both).
#[derive(Debug, Clone, Copy)]
struct Member {
    sends: usize,
    choices: usize,
    offered: usize,
    expected: usize,
    tail: bool,
}

impl Member {
    fn texts(self) -> (String, String) {
        let tail = if self.tail { "p!z(). " } else { "" };
        let seq: Vec<String> = (0..self.sends).map(|i| format!("p!a{i}()")).collect();
        let offered: Vec<String> = (0..self.offered)
            .map(|i| format!("b{i}(). {tail}x"))
            .collect();
        let expected: Vec<String> = (0..self.expected)
            .map(|i| format!("b{i}(). {tail}x"))
            .collect();
        let sub = format!("rec x. {}. p?{{{}}}", seq.join(". "), offered.join(", "));
        let choices: Vec<String> = (0..self.choices)
            .map(|i| format!("a{i}(). p?{{{}}}", expected.join(", ")))
            .collect();
        (sub, format!("rec x. p!{{{}}}", choices.join(", ")))
    }

    fn is_subtype(self) -> bool {
        // With the tail, the supertype sends `z` after each receive where the subtype
        // sends its next `a`: only one send per round then lines up.
        self.sends <= self.choices
            && self.expected <= self.offered
            && (!self.tail || self.sends == 1)
    }
}

fn members() -> impl Strategy<Value = Member> {
    (1..5usize, 1..5usize, 1..4usize, 1..4usize, any::<bool>()).prop_map(
        |(sends, choices, offered, expected, tail)| Member {
            sends,
            choices,
            offered,
            expected,
            tail,
        },
    )
}

/// A subtype `rec x. p!{…}` whose outer branches send a label and receive `outer`
/// times, and, with `inner`, a branch `y` into a loop that receives `inner` times and
/// then sends `y` (stay) or `x` (receive `outer` times and leave); the supertype
/// receives `receives` times per round and then sends one of its labels. The masks
/// pick the labels (`x`, `z`, `w` outer; `x`, `y`, `z`, `w` in the supertype).
#[derive(Debug, Clone, Copy)]
struct TwoLoops {
    outer_labels: u8,
    outer: usize,
    inner: Option<usize>,
    receives: usize,
    sup_labels: u8,
}

impl TwoLoops {
    fn texts(self) -> (String, String) {
        let rcv = |n: usize| "p?a(). ".repeat(n);
        let mut branches: Vec<String> = ["x", "z", "w"]
            .iter()
            .enumerate()
            .filter(|(i, _)| self.outer_labels & (1 << i) != 0)
            .map(|(_, l)| format!("{l}(). {}x", rcv(self.outer)))
            .collect();
        if let Some(inner) = self.inner {
            branches.push(format!(
                "y(). rec y. {}p!{{x(). {}x, y(). y}}",
                rcv(inner),
                rcv(self.outer)
            ));
        }
        let sup: Vec<String> = ["x", "y", "z", "w"]
            .iter()
            .enumerate()
            .filter(|(i, _)| self.sup_labels & (1 << i) != 0)
            .map(|(_, l)| format!("{l}(). x"))
            .collect();
        (
            format!("rec x. p!{{{}}}", branches.join(", ")),
            format!("rec x. {}p!{{{}}}", rcv(self.receives), sup.join(", ")),
        )
    }
}

fn two_loops() -> impl Strategy<Value = TwoLoops> {
    (
        1..8u8,
        0..3usize,
        proptest::option::of(0..3usize),
        1..4usize,
        1..16u8,
    )
        .prop_map(
            |(outer_labels, outer, inner, receives, sup_labels)| TwoLoops {
                outer_labels,
                outer,
                inner,
                receives,
                sup_labels,
            },
        )
}

/// Checks the pair: whatever is proved is safe beside the supertype's dual under a
/// bounded exploration (and within the node budget), whatever is refuted replays to a
/// run that goes wrong there.
fn checked(sub_text: &str, sup_text: &str) -> Result<Verdict, TestCaseError> {
    let (sub, sup) = (fsm(sub_text), fsm(sup_text));
    let verdict = check(&sub, &sup, &OPTIONS);
    match &verdict {
        Verdict::Subtype(stats) => {
            if let Proof::WitnessTrees { nodes, .. } = stats.proof {
                prop_assert!(nodes <= OPTIONS.trees.max_nodes);
            }
            let search = against_dual(&sub, &sup, &OPTIONS.witness);
            prop_assert!(
                search.wrong_run().is_none(),
                "{sub_text} ≤ {sup_text} proved, yet {}",
                search.wrong_run().unwrap()
            );
        }
        Verdict::NotSubtype(refutation) => {
            prop_assert!(replays_to_wrong_against_dual(
                &sub,
                &sup,
                &refutation.run.trace
            ));
        }
        Verdict::Unknown(_) => {}
    }
    Ok(verdict)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn what_the_trees_prove_is_safe_beside_the_dual(member in members()) {
        let (sub_text, sup_text) = member.texts();
        let verdict = checked(&sub_text, &sup_text)?;
        // Sends ahead of growing contexts: the trees prove every subtype here, and
        // nothing else is proved.
        prop_assert_eq!(
            verdict.is_subtype(),
            member.is_subtype(),
            "{} ≤ {}: {}",
            sub_text,
            sup_text,
            verdict
        );
    }

    #[test]
    fn what_the_trees_prove_on_two_loops_is_safe_beside_the_dual(shape in two_loops()) {
        let (sub_text, sup_text) = shape.texts();
        checked(&sub_text, &sup_text)?;
    }
}

#[test]
fn the_two_loop_shapes_include_the_tools_pair_and_it_is_proved() {
    // `snewex1 ≤ snewex2`: outer `x` and `z` receiving once, the inner loop receiving
    // once, the supertype receiving twice per round and sending `x`, `y` or `z`.
    let shape = TwoLoops {
        outer_labels: 0b011,
        outer: 1,
        inner: Some(1),
        receives: 2,
        sup_labels: 0b0111,
    };
    let (sub, sup) = shape.texts();
    let verdict = check(&fsm(&sub), &fsm(&sup), &OPTIONS);
    assert!(
        matches!(&verdict, Verdict::Subtype(s) if matches!(s.proof, Proof::WitnessTrees { .. })),
        "{sub} ≤ {sup}: {verdict}"
    );
}
