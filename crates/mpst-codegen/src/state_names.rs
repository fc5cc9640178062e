//! The names of a role's state types: read off the messages that lead to each state, so
//! that an edit in one branch of a protocol does not rename the states of another.
//!
//! # The rule
//!
//! The states of a role's FSM are named after the *path* that first reaches them: the
//! shortest sequence of actions from the initial state, the least in action order among
//! the shortest ones (the breadth-first path of [`Fsm::canonical`]). Along that path,
//! a *choice step* is a transition out of a state with several transitions (a `Select`,
//! `Choose` or `Branch`); every other step is forced. With `R` the role's identifier and
//! `L` a label's type name (`Accept`, `CorrectI32`), a state's name is
//!
//! - `RSession` for the initial state (`ROptimised` for an optimised machine generated
//!   beside the projections, whose other states then start with `ROptimised` instead of
//!   `R`);
//! - `RX` for a state that `rec X` starts (projection names it, see
//!   [`Fsm::state_name`]), unless several states carry that name (an unfolded loop);
//! - otherwise `R`, then the name `X` of the nearest such `rec` state on the path, if
//!   any, then the label of every choice step of the path after it (the branches
//!   taken; with `X`, the *context*: `BDelegating`, `CDelegateAccept`, `BRoundBid`),
//!   then, when the path goes on after its last choice step, `After` and the label of
//!   its last step (`BAcceptAfterDate`), followed by `n` when that label is the `n`-th
//!   (`n > 1`) step with this label since the last choice step (`AAfterA2` after
//!   `a; b; a`).
//!
//! A choice step whose label another transition of the same state also carries (a
//! `Choose` sending `quit` to two peers) adds the peer's identifier to its label
//! (`QuitB`, `QuitC`). The choice enum of a state `X` is `XChoice`. Final states are
//! `End`.
//!
//! # Why it is stable
//!
//! A name depends only on the path that names the state, not on state numbers. An edit
//! in one branch of a choice (a message added, removed or renamed) changes the paths
//! of that branch's states only, so the states of the other branches keep their names;
//! the test `names_of_other_branches_survive_an_edit` of `tests/it/stable_names.rs`
//! asserts it. Naming loop heads after their `rec` makes the names inside a loop
//! independent of the path into it.
//!
//! Limits: a state that several branches share (projection turns identical
//! continuations into one state) is named after the first of its paths, and is renamed
//! when an edit makes the branches' continuations differ; a `rec` at the very start
//! names nothing (its state is `RSession`); and an FSM read from DOT carries no names,
//! so its loop heads are named after their paths.
//!
//! Distinct states get distinct names by construction, except when names made of
//! several labels run together (labels `a_b` vs `a` then `b` both give `AB`; a `rec`
//! named like a label) or meet another generated type. The emitter then appends the
//! least number that frees the name (`{name}2`, `{name}3`, in canonical state order),
//! which renames only the colliding state.

use std::collections::BTreeMap;

use mpst_fsm::{Fsm, Message};

/// How a state is named: the context of choices taken and the run of forced steps
/// since the last of them.
#[derive(Clone, Default)]
struct PathName {
    /// The labels of the choice steps of the path, concatenated.
    context: String,
    /// The last forced step since the last choice step, and how many steps with its label
    /// that run has.
    last: Option<(String, usize)>,
    /// The state where the run of forced steps since the last choice step starts: a
    /// run is a chain, so counting labels per (run, label) counts them along the path.
    run: usize,
    /// The actions the name stands for: the choice steps, then the last forced step.
    steps: Vec<String>,
    /// The last forced step since the last choice step, as an action.
    last_step: Option<String>,
    /// The `rec` variable of the nearest named state the path passes, if any.
    rec: Option<String>,
}

/// The name of a state and the actions it is named after, for its documentation.
pub(crate) struct StateName {
    /// The Rust identifier (before clashes with other types are resolved).
    pub ident: String,
    /// `after `S!accept(String)` then `S?date(String)``, or `at the start`.
    pub doc: String,
}

/// The name of each state of `fsm` (a canonical machine, see [`Fsm::canonical`]) for the
/// role whose identifier stem is `role` (`KOptimised` for an optimised machine), the
/// initial state named `start` (`KSession`, `KOptimised`): `None` for final states other
/// than the initial one. `label` gives a message's type name, `peer` a role's identifier.
pub(crate) fn state_names(
    fsm: &Fsm,
    role: &str,
    start: &str,
    label: impl Fn(&Message) -> String,
    peer: impl Fn(&str) -> String,
) -> Vec<Option<StateName>> {
    let n = fsm.state_count();
    let mut paths: Vec<Option<PathName>> = vec![None; n];
    let mut counts: BTreeMap<(usize, String), usize> = BTreeMap::new();
    paths[fsm.initial()] = Some(PathName {
        run: fsm.initial(),
        ..PathName::default()
    });
    // The names of loop heads that only one state carries (an unfolded loop has
    // several copies of its head: none of them is named after it).
    let mut carriers: BTreeMap<&str, usize> = BTreeMap::new();
    for s in 0..n {
        if let Some(name) = fsm.state_name(s) {
            *carriers.entry(name).or_default() += 1;
        }
    }
    let rec = |s: usize| {
        fsm.state_name(s)
            .filter(|name| carriers[name] == 1 && s != fsm.initial())
    };
    // Canonical numbering is breadth-first with transitions sorted by action, so the first
    // transition to reach a state in this order is the last step of its naming path.
    for s in fsm.canonical_order() {
        let ts = fsm.transitions(s);
        let Some(path) = paths[s].clone() else {
            continue;
        };
        for t in ts {
            if paths[t.target].is_some() {
                continue;
            }
            if let Some(name) = rec(t.target) {
                paths[t.target] = Some(PathName {
                    context: crate::names::camel(name, "S"),
                    rec: Some(name.to_string()),
                    run: t.target,
                    ..PathName::default()
                });
                continue;
            }
            let l = label(&t.action.message);
            let mut next = path.clone();
            if ts.len() > 1 {
                next.context.push_str(&l);
                let shared = ts
                    .iter()
                    .filter(|u| u.action.message.label == t.action.message.label)
                    .count();
                if shared > 1 {
                    next.context.push_str(&peer(&t.action.peer));
                }
                next.last = None;
                next.run = t.target;
                next.steps.push(t.action.to_string());
                next.last_step = None;
            } else {
                let count = counts.entry((next.run, l.clone())).or_insert(0);
                *count += 1;
                next.last = Some((l, *count));
                next.last_step = Some(t.action.to_string());
            }
            paths[t.target] = Some(next);
        }
    }
    (0..n)
        .map(|s| {
            if s == fsm.initial() {
                return Some(StateName {
                    ident: start.to_string(),
                    doc: "at the start".to_string(),
                });
            }
            if fsm.is_final(s) {
                return None;
            }
            let path = paths[s].as_ref()?;
            let mut name = format!("{role}{}", path.context);
            if let Some((last, count)) = &path.last {
                name.push_str("After");
                name.push_str(last);
                if *count > 1 {
                    name.push_str(&count.to_string());
                }
            }
            let steps: Vec<String> = path
                .steps
                .iter()
                .chain(&path.last_step)
                .map(|a| format!("`{a}`"))
                .collect();
            let doc = match (&path.rec, steps.is_empty()) {
                (Some(rec), true) => format!("at the start of `rec {rec}`"),
                (Some(rec), false) => format!("in `rec {rec}` after {}", steps.join(" then ")),
                (None, _) => format!("after {}", steps.join(" then ")),
            };
            Some(StateName { ident: name, doc })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpst_fsm::{Action, StateId};

    fn names(fsm: &Fsm) -> Vec<Option<String>> {
        let fsm = fsm.canonical();
        let named = state_names(
            &fsm,
            "R",
            "RSession",
            |m| crate::names::camel(&m.label, "L"),
            |p| p.to_uppercase(),
        );
        named.into_iter().map(|n| n.map(|n| n.ident)).collect()
    }

    fn send(label: &str) -> Action {
        Action::send("p", Message::new(label))
    }

    #[test]
    fn forced_steps_count_repeated_labels_and_choices_reset_the_run() {
        let mut fsm = Fsm::new("r");
        let s: Vec<StateId> = (0..6).map(|_| fsm.add_state()).collect();
        fsm.add_transition(0, send("a"), s[0]).unwrap();
        fsm.add_transition(s[0], send("b"), s[1]).unwrap();
        fsm.add_transition(s[1], send("a"), s[2]).unwrap();
        fsm.add_transition(s[2], send("x"), s[3]).unwrap();
        fsm.add_transition(s[2], send("y"), s[4]).unwrap();
        fsm.add_transition(s[3], send("a"), s[5]).unwrap();
        fsm.add_transition(s[5], send("b"), s[4]).unwrap();
        let got = names(&fsm);
        let got: Vec<&str> = got.iter().flatten().map(String::as_str).collect();
        assert_eq!(
            got,
            [
                "RSession", "RAfterA", "RAfterB", "RAfterA2", "RX", "RXAfterA"
            ]
        );
    }

    #[test]
    fn a_label_sent_to_two_peers_in_one_choice_names_the_peer() {
        let mut fsm = Fsm::new("r");
        let (b, c) = (fsm.add_state(), fsm.add_state());
        let end = fsm.add_state();
        fsm.add_transition(0, Action::send("b", Message::new("quit")), b)
            .unwrap();
        fsm.add_transition(0, Action::send("c", Message::new("quit")), c)
            .unwrap();
        fsm.add_transition(b, send("z"), end).unwrap();
        fsm.add_transition(c, send("y"), end).unwrap();
        let got = names(&fsm);
        let got: Vec<&str> = got.iter().flatten().map(String::as_str).collect();
        assert_eq!(got, ["RSession", "RQuitB", "RQuitC"]);
    }

    #[test]
    fn a_rec_state_is_named_after_its_variable_and_starts_the_context() {
        let mut fsm = Fsm::new("r");
        let (round, bid, end) = (fsm.add_state(), fsm.add_state(), fsm.add_state());
        fsm.add_transition(0, send("lot"), round).unwrap();
        fsm.add_transition(round, send("bid"), bid).unwrap();
        fsm.add_transition(round, send("stop"), end).unwrap();
        fsm.add_transition(bid, send("ack"), round).unwrap();
        fsm.set_state_name(round, "round").unwrap();
        let got = names(&fsm);
        let got: Vec<&str> = got.iter().flatten().map(String::as_str).collect();
        assert_eq!(got, ["RSession", "RRound", "RRoundBid"]);
        // Two states carrying the name (an unfolded loop): neither is named after it.
        fsm.set_state_name(bid, "round").unwrap();
        let got = names(&fsm);
        let got: Vec<&str> = got.iter().flatten().map(String::as_str).collect();
        assert_eq!(got, ["RSession", "RAfterLot", "RBid"]);
    }
}
