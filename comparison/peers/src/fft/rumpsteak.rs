//! FFT with the published rumpsteak 0.1 crate: eight roles (its `Roles` derive wants a
//! route to every other role, so non-partners get `Nil`), projected and optimised.

use std::sync::Arc;

use rumpsteak::{
    End, Label, Receive, Send,
    role::{Nil, Role, Roles, ToFrom},
    try_session,
};

use super::{Complex32, Problem, butterfly};
use crate::{Result, spawn};

const WHAT: &str = "fft/rumpsteak";

#[derive(Roles)]
struct Roles(R0, R1, R2, R3, R4, R5, R6, R7);

macro_rules! roles {
    ($($role:ident: $($kind:ident $peer:ident),+;)+) => {$(
        #[derive(Role)]
        #[message(Message)]
        struct $role($(#[route($peer)] $kind<$peer>),+);
    )+};
}

roles! {
    R0: ToFrom R1, ToFrom R2, Nil R3, ToFrom R4, Nil R5, Nil R6, Nil R7;
    R1: ToFrom R0, Nil R2, ToFrom R3, Nil R4, ToFrom R5, Nil R6, Nil R7;
    R2: ToFrom R0, Nil R1, ToFrom R3, Nil R4, Nil R5, ToFrom R6, Nil R7;
    R3: Nil R0, ToFrom R1, ToFrom R2, Nil R4, Nil R5, Nil R6, ToFrom R7;
    R4: ToFrom R0, Nil R1, Nil R2, Nil R3, ToFrom R5, ToFrom R6, Nil R7;
    R5: Nil R0, ToFrom R1, Nil R2, Nil R3, ToFrom R4, Nil R6, ToFrom R7;
    R6: Nil R0, Nil R1, ToFrom R2, Nil R3, ToFrom R4, Nil R5, ToFrom R7;
    R7: Nil R0, Nil R1, Nil R2, ToFrom R3, Nil R4, ToFrom R5, ToFrom R6;
}

#[derive(Label)]
enum Message {
    Value(Value),
}

struct Value(Vec<Complex32>);

/// The lower role of a pair: send, then receive.
type Lo<'r, R, P, S> = Send<'r, R, P, Value, Receive<'r, R, P, Value, S>>;
/// The upper role of a pair: receive, then send.
type Hi<'r, R, P, S> = Receive<'r, R, P, Value, Send<'r, R, P, Value, S>>;

macro_rules! exchange {
    (Lo, $s:ident, $column:ident) => {{
        let s = $s.send(Value($column.clone()))?;
        let (Value(other), s) = s.receive().await?;
        (other, s)
    }};
    (Hi, $s:ident, $column:ident) => {{
        let (Value(other), s) = $s.receive().await?;
        let s = s.send(Value($column.clone()))?;
        (other, s)
    }};
}

macro_rules! butterflies {
    ($name:ident, $role:ident, $i:literal, $m4:ident $p4:ident, $m2:ident $p2:ident, $m1:ident $p1:ident) => {
        async fn $name(
            role: &mut $role,
            mut column: Vec<Complex32>,
        ) -> rumpsteak::Result<Vec<Complex32>> {
            type Session<'r> =
                $m4<'r, $role, $p4, $m2<'r, $role, $p2, $m1<'r, $role, $p1, End<'r>>>>;
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

/// Transforms every row with eight roles (eight tokio tasks) and checks the result.
pub async fn run(problem: Arc<Problem>) -> Result {
    let Roles(mut p0, mut p1, mut p2, mut p3, mut p4, mut p5, mut p6, mut p7) = Roles::default();
    let c = |i: usize| problem.columns[i].clone();
    let (c0, c1, c2, c3, c4, c5, c6, c7) = (c(0), c(1), c(2), c(3), c(4), c(5), c(6), c(7));
    macro_rules! task {
        ($f:ident, $role:ident, $column:ident) => {
            spawn(WHAT, async move { Ok($f(&mut $role, $column).await?) })
        };
    }
    let outputs = futures::join!(
        task!(r0, p0, c0),
        task!(r1, p1, c1),
        task!(r2, p2, c2),
        task!(r3, p3, c3),
        task!(r4, p4, c4),
        task!(r5, p5, c5),
        task!(r6, p6, c6),
        task!(r7, p7, c7),
    );
    let by_role = vec![
        outputs.0?, outputs.1?, outputs.2?, outputs.3?, outputs.4?, outputs.5?, outputs.6?,
        outputs.7?,
    ];
    problem.check_roles(WHAT, by_role)
}
