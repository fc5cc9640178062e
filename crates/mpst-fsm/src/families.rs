//! Generators for the four benchmark families of PPoPP 2022 §4.2, at any size, for the
//! subtyping and k-MC benchmarks and tests (and `mpst gen FAMILY N`).
//!
//! Every generator returns an [`Instance`]: the projected FSM of **every** role of the
//! protocol and the optimised FSM(s) of the roles the paper optimises. Subtyping checks
//! each optimised FSM against the projected FSM of the same role
//! ([`Instance::checks`]); k-MC checks the system in which the optimised FSMs replace
//! the projected ones ([`Instance::optimised_system`]).
//!
//! | family | roles | optimised |
//! |---|---|---|
//! | [`stream`]`(n)` | `s` source, `t` sink | `s` sends `n` values before the first `ready` |
//! | [`nested_choice`]`(n)` | `p`, `q` | `p`: `T_n` against the projection `T'_n` |
//! | [`ring`]`(n)` | `r0` … `r{n-1}` | every `ri`, `i > 0`, sends before it receives |
//! | [`k_buffering`]`(n)` | `s` source, `k` kernel, `t` sink | `k` sends `n` extra `ready` |
//!
//! ```
//! use mpst_fsm::{families, subtype::is_subtype};
//! let instance = families::k_buffering(3);
//! for (optimised, projected) in instance.checks() {
//!     assert!(is_subtype(optimised, projected, instance.visits).is_ok());
//! }
//! assert_eq!(instance.optimised_system().len(), 3);
//! ```

use std::fmt;
use std::str::FromStr;

use crate::{Action, Direction, Fsm, LocalType, Message, StateId};

/// One of the four benchmark families.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Streaming with `n` unrolled values ([`stream`]).
    Stream,
    /// `n` levels of nested choice ([`nested_choice`]).
    NestedChoice,
    /// A ring of `n` roles ([`ring`]).
    Ring,
    /// k-buffering with `n` unrolled `ready` messages ([`k_buffering`]).
    KBuffering,
}

impl Family {
    /// Every family, in the paper's order.
    pub const ALL: [Family; 4] = [
        Family::Stream,
        Family::NestedChoice,
        Family::Ring,
        Family::KBuffering,
    ];

    /// The name used on the command line: `stream`, `nested-choice`, `ring`,
    /// `k-buffering`.
    pub fn name(self) -> &'static str {
        match self {
            Family::Stream => "stream",
            Family::NestedChoice => "nested-choice",
            Family::Ring => "ring",
            Family::KBuffering => "k-buffering",
        }
    }

    /// The sizes this family accepts: nested choice grows as `5^n` states, a ring needs
    /// two roles.
    pub fn sizes(self) -> std::ops::RangeInclusive<usize> {
        match self {
            Family::Stream | Family::KBuffering => 0..=100_000,
            Family::NestedChoice => 0..=8,
            Family::Ring => 2..=10_000,
        }
    }

    /// The instance of size `n`, or an error saying which sizes are accepted.
    pub fn instance(self, n: usize) -> Result<Instance, SizeError> {
        let sizes = self.sizes();
        if !sizes.contains(&n) {
            return Err(SizeError {
                family: self,
                n,
                sizes,
            });
        }
        Ok(match self {
            Family::Stream => stream(n),
            Family::NestedChoice => nested_choice(n),
            Family::Ring => ring(n),
            Family::KBuffering => k_buffering(n),
        })
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown family name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown family `{0}` (expected stream, nested-choice, ring or k-buffering)")]
pub struct UnknownFamily(pub String);

impl FromStr for Family {
    type Err = UnknownFamily;

    /// Accepts the [`name`](Family::name)s and `nested`, `kbuffering`, `k-buffer`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "stream" => Ok(Family::Stream),
            "nested-choice" | "nested" | "nested_choice" => Ok(Family::NestedChoice),
            "ring" => Ok(Family::Ring),
            "k-buffering" | "kbuffering" | "k_buffering" | "k-buffer" => Ok(Family::KBuffering),
            _ => Err(UnknownFamily(s.to_string())),
        }
    }
}

/// A size outside [`Family::sizes`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{family} accepts sizes {}..={}, not {n}", sizes.start(), sizes.end())]
pub struct SizeError {
    /// The family.
    pub family: Family,
    /// The size asked for.
    pub n: usize,
    /// The sizes accepted.
    pub sizes: std::ops::RangeInclusive<usize>,
}

/// One protocol of a family at one size.
#[derive(Debug, Clone)]
pub struct Instance {
    /// The family.
    pub family: Family,
    /// The size.
    pub n: usize,
    /// The projected FSM of every role, in the protocol's role order.
    pub projected: Vec<Fsm>,
    /// The optimised FSMs; each has the role name of one projected FSM.
    pub optimised: Vec<Fsm>,
    /// A visit bound with which every optimised FSM is proved a subtype of its
    /// projection (`is_subtype(optimised, projected, visits)`).
    pub visits: usize,
}

impl Instance {
    /// The projected FSM of `role`.
    pub fn projected_role(&self, role: &str) -> Option<&Fsm> {
        self.projected.iter().find(|f| f.role() == role)
    }

    /// `(optimised, projected)` for every optimised role: the subtyping checks.
    pub fn checks(&self) -> Vec<(&Fsm, &Fsm)> {
        self.optimised
            .iter()
            .filter_map(|o| self.projected_role(o.role()).map(|p| (o, p)))
            .collect()
    }

    /// The system of every role where the optimised FSMs replace the projected ones,
    /// in role order: what k-MC checks.
    pub fn optimised_system(&self) -> Vec<Fsm> {
        self.projected
            .iter()
            .map(|p| {
                self.optimised
                    .iter()
                    .find(|o| o.role() == p.role())
                    .unwrap_or(p)
                    .clone()
            })
            .collect()
    }
}

/// Builds a machine state by state; the generators only add valid transitions.
struct Builder {
    fsm: Fsm,
}

impl Builder {
    fn new(role: &str) -> Self {
        Builder {
            fsm: Fsm::new(role),
        }
    }

    fn state(&mut self) -> StateId {
        self.fsm.add_state()
    }

    fn add(&mut self, from: StateId, peer: &str, dir: Direction, label: &str, to: StateId) {
        let action = Action {
            peer: peer.to_string(),
            direction: dir,
            message: Message::new(label),
        };
        self.fsm
            .add_transition(from, action, to)
            .expect("the generators only build deterministic machines over existing states");
    }

    /// `from` followed by `count` copies of one action; returns the last state.
    fn repeat(
        &mut self,
        from: StateId,
        count: usize,
        peer: &str,
        dir: Direction,
        label: &str,
    ) -> StateId {
        (0..count).fold(from, |state, _| {
            let next = self.state();
            self.add(state, peer, dir, label, next);
            next
        })
    }

    /// A loop from `from` back to `from` through the given actions.
    fn cycle(&mut self, from: StateId, actions: &[(&str, Direction, &str)]) {
        let mut state = from;
        for (i, &(peer, dir, label)) in actions.iter().enumerate() {
            let next = if i + 1 == actions.len() {
                from
            } else {
                self.state()
            };
            self.add(state, peer, dir, label, next);
            state = next;
        }
    }

    fn build(self) -> Fsm {
        self.fsm.canonical()
    }
}

use Direction::{Receive as In, Send as Out};

/// The source of the streaming protocol after `unroll` values sent ahead:
/// `(t!value)^unroll . (t?ready)^unroll . µx. t?ready. t!{value. x, stop. end}`.
fn stream_source(unroll: usize) -> Fsm {
    let mut b = Builder::new("s");
    let sent = b.repeat(0, unroll, "t", Out, "value");
    let top = b.repeat(sent, unroll, "t", In, "ready");
    let choice = b.state();
    let end = b.state();
    b.add(top, "t", In, "ready", choice);
    b.add(choice, "t", Out, "value", top);
    b.add(choice, "t", Out, "stop", end);
    b.build()
}

/// Streaming (§4.1) with `n` unrolled values. Roles `s` (source) and `t` (sink) of
/// `µx. t → s: ready. s → t: {value. x, stop. end}`; the optimised source sends `n`
/// values before receiving the first `ready`:
/// `(t!value)^n . (t?ready)^n . µx. t?ready. t!{value. x, stop. end}`.
pub fn stream(n: usize) -> Instance {
    let mut sink = Builder::new("t");
    let choice = sink.state();
    let end = sink.state();
    sink.add(0, "s", Out, "ready", choice);
    sink.add(choice, "s", In, "value", 0);
    sink.add(choice, "s", In, "stop", end);
    Instance {
        family: Family::Stream,
        n,
        projected: vec![stream_source(0), sink.build()],
        optimised: vec![stream_source(n)],
        visits: 2,
    }
}

fn choice(direction: Direction, peer: &str, branches: &[(&str, &LocalType)]) -> LocalType {
    LocalType::Choice {
        direction,
        peer: peer.to_string(),
        branches: branches
            .iter()
            .map(|&(label, cont)| (Message::new(label), cont.clone()))
            .collect(),
    }
}

/// `T_n` and `T'_n` of §4.2 for role `p` talking to `q`:
/// `T_{n+1} = q!m.(q?r.T_n & q?s.T_n & q?u.T_n) ⊕ q!p.(q?r.T_n & q?s.T_n)` and
/// `T'_{n+1} = q?r.(q!m.T'_n ⊕ q!p.T'_n ⊕ q!q.T'_n) & q?s.(q!m.T'_n ⊕ q!p.T'_n)`.
pub fn nested_choice_types(n: usize) -> (LocalType, LocalType) {
    let (mut t, mut t_) = (LocalType::End, LocalType::End);
    for _ in 0..n {
        let rsu = choice(In, "q", &[("r", &t), ("s", &t), ("u", &t)]);
        let rs = choice(In, "q", &[("r", &t), ("s", &t)]);
        let mpq = choice(Out, "q", &[("m", &t_), ("p", &t_), ("q", &t_)]);
        let mp = choice(Out, "q", &[("m", &t_), ("p", &t_)]);
        t = choice(Out, "q", &[("m", &rsu), ("p", &rs)]);
        t_ = choice(In, "q", &[("r", &mpq), ("s", &mp)]);
    }
    (t, t_)
}

/// Swaps sends and receives and renames the peer: the partner's view of a binary type.
fn dual(ty: &LocalType, peer: &str) -> LocalType {
    match ty {
        LocalType::Choice {
            direction,
            branches,
            ..
        } => LocalType::Choice {
            direction: direction.dual(),
            peer: peer.to_string(),
            branches: branches
                .iter()
                .map(|(m, cont)| (m.clone(), dual(cont, peer)))
                .collect(),
        },
        LocalType::Rec(v, body) => LocalType::Rec(v.clone(), Box::new(dual(body, peer))),
        other => other.clone(),
    }
}

/// Nested choice (§4.2, from Chen et al.) with `n` levels: `p`'s projection is `T'_n`,
/// `q`'s is its dual, and the optimised `p` is `T_n` (see [`nested_choice_types`]).
/// The machines are trees of about `5^n` states, as the local types are.
pub fn nested_choice(n: usize) -> Instance {
    let (t, t_) = nested_choice_types(n);
    let fsm = |ty: &LocalType, role: &str| {
        ty.to_fsm(role)
            .expect("nested choice types are closed and have distinct labels")
    };
    Instance {
        family: Family::NestedChoice,
        n,
        projected: vec![fsm(&t_, "p"), fsm(&dual(&t_, "p"), "q")],
        optimised: vec![fsm(&t, "p")],
        visits: 1,
    }
}

fn ring_role(i: usize) -> String {
    format!("r{i}")
}

/// A ring of `n` roles `r0 … r{n-1}` (`n < 2` gives 2): `r0` starts by sending
/// `value` to `r1`, every `ri` receives from `r{i-1}` and sends to `r{i+1}`, and
/// `r{n-1}` sends back to `r0`, forever. The optimised `ri` (`i > 0`) sends to its
/// successor before receiving from its predecessor.
pub fn ring(n: usize) -> Instance {
    let n = n.max(2);
    let mut projected = Vec::with_capacity(n);
    let mut optimised = Vec::with_capacity(n - 1);
    for i in 0..n {
        let (prev, next) = (ring_role((i + n - 1) % n), ring_role((i + 1) % n));
        let receive = (prev.as_str(), In, "value");
        let send = (next.as_str(), Out, "value");
        let mut b = Builder::new(&ring_role(i));
        if i == 0 {
            b.cycle(0, &[send, receive]);
        } else {
            b.cycle(0, &[receive, send]);
            let mut o = Builder::new(&ring_role(i));
            o.cycle(0, &[send, receive]);
            optimised.push(o.build());
        }
        projected.push(b.build());
    }
    Instance {
        family: Family::Ring,
        n,
        projected,
        optimised,
        visits: 2,
    }
}

/// The kernel of k-buffering after `unroll` extra `ready` messages:
/// `(s!ready)^unroll . µx. s!ready. s?value. t?ready. t!value. x`.
fn kernel(unroll: usize) -> Fsm {
    let mut b = Builder::new("k");
    let top = b.repeat(0, unroll, "s", Out, "ready");
    b.cycle(
        top,
        &[
            ("s", Out, "ready"),
            ("s", In, "value"),
            ("t", In, "ready"),
            ("t", Out, "value"),
        ],
    );
    b.build()
}

/// k-buffering (the double buffering protocol of §2 generalised) with `n` unrolls:
/// `µx. k → s: ready. s → k: value. t → k: ready. k → t: value. x` with roles `s`
/// (source), `k` (kernel) and `t` (sink); the optimised kernel first sends `n` extra
/// `ready` messages, so the source can fill `n + 1` buffers ahead (`n = 1` is double
/// buffering).
pub fn k_buffering(n: usize) -> Instance {
    let mut source = Builder::new("s");
    source.cycle(0, &[("k", In, "ready"), ("k", Out, "value")]);
    let mut sink = Builder::new("t");
    sink.cycle(0, &[("k", Out, "ready"), ("k", In, "value")]);
    Instance {
        family: Family::KBuffering,
        n,
        projected: vec![source.build(), kernel(0), sink.build()],
        optimised: vec![kernel(n)],
        visits: n + 2,
    }
}
