//! The states of a digraph being read: names to ids, small numerals without hashing.

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use super::dot_lex::Token;
use super::dot_spans::DotSpans;
use crate::{Fsm, StateId};

/// One machine under construction: state names (slices of the input unless quoted
/// with escapes) to ids.
pub(super) struct Graph<'a> {
    pub fsm: Fsm,
    pub names: FxHashMap<Cow<'a, str>, StateId>,
    /// The states named by small numerals, by value ([`UNSEEN`] for none): read
    /// without hashing.
    pub numbered: Vec<StateId>,
    /// How many states have been named.
    pub count: usize,
    pub spans: DotSpans,
}

/// A state name that is a decimal numeral without leading zeros (`0`, `17`), as our
/// writer and nuscr number states, read as its value if it is small.
fn numeral(name: &str) -> Option<usize> {
    let b = name.as_bytes();
    if b.is_empty() || b.len() > 9 || (b[0] == b'0' && b.len() > 1) {
        return None;
    }
    b.iter().try_fold(0usize, |n, &d| {
        d.is_ascii_digit().then(|| n * 10 + usize::from(d - b'0'))
    })
}

/// `numbered` of a numeral not seen yet.
const UNSEEN: StateId = StateId::MAX;

impl<'a> Graph<'a> {
    /// The state called `name`, if it has been mentioned.
    pub fn get(&self, name: &str) -> Option<StateId> {
        // A numeral too large when first seen went to the map, and stays there even
        // once the vector has grown past it.
        match numeral(name) {
            Some(v) if v < self.numbered.len() && self.numbered[v] != UNSEEN => {
                Some(self.numbered[v])
            }
            _ if self.names.is_empty() => None,
            _ => self.names.get(name).copied(),
        }
    }

    /// The state called `name`, first mentioned at `token` if it is new.
    pub fn state(&mut self, name: Cow<'a, str>, token: &Token<'_>) -> StateId {
        let number = numeral(&name);
        if let Some(id) = self.get(&name) {
            return id;
        }
        self.spans.add_state(&name, token.start..token.end);
        // `Fsm::new` made state 0, which the first name takes.
        let id = if self.count == 0 {
            0
        } else {
            self.fsm.add_state()
        };
        self.count += 1;
        // Numerals index a vector while it stays within a few times the states
        // (a stray `999999999` goes to the map instead).
        match number {
            Some(v) if v < 4 * self.count + 1024 => {
                if v >= self.numbered.len() {
                    self.numbered.resize(v + 1, UNSEEN);
                }
                self.numbered[v] = id;
            }
            _ => {
                self.names.insert(name, id);
            }
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_small_numerals_are_numbers() {
        assert_eq!(numeral("0"), Some(0));
        assert_eq!(numeral("17"), Some(17));
        for other in ["", "017", "1a", "-1", "1.5", "1234567890", "x"] {
            assert_eq!(numeral(other), None, "{other}");
        }
    }

    #[test]
    fn numerals_and_other_names_are_distinct_states() {
        let fsms = crate::format::parse_dot(
            "digraph a { 7 -> 007 [label=\"b!m\"]; 007 -> \"7\" [label=\"b!n\"]; \
             999999999 -> 7 [label=\"b!o\"]; }",
        )
        .unwrap();
        // 7 and "7" are one state, 007 and 999999999 two others.
        assert_eq!(fsms[0].state_count(), 3);
        assert_eq!(fsms[0].transition_count(), 3);
    }

    #[test]
    fn a_large_numeral_seen_first_stays_one_state_when_the_vector_grows_past_it() {
        // `2000` is named first, when it is too large for the vector; then 0..3000
        // are named, and the vector grows past 2000.
        let mut dot = String::from("digraph a {\n2000;\n");
        for i in 0..3000 {
            dot.push_str(&format!("{i} -> {} [label=\"b!m\"];\n", i + 1));
        }
        // Named again once the vector is longer than 2000.
        dot.push_str("3000 -> 2000 [label=\"b!n\"];\n}\n");
        let fsm = &crate::format::parse_dot(&dot).unwrap()[0];
        assert_eq!(fsm.state_count(), 3001);
        assert_eq!(fsm.transition_count(), 3001);
    }
}
