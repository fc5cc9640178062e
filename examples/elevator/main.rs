//! Elevator (after Bouajjani et al. CAV 2018 and the k-MC benchmarks; PPoPP 2022 Table 1):
//! three roles, choice and recursion.
//!
//! The paper gives no Scribble protocol for the elevator, so `elevator.scr` is our design:
//! the user `U` either `request`s a floor from the elevator `E` or `leave`s. For a request,
//! `E` has the door `D` `close` (`D` confirms `closed`), travels, has `D` `open` (`D`
//! confirms `opened`) and tells `U` it `arrived`, with the number of floors travelled.
//! When `U` leaves, `E` tells `D` to `stop`. (The k-MC elevator never ends; ours lets the
//! user leave so that a run has a result to check.)
//!
//! Roles: `U` (makes the choice), `E`, `D`. The session types are the projections of
//! `elevator.scr` (top-down workflow); `optimised.rs` has an elevator that tells the user
//! it arrived before the door confirms it is open.
//!
//! `cargo run -p mpst-examples --example elevator` visits a few floors and prints the
//! distances.

mod protocol;

use mpst::{Branch, End, Error, Receive, Send, session, try_session};
use protocol::{Arrived, Close, Closed, D, E, Leave, Open, Opened, Request, Stop, U, floors, run};

/// The elevator's projection:
/// `mu x. U?{request. D!close. D?closed. D!open. D?opened. U!arrived. x, leave. D!stop. end}`.
#[session]
type Elevator = Branch<U, ElevatorChoice>;

#[session]
enum ElevatorChoice {
    Request(Request, Travel),
    Leave(Leave, Send<D, Stop, End>),
}

/// Close the door and travel.
#[session]
type Travel = Send<D, Close, Receive<D, Closed, Arrive>>;

/// Open the door, then tell the user.
#[session]
type Arrive = Send<D, Open, Receive<D, Opened, Send<U, Arrived, Elevator>>>;

/// The elevator: starts at floor 0 and serves requests until the user leaves; returns the
/// floor it ends at.
async fn elevator(mut role: E) -> Result<i32, Error> {
    try_session(&mut role, |mut s: Elevator<'_, E>| async move {
        let mut at = 0i32;
        loop {
            s = match s.branch().await? {
                ElevatorChoice::Request(Request(floor), t) => {
                    let (Closed, t) = t.send(Close).await?.receive().await?;
                    let distance = floor.abs_diff(at) as i32;
                    at = floor;
                    let (Opened, t) = t.send(Open).await?.receive().await?;
                    t.send(Arrived(distance)).await?
                }
                ElevatorChoice::Leave(Leave, t) => return Ok((at, t.send(Stop).await?)),
            }
        }
    })
    .await
}

fn main() -> Result<(), Error> {
    let floors = floors();
    let run = run(&floors, elevator);
    let (distances, last, cycles) = futures::executor::block_on(run)?;
    println!(
        "floors {floors:?}: travelled {distances:?}, ended at {last}, door cycled {cycles} times"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::{expected, run_tasks};

    #[test]
    fn futures_executor() {
        let floors = floors();
        let run = run(&floors, elevator);
        let (distances, last, cycles) = futures::executor::block_on(run).unwrap();
        assert_eq!(distances, [3, 4, 0, 7, 2, 14, 7]);
        assert_eq!(distances, expected(&floors));
        assert_eq!(last, 5);
        assert_eq!(cycles as usize, floors.len());
    }

    #[test]
    fn leaving_at_once_never_moves_the_door() {
        let run = run(&[], elevator);
        let (distances, last, cycles) = futures::executor::block_on(run).unwrap();
        assert!(distances.is_empty());
        assert_eq!((last, cycles), (0, 0));
    }

    #[test]
    fn tokio_multi_thread() {
        let floors: Vec<i32> = (0..200).map(|i| (i * 7) % 23 - 4).collect();
        let (distances, last, cycles) = run_tasks(&floors, elevator).unwrap();
        assert_eq!(distances, expected(&floors));
        assert_eq!(Some(&last), floors.last());
        assert_eq!(cycles, 200);
    }
}

/// The workflows of PPoPP 2022 §2 on this example: each hand-written session type is the
/// projection of its role from `elevator.scr` (checked through serialisation, names
/// normalised, payloads compared), and the system of serialised roles is k-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("elevator.scr");
        protocol::User<'static, U>, Elevator<'static, E>, protocol::Door<'static, D>
    }
}
