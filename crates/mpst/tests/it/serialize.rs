//! `serialize::<S>()`: session types (sends, receives, choices, recursion) to FSMs,
//! compared with FSMs written by hand.

#![cfg(feature = "serialize")]

use mpst::fsm::{self, Action, Fsm, LocalType, Message};
use mpst::serialize::serialize;
use mpst::{Branch, End, Payload, Receive, Select, Send, session};

use crate::support::declare_roles;

declare_roles!(Label over mpst::channel::Unbounded<Label>: S(K, T), K(S, T), T(S, K));

#[derive(mpst::Message)]
enum Label {
    Ready(Ready),
    Value(Value),
    Stop(Stop),
    More(More),
    Done(Done),
}

#[derive(Payload)]
struct Ready;
#[derive(Payload)]
struct Value(#[allow(dead_code)] i32);
#[derive(Payload)]
struct Stop;
#[derive(Payload)]
struct More;
#[derive(Payload)]
struct Done;

/// The projected kernel (PPoPP 2022 Fig. 4a).
#[session]
struct Kernel(Send<S, Ready, Receive<S, Value, Receive<T, Ready, Send<T, Value, Self>>>>);

/// The optimised kernel (Listing 2, Fig. 4b): one `ready` ahead.
#[session]
type KernelOpt = Send<S, Ready, KernelLoop>;

#[session]
struct KernelLoop(Send<S, Ready, Receive<S, Value, Receive<T, Ready, Send<T, Value, Self>>>>);

/// `k` in the notation of the paper, with the FSM's actions named as serialisation names
/// them: peers by `Role::NAME`, labels by the enum's variant, payloads by
/// the label types' fields.
fn expected(text: &str) -> Fsm {
    LocalType::parse(text).unwrap().to_fsm("K").unwrap()
}

#[test]
fn projected_double_buffering_kernel() {
    // Built state by state: 0 -S!Ready-> 1 -S?Value-> 2 -T?Ready-> 3 -T!Value-> 0.
    let mut by_hand = Fsm::new("K");
    let states: Vec<usize> = (0..3).map(|_| by_hand.add_state()).collect();
    let steps = [
        (0, Action::send("S", Message::new("Ready")), states[0]),
        (
            states[0],
            Action::receive(
                "S",
                Message::with_payloads("Value", vec![fsm::Payload::new("i32")]),
            ),
            states[1],
        ),
        (
            states[1],
            Action::receive("T", Message::new("Ready")),
            states[2],
        ),
        (
            states[2],
            Action::send(
                "T",
                Message::with_payloads("Value", vec![fsm::Payload::new("i32")]),
            ),
            0,
        ),
    ];
    for (from, action, to) in steps {
        by_hand.add_transition(from, action, to).unwrap();
    }
    let fsm = serialize::<Kernel<'static, K>>().unwrap();
    assert_eq!(fsm, by_hand.canonical());
    assert_eq!(fsm.role(), "K");
}

#[test]
fn optimised_double_buffering_kernel() {
    let fsm = serialize::<KernelOpt<'static, K>>().unwrap();
    let by_hand = expected("S!Ready(). rec x. S!Ready(). S?Value(i32). T?Ready(). T!Value(i32). x");
    assert!(fsm.is_isomorphic(&by_hand), "{fsm}");
    assert_eq!(fsm.state_count(), 5);
    // The loop closes at the named struct, not at the initial state.
    assert_ne!(fsm, serialize::<Kernel<'static, K>>().unwrap());
}

/// The source of a stream: receive `Ready`, then either `Value` and again, or `Stop`.
#[session]
struct Source(Receive<T, Ready, Select<T, SourceChoice>>);

#[session]
enum SourceChoice {
    Value(Value, Source),
    Stop(Stop, End),
}

/// The sink, through an alias: the loop is closed at the `Branch`.
#[session]
type Sink = Send<S, Ready, Branch<S, SinkChoice>>;

#[session]
enum SinkChoice {
    Value(Value, Sink),
    Stop(Stop, End),
}

#[test]
fn choices_and_their_recursion() {
    let source = serialize::<Source<'static, S>>().unwrap();
    let by_hand = LocalType::parse("rec x. T?Ready(). T!{ Value(i32). x, Stop(). end }")
        .unwrap()
        .to_fsm("S")
        .unwrap();
    assert!(source.is_isomorphic(&by_hand), "{source}");

    // The alias is unfolded once before the loop head (the `Branch`) is met again.
    let sink = serialize::<Sink<'static, T>>().unwrap();
    let by_hand = LocalType::parse("S!Ready(). rec x. S?{ Value(i32). S!Ready(). x, Stop(). end }")
        .unwrap()
        .to_fsm("T")
        .unwrap();
    assert!(sink.is_isomorphic(&by_hand), "{sink}");
    assert_eq!(sink.transition_count(), 4);
}

/// Nested recursion: an outer loop of rounds, each an inner loop of values until `Done`,
/// then the kernel chooses whether there is `More`.
#[session]
struct Outer(Send<T, Ready, Inner>);

#[session]
struct Inner(Branch<S, InnerChoice>);

#[session]
enum InnerChoice {
    Value(Value, Send<T, Value, Inner>),
    Done(Done, Select<T, OuterChoice>),
}

#[session]
enum OuterChoice {
    More(More, Outer),
    Stop(Stop, End),
}

#[test]
fn nested_recursion() {
    let fsm = serialize::<Outer<'static, K>>().unwrap();
    let by_hand = expected(
        "rec outer. T!Ready(). rec inner. S?{ Value(i32). T!Value(i32). inner, \
         Done(). T!{ More(). outer, Stop(). end } }",
    );
    assert!(fsm.is_isomorphic(&by_hand), "{fsm}\n{by_hand}");
    assert_eq!(fsm.state_count(), 5);
}

#[test]
fn end_alone_is_a_single_final_state() {
    #[session]
    type Nothing = End;
    let fsm = serialize::<Nothing<'static, K>>().unwrap();
    assert_eq!(fsm.state_count(), 1);
    assert!(fsm.is_final(fsm.initial()));
}

#[test]
fn ends_of_several_branches_are_one_state() {
    #[session]
    type Twice = Select<T, Twice2>;
    #[session]
    enum Twice2 {
        Stop(Stop, End),
        Done(Done, Send<S, Stop, End>),
    }
    let fsm = serialize::<Twice<'static, K>>().unwrap();
    assert_eq!(fsm.state_count(), 3);
    let finals = (0..fsm.state_count()).filter(|&s| fsm.is_final(s)).count();
    assert_eq!(finals, 1);
}

#[test]
fn a_role_talking_to_itself_is_an_error_not_a_panic() {
    #[session]
    type Selfish = Send<K, Ready, End>;
    let err = serialize::<Selfish<'static, K>>().unwrap_err();
    assert_eq!(err.role, "K");
    assert!(
        err.to_string()
            .contains("communicates with the role itself"),
        "{err}"
    );
}

#[test]
fn labels_outside_the_roles_enum_are_an_error_naming_them() {
    #[derive(Payload)]
    struct Stray;
    #[session]
    type Odd = Send<S, Ready, Send<S, Stray, End>>;
    let err = serialize::<Odd<'static, K>>().unwrap_err();
    assert_eq!(
        err.kind,
        mpst::serialize::SerializeErrorKind::UnknownLabel {
            label_type: "it::serialize::labels_outside_the_roles_enum_are_an_error_naming_them::Stray",
            message: "it::serialize::Label",
        }
    );
    assert!(
        err.to_string().ends_with(
            "is not a label of the role's message enum `it::serialize::Label`; add a variant \
             carrying it"
        ),
        "{err}"
    );
}
