//! Figure 2 (and 15): concurrent send. ks and cs send key and txt to s, which forwards
//! both to c in whichever order they arrive; both are Strings, so only keys tell them apart.

use std::sync::Arc;

use mpst_choreo::{
    Choreography, EndpointConfig, Located, Op, Result, RoleName, RoleSet, Transport, roles,
};

use super::{Outcome, all_ok, at, expect, outcome, runner};

roles! {
    pub struct KS;
    pub struct CS;
    pub struct S;
    pub struct C;
}

type R = RoleSet![KS, CS, S, C];

pub fn roles() -> Vec<RoleName> {
    R::names()
}

#[derive(Clone)]
pub struct ConcurrentSend {
    pub key: String,
    pub txt: String,
}

impl Choreography<Located<(String, String), C>> for ConcurrentSend {
    type Roles = R;

    async fn run(self, op: &Op<R>) -> Result<Located<(String, String), C>> {
        let key = op.locally(KS, |_| self.key);
        let txt = op.locally(CS, |_| self.txt);
        let key_s = op.fcomm(KS, S, &key);
        let txt_s = op.fcomm(CS, S, &txt);
        let key_c = op.fcomm(S, C, key_s);
        let txt_c = op.fcomm(S, C, txt_s);
        op.wait(C, op.join(C, key_c, txt_c)).await
    }
}

pub async fn check(transport: Arc<dyn Transport>, config: EndpointConfig, seed: u64) -> Outcome {
    let choreo = ConcurrentSend {
        key: format!("key-{seed}"),
        txt: format!("txt-{seed}"),
    };
    let out = runner(transport, config).run(choreo.clone()).await;
    outcome((|| {
        all_ok(&out)?;
        expect(
            "c",
            at(&out, "C")?.clone().into_local(),
            (choreo.key, choreo.txt),
        )
    })())
}
