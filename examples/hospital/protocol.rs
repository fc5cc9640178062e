//! The hospital protocol's roles, labels and hospital, shared by the plain and the
//! optimised patient (`main.rs`, `optimised.rs`): the optimisation changes only the
//! patient.

use std::convert::Infallible;

use mpst::{Branch, Error, Message, Payload, Role, Roles, Send, session, try_session};

type Channel = mpst::channel::Unbounded<Label>;

/// The two roles, wired to each other.
#[derive(Roles)]
pub struct Roles(pub P, pub H);

/// The patient's monitor: sends measurements, sometimes asks for its record.
#[derive(Role)]
#[message(Label)]
pub struct P(#[route(H)] Channel);

/// The hospital: stores measurements and keeps the record.
#[derive(Role)]
#[message(Label)]
pub struct H(#[route(P)] Channel);

/// The labels of `hospital.scr`.
#[derive(Message)]
pub enum Label {
    /// `nd(i32)`
    Nd(Nd),
    /// `ack(u32)`
    Ack(Ack),
    /// `pr()`
    Pr(Pr),
    /// `report(i32)`
    Report(Report),
}

/// `nd(i32)`: new data, one measurement.
#[derive(Payload)]
pub struct Nd(pub i32);
/// `ack(u32)`: the measurement is stored; how many are stored now.
#[derive(Payload)]
pub struct Ack(pub u32);
/// `pr()`: a request for the patient's record.
#[derive(Payload)]
pub struct Pr;
/// `report(i32)`: the record, the sum of the measurements stored.
#[derive(Payload)]
pub struct Report(pub i32);

/// The hospital's projection: `mu x. P?{nd. P!ack. x, pr. P!report. x}`.
#[session]
pub struct Hospital(Branch<P, Request>);

/// What the patient can send the hospital.
#[session]
pub enum Request {
    /// A measurement, then the acknowledgement.
    Nd(Nd, Send<P, Ack, Hospital>),
    /// A request for the record, then the report.
    Pr(Pr, Send<P, Report, Hospital>),
}

/// The `i`-th measurement the monitor takes.
pub fn measurement(i: u32) -> i32 {
    let i = i as i32;
    60 + i.wrapping_mul(7) % 40
}

/// The hospital: stores every measurement and acknowledges it with the count stored;
/// answers a request with the sum of what is stored. Never ends.
pub async fn hospital(role: &mut H) -> Result<Infallible, Error> {
    try_session(role, |mut s: Hospital<'_, H>| async move {
        let (mut stored, mut sum) = (0u32, 0i32);
        loop {
            s = match s.into_session().branch().await? {
                Request::Nd(Nd(value), s) => {
                    stored += 1;
                    sum = sum.wrapping_add(value);
                    s.send(Ack(stored)).await?
                }
                Request::Pr(Pr, s) => s.send(Report(sum)).await?,
            };
        }
    })
    .await
}
