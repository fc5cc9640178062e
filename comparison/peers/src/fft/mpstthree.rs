//! FFT with mpstthree 0.1 (multicrusty): one eight-party session, eight OS threads (its
//! `fork_mpst`). Each role's `MeshedChannels` holds a binary session with each of the seven
//! others (`End` for non-partners) and a stack fixing the order of its six interactions.
//! Only the projected order is expressible (no asynchronous subtyping). Roles `A`..`H` are
//! roles 0..7. The tokio runtime plays no part.

// `generate!` emits public items without docs, and an eight-argument `fork_mpst`.
#![allow(missing_docs, clippy::too_many_arguments)]

use std::error::Error;
use std::sync::mpsc;

use mpstthree::binary::struct_trait::{end::End, recv::Recv, send::Send};
use mpstthree::generate;
use mpstthree::role::end::RoleEnd;

use super::{Complex32, Problem, ROLES, butterfly};
use crate::{Crashed, Result};

const WHAT: &str = "fft/mpstthree";

generate!("basic", MeshedChannels, A, B, C, D, E, F, G, H);

type Column = Vec<Complex32>;
/// The lower role of a pair: send, then receive.
type Lo = Send<Column, Recv<Column, End>>;
/// The upper role of a pair: receive, then send.
type Hi = Recv<Column, Send<Column, End>>;

type EndpointA = MeshedChannels<
    Lo,
    Lo,
    End,
    Lo,
    End,
    End,
    End,
    RoleE<RoleE<RoleC<RoleC<RoleB<RoleB<RoleEnd>>>>>>,
    NameA,
>;
type EndpointB = MeshedChannels<
    Hi,
    End,
    Lo,
    End,
    Lo,
    End,
    End,
    RoleF<RoleF<RoleD<RoleD<RoleA<RoleA<RoleEnd>>>>>>,
    NameB,
>;
type EndpointC = MeshedChannels<
    Hi,
    End,
    Lo,
    End,
    End,
    Lo,
    End,
    RoleG<RoleG<RoleA<RoleA<RoleD<RoleD<RoleEnd>>>>>>,
    NameC,
>;
type EndpointD = MeshedChannels<
    End,
    Hi,
    Hi,
    End,
    End,
    End,
    Lo,
    RoleH<RoleH<RoleB<RoleB<RoleC<RoleC<RoleEnd>>>>>>,
    NameD,
>;
type EndpointE = MeshedChannels<
    Hi,
    End,
    End,
    End,
    Lo,
    Lo,
    End,
    RoleA<RoleA<RoleG<RoleG<RoleF<RoleF<RoleEnd>>>>>>,
    NameE,
>;
type EndpointF = MeshedChannels<
    End,
    Hi,
    End,
    End,
    Hi,
    End,
    Lo,
    RoleB<RoleB<RoleH<RoleH<RoleE<RoleE<RoleEnd>>>>>>,
    NameF,
>;
type EndpointG = MeshedChannels<
    End,
    End,
    Hi,
    End,
    Hi,
    End,
    Lo,
    RoleC<RoleC<RoleE<RoleE<RoleH<RoleH<RoleEnd>>>>>>,
    NameG,
>;
type EndpointH = MeshedChannels<
    End,
    End,
    End,
    Hi,
    End,
    Hi,
    Hi,
    RoleD<RoleD<RoleF<RoleF<RoleG<RoleG<RoleEnd>>>>>>,
    NameH,
>;

macro_rules! exchange {
    (lo, $s:ident, $column:ident) => {{
        let s = $s.send($column.clone());
        let (other, s) = s.recv();
        (other, s)
    }};
    (hi, $s:ident, $column:ident) => {{
        let (other, s) = $s.recv();
        let s = s.send($column.clone());
        (other, s)
    }};
}

macro_rules! butterflies {
    ($name:ident, $endpoint:ident, $i:literal, $m4:ident, $m2:ident, $m1:ident) => {
        fn $name(
            s: $endpoint,
            mut column: Column,
            out: mpsc::Sender<(usize, Column)>,
        ) -> std::result::Result<(), Box<dyn Error>> {
            let (other, s) = exchange!($m4, s, column);
            butterfly($i, 4, &mut column, &other);
            let (other, s) = exchange!($m2, s, column);
            butterfly($i, 2, &mut column, &other);
            let (other, s) = exchange!($m1, s, column);
            butterfly($i, 1, &mut column, &other);
            s.close()?;
            out.send(($i, column))?;
            Ok(())
        }
    };
}

butterflies!(role_a, EndpointA, 0, lo, lo, lo);
butterflies!(role_b, EndpointB, 1, lo, lo, hi);
butterflies!(role_c, EndpointC, 2, lo, hi, lo);
butterflies!(role_d, EndpointD, 3, lo, hi, hi);
butterflies!(role_e, EndpointE, 4, hi, lo, lo);
butterflies!(role_f, EndpointF, 5, hi, lo, hi);
butterflies!(role_g, EndpointG, 6, hi, hi, lo);
butterflies!(role_h, EndpointH, 7, hi, hi, hi);

/// Transforms every row with eight threads and checks the result.
pub fn run(problem: &Problem) -> Result {
    let (out, received) = mpsc::channel();
    let c = |i: usize| (problem.columns[i].clone(), out.clone());
    let ((c0, o0), (c1, o1), (c2, o2), (c3, o3)) = (c(0), c(1), c(2), c(3));
    let ((c4, o4), (c5, o5), (c6, o6), (c7, o7)) = (c(4), c(5), c(6), c(7));
    drop(out);
    let threads = fork_mpst(
        move |s| role_a(s, c0, o0),
        move |s| role_b(s, c1, o1),
        move |s| role_c(s, c2, o2),
        move |s| role_d(s, c3, o3),
        move |s| role_e(s, c4, o4),
        move |s| role_f(s, c5, o5),
        move |s| role_g(s, c6, o6),
        move |s| role_h(s, c7, o7),
    );
    let crashed = [
        threads.0.join().is_err(),
        threads.1.join().is_err(),
        threads.2.join().is_err(),
        threads.3.join().is_err(),
        threads.4.join().is_err(),
        threads.5.join().is_err(),
        threads.6.join().is_err(),
        threads.7.join().is_err(),
    ];
    let mut by_role = vec![None; ROLES];
    for (i, column) in received.try_iter() {
        by_role[i] = Some(column);
    }
    match by_role.into_iter().collect::<Option<Vec<_>>>() {
        Some(by_role) if !crashed.contains(&true) => problem.check_roles(WHAT, by_role),
        _ => Err(Box::new(Crashed(WHAT))),
    }
}
