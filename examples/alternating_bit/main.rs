//! Alternating bit (PPoPP 2022 Appendix B.4, Table 1): two roles, choice and infinite
//! recursion.
//!
//! Protocol (`alternating_bit.scr`): the sender `S` sends data tagged with bit 0 (`d0`)
//! until the receiver `R` acknowledges bit 0 (`a0`), then data tagged with bit 1 (`d1`)
//! until `R` acknowledges bit 1 (`a1`), and so on forever. An acknowledgement of the other
//! bit means "not accepted, send it again".
//!
//! Roles: `S` sends the items `0, 1, 2, ...`; `R` accepts them in order. To exercise the
//! retransmission branch, `R` plays a lossy link: it rejects the first copy of every item
//! `v` with `v % 3 == 2`, so `S` has to send it twice. The session types are the
//! projections of `alternating_bit.scr` (top-down workflow).
//!
//! The protocol never ends: `R` reports each accepted item with the number of copies it
//! took, and the run stops after a given number of items.
//!
//! `cargo run -p mpst-examples --example alternating_bit` delivers 10 items and prints
//! them.

use std::convert::Infallible;

use futures::{TryFutureExt, future::try_join};
use mpst::{
    Branch, Error, Message, Payload, Receive, Role, Roles, Select, Send, session, try_session,
};
use mpst_examples::{Observer, observe, observer};

type Channel = mpst::channel::Unbounded<Label>;

#[derive(Roles)]
struct Roles(S, R);

#[derive(Role)]
#[message(Label)]
struct S(#[route(R)] Channel);

#[derive(Role)]
#[message(Label)]
struct R(#[route(S)] Channel);

#[derive(Message)]
enum Label {
    D0(D0),
    D1(D1),
    A0(A0),
    A1(A1),
}

/// `d0(i32)`: an item sent with bit 0.
#[derive(Payload)]
struct D0(i32);
/// `d1(i32)`: an item sent with bit 1.
#[derive(Payload)]
struct D1(i32);
/// `a0()`: bit 0 acknowledged.
#[derive(Payload)]
struct A0;
/// `a1()`: bit 1 acknowledged.
#[derive(Payload)]
struct A1;

/// The sender in state `Zero`: `mu Zero. R!d0. R?{a0. One, a1. Zero}`.
#[session]
struct SendZero(Send<R, D0, Branch<R, ZeroAck>>);

#[session]
enum ZeroAck {
    A0(A0, SendOne),
    A1(A1, SendZero),
}

/// The sender in state `One`: `mu One. R!d1. R?{a0. One, a1. Zero}`.
#[session]
struct SendOne(Send<R, D1, Branch<R, OneAck>>);

#[session]
enum OneAck {
    A0(A0, SendOne),
    A1(A1, SendZero),
}

/// The receiver in state `Zero`: `mu Zero. S?d0. S!{a0. One, a1. Zero}`.
#[session]
struct ReceiveZero(Receive<S, D0, Select<S, ZeroReply>>);

#[session]
enum ZeroReply {
    A0(A0, ReceiveOne),
    A1(A1, ReceiveZero),
}

/// The receiver in state `One`: `mu One. S?d1. S!{a0. One, a1. Zero}`.
#[session]
struct ReceiveOne(Receive<S, D1, Select<S, OneReply>>);

#[session]
enum OneReply {
    A0(A0, ReceiveOne),
    A1(A1, ReceiveZero),
}

/// The sender: sends the items `0, 1, 2, ...`, each until it is acknowledged.
async fn sender(role: &mut S) -> Result<Infallible, Error> {
    try_session(role, |mut zero: SendZero<'_, S>| async move {
        let mut item = 0i32;
        loop {
            let mut one = loop {
                match zero.into_session().send(D0(item)).await?.branch().await? {
                    ZeroAck::A0(A0, one) => break one,
                    ZeroAck::A1(A1, again) => zero = again,
                }
            };
            item = item.wrapping_add(1);
            zero = loop {
                match one.into_session().send(D1(item)).await?.branch().await? {
                    OneAck::A1(A1, zero) => break zero,
                    OneAck::A0(A0, again) => one = again,
                }
            };
            item = item.wrapping_add(1);
        }
    })
    .await
}

/// Whether the lossy link loses the first copy of `item`.
fn loses_first_copy(item: i32) -> bool {
    item % 3 == 2
}

/// An item the receiver accepted, with the number of copies it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Delivery {
    item: i32,
    copies: u32,
}

/// The receiver: accepts each item unless the lossy link lost this copy, and reports
/// every accepted item.
async fn receiver(role: &mut R, observer: Observer<Delivery>) -> Result<Infallible, Error> {
    try_session(role, |mut zero: ReceiveZero<'_, R>| async move {
        loop {
            let mut copies = 0;
            let mut one = loop {
                let (D0(item), reply) = zero.into_session().receive().await?;
                copies += 1;
                if copies == 1 && loses_first_copy(item) {
                    zero = reply.select(A1).await?;
                } else {
                    observer.report(Delivery { item, copies });
                    break reply.select(A0).await?;
                }
            };
            copies = 0;
            zero = loop {
                let (D1(item), reply) = one.into_session().receive().await?;
                copies += 1;
                if copies == 1 && loses_first_copy(item) {
                    one = reply.select(A0).await?;
                } else {
                    observer.report(Delivery { item, copies });
                    break reply.select(A1).await?;
                }
            };
        }
    })
    .await
}

/// Delivers `count` items in one future (any executor); returns what `R` accepted.
async fn run(count: usize) -> Result<Vec<Delivery>, Error> {
    let Roles(mut s, mut r) = Roles::default();
    let (reporter, observations) = observer();
    let link = try_join(sender(&mut s), receiver(&mut r, reporter));
    observe(link.map_ok(|(never, _)| never), observations, count).await
}

fn main() -> Result<(), Error> {
    for Delivery { item, copies } in futures::executor::block_on(run(10))? {
        println!(
            "item {item} delivered after {copies} cop{}",
            if copies == 1 { "y" } else { "ies" }
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expected(count: usize) -> Vec<Delivery> {
        (0..count as i32)
            .map(|item| Delivery {
                item,
                copies: if item % 3 == 2 { 2 } else { 1 },
            })
            .collect()
    }

    #[test]
    fn futures_executor() {
        let got = futures::executor::block_on(run(60)).unwrap();
        assert_eq!(got.iter().filter(|d| d.copies == 2).count(), 20);
        assert_eq!(got, expected(60));
    }

    #[test]
    fn tokio_multi_thread() {
        let runtime = mpst_examples::tokio_runtime().unwrap();
        let Roles(mut s, mut r) = Roles::default();
        let (reporter, observations) = observer();
        let got = runtime.block_on(async {
            let tasks = vec![
                tokio::spawn(async move { sender(&mut s).await }),
                tokio::spawn(async move { receiver(&mut r, reporter).await }),
            ];
            mpst_examples::observe_tasks(tasks, observations, 300).await
        });
        assert_eq!(got.unwrap(), expected(300));
    }
}

/// The workflows of PPoPP 2022 §2 on this example: each hand-written session type is the
/// projection of its role from `alternating_bit.scr` (checked through serialisation, names
/// normalised, payloads compared), and the system of serialised roles is k-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("alternating_bit.scr"); SendZero<'static, S>, ReceiveZero<'static, R>
    }
}
