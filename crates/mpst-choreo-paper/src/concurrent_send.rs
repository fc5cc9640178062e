//! Figures 2 and 15, concurrent send: the key service `ks` and the content service `cs`
//! send a key and a text to the server `s`, which forwards both to the client `c`. Out of
//! order, `s` forwards each as soon as it arrives and `c` tells them apart by their
//! integrity keys; in order, `s` waits for the key, then the text, then forwards them.

use std::future::Future;
use std::time::Duration;

use mpst_choreo::{Choreography, Located, Op, Portable, Result, Role};
use serde::{Deserialize, Serialize};

use crate::{compute_at, located, work};

mpst_choreo::roles! {
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
pub type Roles = mpst_choreo::RoleSet![KS, CS, S, C];

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

/// What the client holds after a run of the examples' services: the key and the text.
pub type Delivered = (Key, Txt);

/// Figure 2's services, the probe of this choreography: what `ks` and `cs` compute for a
/// session and how long it takes (the cost model's delays), and what `c` does with each
/// value as it arrives. The examples' are [`Example`]; the evaluation's compute numbers
/// on a precise timer and record each arrival's latency.
pub trait Services: Clone + Send + Sync + 'static {
    /// What `ks` sends (label `Key`).
    type Key: Portable;
    /// What `cs` sends (label `Txt`).
    type Txt: Portable;

    /// `ks`'s work: the key, when it is computed.
    fn key(&self) -> impl Future<Output = Self::Key> + Send;

    /// `cs`'s work: the text, when it is fetched.
    fn txt(&self) -> impl Future<Output = Self::Txt> + Send;

    /// At `c`, when the key arrives (before the text, in order); by default nothing.
    fn key_arrived(&self, _key: &Self::Key) {}

    /// At `c`, when the text arrives; by default nothing.
    fn txt_arrived(&self, _txt: &Self::Txt) {}
}

/// The examples' services: the key and text of `client`, computed in `costs` (tokio
/// sleeps, so tests run them in virtual time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Example {
    /// Which client's key and text.
    pub client: u64,
    /// The services' costs.
    pub costs: Costs,
}

impl Example {
    /// Concurrent send with these services to the client role `role`, in order or not.
    pub fn to<Cl: Role>(self, role: Cl, in_order: bool) -> Send2<Example, Cl> {
        Send2 {
            services: self,
            role,
            in_order,
        }
    }
}

impl Services for Example {
    type Key = Key;
    type Txt = Txt;

    async fn key(&self) -> Key {
        work(self.costs.key).await;
        key_of(self.client)
    }

    async fn txt(&self) -> Txt {
        work(self.costs.txt).await;
        content_of(self.client)
    }
}

/// What the client of [`Send2`] holds after a run: the key and the text.
pub type Both<Sv> = (<Sv as Services>::Key, <Sv as Services>::Txt);

/// The one definition of concurrent send, as a procedure with the client role as a
/// parameter (Figure 17 calls it for two clients): `ks` and `cs` compute with
/// `services`, `s` forwards both to `Cl`; out of order each as it arrives (Figure 15),
/// in order the key, then the text (Figure 2a).
#[derive(Clone, Copy, Debug)]
pub struct Send2<Sv, Cl> {
    /// What the services compute and what the client does on arrival.
    pub services: Sv,
    /// The client role.
    pub role: Cl,
    /// Out of order (`fcomm`) or in order (`comm`).
    pub in_order: bool,
}

impl<Sv: Services, Cl: Role> Choreography<Located<Both<Sv>, Cl>> for Send2<Sv, Cl> {
    type Roles = mpst_choreo::RoleSet![KS, CS, S, Cl];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Located<Both<Sv>, Cl>> {
        let (c, sv) = (self.role, self.services);
        let key = compute_at(op, KS, op.locally(KS, |_| ()), |()| sv.key());
        let txt = compute_at(op, CS, op.locally(CS, |_| ()), |()| sv.txt());
        let (key, txt) = futures::join!(key, txt);
        if self.in_order {
            let key_s = op.comm(KS, S, &key).await?;
            let txt_s = op.comm(CS, S, &txt).await?;
            let key_c = op.comm(S, c, &key_s).await?;
            op.locally(c, |u| sv.key_arrived(u.unwrap(&key_c)));
            let txt_c = op.comm(S, c, &txt_s).await?;
            op.locally(c, |u| sv.txt_arrived(u.unwrap(&txt_c)));
            let both = key_c.into_local().zip(txt_c.into_local());
            return Ok(located(op, c, both));
        }
        let key_s = op.fcomm(KS, S, &key);
        let txt_s = op.fcomm(CS, S, &txt);
        let (at_key, at_txt) = (sv.clone(), sv);
        let key_c = op.then(c, op.fcomm(S, c, key_s), move |k| {
            at_key.key_arrived(&k);
            k
        });
        let txt_c = op.then(c, op.fcomm(S, c, txt_s), move |t| {
            at_txt.txt_arrived(&t);
            t
        });
        op.wait(c, op.join(c, key_c, txt_c)).await
    }
}

/// The out-of-order form (Figure 15) for one client, with the examples' services.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConcurrentSend {
    /// Which client's key and text.
    pub client: u64,
    /// The services' costs.
    pub costs: Costs,
}

/// The in-order twin, with the examples' services.
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
        let services = Example {
            client: self.client,
            costs: self.costs,
        };
        services.to(C, false).run(op).await
    }
}

impl Choreography<Output> for InOrderSend {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Output> {
        let services = Example {
            client: self.client,
            costs: self.costs,
        };
        services.to(C, true).run(op).await
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
