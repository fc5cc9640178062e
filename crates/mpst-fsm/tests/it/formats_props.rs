//! Properties of the formats: DOT round trips on random machines, and the reader never
//! panics, whatever its input.

use mpst_fsm::format::{parse_dot, write_dot, write_mermaid, write_petrify};
use mpst_fsm::{Action, Direction, Fsm, Message, Payload};
use proptest::prelude::*;

/// One transition to try: (source, peer, direction, label, payloads, target), with
/// indices reduced modulo the state count.
type RawTransition = (usize, usize, bool, usize, Vec<(bool, usize)>, usize);

const PEERS: [&str; 3] = ["s", "t", "Peer'2"];
const LABELS: [&str; 4] = ["ready", "value", "x_1", "9lives"];
const SORTS: [&str; 4] = ["i32", "bool", "Vec<(u8, String)>", "std::string::String"];

fn build(states: usize, raw: Vec<RawTransition>) -> Fsm {
    let mut fsm = Fsm::new("k");
    for _ in 1..states {
        fsm.add_state();
    }
    for (from, peer, send, label, payloads, to) in raw {
        let payloads = payloads
            .into_iter()
            .enumerate()
            .map(|(i, (named, sort))| {
                let sort = SORTS[sort % SORTS.len()];
                if named {
                    Payload::named(format!("p{i}"), sort)
                } else {
                    Payload::new(sort)
                }
            })
            .collect();
        let action = Action {
            peer: PEERS[peer % PEERS.len()].to_owned(),
            direction: if send {
                Direction::Send
            } else {
                Direction::Receive
            },
            message: Message::with_payloads(LABELS[label % LABELS.len()], payloads),
        };
        // Duplicates are rejected by the model; skipping them keeps the machine valid.
        let _ = fsm.add_transition(from % states, action, to % states);
    }
    fsm
}

fn arb_fsm() -> impl Strategy<Value = Fsm> {
    let transition = (
        any::<usize>(),
        any::<usize>(),
        any::<bool>(),
        any::<usize>(),
        prop::collection::vec((any::<bool>(), any::<usize>()), 0..3),
        any::<usize>(),
    );
    (1usize..8, prop::collection::vec(transition, 0..20))
        .prop_map(|(states, raw)| build(states, raw))
}

/// Checks that an error's position is consistent with the input.
fn check_error_position(input: &str, err: &mpst_fsm::format::DotError) {
    assert!(err.offset + err.length <= input.len());
    assert!(input.is_char_boundary(err.offset));
    let before = &input[..err.offset];
    assert_eq!(err.line, before.matches('\n').count() + 1);
    assert!(err.column >= 1);
    assert!(!err.message.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn dot_round_trip_is_isomorphic(fsm in arb_fsm()) {
        let text = write_dot(&fsm);
        let back = parse_dot(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back.len(), 1);
        prop_assert!(back[0].is_isomorphic(&fsm), "{}", text);
        // Payload names survive: writing again gives the same text.
        prop_assert_eq!(write_dot(&back[0]), text);
    }

    #[test]
    fn writers_are_stable_under_renumbering(fsm in arb_fsm()) {
        let renumbered = parse_dot(&write_dot(&fsm)).unwrap().remove(0);
        prop_assert_eq!(write_mermaid(&renumbered), write_mermaid(&fsm));
        prop_assert_eq!(write_petrify(std::slice::from_ref(&renumbered)), write_petrify(&[fsm]));
    }

    #[test]
    fn reader_never_panics_on_arbitrary_text(input in any::<String>()) {
        if let Err(err) = parse_dot(&input) {
            check_error_position(&input, &err);
        }
    }

    #[test]
    fn reader_never_panics_on_dot_like_text(
        input in "(digraph|strict|node|edge|graph|subgraph|[A-Za-zÄ0-9_ ]|[{}\\[\\];,=:\"\\\\\n]|->|--|//|/\\*|\\*/|<|#|!|\\?|\\(|\\))*"
    ) {
        if let Err(err) = parse_dot(&input) {
            check_error_position(&input, &err);
        }
    }

    #[test]
    fn reader_never_panics_on_mutated_dot(
        fsm in arb_fsm(),
        edits in prop::collection::vec((any::<usize>(), 0usize..4, any::<usize>(), prop::sample::select(vec!['{', '}', '[', ']', ';', ',', '=', '"', '\\', '-', '>', '/', '*', '(', ')', ':', '!', '?', '<', '\n', 'Ä', ' ', 'x', '0'])), 1..6),
    ) {
        let mut text = write_dot(&fsm);
        for (at, kind, len, c) in edits {
            let chars: Vec<char> = text.chars().collect();
            let at = at % (chars.len() + 1);
            let len = len % 8;
            let end = (at + len).min(chars.len());
            let mut out: Vec<char> = chars[..at].to_vec();
            match kind {
                // Delete a range.
                0 => out.extend_from_slice(&chars[end..]),
                // Duplicate a range.
                1 => {
                    out.extend_from_slice(&chars[at..end]);
                    out.extend_from_slice(&chars[at..]);
                }
                // Replace one character.
                2 => {
                    out.push(c);
                    out.extend_from_slice(&chars[(at + 1).min(chars.len())..]);
                }
                // Insert one character.
                _ => {
                    out.push(c);
                    out.extend_from_slice(&chars[at..]);
                }
            }
            text = out.into_iter().collect();
        }
        match parse_dot(&text) {
            Ok(fsms) => prop_assert!(!fsms.is_empty()),
            Err(err) => check_error_position(&text, &err),
        }
    }
}
