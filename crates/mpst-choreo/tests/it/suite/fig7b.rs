//! Figure 7b: recursive StreamIt(p, c) — p sends an item to c, c consumes it when it
//! arrives, p decides More (and recurses) or Done — for two producers concurrently. The
//! consumer does not wait for an item before the next iteration, so it takes items from
//! different iterations (and producers) in any order.

use std::sync::{Arc, Mutex};

use mpst_choreo::{
    Choreography, EndpointConfig, Op, Result, Role, RoleName, RoleSet, Transport, roles,
};

use super::{Outcome, all_ok, outcome, runner};

roles! {
    pub struct P1;
    pub struct P2;
    pub struct C;
}

type R = RoleSet![P1, P2, C];

pub fn roles() -> Vec<RoleName> {
    R::names()
}

/// What the consumer saw: (producer, iteration the item was bound to, item).
pub type Consumed = Arc<Mutex<Vec<(&'static str, u64, u64)>>>;

fn item(producer: &str, i: u64) -> u64 {
    let base = if producer == "P1" { 1_000 } else { 2_000 };
    base + i
}

pub struct StreamIt<P, Cr> {
    i: u64,
    n: u64,
    sink: Consumed,
    roles: (P, Cr),
}

impl<P: Role, Cr: Role> Choreography for StreamIt<P, Cr> {
    type Roles = RoleSet![P, Cr];

    async fn run(self, op: &Op<Self::Roles>) -> Result<()> {
        let (p, c) = self.roles;
        let (i, n) = (self.i, self.n);
        let x = op.locally(p, |_| item(P::NAME, i));
        let at_c = op.fcomm(p, c, &x);
        let sink = Arc::clone(&self.sink);
        let consume = op.then(c, at_c, move |x| {
            if let Ok(mut seen) = sink.lock() {
                seen.push((P::NAME, i, x));
            }
        });
        op.detach(c, consume);
        let more = op.locally(p, |_| i + 1 < n);
        let sink = self.sink;
        op.cond(p, &more, move |more| Next {
            more,
            i: i + 1,
            n,
            sink,
            roles: (p, c),
        })
        .await?;
        Ok(())
    }
}

pub struct Next<P, Cr> {
    more: bool,
    i: u64,
    n: u64,
    sink: Consumed,
    roles: (P, Cr),
}

impl<P: Role, Cr: Role> Choreography for Next<P, Cr> {
    type Roles = RoleSet![P, Cr];

    async fn run(self, op: &Op<Self::Roles>) -> Result<()> {
        if self.more {
            op.call(StreamIt {
                i: self.i,
                n: self.n,
                sink: self.sink,
                roles: self.roles,
            })
            .await
        } else {
            Ok(())
        }
    }
}

#[derive(Clone)]
pub struct TwoStreams {
    pub n: u64,
    pub sink: Consumed,
}

impl Choreography for TwoStreams {
    type Roles = R;

    async fn run(self, op: &Op<R>) -> Result<()> {
        let s1 = StreamIt {
            i: 0,
            n: self.n,
            sink: Arc::clone(&self.sink),
            roles: (P1, C),
        };
        let s2 = StreamIt {
            i: 0,
            n: self.n,
            sink: self.sink,
            roles: (P2, C),
        };
        futures::try_join!(op.call(s1), op.call(s2))?;
        Ok(())
    }
}

/// Runs the two streams and returns what the consumer saw, in consumption order.
pub async fn consumed(
    transport: Arc<dyn Transport>,
    config: EndpointConfig,
    n: u64,
) -> (Outcome, Vec<(&'static str, u64, u64)>) {
    let sink = Consumed::default();
    let out = runner(transport, config)
        .run(TwoStreams {
            n,
            sink: Arc::clone(&sink),
        })
        .await;
    let seen = sink.lock().map(|s| s.clone()).unwrap_or_default();
    if let Err(o) = all_ok(&out) {
        return (o, seen);
    }
    for (producer, i, x) in &seen {
        if *x != item(producer, *i) {
            return (
                Outcome::Wrong(format!("{producer} iteration {i} bound {x}")),
                seen,
            );
        }
    }
    if seen.len() as u64 != 2 * n {
        return (
            Outcome::Wrong(format!("consumed {} items, want {}", seen.len(), 2 * n)),
            seen,
        );
    }
    (Outcome::Correct, seen)
}

pub async fn check(transport: Arc<dyn Transport>, config: EndpointConfig, _seed: u64) -> Outcome {
    outcome(match consumed(transport, config, 4).await.0 {
        Outcome::Correct => Ok(()),
        other => Err(other),
    })
}
