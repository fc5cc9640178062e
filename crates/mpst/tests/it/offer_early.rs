//! The hole the `Offer`-aware k-MC check closes, on the runtime itself: a desk that
//! waits on `P` and `B` at once but takes only `extra` from `B` there (`B` sends `part`
//! first). As CFSMs the system is k-MC (B's `part` waits in its queue); the runtime's
//! `Offer` takes the first label of any peer and fails with `UnexpectedLabel`, which
//! `mpst_fsm::kmc::check_kmc_offer` refutes with a run ending where that label heads
//! B's queue. The run is replayed on the runtime: `B` sends, then the desk offers.
//! `mpst::verify`'s k-MC assertions make the same check.

use futures::executor::block_on;
use mpst::{End, Message, Offer, Payload, Receive, ReceiveErrorKind, Send, session, try_session};

use crate::support::declare_roles;

declare_roles!(Label over mpst::channel::Unbounded<Label>: B(P, D), P(B, D), D(B, P));

#[derive(Message)]
enum Label {
    Part(Part),
    Extra(Extra),
}
#[derive(Payload)]
struct Part(i32);
#[derive(Payload)]
struct Extra(i32);

#[session]
type BSends = Send<D, Part, Send<D, Extra, End>>;
#[session]
type PSends = Send<D, Part, End>;
#[session]
type Desk = Offer<Early>;
#[session]
enum Early {
    #[from(P)]
    FromP(Part, Receive<B, Part, Receive<B, Extra, End>>),
    #[from(B)]
    FromB(Extra, Receive<P, Part, End>),
}

#[cfg(feature = "serialize")]
#[test]
fn cfsm_k_mc_proves_the_early_desk_and_the_offer_check_refutes_it() {
    use mpst::fsm::kmc::{check_kmc, check_kmc_offer, offer_options};
    use mpst::serialize::serialize;

    let system = [
        serialize::<BSends<'static, B>>().unwrap(),
        serialize::<PSends<'static, P>>().unwrap(),
        serialize::<Desk<'static, D>>().unwrap(),
    ];
    assert!(check_kmc(&system, 2).unwrap().is_kmc(), "a CFSM waits");
    let report = check_kmc_offer(&system, &offer_options()).unwrap();
    let violation = report.violation.expect("the runtime can fail");
    refuses_part_from_b(&violation);
}

/// Asserts that `violation` is the refutation of the early desk: the desk `D` meets
/// `Part` from `B`, a run on which the runtime fails.
#[cfg(feature = "serialize")]
fn refuses_part_from_b(violation: &mpst::fsm::kmc::KmcViolation) {
    use mpst::fsm::kmc::ViolationKind;

    assert!(violation.is_definitive(), "{violation}");
    let ViolationKind::UnspecifiedReception {
        role,
        from,
        message,
        ..
    } = &violation.kind
    else {
        panic!("{violation}");
    };
    assert_eq!(
        (role.as_str(), from.as_str(), message.label.as_str()),
        ("D", "B", "Part")
    );
}

/// The desk of [`Early`] taking `part` from `B` too (then `extra`): safe whichever peer
/// speaks first.
#[session]
type SafeDesk = Offer<Either>;
#[session]
enum Either {
    #[from(P)]
    FromP(Part, Receive<B, Part, Receive<B, Extra, End>>),
    #[from(B)]
    FromB(Part, Receive<B, Extra, Receive<P, Part, End>>),
}

/// `mpst::verify`'s k-MC assertions check an `Offer` as the runtime runs it: the early
/// desk, which plain CFSM k-MC proves, is a violation naming the label it refuses, for
/// every bound; the safe desk is k-MC.
#[cfg(feature = "serialize")]
#[test]
fn verify_checks_an_offer_as_the_runtime_runs_it() {
    use mpst::serialize::serialize;
    use mpst::verify::{self, KmcFailure};

    let b = serialize::<BSends<'static, B>>().unwrap();
    let p = serialize::<PSends<'static, P>>().unwrap();
    let early = [
        b.clone(),
        p.clone(),
        serialize::<Desk<'static, D>>().unwrap(),
    ];
    for failure in [
        verify::check_kmc(&early, 2).unwrap_err(),
        verify::least_k(&early, 3).unwrap_err(),
    ] {
        let KmcFailure::Violation(report) = &failure else {
            panic!("expected a violation, got {failure}");
        };
        let violation = report.violation.as_ref().expect("a violation");
        refuses_part_from_b(violation);
        // The run ends where B's `Part` waits for the desk.
        assert!(
            violation.trace.iter().any(|step| step.role == "B"),
            "{failure}"
        );
    }
    let refused = std::panic::catch_unwind(|| verify::assert_kmc(&early, 2)).unwrap_err();
    let message = refused.downcast_ref::<String>().expect("a message");
    assert!(message.contains("Part"), "{message}");

    let safe = [b, p, serialize::<SafeDesk<'static, D>>().unwrap()];
    verify::assert_kmc(&safe, 2);
    assert_eq!(verify::least_k(&safe, 3).unwrap().k, 1);
}

#[test]
fn the_runtime_fails_on_the_early_label_the_offer_check_refutes() {
    block_on(async {
        let Roles(mut b, _p, mut d) = Roles::default();
        // The refuting run: B sends before P does; the desk then offers.
        try_session(&mut b, |s: BSends<'_, B>| async move {
            let s = s.send(Part(1)).await?;
            Ok(((), s.send(Extra(2)).await?))
        })
        .await
        .unwrap();
        let error = try_session(&mut d, |s: Desk<'_, D>| async move {
            let (sum, end) = match s.offer().await? {
                Early::FromP(Part(p), s) => {
                    let (Part(b), s) = s.receive().await?;
                    let (Extra(x), end) = s.receive().await?;
                    (p + b + x, end)
                }
                Early::FromB(Extra(x), s) => {
                    let (Part(p), end) = s.receive().await?;
                    (x + p, end)
                }
            };
            Ok((sum, end))
        })
        .await
        .unwrap_err();
        let mpst::Error::Receive(error) = error else {
            panic!("not a receive error: {error}")
        };
        assert_eq!(error.peer, "B");
        assert!(
            matches!(
                error.kind,
                ReceiveErrorKind::UnexpectedLabel {
                    received: "Part",
                    ..
                }
            ),
            "{:?}",
            error.kind
        );
    });
}
