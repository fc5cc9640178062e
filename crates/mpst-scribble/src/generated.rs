//! Generated global protocols of any size, for benchmarks and tests of projection.
//!
//! [`rounds`] builds a protocol of `n` roles `R0..R{n-1}` that loops over rounds. In
//! each round `R0` chooses to go on or to stop and tells `R1`, which tells `R2`, and so
//! on (a relay of `n - 1` messages, so every role learns the choice from its
//! predecessor); going on is followed by `data` messages around the ring
//! `Ri -> R(i+1 mod n)`. The choices nest (each round lives in the "go on" branch of the
//! previous one) and the last round loops back. Every role is projected with merging
//! at every round, so these protocols exercise the whole projection.

use mpst_fsm::{Message, Payload};

use crate::{Global, GlobalProtocol, Name, Span};

/// The protocol of `roles` roles and `rounds` rounds with `data` ring messages each:
/// `rounds * (2 * (roles - 1) + data)` messages in all. `roles` below 2 is taken as 2.
pub fn rounds(roles: usize, rounds: usize, data: usize) -> GlobalProtocol {
    let n = roles.max(2);
    let role = |i: usize| Name::new(format!("R{i}"), Span::default());
    let message = |from: usize, to: usize, message: Message, cont: Global| Global::Message {
        from: role(from),
        to: role(to),
        message,
        span: Span::default(),
        cont: Box::new(cont),
    };
    let var = Name::new("Loop", Span::default());
    let mut tail = Global::Continue(var.clone());
    for _ in 0..rounds {
        for k in (0..data).rev() {
            let payload = vec![Payload::named("x", "i32")];
            let m = Message::with_payloads(format!("d{k}"), payload);
            tail = message(k % n, (k + 1) % n, m, tail);
        }
        let mut stop = Global::End;
        for i in (0..n - 1).rev() {
            tail = message(i, i + 1, Message::new("go"), tail);
            stop = message(i, i + 1, Message::new("stop"), stop);
        }
        tail = Global::Choice {
            at: role(0),
            branches: vec![tail, stop],
            span: Span::default(),
        };
    }
    GlobalProtocol {
        name: Name::new(format!("Rounds{n}x{rounds}x{data}"), Span::default()),
        roles: (0..n).map(role).collect(),
        body: Global::Rec {
            var,
            body: Box::new(tail),
        },
    }
}

/// A protocol of `roles` roles with about `messages` messages (at least one round),
/// eight ring messages per round.
pub fn sized(roles: usize, messages: usize) -> GlobalProtocol {
    let n = roles.max(2);
    let per_round = 2 * (n - 1) + 8;
    rounds(n, (messages / per_round).max(1), 8)
}

/// The Scribble source of a `branches`-way choice: `A` picks a label `l{i}(int)` to
/// send to `B`; if `forward`, `B` forwards `l{i}()` to `C` (so `C` merges every
/// branch), else `C` takes no part. The shape of the widest inputs, for benchmarks and
/// tests of linear cost.
pub fn wide_choice_source(branches: usize, forward: bool) -> String {
    let mut source =
        String::from("global protocol Wide(role A, role B, role C) {\n  choice at A {\n");
    for i in 0..branches {
        if i > 0 {
            source.push_str("  } or {\n");
        }
        source.push_str(&format!("    l{i}(int) from A to B;\n"));
        if forward {
            source.push_str(&format!("    l{i}() from B to C;\n"));
        }
    }
    source.push_str("  }\n}\n");
    source
}

/// The number of messages of a global type (each branch counted).
pub fn message_count(g: &Global) -> usize {
    let mut count = 0;
    let mut stack = vec![g];
    while let Some(g) = stack.pop() {
        match g {
            Global::End | Global::Continue(_) => {}
            Global::Message { cont, .. } => {
                count += 1;
                stack.push(cont);
            }
            Global::Choice { branches, .. } => stack.extend(branches),
            Global::Rec { body, .. } => stack.push(body),
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_protocols_are_well_formed_and_sized() {
        let p = rounds(4, 3, 5);
        assert_eq!(message_count(&p.body), 3 * (2 * 3 + 5));
        assert!(crate::check(&p).is_empty(), "{:?}", crate::check(&p));
        let fsm = crate::project_fsm(&p, "R2").unwrap();
        // Per round: receive go or stop, send go or stop, then the ring messages of R2.
        assert!(fsm.state_count() > 3 * 2);
        assert!(sized(3, 1000).roles.len() == 3);
        let wide = crate::parse(&wide_choice_source(3, true)).unwrap();
        assert_eq!(message_count(&wide[0].body), 6);
        assert!(crate::check(&wide[0]).is_empty());
        let m = message_count(&sized(3, 1000).body);
        assert!((900..=1000).contains(&m), "{m}");
    }
}
