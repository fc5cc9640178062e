//! The projections of `fft.scr` as session types, and the upper partner's exchange in the
//! order they give it. Shared by the plain FFT (`main.rs`) and the runtime's FFT bench
//! (`crates/mpst/benches/fft.rs`), so the bench measures exactly this protocol.
//!
//! `L` = lower partner of a stage (send, then receive), `U` = upper (receive, then send).

use mpst::{End, Error, FromState, Receive, Role, Route, Send, session};
use num_complex::Complex64;

use crate::protocol::{Channel, Column, Label, Value, upper_output};
use crate::protocol::{P0, P1, P2, P3, P4, P5, P6, P7};

#[session]
pub type Fft0 = Send<
    P1,
    Value,
    Receive<
        P1,
        Value,
        Send<P2, Value, Receive<P2, Value, Send<P4, Value, Receive<P4, Value, End>>>>,
    >,
>;
#[session]
pub type Fft1 = Receive<
    P0,
    Value,
    Send<P0, Value, Send<P3, Value, Receive<P3, Value, Send<P5, Value, Receive<P5, Value, End>>>>>,
>;
#[session]
pub type Fft2 = Send<
    P3,
    Value,
    Receive<
        P3,
        Value,
        Receive<P0, Value, Send<P0, Value, Send<P6, Value, Receive<P6, Value, End>>>>,
    >,
>;
#[session]
pub type Fft3 = Receive<
    P2,
    Value,
    Send<P2, Value, Receive<P1, Value, Send<P1, Value, Send<P7, Value, Receive<P7, Value, End>>>>>,
>;
#[session]
pub type Fft4 = Send<
    P5,
    Value,
    Receive<
        P5,
        Value,
        Send<P6, Value, Receive<P6, Value, Receive<P0, Value, Send<P0, Value, End>>>>,
    >,
>;
#[session]
pub type Fft5 = Receive<
    P4,
    Value,
    Send<P4, Value, Send<P7, Value, Receive<P7, Value, Receive<P1, Value, Send<P1, Value, End>>>>>,
>;
#[session]
pub type Fft6 = Send<
    P7,
    Value,
    Receive<
        P7,
        Value,
        Receive<P4, Value, Send<P4, Value, Receive<P2, Value, Send<P2, Value, End>>>>,
    >,
>;
#[session]
pub type Fft7 = Receive<
    P6,
    Value,
    Send<P6, Value, Receive<P5, Value, Send<P5, Value, Receive<P3, Value, Send<P3, Value, End>>>>>,
>;

/// The exchange of the upper partner of a butterfly (receive, then send): returns the
/// upper output.
pub async fn upper<'r, R, P, N>(
    s: Receive<'r, R, P, Value, Send<'r, R, P, Value, N>>,
    mine: Column,
    w: Complex64,
) -> Result<(Column, N), Error>
where
    R: Route<P, Route = Channel> + Role<Message = Label>,
    P: Role,
    N: FromState<'r, Role = R>,
{
    let (Value(theirs), s) = s.receive().await?;
    let next = s.send(Value(mine.clone())).await?;
    Ok((upper_output(&theirs, &mine, w), next))
}
