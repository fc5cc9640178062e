//! The optimised hospital monitor: an asynchronous message reordering that is safe but
//! needs unbounded buffering, so that no bounded check can prove it (PPoPP 2022 Table 1,
//! the Hospital row: neither Rumpsteak's subtyping nor k-MC verifies it). The witness
//! trees of CONCUR 2019, which `subtype::check` tries when the bounded rules fail, do.
//!
//! The monitor sends two measurements for every acknowledgement it reads:
//! `mu x. H!nd. H!nd. H?ack. x`. Each round leaves one more acknowledgement waiting in its
//! queue, forever. Every acknowledgement is still read eventually and in order, and the
//! monitor never waits for something that does not come: it is an asynchronous subtype of
//! the projection `mu x. H!{nd. H?ack. x, pr. H?report. x}` in the coinductive sense (each
//! round anticipates one more `nd` over the pending `ack`s). The bounded rules would need
//! prefixes of every length ("the bound was reached", for any bound), but the witness
//! trees see the pending acknowledgements grow regularly and prove it; the system is not
//! k-MC for any k, since the queue of acknowledgements outgrows every bound. The tests
//! below assert both.
//!
//! The process runs fine on unbounded channels: `cargo run -p mpst-examples --example
//! optimised_hospital` prints the first acknowledgements and how far behind they are.

#[allow(dead_code)] // the optimised monitor never asks for its record (`pr`, `report`)
mod protocol;

use std::convert::Infallible;

use futures::{TryFutureExt, future::try_join};
use mpst::{Error, Receive, Send, session, try_session};
use mpst_examples::{Observer, observe, observer};
use protocol::{Ack, H, Nd, P, Roles, hospital, measurement};

/// The optimised monitor: two measurements per acknowledgement read.
#[session]
struct Eager(Send<H, Nd, Send<H, Nd, Receive<H, Ack, Self>>>);

/// An acknowledgement read, with how many measurements had been sent by then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Behind {
    /// The count the acknowledgement carries.
    stored: u32,
    /// The measurements sent when it was read.
    sent: u32,
}

/// The optimised monitor: reports each acknowledgement it reads.
async fn patient(role: &mut P, observer: Observer<Behind>) -> Result<Infallible, Error> {
    try_session(role, |mut s: Eager<'_, P>| async move {
        let mut sent = 0;
        loop {
            let next = s.into_session().send(Nd(measurement(sent))).await?;
            let next = next.send(Nd(measurement(sent + 1))).await?;
            sent += 2;
            let (Ack(stored), next) = next.receive().await?;
            observer.report(Behind { stored, sent });
            s = next;
        }
    })
    .await
}

/// Runs the protocol until the monitor has read `count` acknowledgements.
async fn run(count: usize) -> Result<Vec<Behind>, Error> {
    let Roles(mut p, mut h) = Roles::default();
    let (reporter, observations) = observer();
    let processes = try_join(patient(&mut p, reporter), hospital(&mut h));
    observe(processes.map_ok(|(never, _)| never), observations, count).await
}

fn main() -> Result<(), Error> {
    for Behind { stored, sent } in futures::executor::block_on(run(8))? {
        println!(
            "ack {stored} read after sending {sent}: {} behind",
            sent - stored
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acknowledgements_arrive_in_order_and_fall_further_behind() {
        let seen = futures::executor::block_on(run(300)).unwrap();
        for (round, behind) in seen.iter().enumerate() {
            let round = round as u32 + 1;
            assert_eq!(
                *behind,
                Behind {
                    stored: round,
                    sent: 2 * round
                }
            );
        }
        // The backlog of unread acknowledgements grows by one every round.
        assert_eq!(seen[299].sent - seen[299].stored, 300);
    }
}

/// The workflows of PPoPP 2022 §2 on the optimised monitor: subtyping proves it with
/// witness trees whatever the bound; k-MC fails for every k, and says why.
#[cfg(test)]
mod workflows {
    use super::*;
    use mpst::verify;
    use mpst_examples::workflows::System;
    use mpst_fsm::subtype::Proof;

    const SCR: &str = include_str!("hospital.scr");

    /// The eager monitor beside the hospital's projection.
    fn optimised() -> System {
        System::new(SCR)
            .optimised::<Eager<'static, P>>(include_str!("p_optimised.dot"))
            .role::<protocol::Hospital<'static, H>>()
    }

    #[test]
    fn subtyping_proves_it_with_witness_trees_whatever_the_bound() {
        for visits in [10, mpst_fsm::subtype::DEFAULT_VISITS, 1000] {
            let stats =
                verify::check_subtype_of_projection_with::<Eager<'static, P>>(SCR, "P", visits)
                    .unwrap_or_else(|error| panic!("{error}"));
            assert!(
                matches!(stats.proof, Proof::WitnessTrees { .. }),
                "the bounded rules cannot prove it: {stats:?}"
            );
        }
    }

    #[test]
    fn k_mc_fails_for_every_k_tried() {
        let system = optimised().machines();
        for k in 1..=8 {
            let failure = verify::check_kmc(&system, k).unwrap_err();
            assert!(
                failure.to_string().contains(&format!("not {k}-MC")),
                "k = {k}: {failure}"
            );
        }
    }

    #[test]
    fn the_dot_file_records_the_optimised_monitor() {
        optimised().assert_dot_files_record_the_optimised_roles();
    }
}
