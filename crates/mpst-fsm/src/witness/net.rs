//! The compiled form a witness search runs on: machines whose transitions read and
//! write numbered FIFO channels, built from a system of FSMs or from a candidate and
//! the dual of its supertype, and the semantics (successors, bad configurations).

use rustc_hash::FxHashMap;

use super::{dual_step, message_key};
use crate::kmc::{Configuration, KmcError, Step, ViolationKind};
use crate::{Fsm, Message};
use escape::escapes;

mod escape;

/// One transition: a send onto or a receive from a channel, and how it is shown.
struct Trans {
    send: bool,
    chan: u32,
    msg: u32,
    target: u32,
    step: Step,
}

struct Machine {
    name: String,
    initial: u32,
    states: Vec<Vec<Trans>>,
    /// For each state, every `(channel, message)` it can ever receive from there on,
    /// sorted: a head message outside it is never received.
    readable: Vec<Vec<(u32, u32)>>,
    /// For each state from which the machine can send for ever (an infinite path of
    /// states whose transitions are all sends), the transition of that path to take;
    /// `u32::MAX` for the other states (empty unless the net looks for those escapes).
    escape: Vec<u32>,
}

impl Machine {
    fn new(name: String, initial: u32, states: Vec<Vec<Trans>>) -> Machine {
        let readable = (0..states.len())
            .map(|start| {
                let mut seen = vec![false; states.len()];
                let mut todo = vec![start];
                seen[start] = true;
                let mut out = Vec::new();
                while let Some(s) = todo.pop() {
                    for t in &states[s] {
                        if !t.send {
                            out.push((t.chan, t.msg));
                        }
                        if !seen[t.target as usize] {
                            seen[t.target as usize] = true;
                            todo.push(t.target as usize);
                        }
                    }
                }
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        Machine {
            name,
            initial,
            states,
            readable,
            escape: Vec::new(),
        }
    }
}

struct Chan {
    from: String,
    to: String,
    receiver: u32,
}

/// Machines over channels.
pub(super) struct Net {
    machines: Vec<Machine>,
    chans: Vec<Chan>,
    messages: Vec<Message>,
    /// Whether a message its receiver can leave unread for ever, by sending for ever,
    /// is a wrong run (a candidate beside a supertype's dual: see [`super::against_dual`]).
    escapes: bool,
}

/// A bad configuration: what goes wrong, and for an orphan its receiver leaves unread
/// by sending for ever, that receiver.
pub(super) struct Bad {
    pub kind: ViolationKind,
    pub escape: Option<u32>,
}

#[derive(Default)]
struct Builder {
    chans: Vec<Chan>,
    chan_index: FxHashMap<(String, String), u32>,
    messages: Vec<Message>,
    message_index: FxHashMap<(String, Vec<String>), u32>,
}

impl Builder {
    fn chan(&mut self, from: &str, to: &str, receiver: u32) -> u32 {
        let key = (from.to_string(), to.to_string());
        if let Some(&c) = self.chan_index.get(&key) {
            return c;
        }
        let c = self.chans.len() as u32;
        self.chans.push(Chan {
            from: from.to_string(),
            to: to.to_string(),
            receiver,
        });
        self.chan_index.insert(key, c);
        c
    }

    fn message(&mut self, message: &Message) -> u32 {
        let key = message_key(message);
        if let Some(&m) = self.message_index.get(&key) {
            return m;
        }
        let m = self.messages.len() as u32;
        self.messages.push(message.clone());
        self.message_index.insert(key, m);
        m
    }

    fn finish(self, machines: Vec<Machine>, escapes: bool) -> Net {
        Net {
            machines,
            chans: self.chans,
            messages: self.messages,
            escapes,
        }
    }
}

impl Net {
    /// One machine per FSM, one channel per ordered pair of roles that is used.
    pub(super) fn system(fsms: &[Fsm]) -> Result<Net, KmcError> {
        if fsms.is_empty() {
            return Err(KmcError::EmptySystem);
        }
        let mut roles: FxHashMap<&str, u32> = FxHashMap::default();
        for (i, fsm) in fsms.iter().enumerate() {
            if roles.insert(fsm.role(), i as u32).is_some() {
                return Err(KmcError::DuplicateRole(fsm.role().to_string()));
            }
        }
        let mut b = Builder::default();
        let mut machines = Vec::with_capacity(fsms.len());
        for (me, fsm) in fsms.iter().enumerate() {
            let mut states = Vec::with_capacity(fsm.state_count());
            for state in 0..fsm.state_count() {
                let mut ts = Vec::new();
                for t in fsm.transitions(state) {
                    let Some(&peer) = roles.get(t.action.peer.as_str()) else {
                        return Err(KmcError::UnknownPeer {
                            role: fsm.role().to_string(),
                            state,
                            action: t.action.clone(),
                        });
                    };
                    let send = t.action.is_send();
                    let chan = if send {
                        b.chan(fsm.role(), &t.action.peer, peer)
                    } else {
                        b.chan(&t.action.peer, fsm.role(), me as u32)
                    };
                    ts.push(Trans {
                        send,
                        chan,
                        msg: b.message(&t.action.message),
                        target: t.target as u32,
                        step: Step {
                            role: fsm.role().to_string(),
                            action: t.action.clone(),
                        },
                    });
                }
                states.push(ts);
            }
            machines.push(Machine::new(
                fsm.role().to_string(),
                fsm.initial() as u32,
                states,
            ));
        }
        Ok(b.finish(machines, false))
    }

    /// Machine 0 is `sub`, machine 1 plays every peer of `sup` dually.
    pub(super) fn dual(sub: &Fsm, sup: &Fsm) -> Net {
        let peers: Vec<&str> = sub.peers().into_iter().chain(sup.peers()).collect();
        let me = [sub.role(), sup.role(), "self"]
            .into_iter()
            .find(|name| !peers.contains(name))
            .unwrap_or("self");
        let mut b = Builder::default();
        let mut machines = Vec::with_capacity(2);
        let mut sub_states = Vec::with_capacity(sub.state_count());
        for state in 0..sub.state_count() {
            let ts = sub
                .transitions(state)
                .iter()
                .map(|t| {
                    let send = t.action.is_send();
                    let chan = if send {
                        b.chan(me, &t.action.peer, 1)
                    } else {
                        b.chan(&t.action.peer, me, 0)
                    };
                    Trans {
                        send,
                        chan,
                        msg: b.message(&t.action.message),
                        target: t.target as u32,
                        step: Step {
                            role: me.to_string(),
                            action: t.action.clone(),
                        },
                    }
                })
                .collect();
            sub_states.push(ts);
        }
        machines.push(Machine::new(
            me.to_string(),
            sub.initial() as u32,
            sub_states,
        ));
        let mut env_states = Vec::with_capacity(sup.state_count());
        for state in 0..sup.state_count() {
            let ts = sup
                .transitions(state)
                .iter()
                .map(|t| {
                    // `sup` sends to p: the dual receives as p.
                    let send = t.action.is_receive();
                    let chan = if send {
                        b.chan(&t.action.peer, me, 0)
                    } else {
                        b.chan(me, &t.action.peer, 1)
                    };
                    Trans {
                        send,
                        chan,
                        msg: b.message(&t.action.message),
                        target: t.target as u32,
                        step: dual_step(me, &t.action),
                    }
                })
                .collect();
            env_states.push(ts);
        }
        let env_peers: Vec<&str> = sup.peers().into_iter().collect();
        let name = if env_peers.is_empty() {
            "environment".to_string()
        } else {
            env_peers.join("+")
        };
        machines.push(Machine::new(name, sup.initial() as u32, env_states));
        for machine in &mut machines {
            machine.escape = escapes(&machine.states);
        }
        b.finish(machines, true)
    }

    /// Initial states and empty channels: `[state.., len, msgs.., len, msgs..]`.
    pub(super) fn initial(&self) -> Vec<u32> {
        let mut c: Vec<u32> = self.machines.iter().map(|m| m.initial).collect();
        c.resize(c.len() + self.chans.len(), 0);
        c
    }

    /// Where each channel's length word is.
    fn offsets(&self, config: &[u32]) -> Vec<usize> {
        let mut offs = Vec::with_capacity(self.chans.len());
        let mut pos = self.machines.len();
        for _ in &self.chans {
            offs.push(pos);
            pos += 1 + config[pos] as usize;
        }
        offs
    }

    fn fire(&self, config: &[u32], offs: &[usize], m: usize, t: &Trans) -> Vec<u32> {
        let o = offs[t.chan as usize];
        let mut next = Vec::with_capacity(config.len() + 1);
        if t.send {
            let end = o + 1 + config[o] as usize;
            next.extend_from_slice(&config[..end]);
            next.push(t.msg);
            next.extend_from_slice(&config[end..]);
            next[o] += 1;
        } else {
            next.extend_from_slice(&config[..o + 1]);
            next.extend_from_slice(&config[o + 2..]);
            next[o] -= 1;
        }
        next[m] = t.target;
        next
    }

    fn receivable(config: &[u32], offs: &[usize], t: &Trans) -> bool {
        let o = offs[t.chan as usize];
        config[o] > 0 && config[o + 1] == t.msg
    }

    /// Every successor `(machine, transition, configuration)`; sends onto a channel
    /// holding `max_queue` messages are left out and set `capped`.
    pub(super) fn successors(
        &self,
        config: &[u32],
        max_queue: usize,
        capped: &mut bool,
    ) -> Vec<(u32, u32, Vec<u32>)> {
        let offs = self.offsets(config);
        let mut out = Vec::new();
        for (m, machine) in self.machines.iter().enumerate() {
            for (i, t) in machine.states[config[m] as usize].iter().enumerate() {
                let ok = if t.send {
                    let full = config[offs[t.chan as usize]] as usize >= max_queue;
                    *capped |= full;
                    !full
                } else {
                    Self::receivable(config, &offs, t)
                };
                if ok {
                    out.push((m as u32, i as u32, self.fire(config, &offs, m, t)));
                }
            }
        }
        out
    }

    /// The successors by a transition shown as `step` (several for a
    /// non-deterministic machine).
    pub(super) fn apply(&self, config: &[u32], step: &Step) -> Vec<Vec<u32>> {
        let offs = self.offsets(config);
        let mut out = Vec::new();
        for (m, machine) in self.machines.iter().enumerate() {
            for t in &machine.states[config[m] as usize] {
                let shown = t.step.role == step.role && t.step.action.same_sort(&step.action);
                if shown && (t.send || Self::receivable(config, &offs, t)) {
                    out.push(self.fire(config, &offs, m, t));
                }
            }
        }
        out
    }

    /// How transition `t` of machine `m`'s is shown.
    pub(super) fn step(&self, m: u32, t: u32, config_state: u32) -> Step {
        self.machines[m as usize].states[config_state as usize][t as usize]
            .step
            .clone()
    }

    /// Why `config` is bad for good, if it is.
    pub(super) fn bad(&self, config: &[u32]) -> Option<Bad> {
        let offs = self.offsets(config);
        let head = |c: u32| {
            let o = offs[c as usize];
            (config[o] > 0).then(|| config[o + 1])
        };
        for (m, machine) in self.machines.iter().enumerate() {
            let ts = &machine.states[config[m] as usize];
            let blocked = |t: &Trans| !t.send && head(t.chan).is_some_and(|h| h != t.msg);
            if !ts.is_empty() && ts.iter().all(blocked) {
                let chan = &self.chans[ts[0].chan as usize];
                let msg = head(ts[0].chan).unwrap_or_default();
                return Some(Bad {
                    kind: ViolationKind::UnspecifiedReception {
                        role: chan.to.clone(),
                        from: chan.from.clone(),
                        message: self.messages[msg as usize].clone(),
                        expected: ts.iter().map(|t| t.step.action.clone()).collect(),
                    },
                    escape: None,
                });
            }
            // A head its receiver can never take from here on stays for ever.
            let orphan = self.chans.iter().enumerate().find_map(|(c, chan)| {
                let msg = head(c as u32).filter(|_| chan.receiver == m as u32)?;
                let readable = &machine.readable[config[m] as usize];
                readable
                    .binary_search(&(c as u32, msg))
                    .is_err()
                    .then_some((chan, msg))
            });
            if let Some((chan, msg)) = orphan {
                return Some(self.orphan(chan, msg, None));
            }
        }
        // A head its receiver can leave unread for ever by sending for ever.
        if self.escapes {
            for (c, chan) in self.chans.iter().enumerate() {
                let m = chan.receiver;
                let escapes = self.machines[m as usize].escape[config[m as usize] as usize];
                if let Some(msg) = head(c as u32).filter(|_| escapes != u32::MAX) {
                    return Some(self.orphan(chan, msg, Some(m)));
                }
            }
        }
        let moves = self.machines.iter().enumerate().any(|(m, machine)| {
            machine.states[config[m] as usize]
                .iter()
                .any(|t| t.send || Self::receivable(config, &offs, t))
        });
        if moves {
            return None;
        }
        let waiting: Vec<String> = self
            .machines
            .iter()
            .enumerate()
            .filter(|(m, machine)| !machine.states[config[*m] as usize].is_empty())
            .map(|(_, machine)| machine.name.clone())
            .collect();
        (!waiting.is_empty()).then_some(Bad {
            kind: ViolationKind::Deadlock { waiting },
            escape: None,
        })
    }

    fn orphan(&self, chan: &Chan, msg: u32, escape: Option<u32>) -> Bad {
        Bad {
            kind: ViolationKind::Orphan {
                from: chan.from.clone(),
                to: chan.to.clone(),
                message: self.messages[msg as usize].clone(),
            },
            escape,
        }
    }

    /// `config` in terms of the machines' names and the channels.
    pub(super) fn configuration(&self, config: &[u32]) -> Configuration {
        let offs = self.offsets(config);
        Configuration {
            states: self
                .machines
                .iter()
                .enumerate()
                .map(|(m, machine)| (machine.name.clone(), config[m] as usize))
                .collect(),
            queues: self
                .chans
                .iter()
                .zip(&offs)
                .filter(|&(_, &o)| config[o] > 0)
                .map(|(chan, &o)| {
                    let msgs = &config[o + 1..o + 1 + config[o] as usize];
                    (
                        chan.from.clone(),
                        chan.to.clone(),
                        msgs.iter()
                            .map(|&m| self.messages[m as usize].clone())
                            .collect(),
                    )
                })
                .collect(),
        }
    }
}
