//! What both supplier-info examples share: the API generated from `supplier_info.scr`
//! (`examples/build.rs`), the two back ends and a driver that runs them beside a front
//! end.

use std::future::Future;

use mpst::{Error, try_session};

/// The generated API of `supplier_info.scr`.
pub mod api {
    include!(concat!(env!("OUT_DIR"), "/supplier_info.rs"));
}

pub use api::*;

/// One lookup the front end makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// Ask the suppliers' back end about this supplier.
    Supplier(i32),
    /// Ask the contracts' back end about this contract.
    Contract(i32),
}

/// The suppliers' answer for supplier `id`.
pub fn supplier_info(id: i32) -> i32 {
    id * 10
}

/// The contracts' answer for contract `id`.
pub fn contract_info(id: i32) -> i32 {
    id * 100 + 1
}

/// The suppliers' back end: answers every `supplier` request; returns how many requests
/// it answered and how many times it was told it was not asked.
pub async fn suppliers(role: &mut S) -> Result<(usize, usize), Error> {
    try_session(role, |mut s: SSession<'_, S>| async move {
        let (mut asked, mut not_asked) = (0, 0);
        loop {
            s = match s.branch().await? {
                SSessionChoice::Supplier(Supplier(id), s) => {
                    asked += 1;
                    s.send(SupplierInfo(supplier_info(id))).await?
                }
                SSessionChoice::NoSupplier(NoSupplier, s) => {
                    not_asked += 1;
                    s
                }
                SSessionChoice::Quit(Quit, end) => return Ok(((asked, not_asked), end)),
            };
        }
    })
    .await
}

/// The contracts' back end, likewise.
pub async fn contracts(role: &mut K) -> Result<(usize, usize), Error> {
    try_session(role, |mut s: KSession<'_, K>| async move {
        let (mut asked, mut not_asked) = (0, 0);
        loop {
            s = match s.branch().await? {
                KSessionChoice::Contract(Contract(id), s) => {
                    asked += 1;
                    s.send(ContractInfo(contract_info(id))).await?
                }
                KSessionChoice::NoContract(NoContract, s) => {
                    not_asked += 1;
                    s
                }
                KSessionChoice::Quit(Quit, end) => return Ok(((asked, not_asked), end)),
            };
        }
    })
    .await
}

/// What a run gives: the front end's answers, then each back end's (asked, not asked).
pub type Outcome = (Vec<i32>, (usize, usize), (usize, usize));

/// Runs `front` beside both back ends on the futures executor.
pub fn run<Fut>(front: impl FnOnce(F) -> Fut) -> Result<Outcome, Error>
where
    Fut: Future<Output = Result<Vec<i32>, Error>>,
{
    let Roles {
        f,
        s: mut suppliers_role,
        k: mut contracts_role,
    } = Roles::default();
    futures::executor::block_on(async {
        let (answers, at_s, at_k) = futures::join!(
            front(f),
            suppliers(&mut suppliers_role),
            contracts(&mut contracts_role)
        );
        Ok((answers?, at_s?, at_k?))
    })
}

/// The answers `lookups` should get, computed directly.
#[cfg(test)]
pub fn expected(lookups: &[Lookup]) -> Outcome {
    let answers = lookups
        .iter()
        .map(|l| match *l {
            Lookup::Supplier(id) => supplier_info(id),
            Lookup::Contract(id) => contract_info(id),
        })
        .collect();
    let suppliers = lookups
        .iter()
        .filter(|l| matches!(l, Lookup::Supplier(_)))
        .count();
    let contracts = lookups.len() - suppliers;
    (answers, (suppliers, contracts), (contracts, suppliers))
}

/// A mix of lookups for the tests and `main`.
pub fn lookups(n: i32) -> Vec<Lookup> {
    (0..n)
        .map(|i| {
            if i % 3 == 1 {
                Lookup::Contract(i)
            } else {
                Lookup::Supplier(i)
            }
        })
        .collect()
}
