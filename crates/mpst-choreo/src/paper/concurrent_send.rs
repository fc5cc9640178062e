//! Figures 2 and 15, concurrent send: the key service `ks` and the content service `cs`
//! send a key and a text to the server `s`, which forwards both to the client `c`. Out of
//! order, `s` forwards each as soon as it arrives and `c` tells them apart by their
//! integrity keys; in order, `s` waits for the key, then the text, then forwards them.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{compute_at, work};
use crate::choreography::Choreography;
use crate::error::Result;
use crate::located::Located;
use crate::op::Op;
use crate::role::Role;

crate::roles! {
    /// The key service.
    pub struct KS;
    /// The content service.
    pub struct CS;
    /// The server.
    pub struct S;
    /// The client.
    pub struct C;
}

/// The roles of both forms.
pub type Roles = crate::RoleSet![KS, CS, S, C];

/// A decryption key (label `Key`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Key(pub String);

/// An encrypted text (label `Txt`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Txt(pub String);

/// The key service's key for a client.
pub fn key_of(client: u64) -> Key {
    Key(format!("key-of-{client}"))
}

/// The content service's text for a client.
pub fn content_of(client: u64) -> Txt {
    Txt(format!("content-for-{client}"))
}

/// The simulated computation times of the two services.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Costs {
    /// How long `ks` takes to compute a key.
    pub key: Duration,
    /// How long `cs` takes to fetch a text.
    pub txt: Duration,
}

impl Costs {
    /// The examples' costs: the text takes longer than the key.
    pub fn example() -> Self {
        Costs {
            key: Duration::from_millis(2),
            txt: Duration::from_millis(10),
        }
    }
}

/// What the client holds after a run: the key and the text.
pub type Delivered = (Key, Txt);

/// The procedure behind both forms, with the client role as a parameter (Figure 17 calls
/// it for two clients): `ks` and `cs` compute for `client`, `s` forwards to `Cl`.
#[derive(Clone, Copy, Debug)]
pub struct Send2<Cl> {
    /// Which client's key and text.
    pub client: u64,
    /// The client role.
    pub role: Cl,
    /// The services' costs.
    pub costs: Costs,
    /// Out of order (`fcomm`) or in order (`comm`).
    pub in_order: bool,
}

impl<Cl: Role> crate::Choreography<Located<Delivered, Cl>> for Send2<Cl> {
    type Roles = crate::RoleSet![KS, CS, S, Cl];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Located<Delivered, Cl>> {
        let (c, client, costs) = (self.role, self.client, self.costs);
        let key = compute_at(op.locally(KS, |_| client), |id| async move {
            work(costs.key).await;
            key_of(id)
        });
        let txt = compute_at(op.locally(CS, |_| client), |id| async move {
            work(costs.txt).await;
            content_of(id)
        });
        let (key, txt) = futures::join!(key, txt);
        if self.in_order {
            let key_s = op.comm(KS, S, &key).await?;
            let txt_s = op.comm(CS, S, &txt).await?;
            let key_c = op.comm(S, c, &key_s).await?;
            let txt_c = op.comm(S, c, &txt_s).await?;
            let both = key_c.into_local().zip(txt_c.into_local());
            return Ok(both.map_or_else(Located::remote, Located::local));
        }
        let key_s = op.fcomm(KS, S, &key);
        let txt_s = op.fcomm(CS, S, &txt);
        let key_c = op.fcomm(S, c, key_s);
        let txt_c = op.fcomm(S, c, txt_s);
        op.wait(c, op.join(c, key_c, txt_c)).await
    }
}

/// The out-of-order form (Figure 15) for one client.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConcurrentSend {
    /// Which client's key and text.
    pub client: u64,
    /// The services' costs.
    pub costs: Costs,
}

/// The in-order twin.
#[derive(Clone, Copy, Debug, Default)]
pub struct InOrderSend {
    /// Which client's key and text.
    pub client: u64,
    /// The services' costs.
    pub costs: Costs,
}

/// What a run gives: the client's key and text.
pub type Output = Located<Delivered, C>;

impl Choreography<Output> for ConcurrentSend {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Output> {
        let (client, costs) = (self.client, self.costs);
        let send = Send2 {
            client,
            role: C,
            costs,
            in_order: false,
        };
        send.run(op).await
    }
}

impl Choreography<Output> for InOrderSend {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Output> {
        let (client, costs) = (self.client, self.costs);
        let send = Send2 {
            client,
            role: C,
            costs,
            in_order: true,
        };
        send.run(op).await
    }
}

/// The expected delivery for `client`.
pub fn expected(client: u64) -> Delivered {
    (key_of(client), content_of(client))
}

/// The text of what a role holds after a run (for reports), if it holds anything.
pub fn report(output: Output) -> Option<String> {
    output.into_local().map(|d| format!("{d:?}"))
}
