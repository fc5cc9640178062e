//! Figure 17: ConcurrentClients invokes the procedure ConcurrentSend2(ks, cs, s, c) for
//! two clients concurrently (tokens next(0) and next(1) of the paper are the two call
//! sites here). Keys and contents for both clients travel on the same role pairs.

use std::sync::Arc;

use mpst_choreo::{
    Choreography, EndpointConfig, Located, Op, Result, Role, RoleName, RoleSet, Transport, roles,
};

use super::{Outcome, all_ok, at, expect, outcome, runner};

roles! {
    pub struct KS;
    pub struct CS;
    pub struct S;
    pub struct C1;
    pub struct C2;
}

type R = RoleSet![KS, CS, S, C1, C2];

pub fn roles() -> Vec<RoleName> {
    R::names()
}

fn get_key(client: u64) -> String {
    format!("key-of-{client}")
}

fn get_content(client: u64) -> String {
    format!("content-for-{client}")
}

/// The procedure: ks and cs send the key and content of `client` to s, which forwards
/// them to the client role `Cl` as they arrive.
pub struct ConcurrentSend2<Cl> {
    client: u64,
    role: Cl,
}

impl<Cl: Role> Choreography<Located<(String, String), Cl>> for ConcurrentSend2<Cl> {
    type Roles = RoleSet![KS, CS, S, Cl];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Located<(String, String), Cl>> {
        let c = self.role;
        let key = op.locally(KS, |_| get_key(self.client));
        let txt = op.locally(CS, |_| get_content(self.client));
        let key_s = op.fcomm(KS, S, &key);
        let txt_s = op.fcomm(CS, S, &txt);
        let key_c = op.fcomm(S, c, key_s);
        let txt_c = op.fcomm(S, c, txt_s);
        op.wait(c, op.join(c, key_c, txt_c)).await
    }
}

#[derive(Clone)]
pub struct ConcurrentClients {
    pub ids: (u64, u64),
}

type Out = (Located<(String, String), C1>, Located<(String, String), C2>);

impl Choreography<Out> for ConcurrentClients {
    type Roles = R;

    async fn run(self, op: &Op<R>) -> Result<Out> {
        futures::try_join!(
            op.call(ConcurrentSend2 {
                client: self.ids.0,
                role: C1
            }),
            op.call(ConcurrentSend2 {
                client: self.ids.1,
                role: C2
            }),
        )
    }
}

pub async fn check(transport: Arc<dyn Transport>, config: EndpointConfig, seed: u64) -> Outcome {
    let ids = (2 * seed, 2 * seed + 1);
    let out = runner(transport, config)
        .run(ConcurrentClients { ids })
        .await;
    outcome((|| {
        all_ok(&out)?;
        let want = |id| (get_key(id), get_content(id));
        expect("c1", at(&out, "C1")?.0.clone().into_local(), want(ids.0))?;
        expect("c2", at(&out, "C2")?.1.clone().into_local(), want(ids.1))
    })())
}
