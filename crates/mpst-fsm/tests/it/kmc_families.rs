//! k-MC of the benchmark families (`mpst_fsm::families`): the projected systems are
//! 1-MC, the optimised systems are k-MC for the least k they need and not below it,
//! and the reduced and the full exploration agree.

use mpst_fsm::families::{self, Instance};
use mpst_fsm::kmc::{KmcOptions, ViolationKind, check_kmc, check_kmc_with, least_k};
use mpst_fsm::{Action, Message};

fn full(system: &[mpst_fsm::Fsm], k: usize) -> mpst_fsm::KmcReport {
    let options = KmcOptions {
        reduce: false,
        ..KmcOptions::new(k)
    };
    check_kmc_with(system, &options).unwrap()
}

fn small_instances() -> Vec<Instance> {
    let mut all = Vec::new();
    for n in 0..=4 {
        all.push(families::stream(n));
        all.push(families::k_buffering(n));
        all.push(families::ring(n + 2));
    }
    for n in 0..=2 {
        all.push(families::nested_choice(n));
    }
    all
}

#[test]
fn projected_systems_are_1_mc() {
    for instance in small_instances() {
        let report = check_kmc(&instance.projected, 1).unwrap();
        assert!(
            report.is_kmc(),
            "{:?} {}: {report}",
            instance.family,
            instance.n
        );
        assert!(report.shape.basic);
    }
}

#[test]
fn reduction_agrees_with_full_exploration() {
    for instance in small_instances() {
        let system = instance.optimised_system();
        for k in 1..=3 {
            let reduced = check_kmc(&system, k).unwrap();
            let all = full(&system, k);
            assert_eq!(
                reduced.is_kmc(),
                all.is_kmc(),
                "{:?} {} k={k}: reduced {reduced} / full {all}",
                instance.family,
                instance.n
            );
            if let (Some(a), Some(b)) = (&reduced.violation, &all.violation) {
                assert_eq!(a.property(), b.property());
            }
            if reduced.is_kmc() {
                assert!(reduced.configurations <= all.configurations);
            }
        }
    }
}

/// Unrolling `n` sends ahead needs `k ≥ n / 2`: while the sender does not move, its
/// partner can drain at most `k` (stream) or `k + 1` (k-buffering) of the messages
/// already sent before its own replies fill the queue back; the sender's last unrolled
/// send needs one free slot. So the least bound is `max(1, ⌈n / 2⌉)`, and below it
/// that send is the one that is not exhaustive.
fn least_bound(n: usize) -> usize {
    n.div_ceil(2).max(1)
}

/// Below the least bound the unrolled sender gets stuck with a full queue: the
/// counterexample ends with `k` copies of `label` in `from → to` (whichever property
/// breaks first: a bounded deadlock, an orphan or the non-exhaustive send).
fn assert_fails_with_full_queue(
    system: &[mpst_fsm::Fsm],
    k: usize,
    from: &str,
    to: &str,
    label: &str,
) {
    let v = check_kmc(system, k)
        .unwrap()
        .violation
        .expect("fails below the least bound");
    let queue = v
        .configuration
        .queues
        .iter()
        .find(|(f, t, _)| f == from && t == to)
        .unwrap_or_else(|| panic!("no queue {from}→{to} in {v}"));
    assert_eq!(queue.2, vec![Message::new(label); k], "{v}");
    let sends = Action::send(to, Message::new(label));
    let sent = v
        .trace
        .iter()
        .filter(|s| s.role == from && s.action == sends)
        .count();
    assert!(sent >= k, "{v}");
}

#[test]
fn k_buffering_needs_half_its_unrolls() {
    for n in 0..=7 {
        let system = families::k_buffering(n).optimised_system();
        let report = least_k(&system, 8).unwrap();
        assert!(report.is_kmc(), "n={n}: {report}");
        assert_eq!(report.k, least_bound(n), "n={n}");
        if report.k > 1 {
            assert_fails_with_full_queue(&system, report.k - 1, "k", "s", "ready");
        }
    }
}

#[test]
fn stream_needs_half_its_unrolls() {
    for n in 0..=7 {
        let system = families::stream(n).optimised_system();
        let report = least_k(&system, 8).unwrap();
        assert!(report.is_kmc(), "n={n}: {report}");
        assert_eq!(report.k, least_bound(n), "n={n}");
        if report.k > 1 {
            assert_fails_with_full_queue(&system, report.k - 1, "s", "t", "value");
        }
    }
}

#[test]
fn optimised_rings_and_nested_choices_are_1_mc() {
    for n in [2, 3, 5, 8, 13, 30] {
        let report = check_kmc(&families::ring(n).optimised_system(), 1).unwrap();
        assert!(report.is_kmc(), "ring {n}: {report}");
        // The reduction keeps the ring polynomial (one role moves at a time; the full
        // state space has more than 2^n configurations).
        assert!(report.configurations <= n * n, "ring {n}: {report}");
    }
    for n in 0..=4 {
        let report = check_kmc(&families::nested_choice(n).optimised_system(), 1).unwrap();
        assert!(report.is_kmc(), "nested choice {n}: {report}");
    }
}

#[test]
fn a_ring_that_sends_too_early_everywhere_deadlocks_nowhere_but_one_that_receives_first_does() {
    // Every role of the projected ring but r0 receives first; make r0 receive first
    // too and nobody can start.
    let mut system = families::ring(4).projected;
    let r0 = mpst_fsm::LocalType::parse("rec t. r3?value(). r1!value(). t")
        .unwrap()
        .to_fsm("r0")
        .unwrap();
    system[0] = r0;
    let v = check_kmc(&system, 1).unwrap().violation.unwrap();
    assert_eq!(
        v.kind,
        ViolationKind::Deadlock {
            waiting: vec!["r0".into(), "r1".into(), "r2".into(), "r3".into()]
        }
    );
    assert!(v.trace.is_empty());
}

/// The reduction's round resumes at the role that moved last, so the token goes once
/// around the ring and the explored path closes after two configurations per role
/// (a fixed order explored n(n+1)/2).
#[test]
fn the_ring_explores_two_configurations_per_role() {
    for n in [2, 3, 10, 100, 300] {
        let report = check_kmc(&families::ring(n).optimised_system(), 1).unwrap();
        assert!(report.is_kmc(), "ring {n}: {report}");
        assert_eq!(report.configurations, 2 * n, "ring {n}");
    }
}

/// Queues are run-length encoded: 2,000 unrolled sends at k = 1,000 fit a budget of
/// 10,000 configurations, whose memory share (a few words of queue each) a plain
/// list of up to 1,000 queued messages per configuration would exceed.
#[test]
fn long_queues_of_one_message_take_a_few_words() {
    let options = KmcOptions {
        max_configurations: 10_000,
        ..KmcOptions::new(1000)
    };
    for instance in [families::stream(2000), families::k_buffering(2000)] {
        let report = check_kmc_with(&instance.optimised_system(), &options).unwrap();
        assert!(report.is_kmc(), "{:?}: {report}", instance.family);
        assert!(report.configurations > 4000, "{report}");
    }
}
