//! The three answers of `subtype::check`: proved, refuted with a run that really goes
//! wrong (replayed independently), unknown with the reason and the place — and every
//! answer within the budget, whatever the bound on visits.

use mpst_fsm::families::Family;
use mpst_fsm::kmc::ViolationKind;
use mpst_fsm::subtype::{Options, Reason, Verdict, check};
use mpst_fsm::witness::{Search, replays_to_wrong_against_dual};
use mpst_fsm::{Action, Fsm, LocalType, Message};

fn fsm(text: &str) -> Fsm {
    LocalType::parse(text).unwrap().to_fsm("r").unwrap()
}

const KERNEL: &str = "rec x. s!ready(). s?value(). t?ready(). t!value(). x";

/// A subtype beyond both the rules of Fig. 5 and the witness trees (`ctxta1 ≤ ctxta2`
/// of the CONCUR'19 tool's tests, which its tool answers "Maybe" for): the receives it
/// leaves pending grow like a context-free language.
const BEYOND_SUB: &str =
    "rec x. p?{a(). p!x(). p!x(). x, b(). p!y(). rec y. p?{b(). y, a(). p!x(). p!x(). x}}";
const BEYOND_SUP: &str =
    "rec x. p?a(). rec y. p?{a(). p!x(). y, b(). rec z. p!{x(). p?b(). z, y(). x}}";

/// Not a subtype, though any number of `b` may accumulate behind the `a` the subtype
/// sends ahead: the supertype may take `q?b` for ever and never send `a`.
const ACCUMULATING_SUB: &str = "rec x. p!a(). rec y. q?{b(). y, c(). x}";
const ACCUMULATING_SUP: &str = "rec x. rec y. q?{b(). y, c(). p!a(). x}";

#[test]
fn the_papers_families_are_proved() {
    for family in Family::ALL {
        let instance = family.instance(4).unwrap();
        for (optimised, projected) in instance.checks() {
            let verdict = check(optimised, projected, &Options::new(instance.visits));
            assert!(verdict.is_subtype(), "{family}: {verdict}");
        }
    }
}

#[test]
fn refutations_carry_a_run_that_goes_wrong() {
    let cases = [
        // Example 2: receiving early deadlocks.
        ("q?l2(). q!l1(). end", "q!l1(). q?l2(). end", "deadlock"),
        // Fig. A.14: the subtype never receives from q.
        ("rec t. p?l(). t", "q?l2(). rec t. p?l(). t", "orphan"),
        // An external choice may not shrink.
        ("q?a(). end", "q?{a(). end, b(). end}", "unspecified"),
        ("p!b(). p!a(). end", "p!a(). p!b(). end", "unspecified"),
        ("end", "q!a(). end", "deadlock"),
        ("q!a(). end", "end", "orphan"),
        (KERNEL, &format!("s!ready(). {KERNEL}"), "deadlock"),
    ];
    for (sub, sup, kind) in cases {
        let (sub, sup) = (fsm(sub), fsm(sup));
        let verdict = check(&sub, &sup, &Options::default());
        let Verdict::NotSubtype(refutation) = &verdict else {
            panic!("{sub} ≤ {sup}: {verdict}");
        };
        let found = match refutation.run.kind {
            ViolationKind::Deadlock { .. } => "deadlock",
            ViolationKind::Orphan { .. } => "orphan",
            ViolationKind::UnspecifiedReception { .. } => "unspecified",
            _ => "other",
        };
        assert_eq!(found, kind, "{verdict}");
        assert!(
            replays_to_wrong_against_dual(&sub, &sup, &refutation.run.trace),
            "{verdict}"
        );
        // The same run beside the supertype itself goes right.
        assert!(!replays_to_wrong_against_dual(
            &sup,
            &sup,
            &refutation.run.trace
        ));
        assert!(
            verdict.to_string().starts_with("not a subtype: "),
            "{verdict}"
        );
    }
}

#[test]
fn a_bound_too_small_is_unknown_not_refuted() {
    let sub = fsm(&format!("s!ready(). s!ready(). s!ready(). {KERNEL}"));
    let sup = fsm(KERNEL);
    let verdict = check(&sub, &sup, &Options::new(1));
    let Verdict::Unknown(unknown) = &verdict else {
        panic!("{verdict}")
    };
    assert_eq!(
        unknown.not_proved.reason,
        Reason::BoundReached { visits: 1 }
    );
    assert!(!verdict.to_string().contains("not a subtype"), "{verdict}");
    assert!(check(&sub, &sup, &Options::new(10)).is_subtype());
}

#[test]
fn a_send_ahead_of_a_receive_loop_is_refuted_by_the_loop() {
    let (sub, sup) = (fsm(ACCUMULATING_SUB), fsm(ACCUMULATING_SUP));
    for visits in [1, 100, 10_000_000] {
        let verdict = check(&sub, &sup, &Options::new(visits));
        let Verdict::NotSubtype(refutation) = &verdict else {
            panic!("visits {visits}: {verdict}")
        };
        let run = &refutation.run;
        // `r` sends `a` to `p`; the dual, as `q`, sends `b` for ever instead of taking it.
        assert!(
            matches!(&run.kind, ViolationKind::Orphan { to, .. } if to == "p"),
            "{verdict}"
        );
        assert_eq!(run.trace.len(), 1, "{verdict}");
        let escape = run.escape.as_ref().expect("left unread by a send loop");
        assert!(escape.lead_in.is_empty(), "{verdict}");
        assert_eq!(escape.cycle[0].to_string(), "q: r!b()", "{verdict}");
        assert!(replays_to_wrong_against_dual(&sub, &sup, &run.trace));
        assert!(!replays_to_wrong_against_dual(&sup, &sup, &run.trace));
    }
}

#[test]
fn true_subtypes_beyond_the_rules_are_unknown_within_the_budget() {
    let (sub, sup) = (fsm(BEYOND_SUB), fsm(BEYOND_SUP));
    for visits in [1, 5, 20, 100, 10_000_000] {
        let verdict = check(&sub, &sup, &Options::new(visits));
        let Verdict::Unknown(unknown) = &verdict else {
            panic!("visits {visits}: {verdict}")
        };
        assert!(
            matches!(unknown.search, Some(Search::GaveUp(..))),
            "{verdict}"
        );
        assert!(!verdict.to_string().contains("not a subtype"), "{verdict}");
    }
    // A small step budget stops the search where it is, and says so.
    let options = Options {
        max_steps: 1000,
        ..Options::new(10_000_000)
    };
    let Verdict::Unknown(unknown) = check(&sub, &sup, &options) else {
        panic!("decided within 1000 steps")
    };
    assert_eq!(
        unknown.not_proved.reason,
        Reason::BudgetExhausted {
            steps: 1000,
            depth: options.max_depth
        }
    );
    assert!(!unknown.not_proved.sub_trace.is_empty());
}

#[test]
fn a_huge_bound_on_a_send_loop_answers_without_allocating_for_it() {
    // The subtype sends `a` ahead for ever: the pending actions grow without end.
    let sub = fsm("rec x. p!a(). x");
    let sup = fsm("rec x. q?b(). p!a(). x");
    let options = Options {
        max_depth: 10_000,
        ..Options::new(10_000_000)
    };
    let verdict = check(&sub, &sup, &options);
    assert!(!verdict.is_subtype(), "{verdict}");
    let text = verdict.to_string();
    assert!(
        !text.contains("not a subtype") || verdict.is_refuted(),
        "{text}"
    );
}

#[test]
fn nondeterministic_machines_are_not_subtyped() {
    let mut sub = Fsm::new("r");
    let (a, b) = (sub.add_state(), sub.add_state());
    let send = Action::send("q", Message::new("m"));
    sub.add_nondeterministic_transition(0, send.clone(), a)
        .unwrap();
    sub.add_nondeterministic_transition(0, send, b).unwrap();
    let verdict = check(&sub, &fsm("q!m(). end"), &Options::default());
    let Verdict::Unknown(unknown) = &verdict else {
        panic!("{verdict}")
    };
    assert!(
        matches!(
            unknown.not_proved.reason,
            Reason::Nondeterministic { state: 0, .. }
        ),
        "{verdict}"
    );
}
