//! Checking the log of a run (`R0!R1:Label` after a send, `R1?R0:Label` after a
//! receive) against the projections of its protocol, with Rust names.

use std::collections::{BTreeMap, VecDeque};

use mpst_fsm::{Direction, Fsm};

/// A label taken at a state receiving from several peers: (role, state, sender).
pub type OfferTaken = (String, usize, String);

/// One step: (role, peer, label, whether it is a send).
fn parse(step: &str) -> Result<(&str, &str, &str, bool), String> {
    let (me, rest, send) = match (step.split_once('!'), step.split_once('?')) {
        (Some((me, rest)), _) => (me, rest, true),
        (_, Some((me, rest))) => (me, rest, false),
        _ => return Err(format!("unreadable step {step}")),
    };
    let (peer, label) = rest
        .split_once(':')
        .ok_or(format!("unreadable step {step}"))?;
    Ok((me, peer, label, send))
}

/// The machines by role, each at its initial state.
struct Walk<'a> {
    fsms: &'a [Fsm],
    index: BTreeMap<&'a str, usize>,
    states: Vec<usize>,
    offers: Vec<OfferTaken>,
}

impl<'a> Walk<'a> {
    fn new(fsms: &'a [Fsm]) -> Self {
        Walk {
            fsms,
            index: fsms
                .iter()
                .enumerate()
                .map(|(i, f)| (f.role(), i))
                .collect(),
            states: fsms.iter().map(Fsm::initial).collect(),
            offers: Vec::new(),
        }
    }

    /// Moves `me` by the step, or says why it cannot.
    fn take(&mut self, step: &str) -> Result<(), String> {
        let (me, peer, label, send) = parse(step)?;
        let m = *self.index.get(me).ok_or(format!("{step}: no role {me}"))?;
        let fsm = &self.fsms[m];
        let direction = if send {
            Direction::Send
        } else {
            Direction::Receive
        };
        let state = self.states[m];
        let t = fsm
            .transitions(state)
            .iter()
            .find(|t| {
                t.action.direction == direction
                    && t.action.peer == peer
                    && t.action.message.label == label
            })
            .ok_or(format!(
                "{step}: no such transition at state {state} of {me}"
            ))?;
        if !send && mpst_fsm::kmc::receives_from(fsm, state).len() > 1 {
            self.offers.push((me.to_string(), state, peer.to_string()));
        }
        self.states[m] = t.target;
        Ok(())
    }

    /// Every role in a final state: the offers taken on the way.
    fn finish(self) -> Result<Vec<OfferTaken>, String> {
        for (m, fsm) in self.fsms.iter().enumerate() {
            if !fsm.is_final(self.states[m]) {
                let state = self.states[m];
                return Err(format!("{} ends in state {state}, not final", fsm.role()));
            }
        }
        Ok(self.offers)
    }
}

/// Replays `log`, in the order its steps happened, through `fsms` with FIFO queues;
/// returns the labels taken at states receiving from several peers, or why the log is
/// no run of the system.
pub fn replay(fsms: &[Fsm], log: &[String]) -> Result<Vec<OfferTaken>, String> {
    let mut walk = Walk::new(fsms);
    let mut queues: BTreeMap<(&str, &str), VecDeque<&str>> = BTreeMap::new();
    for step in log {
        walk.take(step)?;
        let (me, peer, label, send) = parse(step)?;
        if send {
            queues.entry((me, peer)).or_default().push_back(label);
        } else {
            let head = queues.get_mut(&(peer, me)).and_then(VecDeque::pop_front);
            if head != Some(label) {
                return Err(format!(
                    "{step}: the queue from {peer} holds {head:?} first"
                ));
            }
        }
    }
    if let Some((pair, q)) = queues.iter().find(|(_, q)| !q.is_empty()) {
        return Err(format!("messages left unread on {pair:?}: {q:?}"));
    }
    walk.finish()
}

/// Replays `log`, whose steps are in order for each role but interleaved in no
/// particular way, through `fsms`: each role's steps a path of its machine to a final
/// state, and the labels each role received from a peer exactly those the peer sent it,
/// in the same order.
pub fn replay_roles(fsms: &[Fsm], log: &[String]) -> Result<Vec<OfferTaken>, String> {
    let mut walk = Walk::new(fsms);
    let mut sent: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    let mut received: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    for step in log {
        walk.take(step)?;
        let (me, peer, label, send) = parse(step)?;
        if send {
            sent.entry((me, peer)).or_default().push(label);
        } else {
            received.entry((peer, me)).or_default().push(label);
        }
    }
    for pair in sent.keys().chain(received.keys()) {
        let (s, r) = (sent.get(pair), received.get(pair));
        if s != r {
            return Err(format!("{pair:?}: sent {s:?}, received {r:?}"));
        }
    }
    walk.finish()
}
