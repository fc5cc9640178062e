//! Figure 17, concurrent clients: the procedure [`Send2`] of concurrent send is called
//! twice, for clients `c1` and `c2`, over the same services and server. Each call has
//! its own session token (`next` of its call site), so even when the messages of the two
//! calls overtake each other no value reaches the wrong client. Out of order, both calls
//! run at once; in order, the second starts when the first has finished.

use mpst_choreo::{Choreography, Located, Op, Result};

pub use crate::concurrent_send::{CS, Costs, Delivered, Example, KS, S, Send2};

mpst_choreo::roles! {
    /// The first client.
    pub struct C1;
    /// The second client.
    pub struct C2;
}

/// The roles of both forms.
pub type Roles = mpst_choreo::RoleSet![KS, CS, S, C1, C2];

/// What a run gives: each client's key and text.
pub type Output = (Located<Delivered, C1>, Located<Delivered, C2>);

/// The parameters: the two clients' identifiers and the services' costs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Params {
    /// The identifiers of `c1` and `c2`.
    pub clients: (u64, u64),
    /// The services' costs (per call).
    pub costs: Costs,
}

impl Params {
    /// The examples' parameters.
    pub fn example() -> Self {
        Params {
            clients: (1, 2),
            costs: Costs::example(),
        }
    }
}

impl Params {
    /// The services of the two calls: `c1`'s and `c2`'s.
    pub fn services(&self) -> (Example, Example) {
        let of = |client| Example {
            client,
            costs: self.costs,
        };
        (of(self.clients.0), of(self.clients.1))
    }
}

/// The out-of-order form: both procedure calls at once.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConcurrentClients(pub Params);

impl Choreography<Output> for ConcurrentClients {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Output> {
        let (c1, c2) = self.0.services();
        // Both calls at once, each from its own call site, so with its own token.
        let first = op.call(c1.to(C1, false));
        let second = op.call(c2.to(C2, false));
        futures::try_join!(first, second)
    }
}

/// The in-order twin: one call after the other, each with blocking communication.
#[derive(Clone, Copy, Debug, Default)]
pub struct InOrderClients(pub Params);

impl Choreography<Output> for InOrderClients {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Output> {
        let (c1, c2) = self.0.services();
        let first = op.call(c1.to(C1, true)).await?;
        let second = op.call(c2.to(C2, true)).await?;
        Ok((first, second))
    }
}

/// The expected deliveries to `c1` and `c2`.
pub fn expected(params: &Params) -> (Delivered, Delivered) {
    let of = crate::concurrent_send::expected;
    (of(params.clients.0), of(params.clients.1))
}

/// The text of what a role holds after a run (for reports), if it holds anything.
pub fn report(output: Output) -> Option<String> {
    let (first, second) = output;
    first
        .into_local()
        .or(second.into_local())
        .map(|d| format!("{d:?}"))
}
