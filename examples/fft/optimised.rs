//! Optimised FFT (PPoPP 2022 Section 4.1, Table 1): the butterfly network of `fft.scr`
//! with every exchange reordered by asynchronous message reordering.
//!
//! In the projection, the upper process of each pair receives its partner's column before
//! sending its own. Here every process sends first and receives after, so both columns
//! cross at once instead of one after the other: for an upper process, `P?value. P!value`
//! becomes `P!value. P?value`, an asynchronous subtype (an output moved before an input).
//! The lower processes and the arithmetic are unchanged (`protocol.rs`). The paper notes
//! that this barely changes FFT's speed, since every stage synchronises all pairs anyway.
//!
//! `cargo run -p mpst-examples --example optimised_fft` transforms a 4 x 8 matrix and
//! prints it.

mod protocol;

use mpst::{End, Error, FromState, Receive, Role, Route, Send, session, try_session};
use num_complex::Complex64;
use protocol::{
    Channel, Column, Label, Roles, Value, columns, input, lower, rows, twiddle, upper_output,
};
use protocol::{P0, P1, P2, P3, P4, P5, P6, P7};

/// Every process's type: in each of the three stages it sends its column to the stage's
/// partner (`First`, `Second`, then `Third`), then receives the partner's.
#[session]
type SendFirst<First, Second, Third> = Send<
    First,
    Value,
    Receive<
        First,
        Value,
        Send<Second, Value, Receive<Second, Value, Send<Third, Value, Receive<Third, Value, End>>>>,
    >,
>;

// Process `Pi`'s partners in stages 1, 2 and 3 (`#[session]` adds the lifetime and role
// parameters to `SendFirst`; written out here).
type Fft0<'r, R> = SendFirst<'r, R, P1, P2, P4>;
type Fft1<'r, R> = SendFirst<'r, R, P0, P3, P5>;
type Fft2<'r, R> = SendFirst<'r, R, P3, P0, P6>;
type Fft3<'r, R> = SendFirst<'r, R, P2, P1, P7>;
type Fft4<'r, R> = SendFirst<'r, R, P5, P6, P0>;
type Fft5<'r, R> = SendFirst<'r, R, P4, P7, P1>;
type Fft6<'r, R> = SendFirst<'r, R, P7, P4, P2>;
type Fft7<'r, R> = SendFirst<'r, R, P6, P5, P3>;

/// The optimised exchange of the upper partner of a butterfly (send, then receive):
/// returns the upper output.
async fn upper<'r, R, P, N>(
    s: Send<'r, R, P, Value, Receive<'r, R, P, Value, N>>,
    mine: Column,
    w: Complex64,
) -> Result<(Column, N), Error>
where
    R: Route<P, Route = Channel> + Role<Message = Label>,
    P: Role,
    N: FromState<'r, Role = R>,
{
    let (Value(theirs), next) = s.send(Value(mine.clone())).await?.receive().await?;
    Ok((upper_output(&theirs, &mine, w), next))
}

// The eight processes, by the exchange each makes in stages 1, 2 and 3 (the butterfly
// network's table is in `protocol.rs`; `lower` from there, `upper` above); the macro also
// defines `run`.
protocol::processes_and_runs!();

fn main() -> Result<(), Error> {
    let matrix = input(4);
    for (row, out) in matrix
        .iter()
        .zip(futures::executor::block_on(run(&matrix))?)
    {
        println!("{row:.3?}\n  -> {out:.3?}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::assert_transformed;

    protocol::run_tasks!();

    #[test]
    fn futures_executor() {
        for n in [1, 3, 64] {
            let matrix = input(n);
            let got = futures::executor::block_on(run(&matrix)).unwrap();
            assert_transformed(&matrix, &got);
        }
    }

    #[test]
    fn tokio_multi_thread() {
        let matrix = input(100);
        assert_transformed(&matrix, &run_tasks(&matrix).unwrap());
    }
}

/// The workflows of PPoPP 2022 §2 on this example: the optimised processes `P1` to `P7` are
/// asynchronous subtypes of their projections from `fft.scr` (hybrid: serialised session type
/// against the projection), every other role is its projection, and the whole optimised
/// system is k-MC (bottom-up). The DOT files beside this one record the optimised roles for
/// `mpst subtype`, `mpst kmc`, `mpst generate --optimised` and the expressiveness table.
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::optimised_workflows! {
        include_str!("fft.scr"), k = 1;
        Fft1<'static, P1> => include_str!("p1_optimised.dot"),
        Fft2<'static, P2> => include_str!("p2_optimised.dot"),
        Fft3<'static, P3> => include_str!("p3_optimised.dot"),
        Fft4<'static, P4> => include_str!("p4_optimised.dot"),
        Fft5<'static, P5> => include_str!("p5_optimised.dot"),
        Fft6<'static, P6> => include_str!("p6_optimised.dot"),
        Fft7<'static, P7> => include_str!("p7_optimised.dot");
        Fft0<'static, P0>
    }
}
