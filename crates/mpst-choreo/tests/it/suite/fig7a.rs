//! Figure 7a: concurrent buyers. BuyItem(s, b, itemID) — b sends itemID to s, s sells it
//! and sends the item back — invoked for two buyers concurrently.

use std::sync::Arc;

use mpst_choreo::{
    Choreography, EndpointConfig, Located, Op, Result, Role, RoleName, RoleSet, Transport, roles,
};

use super::{Outcome, all_ok, at, expect, outcome, runner};

roles! {
    pub struct Seller;
    pub struct Buyer1;
    pub struct Buyer2;
}

type R = RoleSet![Seller, Buyer1, Buyer2];

pub fn roles() -> Vec<RoleName> {
    R::names()
}

fn sell(item: u32) -> String {
    format!("item #{item}")
}

pub struct BuyItem<S, B> {
    item: u32,
    roles: (S, B),
}

impl<S: Role, B: Role> Choreography<Located<String, B>> for BuyItem<S, B> {
    type Roles = RoleSet![S, B];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Located<String, B>> {
        let (s, b) = self.roles;
        let id = op.locally(b, |_| self.item);
        let at_s = op.comm(b, s, &id).await?;
        let sold = op.locally(s, |un| sell(*un.unwrap(&at_s)));
        op.comm(s, b, &sold).await
    }
}

#[derive(Clone)]
pub struct Buyers {
    pub items: (u32, u32),
}

impl Choreography<(Located<String, Buyer1>, Located<String, Buyer2>)> for Buyers {
    type Roles = R;

    async fn run(self, op: &Op<R>) -> Result<(Located<String, Buyer1>, Located<String, Buyer2>)> {
        futures::try_join!(
            op.call(BuyItem {
                item: self.items.0,
                roles: (Seller, Buyer1)
            }),
            op.call(BuyItem {
                item: self.items.1,
                roles: (Seller, Buyer2)
            }),
        )
    }
}

pub async fn check(transport: Arc<dyn Transport>, config: EndpointConfig, seed: u64) -> Outcome {
    let items = (123 + seed as u32, 543 + seed as u32);
    let out = runner(transport, config).run(Buyers { items }).await;
    outcome((|| {
        all_ok(&out)?;
        expect(
            "buyer1",
            at(&out, "Buyer1")?.0.clone().into_local(),
            sell(items.0),
        )?;
        expect(
            "buyer2",
            at(&out, "Buyer2")?.1.clone().into_local(),
            sell(items.1),
        )
    })())
}
