//! Figure 5: procedure X(a, b, c) — a sends w to c, c sends f(w) to b, b sends g(f(w)) to
//! a — invoked twice concurrently, X(p, q, r1) and X(p, q, r2). Both answers reach p from
//! q, in any order: only the tokens of the two calls tell them apart.

use std::sync::Arc;

use mpst_choreo::{
    Choreography, EndpointConfig, Located, Op, Result, Role, RoleName, RoleSet, Transport, roles,
};

use super::{Outcome, all_ok, at, expect, outcome, runner};

roles! {
    pub struct P;
    pub struct Q;
    pub struct R1;
    pub struct R2;
}

type R = RoleSet![P, Q, R1, R2];

pub fn roles() -> Vec<RoleName> {
    R::names()
}

fn f(y: u64) -> u64 {
    y * 2
}

fn g(x: u64) -> u64 {
    x + 7
}

/// The procedure, generic over its three role parameters.
pub struct X<A, B, Cr> {
    w: u64,
    roles: (A, B, Cr),
}

impl<A: Role, B: Role, Cr: Role> Choreography<Located<u64, A>> for X<A, B, Cr> {
    type Roles = RoleSet![A, B, Cr];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Located<u64, A>> {
        let (a, b, c) = self.roles;
        let w = op.locally(a, |_| self.w);
        let y = op.fcomm(a, c, &w);
        let x = op.fcomm(c, b, op.then(c, y, f));
        let z = op.fcomm(b, a, op.then(b, x, g));
        op.wait(a, z).await
    }
}

#[derive(Clone)]
pub struct TwoCalls {
    pub w1: u64,
    pub w2: u64,
}

impl Choreography<(Located<u64, P>, Located<u64, P>)> for TwoCalls {
    type Roles = R;

    async fn run(self, op: &Op<R>) -> Result<(Located<u64, P>, Located<u64, P>)> {
        futures::try_join!(
            op.call(X {
                w: self.w1,
                roles: (P, Q, R1)
            }),
            op.call(X {
                w: self.w2,
                roles: (P, Q, R2)
            }),
        )
    }
}

pub async fn check(transport: Arc<dyn Transport>, config: EndpointConfig, seed: u64) -> Outcome {
    let choreo = TwoCalls {
        w1: seed * 10,
        w2: seed * 10 + 5,
    };
    let out = runner(transport, config).run(choreo.clone()).await;
    outcome((|| {
        all_ok(&out)?;
        let (z1, z2) = at(&out, "P")?.clone();
        expect("p.z of X(p,q,r1)", z1.into_local(), g(f(choreo.w1)))?;
        expect("p.z of X(p,q,r2)", z2.into_local(), g(f(choreo.w2)))
    })())
}
