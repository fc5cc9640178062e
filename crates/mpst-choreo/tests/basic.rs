//! The operators one by one on the in-memory transport: locally, comm, broadcast, cond
//! with knowledge of choice, calls, fcomm/forward/join/select, and the Figure 2 example.

use std::sync::Arc;

use mpst_choreo::transport::InMemory;
use mpst_choreo::{Choreography, Located, Op, Result, RoleName, RoleSet, Roles, Runner, roles};

roles! {
    /// Key service.
    pub struct KS;
    /// Content service.
    pub struct CS;
    /// Server.
    pub struct S;
    /// Client.
    pub struct C;
}

fn runner<L: RoleSet>() -> Runner {
    Runner::new(Arc::new(InMemory::new(L::names())))
}

fn output<X>(outputs: Vec<(RoleName, Result<X>)>, role: &str) -> X {
    let (_, result) = outputs
        .into_iter()
        .find(|(r, _)| r.as_str() == role)
        .expect("role in outputs");
    result.expect("role succeeded")
}

// Figure 2 / 15: ks and cs send key and txt to s, which forwards both to c in whichever
// order they arrive.
#[derive(Clone)]
struct ConcurrentSend {
    key: String,
    txt: String,
}

impl Choreography<Located<(String, String), C>> for ConcurrentSend {
    type Roles = Roles![KS, CS, S, C];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Located<(String, String), C>> {
        let key = op.locally(KS, |_| self.key);
        let txt = op.locally(CS, |_| self.txt);
        let key_at_s = op.fcomm(KS, S, &key);
        let txt_at_s = op.fcomm(CS, S, &txt);
        let key_at_c = op.fcomm(S, C, key_at_s);
        let txt_at_c = op.fcomm(S, C, txt_at_s);
        op.wait(C, op.join(C, key_at_c, txt_at_c)).await
    }
}

#[tokio::test]
async fn figure_2_binds_key_and_txt_at_the_client() {
    let choreo = ConcurrentSend {
        key: "k3y".into(),
        txt: "hello".into(),
    };
    let outputs = runner::<Roles![KS, CS, S, C]>().run(choreo).await;
    assert_eq!(outputs.len(), 4);
    for (role, result) in &outputs {
        let here = result.as_ref().expect("every role succeeds").is_here();
        assert_eq!(here, role.as_str() == "C", "{role}");
    }
    let at_c = output(outputs, "C").into_local();
    assert_eq!(at_c, Some(("k3y".to_string(), "hello".to_string())));
}
