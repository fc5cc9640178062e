//! The hybrid and bottom-up workflows on the paper's double buffering (PPoPP 2022 §2):
//! hand-written kernels against the projection from `double_buffering.scr`, and the whole
//! system by k-MC.

#![cfg(feature = "scribble")]

use mpst::serialize::SerializeErrorKind;
use mpst::serialize::serialize;
use mpst::verify::{self, HybridError, KmcFailure};
use mpst::{Payload, Receive, Role, Send, session};

const SCR: &str = include_str!("../../../examples/double_buffering/double_buffering.scr");

type Channel = mpst::channel::Unbounded<Label>;

#[derive(Role)]
#[message(Label)]
struct S(#[route(K)] Channel, #[route(T)] Channel);

#[derive(Role)]
#[message(Label)]
struct K(#[route(S)] Channel, #[route(T)] Channel);

#[derive(Role)]
#[message(Label)]
struct T(#[route(S)] Channel, #[route(K)] Channel);

#[derive(mpst::Message)]
enum Label {
    Ready(Ready),
    Value(Value),
    Note(Note),
}

#[derive(Payload)]
struct Ready;
#[derive(Payload)]
struct Value(#[allow(dead_code)] i32);
/// A label type that does not declare its payload.
struct Note(#[allow(dead_code)] String);

#[session]
struct Source(Receive<K, Ready, Send<K, Value, Self>>);

#[session]
struct Sink(Send<K, Ready, Receive<K, Value, Self>>);

/// The kernel as projected.
#[session]
struct Kernel(Send<S, Ready, Receive<S, Value, Receive<T, Ready, Send<T, Value, Self>>>>);

/// The optimised kernel of Listing 2: two readies up front.
#[session]
type KernelOpt = Send<S, Ready, KernelLoop>;

#[session]
struct KernelLoop(Send<S, Ready, Receive<S, Value, Receive<T, Ready, Send<T, Value, Self>>>>);

/// A wrong reordering: the kernel waits for the value before telling the source it is
/// ready, so both wait forever.
#[session]
struct KernelWrong(Receive<S, Value, Send<S, Ready, Receive<T, Ready, Send<T, Value, Self>>>>);

#[test]
fn the_optimised_kernel_is_a_subtype_of_its_projection() {
    verify::assert_subtype_of_projection::<KernelOpt<'static, K>>(SCR, "K");
    // So are the projected kernel and the other roles, which are their projections.
    verify::assert_subtype_of_projection::<Kernel<'static, K>>(SCR, "K");
    verify::assert_equals_projection::<Kernel<'static, K>>(SCR, "K");
    verify::assert_equals_projection::<Source<'static, S>>(SCR, "DoubleBuffering.S");
    verify::assert_equals_projection::<Sink<'static, T>>(SCR, "T");
}

#[test]
#[should_panic(expected = "would have to overtake the supertype's send `S!Ready()`")]
fn a_wrong_reordering_fails_with_the_explanation() {
    verify::assert_subtype_of_projection::<KernelWrong<'static, K>>(SCR, "K");
}

#[test]
fn the_failure_says_where_and_shows_both_machines() {
    let err = verify::check_subtype_of_projection::<KernelWrong<'static, K>>(SCR, "K").unwrap_err();
    let HybridError::NotSubtype { refutation, sides } = &err else {
        panic!("expected NotSubtype, got {err}");
    };
    let reason = &refutation.not_proved;
    assert_eq!(reason.sub_trace[0].to_string(), "S?Value(i32)");
    assert_eq!(reason.super_prefix[0].to_string(), "S!Ready()");
    assert_eq!(sides.serialised.role(), "K");
    let text = err.to_string();
    assert!(
        text.starts_with(
            "the session type of role `K` is not an asynchronous subtype of its \
             projection:\nnot a subtype: beside the dual of the supertype this run goes wrong: \
             deadlock"
        ),
        "{text}"
    );
    assert!(
        text.contains(&format!("projection: {}", sides.projected)),
        "{text}"
    );
}

#[test]
fn an_optimised_kernel_is_not_equal_to_its_projection() {
    let err = verify::check_equals_projection::<KernelOpt<'static, K>>(SCR, "K").unwrap_err();
    assert!(
        err.to_string().contains(
            "role `K` differs after `S!Ready()`: the expected FSM can also do `S?Value(i32)`, the \
             actual one can also do `S!Ready()`"
        ),
        "{err}"
    );
}

#[test]
fn payloads_and_scribble_names_are_normalised() {
    // Lower-case role and labels, a payload with a Java sort: the same protocol.
    let scr = "global protocol P(role s, role k) {
        rec l { ready() from k to s; value(x: int) from s to k; continue l; }
    }";
    #[session]
    struct Small(Send<S, Ready, Receive<S, Value, Self>>);
    verify::assert_equals_projection::<Small<'static, K>>(scr, "k");
    verify::assert_equals_projection::<Small<'static, K>>(scr, "P.K");
    let projected = verify::normalise(&verify::projection(scr, "k").unwrap()).unwrap();
    assert_eq!(projected, serialize::<Small<'static, K>>().unwrap());
    assert_eq!(
        projected.to_string(),
        "fsm K (initial 0)\n  0 --S!Ready()--> 1\n  1 --S?Value(i32)--> 0\n"
    );
}

/// Regression (issue 6): payloads were erased on both sides, so a label carrying the
/// wrong type passed against the protocol.
#[test]
fn a_payload_of_another_type_than_the_protocol_sort_is_a_difference() {
    #[session]
    struct Small(Send<S, Ready, Receive<S, Value, Self>>);
    // Each sort as the protocol writes it, and as the comparison shows it.
    for (sort, shown) in [
        ("u8", "u8"),
        ("string", "String"),
        ("my.pkg.Date", "Date"),
        ("long", "i64"),
    ] {
        let scr = format!(
            "global protocol P(role S, role K) {{
                rec l {{ ready() from K to S; value({sort}) from S to K; continue l; }}
            }}"
        );
        let err = verify::check_equals_projection::<Small<'static, K>>(&scr, "K").unwrap_err();
        let text = err.to_string();
        let expected = format!("the expected FSM can also do `S?Value({shown})`");
        assert!(text.contains(&expected), "{text}");
        assert!(
            text.contains("the actual one can also do `S?Value(i32)`"),
            "{text}"
        );
        let err = verify::check_subtype_of_projection::<Small<'static, K>>(&scr, "K").unwrap_err();
        assert!(matches!(err, HybridError::NotSubtype { .. }), "{err}");
    }
    // Two payloads where the label has one.
    let scr = "global protocol P(role S, role K) {
        rec l { ready() from K to S; value(int, int) from S to K; continue l; }
    }";
    assert!(verify::check_equals_projection::<Small<'static, K>>(scr, "K").is_err());
}

#[test]
fn a_label_type_without_its_payload_cannot_be_serialised() {
    #[session]
    struct Noting(Send<S, Ready, Send<S, Note, Self>>);
    let err = serialize::<Noting<'static, K>>().unwrap_err();
    assert_eq!(
        err.kind,
        SerializeErrorKind::UndeclaredPayload {
            label: "Note",
            label_type: "hybrid::Note"
        }
    );
    assert!(
        err.to_string()
            .contains("add `#[derive(mpst::Payload)]` to it"),
        "{err}"
    );
    let scr =
        "global protocol P(role S, role K) { ready() from K to S; note(String) from K to S; }";
    let err = verify::check_equals_projection::<Noting<'static, K>>(scr, "K").unwrap_err();
    assert!(matches!(err, HybridError::Serialize(_)), "{err}");
}

#[test]
fn protocol_and_role_errors_are_values() {
    let err = verify::check_subtype_of_projection::<Kernel<'static, K>>(SCR, "X").unwrap_err();
    assert_eq!(
        err.to_string(),
        "protocol `DoubleBuffering` has no role `X`; its roles are: S, K, T"
    );
    let err =
        verify::check_subtype_of_projection::<Kernel<'static, K>>(SCR, "Other.K").unwrap_err();
    assert_eq!(
        err.to_string(),
        "<scribble>: no protocol `Other`; the file defines `DoubleBuffering`"
    );
    let err = verify::check_subtype_of_projection::<Kernel<'static, K>>(
        "global protocol P(role K) { ready() from K to; }",
        "K",
    )
    .unwrap_err();
    let HybridError::Frontend(verify::FrontendError::Diagnostics { located, .. }) = &err else {
        panic!("expected a protocol error, got {err}");
    };
    assert!(located[0].starts_with("<scribble>:1:"), "{located:?}");
    let two = format!("{SCR}\nglobal protocol Other(role K, role S) {{ ready() from K to S; }}");
    let err = verify::check_subtype_of_projection::<Kernel<'static, K>>(&two, "K").unwrap_err();
    assert!(
        err.to_string()
            .contains("name the one to use as `Protocol.Role`"),
        "{err}"
    );
}

#[test]
fn the_serialised_system_is_k_mc_bottom_up() {
    let source = serialize::<Source<'static, S>>().unwrap();
    let sink = serialize::<Sink<'static, T>>().unwrap();
    let plain = serialize::<Kernel<'static, K>>().unwrap();
    let optimised = serialize::<KernelOpt<'static, K>>().unwrap();
    let report = verify::check_kmc(&[source.clone(), plain.clone(), sink.clone()], 1).unwrap();
    assert!(report.is_kmc());
    assert_eq!(report.k, 1);
    // The source takes the first `ready` before the second is sent, so queues of one do.
    verify::assert_kmc(&[source.clone(), optimised, sink.clone()], 1);
    assert_eq!(
        verify::least_k(&[source.clone(), plain, sink.clone()], 3)
            .unwrap()
            .k,
        1
    );
    let wrong = serialize::<KernelWrong<'static, K>>().unwrap();
    let err = verify::least_k(&[source, wrong, sink], 3).unwrap_err();
    assert!(err.to_string().starts_with("not 3-MC"), "{err}");
}

#[test]
#[should_panic(expected = "deadlock: no role can move; waiting to receive: S, K, T")]
fn a_deadlocking_system_fails_with_the_counterexample() {
    let source = serialize::<Source<'static, S>>().unwrap();
    let sink = serialize::<Sink<'static, T>>().unwrap();
    let wrong = serialize::<KernelWrong<'static, K>>().unwrap();
    verify::assert_kmc(&[source, wrong, sink], 1);
}

#[test]
fn the_counterexample_is_the_execution_that_deadlocks() {
    let source = serialize::<Source<'static, S>>().unwrap();
    let sink = serialize::<Sink<'static, T>>().unwrap();
    let wrong = serialize::<KernelWrong<'static, K>>().unwrap();
    let err = verify::check_kmc(&[source, wrong, sink], 1).unwrap_err();
    let KmcFailure::Violation(report) = &err else {
        panic!("expected a violation, got {err}");
    };
    let violation = report.violation.as_ref().expect("a violation");
    assert_eq!(violation.trace.len(), 1);
    assert_eq!(violation.trace[0].to_string(), "T: K!Ready()");
    let text = err.to_string();
    assert!(text.starts_with("not 1-MC"), "{text}");
    assert!(text.contains("1. T: K!Ready()"), "{text}");
}

#[test]
fn a_system_missing_a_role_cannot_be_checked() {
    let source = serialize::<Source<'static, S>>().unwrap();
    let err = verify::check_kmc(&[source], 1).unwrap_err();
    assert!(matches!(err, KmcFailure::Invalid(_)), "{err}");
    assert!(err.to_string().starts_with("the system cannot be checked"));
}
