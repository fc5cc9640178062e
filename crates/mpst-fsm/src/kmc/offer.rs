//! k-MC under the runtime's `Offer` semantics: a state receiving from several peers
//! takes the first message at the head of *any* of their queues, and fails
//! (`UnexpectedLabel`) on one it has no transition for, where a CFSM would leave that
//! message queued and wait for another peer's.
//!
//! The rule is a transformation of the system, so the exploration and its reduction
//! are the standard ones: in every state of a machine that receives from two peers or
//! more, every message a peer of that state ever sends to the machine and the state
//! does not take from that peer leads to a fresh *stuck* state. A run that takes such
//! a transition is a run on which the runtime fails; the check reports the shortest
//! explored one as an unspecified reception ([`ViolationKind::UnspecifiedReception`])
//! in the configuration just before the bad step. When no such transition is
//! explored, the stuck states are unreachable and the rest of the verdict is that of
//! the transformed system, which moves exactly as the runtime does.

use crate::{Action, Direction, Fsm, Message, StateId};

use super::explore::{Explored, Explorer};
use super::paths::Paths;
use super::system::System;
use super::violation::ViolationKind;
use super::{KmcError, KmcOptions, KmcReport, report};

/// The bound with which projections and generated systems that have an `Offer` are
/// checked (the one the repository's soundness properties check projections with).
pub const OFFER_K: usize = 2;

/// The configurations explored for those checks before giving up (an unknown answer,
/// never a refutation).
pub const OFFER_MAX_CONFIGURATIONS: usize = 200_000;

/// The options of the checks of projections and generated systems that have an
/// `Offer`: bound [`OFFER_K`], at most [`OFFER_MAX_CONFIGURATIONS`] configurations.
pub fn offer_options() -> KmcOptions {
    KmcOptions {
        max_configurations: OFFER_MAX_CONFIGURATIONS,
        ..KmcOptions::new(OFFER_K)
    }
}

/// The label of the self-loop that keeps a stuck state waiting for ever (no role of a
/// well-formed system sends it: it is no identifier).
const STUCK: &str = "<unexpected label>";

/// The peers state `s` of `fsm` receives from, sorted and deduplicated.
pub fn receives_from(fsm: &Fsm, s: StateId) -> Vec<&str> {
    let mut peers: Vec<&str> = fsm
        .transitions(s)
        .iter()
        .filter(|t| t.action.direction == Direction::Receive)
        .map(|t| t.action.peer.as_str())
        .collect();
    peers.sort_unstable();
    peers.dedup();
    peers
}

/// The first state of `fsm` that receives from several peers (an `Offer` of the
/// runtime), with those peers; `None` when every state receives from one peer at most,
/// where the `Offer` semantics and the CFSM semantics agree.
pub fn offer_state(fsm: &Fsm) -> Option<(StateId, Vec<&str>)> {
    (0..fsm.state_count()).find_map(|s| {
        let peers = receives_from(fsm, s);
        (peers.len() > 1).then_some((s, peers))
    })
}

/// `system` as the runtime runs it (see the module's documentation), with the stuck
/// state added to each machine that has one.
fn as_run(system: &[Fsm]) -> (Vec<Fsm>, Vec<Option<StateId>>) {
    let mut out = system.to_vec();
    let mut stuck = vec![None; system.len()];
    for (i, fsm) in out.iter_mut().enumerate() {
        let role = fsm.role().to_string();
        for s in 0..fsm.state_count() {
            let peers: Vec<String> = receives_from(fsm, s)
                .into_iter()
                .map(str::to_string)
                .collect();
            if peers.len() < 2 {
                continue;
            }
            for peer in &peers {
                for message in sent_to(system, i, peer, &role) {
                    let taken = fsm.transitions(s).iter().any(|t| {
                        t.action.direction == Direction::Receive
                            && t.action.peer == *peer
                            && t.action.message.same_sort(&message)
                    });
                    if taken {
                        continue;
                    }
                    let to = *stuck[i].get_or_insert_with(|| {
                        let at = fsm.add_state();
                        let never = Action::receive(peer.clone(), Message::new(STUCK));
                        // A fresh state, a peer of the machine: cannot fail.
                        let _ = fsm.add_transition(at, never, at);
                        at
                    });
                    // The same label with other sorts makes the machine
                    // non-deterministic, which the exploration accepts.
                    let action = Action::receive(peer.clone(), message);
                    let _ = fsm.add_nondeterministic_transition(s, action, to);
                }
            }
        }
    }
    (out, stuck)
}

/// Every message the machine of `peer` sends to `role` (the machine at index `skip`
/// is `role`'s own).
fn sent_to(system: &[Fsm], skip: usize, peer: &str, role: &str) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    for (j, fsm) in system.iter().enumerate() {
        if j == skip || fsm.role() != peer {
            continue;
        }
        for (_, t) in fsm.all_transitions() {
            if t.action.direction == Direction::Send
                && t.action.peer == role
                && !out.iter().any(|m| m.same_sort(&t.action.message))
            {
                out.push(t.action.message.clone());
            }
        }
    }
    out
}

/// Checks that `system` is k-MC under the runtime's `Offer` semantics (see the
/// module's documentation) with `options`.
///
/// A system where no state receives from several peers gets the standard answer. A
/// run on which an `Offer` state meets a message it cannot take is reported as a
/// [`ViolationKind::UnspecifiedReception`] with the run reaching the configuration
/// where that message is at the head of its queue: it is a run on which the runtime
/// fails ([`KmcViolation::is_definitive`](super::KmcViolation::is_definitive)). The report's [`Shape`](super::Shape) is
/// that of `system` as given.
///
/// # Errors
/// As [`check_kmc_with`](super::check_kmc_with).
pub fn check_kmc_offer(system: &[Fsm], options: &KmcOptions) -> Result<KmcReport, KmcError> {
    if !system.iter().any(|f| offer_state(f).is_some()) {
        return super::check_kmc_with(system, options);
    }
    if options.k == 0 {
        return Err(KmcError::ZeroBound);
    }
    let shape = System::compile(system)?.shape();
    let (run, stuck) = as_run(system);
    let sys = System::compile(&run)?;
    let explorer = Explorer::new(&sys, options.k, options.reduce, options.max_configurations);
    let (graph, stopped) = match explorer.run(&mut |_| {})? {
        Explored::Stopped(graph, c, kind) => (graph, Some((c, kind))),
        Explored::Complete(graph) => (graph, None),
    };
    let paths = Paths::new(&graph);
    // The explored step into a stuck state whose source is nearest the start.
    let bad_step = graph
        .edges
        .iter()
        .filter(|e| {
            let target = sys.machines[e.machine as usize].trans[e.trans as usize].target;
            stuck[e.machine as usize] == Some(target as StateId)
                && paths.depth[e.src as usize] != super::paths::NONE
        })
        .min_by_key(|e| paths.depth[e.src as usize]);
    let bad = match (bad_step, stopped) {
        (Some(e), _) => {
            let action = sys.action(e.machine, e.trans as usize);
            let role = sys.role(e.machine);
            let state = graph.store.get(e.src)[e.machine as usize] as StateId;
            let expected = run[e.machine as usize]
                .transitions(state)
                .iter()
                .filter(|t| stuck[e.machine as usize] != Some(t.target))
                .map(|t| t.action.clone())
                .collect();
            let kind = ViolationKind::UnspecifiedReception {
                role: role.to_string(),
                from: action.peer.clone(),
                message: action.message.clone(),
                expected,
            };
            Some((e.src, kind))
        }
        (None, Some(stopped)) => Some(stopped),
        (None, None) => super::analysis::analyse(&sys, options.k, &graph, &paths),
    };
    Ok(report(&sys, options.k, shape, &graph, &paths, bad))
}
