//! Stream with mpstthree 0.1 (multicrusty): synchronous multiparty sessions, one OS thread
//! per role (its `fork_mpst` spawns them), binary sesh-style channels underneath. The tokio
//! runtime plays no part.

// `generate!` emits public items without docs.
#![allow(missing_docs)]

use std::error::Error;
use std::sync::mpsc;

use mpstthree::binary::struct_trait::{end::End, recv::Recv, send::Send, session::Session};
use mpstthree::generate;
use mpstthree::role::broadcast::RoleBroadcast;
use mpstthree::role::end::RoleEnd;

use super::{check, value};
use crate::{Crashed, Result};

const WHAT: &str = "stream/mpstthree";

generate!("recursive", MeshedChannels, S, T);

struct Ready;
struct Value(i32);

/// The sink's view of the source's choice.
enum Branching {
    Value(MeshedChannels<Recv<Value, SinkLoop>, RoleS<RoleS<RoleS<RoleEnd>>>, NameT>),
    Stop(MeshedChannels<End, RoleEnd, NameT>),
}

type SinkLoop = Send<Ready, Recv<Branching, End>>;
type Choose = <Recv<Branching, End> as Session>::Dual;

type EndpointS = MeshedChannels<Recv<Ready, Choose>, RoleT<RoleBroadcast>, NameS>;
type EndpointSValue =
    MeshedChannels<Send<Value, Recv<Ready, Choose>>, RoleT<RoleT<RoleBroadcast>>, NameS>;
type EndpointT = MeshedChannels<SinkLoop, RoleS<RoleS<RoleEnd>>, NameT>;

fn source(s: EndpointS, n: usize) -> std::result::Result<(), Box<dyn Error>> {
    let (Ready, mut s) = s.recv();
    for i in 0..n {
        let next: EndpointSValue = choose_mpst_s_to_all!(s, Branching::Value);
        let next = next.send(Value(value(i)));
        let (Ready, next) = next.recv();
        s = next;
    }
    let s = choose_mpst_s_to_all!(s, Branching::Stop);
    s.close()
}

fn sink(
    mut s: EndpointT,
    out: mpsc::Sender<(usize, i64)>,
) -> std::result::Result<(), Box<dyn Error>> {
    let (mut count, mut sum) = (0, 0);
    loop {
        let offer = s.send(Ready);
        let (choice, rest) = offer.recv();
        drop(rest);
        match choice {
            Branching::Value(next) => {
                let (Value(v), next) = next.recv();
                count += 1;
                sum += i64::from(v);
                s = next;
            }
            Branching::Stop(end) => {
                end.close()?;
                out.send((count, sum))?;
                return Ok(());
            }
        }
    }
}

/// Streams `n` values (two OS threads) and checks the sum.
pub fn run(n: usize) -> Result {
    let (out, received) = mpsc::channel();
    let (thread_s, thread_t) = fork_mpst(move |s| source(s, n), move |t| sink(t, out));
    let crashed = thread_s.join().is_err() | thread_t.join().is_err();
    match received.try_recv() {
        Ok(received) if !crashed => check(WHAT, n, received),
        _ => Err(Box::new(Crashed(WHAT))),
    }
}
