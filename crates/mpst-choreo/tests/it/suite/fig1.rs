//! Figure 1: concurrent producers. p1 and p2 send to q, which computes on each value as
//! it arrives and answers each producer.

use std::sync::Arc;

use mpst_choreo::{
    Choreography, EndpointConfig, Located, Op, Result, RoleName, RoleSet, Transport, roles,
};

use super::{Outcome, all_ok, at, expect, outcome, runner};

roles! {
    pub struct P1;
    pub struct P2;
    pub struct Q;
}

type R = RoleSet![P1, P2, Q];

pub fn roles() -> Vec<RoleName> {
    R::names()
}

fn compute(x: u64) -> u64 {
    x * 3 + 1
}

#[derive(Clone)]
pub struct ConcurrentProducers {
    pub a: u64,
    pub b: u64,
}

impl Choreography<(Located<u64, P1>, Located<u64, P2>)> for ConcurrentProducers {
    type Roles = R;

    async fn run(self, op: &Op<R>) -> Result<(Located<u64, P1>, Located<u64, P2>)> {
        let x1 = op.locally(P1, |_| self.a);
        let x2 = op.locally(P2, |_| self.b);
        let at_q1 = op.fcomm(P1, Q, &x1);
        let at_q2 = op.fcomm(P2, Q, &x2);
        let y1 = op.then(Q, at_q1, compute);
        let y2 = op.then(Q, at_q2, compute);
        let r1 = op.fcomm(Q, P1, y1);
        let r2 = op.fcomm(Q, P2, y2);
        Ok((op.wait(P1, r1).await?, op.wait(P2, r2).await?))
    }
}

pub async fn check(transport: Arc<dyn Transport>, config: EndpointConfig, seed: u64) -> Outcome {
    let choreo = ConcurrentProducers {
        a: seed,
        b: seed + 1_000_000,
    };
    let out = runner(transport, config).run(choreo.clone()).await;
    outcome((|| {
        all_ok(&out)?;
        expect(
            "p1",
            at(&out, "P1")?.0.clone().into_local(),
            compute(choreo.a),
        )?;
        expect(
            "p2",
            at(&out, "P2")?.1.clone().into_local(),
            compute(choreo.b),
        )
    })())
}
