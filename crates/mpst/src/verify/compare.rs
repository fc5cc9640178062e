//! Behavioural equality of two deterministic FSMs, with the first difference as evidence.

use std::collections::{HashMap, VecDeque};

use mpst_fsm::{Action, Fsm, StateId};

/// A state of the expected machine with a state of the actual one.
type Pair = (StateId, StateId);

/// Where two FSMs first behave differently.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// The machines describe different roles.
    #[error("the FSMs are for role `{expected}` and role `{actual}`")]
    Role {
        /// The expected machine's role.
        expected: String,
        /// The actual machine's role.
        actual: String,
    },
    /// After `trace`, the two machines offer different actions.
    #[error(
        "role `{role}` differs {}: the expected FSM can also do {}, the actual one can also \
         do {}",
        path(trace),
        list(only_expected),
        list(only_actual)
    )]
    Actions {
        /// The role.
        role: String,
        /// The actions both machines performed to get there, oldest first.
        trace: Vec<Action>,
        /// What the expected machine can do there and the actual one cannot.
        only_expected: Vec<Action>,
        /// What the actual machine can do there and the expected one cannot.
        only_actual: Vec<Action>,
    },
}

fn list(actions: &[Action]) -> String {
    if actions.is_empty() {
        return "nothing".to_string();
    }
    let items: Vec<String> = actions.iter().map(|a| format!("`{a}`")).collect();
    items.join(", ")
}

/// `at the start`, or `` after `a . b` `` for the actions of `trace`.
fn path(trace: &[Action]) -> String {
    if trace.is_empty() {
        return "at the start".to_string();
    }
    let steps: Vec<String> = trace.iter().map(ToString::to_string).collect();
    format!("after `{}`", steps.join(" . "))
}

/// Whether `actual` behaves exactly as `expected`: same role, and from the initial states
/// on, the same actions at every step (the machines are deterministic, so this is
/// bisimilarity, and trace equivalence with the final states marked). State numbers do
/// not matter, nor does a loop unrolled or a state duplicated on one side.
///
/// Actions are compared exactly (peer, direction, label, payload sorts); compare
/// [`normalise`](super::normalise)d machines to compare a projection with a serialised
/// session type. On a difference, the shortest trace that reaches it is reported.
pub fn compare(expected: &Fsm, actual: &Fsm) -> Result<(), Mismatch> {
    if expected.role() != actual.role() {
        return Err(Mismatch::Role {
            expected: expected.role().to_string(),
            actual: actual.role().to_string(),
        });
    }
    // Breadth first over pairs of states, remembering how each pair was reached.
    let start = (expected.initial(), actual.initial());
    let mut reached: HashMap<Pair, Option<(Pair, Action)>> = HashMap::from([(start, None)]);
    let mut queue = VecDeque::from([start]);
    while let Some((e, a)) = queue.pop_front() {
        let mut only_expected = Vec::new();
        let mut only_actual = Vec::new();
        for t in expected.transitions(e) {
            match actual.transitions(a).iter().find(|u| u.action == t.action) {
                Some(u) => {
                    let next = (t.target, u.target);
                    if let std::collections::hash_map::Entry::Vacant(slot) = reached.entry(next) {
                        slot.insert(Some(((e, a), t.action.clone())));
                        queue.push_back(next);
                    }
                }
                None => only_expected.push(t.action.clone()),
            }
        }
        for u in actual.transitions(a) {
            if !expected.transitions(e).iter().any(|t| t.action == u.action) {
                only_actual.push(u.action.clone());
            }
        }
        if !only_expected.is_empty() || !only_actual.is_empty() {
            let mut trace = Vec::new();
            let mut at = (e, a);
            while let Some(Some((before, action))) = reached.get(&at) {
                trace.push(action.clone());
                at = *before;
            }
            trace.reverse();
            only_expected.sort();
            only_actual.sort();
            return Err(Mismatch::Actions {
                role: expected.role().to_string(),
                trace,
                only_expected,
                only_actual,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpst_fsm::LocalType;

    fn fsm(text: &str) -> Fsm {
        LocalType::parse(text).unwrap().to_fsm("k").unwrap()
    }

    #[test]
    fn unrolled_loops_are_equal() {
        let once = fsm("rec x. s!ready(). s?value(). x");
        let twice = fsm("rec x. s!ready(). s?value(). s!ready(). s?value(). x");
        assert_eq!(compare(&once, &twice), Ok(()));
        assert_ne!(once.state_count(), twice.state_count());
    }

    #[test]
    fn the_first_difference_is_reported_with_its_trace() {
        let a = fsm("s!ready(). s?value(). t!value(). end");
        let b = fsm("s!ready(). s?value(). t!stop(). end");
        let err = compare(&a, &b).unwrap_err();
        assert_eq!(
            err.to_string(),
            "role `k` differs after `s!ready() . s?value()`: the expected FSM can also do \
             `t!value()`, the actual one can also do `t!stop()`"
        );
        let ended = fsm("s!ready(). end");
        let err = compare(&ended, &a).unwrap_err();
        assert!(matches!(
            &err,
            Mismatch::Actions { only_expected, only_actual, .. }
                if only_expected.is_empty() && only_actual.len() == 1
        ));
        let other = LocalType::parse("end").unwrap().to_fsm("s").unwrap();
        assert!(matches!(
            compare(&ended, &other),
            Err(Mismatch::Role { .. })
        ));
    }
}
