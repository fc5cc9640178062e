//! Hospital (after Bravetti et al., LMCS 2021, §1; PPoPP 2022 Table 1): two roles, choice,
//! infinite recursion. See `hospital.scr` for the protocol.
//!
//! The patient's monitor `P` sends measurements (`nd`), each acknowledged by the hospital
//! `H` with the count it has stored (`ack`), and every fourth round asks for its record
//! (`pr`, answered by `report`). Both session types are the projections of `hospital.scr`
//! (top-down workflow). The optimised monitor that cannot be verified is in `optimised.rs`.
//!
//! `cargo run -p mpst-examples --example hospital` watches eight rounds.

mod protocol;

use std::convert::Infallible;

use futures::{TryFutureExt, future::try_join};
use mpst::{Error, Receive, Select, session, try_session};
use mpst_examples::{Observer, observe, observer};
use protocol::{Ack, H, Nd, P, Pr, Report, Roles, hospital, measurement};

/// The monitor's projection: `mu x. H!{nd. H?ack. x, pr. H?report. x}`.
#[session]
struct Patient(Select<H, Measure>);

/// What the monitor can send.
#[session]
enum Measure {
    Nd(Nd, Receive<H, Ack, Patient>),
    Pr(Pr, Receive<H, Report, Patient>),
}

/// What the monitor learns from the hospital.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// An acknowledgement: this many measurements are stored.
    Stored(u32),
    /// The record: the sum of the stored measurements.
    Record(i32),
}

/// The monitor: sends measurement `i` and waits for its acknowledgement; after every
/// fourth one, asks for the record. Reports what it learns.
async fn patient(role: &mut P, observer: Observer<Seen>) -> Result<Infallible, Error> {
    try_session(role, |mut s: Patient<'_, P>| async move {
        let mut i = 0;
        loop {
            let (Ack(stored), next) = s
                .into_session()
                .select(Nd(measurement(i)))
                .await?
                .receive()
                .await?;
            observer.report(Seen::Stored(stored));
            i += 1;
            s = next;
            if i % 4 == 0 {
                let (Report(sum), next) = s.into_session().select(Pr).await?.receive().await?;
                observer.report(Seen::Record(sum));
                s = next;
            }
        }
    })
    .await
}

/// Runs the protocol until the monitor has learnt `count` things.
async fn run(count: usize) -> Result<Vec<Seen>, Error> {
    let Roles(mut p, mut h) = Roles::default();
    let (reporter, observations) = observer();
    let processes = try_join(patient(&mut p, reporter), hospital(&mut h));
    observe(processes.map_ok(|(never, _)| never), observations, count).await
}

fn main() -> Result<(), Error> {
    let seen = futures::executor::block_on(run(10))?;
    println!("the monitor saw {seen:?}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_measurement_is_stored_in_order_and_reported() {
        let seen = futures::executor::block_on(run(50)).unwrap();
        let mut expected = Vec::new();
        let (mut stored, mut sum) = (0, 0);
        while expected.len() < 50 {
            sum += measurement(stored);
            stored += 1;
            expected.push(Seen::Stored(stored));
            if stored % 4 == 0 {
                expected.push(Seen::Record(sum));
            }
        }
        expected.truncate(50);
        assert_eq!(seen, expected);
    }
}

/// The workflows of PPoPP 2022 §2 on the plain protocol: both session types are their
/// projections from `hospital.scr`, and the system is 1-MC.
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("hospital.scr"); Patient<'static, P>, protocol::Hospital<'static, H>
    }
}
