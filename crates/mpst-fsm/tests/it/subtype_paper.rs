//! The paper's examples of asynchronous subtyping (PPoPP 2022 §2, §3, App. B): every
//! positive one accepted, every negative one rejected for the expected reason.

use mpst_fsm::subtype::{DEFAULT_VISITS, NotProved, Reason, Side, Stats, is_subtype};
use mpst_fsm::{Fsm, LocalType};

fn fsm(role: &str, text: &str) -> Fsm {
    LocalType::parse(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .to_fsm(role)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn accepts(role: &str, sub: &str, sup: &str) -> Stats {
    let (sub, sup) = (fsm(role, sub), fsm(role, sup));
    is_subtype(&sub, &sup, DEFAULT_VISITS).unwrap_or_else(|e| panic!("rejected:\n{e}"))
}

fn rejects(role: &str, sub: &str, sup: &str) -> NotProved {
    let (sub, sup) = (fsm(role, sub), fsm(role, sup));
    match is_subtype(&sub, &sup, DEFAULT_VISITS) {
        Ok(stats) => panic!("accepted {sub} ≤ {sup} ({stats:?})"),
        Err(e) => e,
    }
}

const KERNEL: &str = "rec x. s!ready(). s?value(). t?ready(). t!value(). x";

#[test]
fn double_buffering_kernel_optimised_is_a_subtype_of_the_projection() {
    let stats = accepts("k", &format!("s!ready(). {KERNEL}"), KERNEL);
    assert!(stats.pairs_explored >= 5, "{stats:?}");
}

#[test]
fn double_buffering_the_other_way_round_is_rejected() {
    // The projection does not send the extra ready: its s?value would have to be
    // matched before the optimised kernel's second s!ready.
    let err = rejects("k", KERNEL, &format!("s!ready(). {KERNEL}"));
    assert!(
        matches!(
            err.reason,
            Reason::Mismatch { .. } | Reason::ReceiveOvertakesSend { .. }
        ),
        "{err}"
    );
}

#[test]
fn ring_with_choice_role_b() {
    accepts(
        "b",
        "rec t. c!{add(). a?add(). t, sub(). a?add(). t}",
        "rec t. a?add(). c!{add(). t, sub(). t}",
    );
}

#[test]
fn alternating_bit_receiver() {
    accepts(
        "r",
        "rec t. s?{d0(). s!a0(). t, d1(). s!a1(). t}",
        "rec t. s?d0(). s!{a0(). rec x. s?d1(). s!{a0(). x, a1(). t}, a1(). t}",
    );
}

#[test]
fn streaming_with_unrolls() {
    let projected = "rec x. t?ready(). t!{value(). x, stop(). end}";
    for n in [1, 2, 5, 20] {
        let sends = "t!value(). ".repeat(n);
        let receives = "t?ready(). ".repeat(n);
        accepts("s", &format!("{sends}{receives}{projected}"), projected);
    }
}

#[test]
fn example_2_sending_early_is_safe() {
    // T'_Q = p!ℓ2. p?ℓ1. end ≤ T_Q = p?ℓ1. p!ℓ2. end
    accepts("q", "p!l2(). p?l1(). end", "p?l1(). p!l2(). end");
}

#[test]
fn example_2_receiving_early_deadlocks() {
    // T'_P = q?ℓ2. q!ℓ1. end is not a subtype of T_P = q!ℓ1. q?ℓ2. end
    let err = rejects("p", "q?l2(). q!l1(). end", "q!l1(). q?l2(). end");
    match &err.reason {
        Reason::ReceiveOvertakesSend { receive, send } => {
            assert_eq!(receive.to_string(), "q?l2()");
            assert_eq!(send.to_string(), "q!l1()");
        }
        other => panic!("unexpected reason {other:?}"),
    }
    assert_eq!(err.sub_prefix.len(), 1);
    let text = err.to_string();
    assert!(
        text.contains("q?l2()") && text.contains("overtake"),
        "{text}"
    );
}

#[test]
fn forgetful_subtype_of_fig_a14_is_rejected() {
    // µt.p?l.t against q?l'.µt.p?l.t: the subtype never receives from q.
    let err = rejects("r", "rec t. p?l(). t", "q?l2(). rec t. p?l(). t");
    match &err.reason {
        Reason::ForgottenAction { action } => assert_eq!(action.to_string(), "q?l2()"),
        other => panic!("unexpected reason {other:?}:\n{err}"),
    }
    assert_eq!(
        err.super_prefix
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        vec!["q?l2()"]
    );
}

#[test]
fn end_against_non_end_and_pending_at_end() {
    let err = rejects("p", "end", "q!a(). end");
    assert_eq!(err.reason, Reason::EndAgainstNonEnd { ended: Side::Sub });
    let err = rejects("p", "q!a(). end", "end");
    assert_eq!(err.reason, Reason::EndAgainstNonEnd { ended: Side::Super });
    let err = rejects("p", "q!a(). end", "q!b(). end");
    assert!(matches!(err.reason, Reason::Mismatch { .. }), "{err}");
}

#[test]
fn internal_choices_may_shrink_and_external_ones_grow() {
    accepts("p", "q!a(). end", "q!{a(). end, b(). end}");
    accepts("p", "q?{a(). end, b(). end}", "q?a(). end");
    rejects("p", "q!{a(). end, b(). end}", "q!a(). end");
    rejects("p", "q?a(). end", "q?{a(). end, b(). end}");
}

#[test]
fn a_bound_too_small_is_reported() {
    let sub = fsm("k", &format!("s!ready(). s!ready(). s!ready(). {KERNEL}"));
    let sup = fsm("k", KERNEL);
    let err = is_subtype(&sub, &sup, 1).unwrap_err();
    assert_eq!(err.reason, Reason::BoundReached { visits: 1 });
    assert!(is_subtype(&sub, &sup, DEFAULT_VISITS).is_ok());
}
