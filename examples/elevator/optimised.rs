//! Optimised elevator (PPoPP 2022 Table 1): the protocol of `elevator.scr` with the
//! elevator optimised by asynchronous message reordering.
//!
//! In the projection, the elevator waits for the door's `opened` before telling the user
//! it `arrived`. Here it tells the user as soon as it has told the door to `open`, and
//! takes the door's `opened` afterwards: `... D!open. U!arrived. D?opened. x` instead of
//! `... D!open. D?opened. U!arrived. x`. Moving an output before an input is an
//! asynchronous subtype of the projection, so this cannot deadlock; the user and the door
//! are unchanged (`protocol.rs`).
//!
//! `cargo run -p mpst-examples --example optimised_elevator` visits a few floors and
//! prints the distances.

mod protocol;

use mpst::{Branch, End, Error, Receive, Send, session, try_session};
use protocol::{Arrived, Close, Closed, D, E, Leave, Open, Opened, Request, Stop, U, floors, run};

/// The optimised elevator:
/// `mu x. U?{request. D!close. D?closed. D!open. U!arrived. D?opened. x, leave. D!stop. end}`.
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

/// Open the door and tell the user at once; the door's confirmation comes after.
#[session]
type Arrive = Send<D, Open, Send<U, Arrived, Receive<D, Opened, Elevator>>>;

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
                    let t = t.send(Open).await?.send(Arrived(distance)).await?;
                    let (Opened, t) = t.receive().await?;
                    t
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
    fn tokio_multi_thread() {
        let floors: Vec<i32> = (0..200).map(|i| (i * 7) % 23 - 4).collect();
        let (distances, last, cycles) = run_tasks(&floors, elevator).unwrap();
        assert_eq!(distances, expected(&floors));
        assert_eq!(Some(&last), floors.last());
        assert_eq!(cycles, 200);
    }
}

/// The workflows of PPoPP 2022 §2 on this example: the optimised elevator is an
/// asynchronous subtype of its projection from `elevator.scr` (hybrid: serialised session
/// type against the projection), every other role is its projection, and the whole
/// optimised system is k-MC (bottom-up). The DOT files beside this one record the optimised
/// roles for `mpst subtype`, `mpst kmc`, `mpst generate --optimised` and the expressiveness
/// table.
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::optimised_workflows! {
        include_str!("elevator.scr"), k = 1;
        Elevator<'static, E> => include_str!("e_optimised.dot");
        protocol::User<'static, U>, protocol::Door<'static, D>
    }
}
