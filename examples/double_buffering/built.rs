//! Optimised double buffering top-down, from a build script: no generated code is
//! committed and no session type is written by hand.
//!
//! `examples/build.rs` asks for the API of `double_buffering.scr` with role `K` taken
//! from `kernel_optimised.dot` (the kernel of PPoPP 2022 Listing 3, one `ready` ahead):
//! ```text
//! Build::scribble("double_buffering/double_buffering.scr")
//!     .optimised("K", "double_buffering/kernel_optimised.dot")
//!     .out_file("double_buffering_optimised.rs")
//!     .generate()
//! ```
//! The helper swaps the DOT's machine in only once asynchronous subtyping proves it safe
//! against the projection of `K`; a kernel that could deadlock fails the build with the
//! place in the DOT file and the run that goes wrong. Source and sink keep their
//! projections. Below, each role is a process against the generated API.
//!
//! `cargo run -p mpst-examples --example built_double_buffering` moves 10 values and
//! prints what the sink read.

use std::convert::Infallible;

use futures::{future::try_join3, TryFutureExt};
use mpst::{try_session, Error};
use mpst_examples::{observe, observer, Observer};

/// The generated API of `double_buffering.scr` with the optimised kernel.
mod api {
    include!(concat!(env!("OUT_DIR"), "/double_buffering_optimised.rs"));
}

use api::{KSession, Ready, Roles, SSession, TSession, Value, K, S, T};

/// The `i`-th value the source produces.
fn produce(i: i32) -> i32 {
    i.wrapping_mul(i).wrapping_sub(7)
}

/// What the kernel does to each value on its way from the source to the sink.
fn work(value: i32) -> i32 {
    value.wrapping_mul(2).wrapping_add(1)
}

/// The source: each time the kernel is ready, sends the next value.
async fn source(role: &mut S) -> Result<Infallible, Error> {
    try_session(role, |mut s: SSession<'_, S>| async move {
        let mut i = 0i32;
        loop {
            let (Ready, t) = s.into_session().receive().await?;
            s = t.send(Value(produce(i))).await?;
            i = i.wrapping_add(1);
        }
    })
    .await
}

/// The optimised kernel: a `ready` to the source up front, so the source fills the
/// second buffer while the sink reads the first; then the loop of the projection.
async fn kernel(role: &mut K) -> Result<Infallible, Error> {
    try_session(role, |s: KSession<'_, K>| async move {
        let mut s = s.send(Ready).await?;
        loop {
            let t = s.into_session().send(Ready).await?;
            let (Value(value), t) = t.receive().await?;
            let (Ready, t) = t.receive().await?;
            s = t.send(Value(work(value))).await?;
        }
    })
    .await
}

/// The sink: tells the kernel it is ready, receives a value and reports it, forever.
async fn sink(role: &mut T, observer: Observer<i32>) -> Result<Infallible, Error> {
    try_session(role, |mut s: TSession<'_, T>| async move {
        loop {
            let t = s.into_session().send(Ready).await?;
            let (Value(value), t) = t.receive().await?;
            observer.report(value);
            s = t;
        }
    })
    .await
}

/// Moves `count` values from the source through the kernel to the sink; returns what
/// the sink read.
async fn run(count: usize) -> Result<Vec<i32>, Error> {
    let Roles {
        mut k,
        mut s,
        mut t,
    } = Roles::default();
    let (reporter, observations) = observer();
    let processes = try_join3(source(&mut s), kernel(&mut k), sink(&mut t, reporter));
    observe(processes.map_ok(|(never, _, _)| never), observations, count).await
}

fn main() -> Result<(), Error> {
    let values = futures::executor::block_on(run(10))?;
    println!("the sink read {values:?}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpst::serialize::serialize;
    use mpst::verify;

    const SCR: &str = include_str!("double_buffering.scr");

    #[test]
    fn the_processes_move_every_value_in_order() {
        let got = futures::executor::block_on(run(200)).unwrap();
        let expected: Vec<i32> = (0..200).map(|i| work(produce(i))).collect();
        assert_eq!(got[..3], [-13, -11, -5]);
        assert_eq!(got, expected);
    }

    #[test]
    fn the_generated_kernel_is_the_optimised_one_and_a_subtype() {
        verify::assert_subtype_of_projection::<KSession<'static, K>>(SCR, "K");
        let reordered = verify::check_equals_projection::<KSession<'static, K>>(SCR, "K");
        assert!(reordered.is_err(), "the generated K is not its projection");
        let dot = include_str!("kernel_optimised.dot");
        let machine = serialize::<KSession<'static, K>>().unwrap();
        let projection = verify::projection(SCR, "K").unwrap();
        assert!(mpst_examples::records_role(dot, &machine, &projection).unwrap());
    }

    #[test]
    fn source_and_sink_keep_their_projections_and_the_system_is_k_mc() {
        verify::assert_equals_projection::<SSession<'static, S>>(SCR, "S");
        verify::assert_equals_projection::<TSession<'static, T>>(SCR, "T");
        let system = [
            serialize::<KSession<'static, K>>().unwrap(),
            serialize::<SSession<'static, S>>().unwrap(),
            serialize::<TSession<'static, T>>().unwrap(),
        ];
        let report = mpst_fsm::least_k(&system, 8).unwrap();
        assert!(report.is_kmc(), "{report}");
        assert_eq!(report.k, 1);
    }
}
