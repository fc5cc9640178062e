//! The elevator protocol's roles, labels, user and door, shared by the plain and the
//! optimised elevator (`main.rs`, `optimised.rs`): the optimisation changes only the
//! elevator. The runs of the protocol take the elevator as a parameter for the same reason.

use std::future::Future;

use futures::future::try_join3;
use mpst::{
    Branch, End, Error, Message, Payload, Receive, Role, Roles, Select, Send, session, try_session,
};

type Channel = mpst::channel::Unbounded<Label>;

/// The three roles, wired to each other.
#[derive(Roles)]
pub struct Roles(pub U, pub E, pub D);

/// The user: asks for floors, then leaves.
#[derive(Role)]
#[message(Label)]
pub struct U(#[route(E)] Channel);

/// The elevator: travels and drives the door.
#[derive(Role)]
#[message(Label)]
pub struct E(#[route(U)] Channel, #[route(D)] Channel);

/// The door.
#[derive(Role)]
#[message(Label)]
pub struct D(#[route(E)] Channel);

/// The labels of `elevator.scr`.
#[derive(Message)]
pub enum Label {
    /// `request(i32)`
    Request(Request),
    /// `leave()`
    Leave(Leave),
    /// `close()`
    Close(Close),
    /// `closed()`
    Closed(Closed),
    /// `open()`
    Open(Open),
    /// `opened()`
    Opened(Opened),
    /// `arrived(i32)`
    Arrived(Arrived),
    /// `stop()`
    Stop(Stop),
}

/// `request(i32)`: take me to this floor.
#[derive(Payload)]
pub struct Request(pub i32);
/// `leave()`: the user is done.
#[derive(Payload)]
pub struct Leave;
/// `close()`: close the door.
#[derive(Payload)]
pub struct Close;
/// `closed()`: the door is closed.
#[derive(Payload)]
pub struct Closed;
/// `open()`: open the door.
#[derive(Payload)]
pub struct Open;
/// `opened()`: the door is open.
#[derive(Payload)]
pub struct Opened;
/// `arrived(i32)`: at the requested floor, after travelling this many floors.
#[derive(Payload)]
pub struct Arrived(pub i32);
/// `stop()`: the door can switch off.
#[derive(Payload)]
pub struct Stop;

/// The user's projection: `mu x. E!{request. E?arrived. x, leave. end}`.
#[session]
pub type User = Select<E, UserChoice>;

/// What the user can choose.
#[session]
pub enum UserChoice {
    /// Go to a floor and wait to arrive.
    Request(Request, Receive<E, Arrived, User>),
    /// Leave.
    Leave(Leave, End),
}

/// The door's projection: `mu x. E?{close. E!closed. E?open. E!opened. x, stop. end}`.
#[session]
pub type Door = Branch<E, DoorChoice>;

/// What the door can be told.
#[session]
pub enum DoorChoice {
    /// One close–open cycle.
    Close(
        Close,
        Send<E, Closed, Receive<E, Open, Send<E, Opened, Door>>>,
    ),
    /// Switch off.
    Stop(Stop, End),
}

/// The user: asks for each floor in turn and collects the distances travelled, then
/// leaves.
pub async fn user(role: &mut U, floors: &[i32]) -> Result<Vec<i32>, Error> {
    try_session(role, |mut s: User<'_, U>| async move {
        let mut distances = Vec::with_capacity(floors.len());
        for &floor in floors {
            let (Arrived(distance), t) = s.select(Request(floor)).await?.receive().await?;
            distances.push(distance);
            s = t;
        }
        Ok((distances, s.select(Leave).await?))
    })
    .await
}

/// The door: closes and opens when told; returns how many close–open cycles it made.
pub async fn door(role: &mut D) -> Result<u32, Error> {
    try_session(role, |mut s: Door<'_, D>| async move {
        let mut cycles = 0;
        loop {
            s = match s.branch().await? {
                DoorChoice::Close(Close, t) => {
                    let (Open, t) = t.send(Closed).await?.receive().await?;
                    cycles += 1;
                    t.send(Opened).await?
                }
                DoorChoice::Stop(Stop, end) => return Ok((cycles, end)),
            }
        }
    })
    .await
}

/// The floors the examples visit.
pub fn floors() -> Vec<i32> {
    vec![3, 7, 7, 0, -2, 12, 5]
}

/// Visits `floors` with `elevator` (given its role) in one future (any executor); returns
/// the user's distances, the elevator's last floor and the door's cycles.
pub async fn run<F>(
    floors: &[i32],
    elevator: impl FnOnce(E) -> F,
) -> Result<(Vec<i32>, i32, u32), Error>
where
    F: Future<Output = Result<i32, Error>>,
{
    let Roles(mut u, e, mut d) = Roles::default();
    try_join3(user(&mut u, floors), elevator(e), door(&mut d)).await
}

/// Like [`run`], with each role a task on the multi-thread tokio runtime of the tests.
#[cfg(test)]
pub fn run_tasks<F>(
    floors: &[i32],
    elevator: impl FnOnce(E) -> F,
) -> Result<(Vec<i32>, i32, u32), Error>
where
    F: Future<Output = Result<i32, Error>> + std::marker::Send + 'static,
{
    let runtime = mpst_examples::tokio_runtime().unwrap();
    let Roles(mut u, e, mut d) = Roles::default();
    runtime.block_on(async {
        let input = floors.to_vec();
        let u = tokio::spawn(async move { user(&mut u, &input).await });
        let e = tokio::spawn(elevator(e));
        let d = tokio::spawn(async move { door(&mut d).await });
        let distances = mpst_examples::joined(u).await?;
        let last = mpst_examples::joined(e).await?;
        Ok((distances, last, mpst_examples::joined(d).await?))
    })
}

/// The distance travelled for each of `floors` in turn, starting at floor 0.
#[cfg(test)]
pub fn expected(floors: &[i32]) -> Vec<i32> {
    let mut at = 0;
    floors
        .iter()
        .map(|&floor| {
            let distance = (floor - at).abs();
            at = floor;
            distance
        })
        .collect()
}
