//! The safety judge of receptions merged from different senders: a role whose projection
//! waits on several peers at once (an `Offer`, the role learns a choice from whichever
//! peer speaks first) is well-formed only when k-MC proves the whole system of
//! projections safe.
//!
//! The merge rule alone (branches distinguishable by sender and label) does not make the
//! race safe: when the chooser may also reach the role directly, the role can take the
//! chooser's message first and leave the other sender's message unread for ever
//! (`invalid/offer_race.scr`). scribble-java checks such protocols by exploring its
//! global model; here the projections' k-MC check (Lange and Yoshida, "Verifying
//! Asynchronous Interactions via Communicating Session Automata", CAV 2019) does it, for
//! a small bound and a bounded number of configurations, on the machines as the runtime
//! runs them (see [`as_run`]). Protocols where every role receives from one peer at a
//! time are not checked here: nuscr's rules make them safe.

use mpst_fsm::kmc::{check_kmc_with, KmcOptions};
use mpst_fsm::{Action, Direction, Fsm, Message};

use crate::{Diagnostic, ErrorKind, GlobalProtocol};

/// The bound: the one the repository's soundness properties check projections with.
const K: usize = 2;
/// The configurations explored before giving up (an unknown answer rejects).
const MAX_CONFIGURATIONS: usize = 200_000;
/// The label of the transition that keeps a machine stuck after it took a label it
/// could not (no role sends it).
const STUCK: &str = "mpst_unexpected_label";

/// The first role with a state that receives from several peers, with those peers.
fn racing(fsms: &[Fsm]) -> Option<(String, Vec<String>)> {
    fsms.iter().find_map(|fsm| {
        (0..fsm.state_count()).find_map(|s| {
            let peers = receives_from(fsm, s);
            (peers.len() > 1).then(|| (fsm.role().to_string(), peers))
        })
    })
}

/// The peers `s` receives from, sorted.
fn receives_from(fsm: &Fsm, s: usize) -> Vec<String> {
    let mut peers: Vec<String> = fsm
        .transitions(s)
        .iter()
        .filter(|t| t.action.direction == Direction::Receive)
        .map(|t| t.action.peer.clone())
        .collect();
    peers.sort();
    peers.dedup();
    peers
}

/// The system as the runtime runs it. In a CFSM, a state receiving from several peers
/// takes a queue's head only when it has a transition for it, and a head it cannot
/// take waits for later; the runtime's `Offer` takes the first message of whichever
/// route is ready, and an unexpected one fails the session. So every label a peer ever
/// sends to the role, and the state does not take from that peer, leads here to a state
/// stuck for ever (waiting for a label no one sends), which k-MC reports.
fn as_run(fsms: &[Fsm]) -> Vec<Fsm> {
    let mut out = fsms.to_vec();
    for (i, fsm) in out.iter_mut().enumerate() {
        let role = fsm.role().to_string();
        let mut stuck = None;
        for s in 0..fsm.state_count() {
            let peers = receives_from(fsm, s);
            if peers.len() < 2 {
                continue;
            }
            for peer in &peers {
                let sent = sent_to(fsms, i, peer, &role);
                for message in sent {
                    let taken = fsm
                        .transitions(s)
                        .iter()
                        .any(|t| t.action.peer == *peer && t.action.message.label == message.label);
                    if taken {
                        continue;
                    }
                    let to = *stuck.get_or_insert_with(|| {
                        let at = fsm.add_state();
                        let never = Action::receive(peer.clone(), Message::new(STUCK));
                        // A fresh state: the transition is new and not to the role itself.
                        let _ = fsm.add_transition(at, never, at);
                        at
                    });
                    let _ = fsm.add_transition(s, Action::receive(peer.clone(), message), to);
                }
            }
        }
    }
    out
}

/// Every message the machine of `peer` sends to `role` (the machine at index `skip` is
/// `role`'s own).
fn sent_to(fsms: &[Fsm], skip: usize, peer: &str, role: &str) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    for (j, fsm) in fsms.iter().enumerate() {
        if j == skip || fsm.role() != peer {
            continue;
        }
        for (_, t) in fsm.all_transitions() {
            if t.action.direction == Direction::Send
                && t.action.peer == role
                && !out.contains(&t.action.message)
            {
                out.push(t.action.message.clone());
            }
        }
    }
    out
}

/// Why the projections `fsms` of `protocol` are not known to be safe, when some role
/// receives from several peers at once and k-MC does not prove the system, as the
/// runtime runs it ([`as_run`]), for `k = 2`; `None` otherwise.
pub(crate) fn check(protocol: &GlobalProtocol, fsms: &[Fsm]) -> Option<Diagnostic> {
    let (role, peers) = racing(fsms)?;
    let options = KmcOptions {
        max_configurations: MAX_CONFIGURATIONS,
        ..KmcOptions::new(K)
    };
    let why = match check_kmc_with(&as_run(fsms), &options) {
        Ok(report) if report.is_kmc() => return None,
        Ok(report) => report.violation.map(|v| v.to_string()),
        Err(e) => Some(e.to_string()),
    };
    let peers: Vec<String> = peers.iter().map(|p| format!("`{p}`")).collect();
    let mut diagnostic = Diagnostic::new(
        ErrorKind::Unmergeable,
        protocol.name.span,
        format!(
            "role `{role}` learns a choice from whichever of {} speaks first, but k-MC \
             does not prove the projections safe (k = {K})",
            peers.join(" and ")
        ),
    )
    .with_note(format!(
        "a role may wait on several peers only when, in every run, the first message any \
         of them sends it there is one it takes (the runtime fails on any other: such a \
         step leads to `{STUCK}`) and no message is left unread"
    ));
    if let Some(why) = why {
        diagnostic = diagnostic.with_note(format!("k-MC: {why}"));
    }
    Some(diagnostic)
}
