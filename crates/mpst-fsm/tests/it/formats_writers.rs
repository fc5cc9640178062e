//! Exact output of the petrify (k-MC) and Mermaid writers.

use mpst_fsm::format::{write_mermaid, write_petrify};
use mpst_fsm::{Action, Fsm, LocalType, Message, Payload};

fn msg(label: &str) -> Message {
    Message::new(label)
}

fn value() -> Message {
    Message::with_payloads("value", vec![Payload::named("x", "i32")])
}

/// The double-buffering protocol of the PPoPP paper: source `s`, kernel `k`, sink `t`.
fn double_buffering() -> Vec<Fsm> {
    let loop_of = |steps: Vec<(bool, &str, Message)>| {
        let mut body = LocalType::var("x");
        for (send, peer, message) in steps.into_iter().rev() {
            body = if send {
                LocalType::send(peer, message, body)
            } else {
                LocalType::receive(peer, message, body)
            };
        }
        LocalType::rec("x", body)
    };
    let s = loop_of(vec![(false, "k", msg("ready")), (true, "k", value())]);
    let k = loop_of(vec![
        (true, "s", msg("ready")),
        (false, "s", value()),
        (false, "t", msg("ready")),
        (true, "t", value()),
    ]);
    let t = loop_of(vec![(true, "k", msg("ready")), (false, "k", value())]);
    vec![
        s.to_fsm("s").unwrap(),
        k.to_fsm("k").unwrap(),
        t.to_fsm("t").unwrap(),
    ]
}

#[test]
fn petrify_of_double_buffering() {
    assert_eq!(
        write_petrify(&double_buffering()),
        "-- machine 0: role s\n.outputs\n.state graph\n\
         q0 1 ? ready q1\n\
         q1 1 ! value<i32> q0\n\
         .marking q0\n.end\n\
         \n\
         -- machine 1: role k\n.outputs\n.state graph\n\
         q0 0 ! ready q1\n\
         q1 0 ? value<i32> q2\n\
         q2 2 ? ready q3\n\
         q3 2 ! value<i32> q0\n\
         .marking q0\n.end\n\
         \n\
         -- machine 2: role t\n.outputs\n.state graph\n\
         q0 1 ! ready q1\n\
         q1 1 ? value<i32> q0\n\
         .marking q0\n.end\n"
    );
}

#[test]
fn petrify_numbers_outside_peers_and_mangles_names() {
    let mut a = Fsm::new("A");
    let one = a.add_state();
    let two = a.add_state();
    let pair = Message::with_payloads("is_even", vec![Payload::new("i32"), Payload::new("bool")]);
    a.add_transition(0, Action::send("Zed", pair), one).unwrap();
    a.add_transition(one, Action::receive("B", msg("graph")), two)
        .unwrap();
    assert_eq!(
        write_petrify(&[a]),
        "-- peers outside the system: 1 = B 2 = Zed\n\
         -- machine 0: role A\n.outputs\n.state graph\n\
         q0 2 ! isZ5Feven<i32Z2Cbool> q1\n\
         q1 1 ? Z67raph q2\n\
         .marking q0\n.end\n"
    );
}

#[test]
fn mermaid_of_a_choice_with_an_end() {
    let mut c = Fsm::new("c");
    let asked = c.add_state();
    let done = c.add_state();
    c.add_transition(0, Action::send("s", msg("query")), asked)
        .unwrap();
    c.add_transition(asked, Action::receive("s", value()), 0)
        .unwrap();
    c.add_transition(0, Action::send("s", msg("quit")), done)
        .unwrap();
    let odd = Message::with_payloads("odd", vec![Payload::new("Weird;#")]);
    c.add_transition(asked, Action::receive("s", odd), done)
        .unwrap();
    assert_eq!(
        write_mermaid(&c),
        "stateDiagram-v2\n    %% role c\n    [*] --> 0\n\
         \x20   0 --> 1 : s!query()\n\
         \x20   0 --> 2 : s!quit()\n\
         \x20   1 --> 2 : s?odd(Weird#59;#35;)\n\
         \x20   1 --> 0 : s?value(x: i32)\n\
         \x20   2 --> [*]\n"
    );
}

#[test]
fn mermaid_of_the_kernel_has_no_final_state() {
    let k = double_buffering().remove(1);
    let text = write_mermaid(&k);
    assert!(text.starts_with("stateDiagram-v2\n    %% role k\n    [*] --> 0\n"));
    assert!(text.contains("    3 --> 0 : t!value(x: i32)\n"));
    assert!(!text.contains("--> [*]"));
}
