//! Subtyping is closed under duality (`T ≤ S` exactly when `dual(S) ≤ dual(T)`), which
//! the witness trees use when the pair itself is not a witness (and the CONCUR'19 tool
//! in its second pass). Random pairs are checked both ways and the answers must never
//! contradict: what one direction proves, the other never refutes. The rules of Fig. 5
//! do not use duality and refutations come from runs, so this tests the duality the
//! trees rely on, and the runs that refute (among them messages left unread by a send
//! loop), against each other.

use mpst_fsm::Fsm;
use mpst_fsm::subtype::{Options, Verdict, check};
use proptest::prelude::*;

use crate::spec_machine;
use crate::support;
use spec_machine::{Spec, machine};

const OPTIONS: Options = support::subtyping_options(100);

/// The dual of a machine: sends and receives swapped.
fn dual(fsm: &Fsm) -> Fsm {
    let mut out = Fsm::new(fsm.role());
    while out.state_count() < fsm.state_count() {
        out.add_state();
    }
    out.set_initial(fsm.initial()).unwrap();
    for (from, t) in fsm.all_transitions() {
        let mut action = t.action.clone();
        action.direction = action.direction.dual();
        out.add_transition(from, action, t.target).unwrap();
    }
    out
}

/// Up to 5 states, one peer (`p`) or two.
fn specs(peers: usize) -> impl Strategy<Value = Vec<Spec>> {
    prop::collection::vec(
        (0..5usize, 0..peers, any::<bool>(), 0..3usize, 0..5usize),
        1..9,
    )
}

fn agree(forward: &Verdict, backward: &Verdict) -> bool {
    !(forward.is_subtype() && backward.is_refuted()
        || forward.is_refuted() && backward.is_subtype())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_pair_and_its_duals_never_get_contradicting_answers(
        sub in specs(1),
        sup in specs(1),
        two_peers in specs(2),
        pick in 0..3usize,
    ) {
        // Independent machines, a machine against a variant with an extra branch, or
        // two machines of two peers.
        let (sub, sup) = match pick {
            0 => (machine(&sub), machine(&sup)),
            1 => {
                let sup = machine(&sup);
                let mut sub_specs: Vec<Spec> = Vec::new();
                sub_specs.extend(sub.iter().take(2));
                let mut variant = sup.clone();
                for &(from, _, send, label, to) in &sub_specs {
                    while variant.state_count() <= from.max(to) {
                        variant.add_state();
                    }
                    if let Some(first) = variant.transitions(from).first().cloned() {
                        if first.action.is_send() == send {
                            let mut action = first.action.clone();
                            action.message = mpst_fsm::Message::new(["a", "b", "d"][label]);
                            let _ = variant.add_transition(from, action, to);
                        }
                    }
                }
                (variant, sup)
            }
            _ => (machine(&two_peers), machine(&sup)),
        };
        let forward = check(&sub, &sup, &OPTIONS);
        let backward = check(&dual(&sup), &dual(&sub), &OPTIONS);
        prop_assert!(agree(&forward, &backward), "{forward}\n---- on the duals:\n{backward}");
    }
}
