// The session code of `fft` with our `mpst`, included twice by `lib.rs`: as
// `fft::ours` over `Unbounded` and as `fft::ours_spsc` over `Spsc`.
// The including module defines `WHAT` (the name in error messages) and `Channel`
// (the route type).

use std::sync::Arc;

use mpst::{try_session, End, Message, Receive, Role, Roles, Send};

use super::{butterfly, Complex32, Problem};
use crate::{spawn, Result};

#[derive(Roles)]
struct Roles(R0, R1, R2, R3, R4, R5, R6, R7);

macro_rules! roles {
    ($($role:ident: $($peer:ident),+;)+) => {$(
        #[derive(Role)]
        #[message(Label)]
        struct $role($(#[route($peer)] Channel),+);
    )+};
}

roles! {
    R0: R4, R2, R1;
    R1: R5, R3, R0;
    R2: R6, R0, R3;
    R3: R7, R1, R2;
    R4: R0, R6, R5;
    R5: R1, R7, R4;
    R6: R2, R4, R7;
    R7: R3, R5, R6;
}

#[derive(Message)]
enum Label {
    Value(Value),
}

struct Value(Vec<Complex32>);

/// The lower role of a pair: send, then receive.
type Lo<'r, R, P, S> = Send<'r, R, P, Value, Receive<'r, R, P, Value, S>>;
/// The upper role of a pair: receive, then send.
type Hi<'r, R, P, S> = Receive<'r, R, P, Value, Send<'r, R, P, Value, S>>;

macro_rules! exchange {
    (Lo, $s:ident, $column:ident) => {{
        let s = $s.send(Value($column.clone())).await?;
        let (Value(other), s) = s.receive().await?;
        (other, s)
    }};
    (Hi, $s:ident, $column:ident) => {{
        let (Value(other), s) = $s.receive().await?;
        let s = s.send(Value($column.clone())).await?;
        (other, s)
    }};
}

macro_rules! butterflies {
    ($name:ident, $role:ident, $i:literal, $m4:ident $p4:ident, $m2:ident $p2:ident, $m1:ident $p1:ident) => {
        async fn $name(
            role: &mut $role,
            mut column: Vec<Complex32>,
        ) -> Result<Vec<Complex32>, mpst::Error> {
            type Session<'r> =
                $m4<'r, $role, $p4, $m2<'r, $role, $p2, $m1<'r, $role, $p1, End<'r, $role>>>>;
            try_session(role, |s: Session<'_>| async move {
                let (other, s) = exchange!($m4, s, column);
                butterfly($i, 4, &mut column, &other);
                let (other, s) = exchange!($m2, s, column);
                butterfly($i, 2, &mut column, &other);
                let (other, s) = exchange!($m1, s, column);
                butterfly($i, 1, &mut column, &other);
                Ok((column, s))
            })
            .await
        }
    };
}

butterflies!(r0, R0, 0, Lo R4, Lo R2, Lo R1);
butterflies!(r1, R1, 1, Lo R5, Lo R3, Hi R0);
butterflies!(r2, R2, 2, Lo R6, Hi R0, Lo R3);
butterflies!(r3, R3, 3, Lo R7, Hi R1, Hi R2);
butterflies!(r4, R4, 4, Hi R0, Lo R6, Lo R5);
butterflies!(r5, R5, 5, Hi R1, Lo R7, Hi R4);
butterflies!(r6, R6, 6, Hi R2, Hi R4, Lo R7);
butterflies!(r7, R7, 7, Hi R3, Hi R5, Hi R6);

butterflies!(r1_optimised, R1, 1, Lo R5, Lo R3, Lo R0);
butterflies!(r2_optimised, R2, 2, Lo R6, Lo R0, Lo R3);
butterflies!(r3_optimised, R3, 3, Lo R7, Lo R1, Lo R2);
butterflies!(r4_optimised, R4, 4, Lo R0, Lo R6, Lo R5);
butterflies!(r5_optimised, R5, 5, Lo R1, Lo R7, Lo R4);
butterflies!(r6_optimised, R6, 6, Lo R2, Lo R4, Lo R7);
butterflies!(r7_optimised, R7, 7, Lo R3, Lo R5, Lo R6);

/// Transforms every row with eight roles (eight tokio tasks) and checks the result;
/// `optimised` runs the reordered protocol where every role sends first (role 0 already
/// does, so it is the same in both).
pub async fn run(problem: Arc<Problem>, optimised: bool) -> Result {
    let Roles(mut p0, mut p1, mut p2, mut p3, mut p4, mut p5, mut p6, mut p7) = Roles::default();
    let c = |i: usize| problem.columns[i].clone();
    let (c0, c1, c2, c3, c4, c5, c6, c7) = (c(0), c(1), c(2), c(3), c(4), c(5), c(6), c(7));
    macro_rules! task {
        ($plain:ident, $opt:ident, $role:ident, $column:ident) => {
            spawn(WHAT, async move {
                Ok(if optimised {
                    $opt(&mut $role, $column).await?
                } else {
                    $plain(&mut $role, $column).await?
                })
            })
        };
    }
    let outputs = futures::join!(
        task!(r0, r0, p0, c0),
        task!(r1, r1_optimised, p1, c1),
        task!(r2, r2_optimised, p2, c2),
        task!(r3, r3_optimised, p3, c3),
        task!(r4, r4_optimised, p4, c4),
        task!(r5, r5_optimised, p5, c5),
        task!(r6, r6_optimised, p6, c6),
        task!(r7, r7_optimised, p7, c7),
    );
    let by_role = vec![
        outputs.0?, outputs.1?, outputs.2?, outputs.3?, outputs.4?, outputs.5?, outputs.6?,
        outputs.7?,
    ];
    problem.check_roles(WHAT, by_role)
}
