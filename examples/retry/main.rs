//! A `continue`-led branch inside a choice (nuscr's `ChoiceRec`), through the three
//! workflows.
//!
//! `retry.scr`: a client `C` reserves seats with a server `S`, or quits. A busy server
//! hands the choice back; the client waits, or `continue Try`s: it goes back to the
//! choice it made at the top, retrying or quitting. The front end unfolds that branch
//! into copies of the top choice's branches, so the client's projection chooses among
//! `reserve`, `quit` and `wait` after `busy`.
//!
//! Top-down: `examples/build.rs` generates the API; the client and the server below are
//! written against it and run. Bottom-up: a client that never waits is written by hand
//! ([`Retrier`]) and the system of serialised session types, it and the generated server,
//! is checked with k-MC. Hybrid: the generated types are the `.scr` projections, and the
//! hand-written client is a subtype of its role's projection (it offers fewer choices),
//! so it runs beside the unchanged server.
//!
//! `cargo run -p mpst-examples --example retry` books with a busy server three ways.

use std::future::Future;

use mpst::{Error, try_session};

/// The generated API of `retry.scr` (`build.rs`).
#[allow(dead_code)]
mod api {
    include!(concat!(env!("OUT_DIR"), "/retry.rs"));
}

/// A client's session type written by hand (the bottom-up workflow): it reserves, and
/// when the server is busy it reserves again or quits; it never waits.
mod retrier {
    use super::api::{Booked, Busy, Quit, Reserve, S};
    use mpst::{Branch, End, Select, session};

    /// Reserve seats, or quit.
    #[session]
    pub type Retrier = Select<S, Ask>;

    /// What the client asks.
    #[session]
    pub enum Ask {
        /// Some seats, then wait for the answer.
        Reserve(Reserve, Branch<S, Answer>),
        /// Nothing more.
        Quit(Quit, End),
    }

    /// What the server answers.
    #[session]
    pub enum Answer {
        /// The seats are booked.
        Booked(Booked, End),
        /// Ask again, or quit.
        Busy(Busy, Retrier),
    }
}

use api::*;
use retrier::{Answer, Retrier};

/// What a client does when the server is still busy after its last retry.
#[derive(Clone, Copy, Debug)]
enum Finally {
    /// Wait for the seats.
    Wait,
    /// Give up.
    Quit,
}

/// How the server's session ended.
#[derive(Debug, PartialEq, Eq)]
enum Ending {
    /// It booked a request.
    Booked,
    /// It booked for a client that waited.
    Waited,
    /// The client quit.
    Quit,
}

/// A client's result: the seats booked (if any) and how many requests it made.
type Booking = (Option<i32>, usize);

/// The generated client: reserves `seats`, retries up to `retries` times while the
/// server is busy, then waits or quits as `finally` says.
async fn client(
    mut role: C,
    seats: i32,
    retries: usize,
    finally: Finally,
) -> Result<Booking, Error> {
    try_session(&mut role, |s: CSession<'_, C>| async move {
        let mut requests = 1;
        let mut s = s.select(Reserve(seats)).await?;
        loop {
            match s.branch().await? {
                CX1Choice::Booked(Booked(n), end) => return Ok(((Some(n), requests), end)),
                CX1Choice::Busy(Busy, next) if requests <= retries => {
                    requests += 1;
                    // The `continue Try` branch: the top choice's `reserve` again.
                    s = next.select(Reserve(seats)).await?;
                }
                CX1Choice::Busy(Busy, next) => match finally {
                    Finally::Wait => {
                        let (Booked(n), end) = next.select(Wait).await?.receive().await?;
                        return Ok(((Some(n), requests), end));
                    }
                    // The `continue Try` branch: the top choice's `quit`.
                    Finally::Quit => return Ok(((None, requests), next.select(Quit).await?)),
                },
            }
        }
    })
    .await
}

/// The hand-written client ([`Retrier`]): reserves `seats` up to `1 + retries` times,
/// then quits.
async fn retrier(mut role: C, seats: i32, retries: usize) -> Result<Booking, Error> {
    try_session(&mut role, |mut s: Retrier<'_, C>| async move {
        let mut requests = 0;
        loop {
            requests += 1;
            match s.select(Reserve(seats)).await?.branch().await? {
                Answer::Booked(Booked(n), end) => return Ok(((Some(n), requests), end)),
                Answer::Busy(Busy, next) if requests <= retries => s = next,
                Answer::Busy(Busy, next) => {
                    return Ok(((None, requests), next.select(Quit).await?));
                }
            }
        }
    })
    .await
}

/// The generated server: busy for the first `busy_for` requests, then books what is
/// asked. Returns how many requests it answered and how the session ended.
async fn server(mut role: S, busy_for: usize) -> Result<(usize, Ending), Error> {
    try_session(&mut role, |s: SSession<'_, S>| async move {
        let (mut seats, mut s) = match s.branch().await? {
            SSessionChoice::Reserve(Reserve(n), s) => (n, s),
            SSessionChoice::Quit(Quit, end) => return Ok(((0, Ending::Quit), end)),
        };
        let mut requests = 1;
        while requests <= busy_for {
            match s.select(Busy).await?.branch().await? {
                SX1BusyChoice::Reserve(Reserve(n), next) => {
                    requests += 1;
                    seats = n;
                    s = next;
                }
                SX1BusyChoice::Quit(Quit, end) => return Ok(((requests, Ending::Quit), end)),
                SX1BusyChoice::Wait(Wait, next) => {
                    let end = next.send(Booked(seats)).await?;
                    return Ok(((requests, Ending::Waited), end));
                }
            }
        }
        Ok(((requests, Ending::Booked), s.select(Booked(seats)).await?))
    })
    .await
}

/// Runs a client beside the server, busy for the first `busy_for` requests.
fn run<F>(busy_for: usize, client: impl FnOnce(C) -> F) -> Result<(Booking, (usize, Ending)), Error>
where
    F: Future<Output = Result<Booking, Error>>,
{
    let Roles { c, s } = Roles::default();
    futures::executor::block_on(async { futures::try_join!(client(c), server(s, busy_for)) })
}

fn main() -> Result<(), Error> {
    let (booking, served) = run(2, |c| client(c, 4, 3, Finally::Quit))?;
    println!("retried: booked {booking:?}; the server answered {served:?}");
    let (booking, served) = run(5, |c| client(c, 4, 1, Finally::Wait))?;
    println!("waited: booked {booking:?}; the server answered {served:?}");
    let (booking, served) = run(5, |c| retrier(c, 4, 2))?;
    println!("gave up: booked {booking:?}; the server answered {served:?}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpst::serialize::serialize;
    use mpst::verify;

    const SCR: &str = include_str!("retry.scr");

    #[test]
    fn a_client_retries_until_the_server_books() {
        let (booking, served) = run(2, |c| client(c, 4, 3, Finally::Quit)).unwrap();
        assert_eq!(booking, (Some(4), 3));
        assert_eq!(served, (3, Ending::Booked));
    }

    #[test]
    fn a_client_done_retrying_waits_or_quits() {
        let (booking, served) = run(5, |c| client(c, 2, 1, Finally::Wait)).unwrap();
        assert_eq!(booking, (Some(2), 2));
        assert_eq!(served, (2, Ending::Waited));
        let (booking, served) = run(5, |c| client(c, 2, 1, Finally::Quit)).unwrap();
        assert_eq!(booking, (None, 2));
        assert_eq!(served, (2, Ending::Quit));
    }

    /// Hybrid: the hand-written client runs beside the unchanged generated server.
    #[test]
    fn the_hand_written_client_runs_beside_the_generated_server() {
        let (booking, served) = run(1, |c| retrier(c, 3, 2)).unwrap();
        assert_eq!(booking, (Some(3), 2));
        assert_eq!(served, (2, Ending::Booked));
        let (booking, served) = run(5, |c| retrier(c, 3, 2)).unwrap();
        assert_eq!(booking, (None, 3));
        assert_eq!(served, (3, Ending::Quit));
    }

    /// The `continue Try` branch was unfolded: after `reserve` and `busy`, the client's
    /// projection chooses among the top choice's `reserve` and `quit`, and `wait`.
    #[test]
    fn after_busy_the_client_chooses_among_the_top_choices_and_wait() {
        let projection = verify::projection(SCR, "C").unwrap();
        let after = |state, label: &str| {
            projection
                .transitions(state)
                .iter()
                .find(|t| t.action.message.label == label)
                .unwrap_or_else(|| panic!("no {label} from state {state:?}"))
                .target
        };
        let busy = after(after(projection.initial(), "reserve"), "busy");
        let mut labels: Vec<&str> = projection
            .transitions(busy)
            .iter()
            .map(|t| t.action.message.label.as_str())
            .collect();
        labels.sort_unstable();
        assert_eq!(labels, ["quit", "reserve", "wait"]);
    }

    /// Top-down and hybrid: the generated types are the projections; the hand-written
    /// client is a subtype of the client's projection, not equal to it (it never waits).
    #[test]
    fn the_types_against_the_projections() {
        verify::assert_equals_projection::<CSession<'static, C>>(SCR, "C");
        verify::assert_equals_projection::<SSession<'static, S>>(SCR, "S");
        verify::assert_subtype_of_projection::<Retrier<'static, C>>(SCR, "C");
        assert!(
            verify::check_equals_projection::<Retrier<'static, C>>(SCR, "C").is_err(),
            "the hand-written client never waits"
        );
    }

    /// Bottom-up: the serialised session types form k-MC systems, the generated client
    /// beside the server and the hand-written one beside the same server.
    #[test]
    fn the_serialised_systems_are_k_mc() {
        for client in [
            serialize::<CSession<'static, C>>().unwrap(),
            serialize::<Retrier<'static, C>>().unwrap(),
        ] {
            let system = [client, serialize::<SSession<'static, S>>().unwrap()];
            let report = mpst_fsm::least_k(&system, 2).unwrap();
            assert!(report.is_kmc(), "{report}");
            assert_eq!(report.k, 1);
        }
    }
}
