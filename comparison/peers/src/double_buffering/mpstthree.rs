//! Double buffering with mpstthree 0.1 (multicrusty): a true multiparty session, one OS
//! thread per role. Multicrusty has no asynchronous subtyping, so the optimised kernel is
//! not expressible: its `stack` of roles must follow the projected order.

// `generate!` emits public items without docs.
#![allow(missing_docs)]

use std::error::Error;
use std::sync::mpsc;

use mpstthree::binary::struct_trait::{end::End, recv::Recv, send::Send};
use mpstthree::generate;
use mpstthree::role::end::RoleEnd;

use super::{check_all, fill};
use crate::{Crashed, Result};

const WHAT: &str = "double_buffering/mpstthree";

generate!("basic", MeshedChannels, S, K, T);

struct Ready;
struct Value(Vec<i32>);

type KernelSource = Send<Ready, Recv<Value, Send<Ready, Recv<Value, End>>>>;
type KernelSink = Recv<Ready, Send<Value, Recv<Ready, Send<Value, End>>>>;
type SourceKernel = Recv<Ready, Send<Value, Recv<Ready, Send<Value, End>>>>;
type SinkKernel = Send<Ready, Recv<Value, Send<Ready, Recv<Value, End>>>>;

type FourWithK = RoleK<RoleK<RoleK<RoleK<RoleEnd>>>>;
type KernelStack = RoleS<RoleS<RoleT<RoleT<RoleS<RoleS<RoleT<RoleT<RoleEnd>>>>>>>>;

type EndpointS = MeshedChannels<SourceKernel, End, FourWithK, NameS>;
type EndpointK = MeshedChannels<KernelSource, KernelSink, KernelStack, NameK>;
type EndpointT = MeshedChannels<End, SinkKernel, FourWithK, NameT>;

fn source(s: EndpointS, n: usize) -> std::result::Result<(), Box<dyn Error>> {
    let (Ready, s) = s.recv();
    let s = s.send(Value(fill(0, n)));
    let (Ready, s) = s.recv();
    let s = s.send(Value(fill(1, n)));
    s.close()
}

fn kernel(s: EndpointK) -> std::result::Result<(), Box<dyn Error>> {
    let s = s.send(Ready);
    let (Value(buffer), s) = s.recv();
    let (Ready, s) = s.recv();
    let s = s.send(Value(buffer));
    let s = s.send(Ready);
    let (Value(buffer), s) = s.recv();
    let (Ready, s) = s.recv();
    let s = s.send(Value(buffer));
    s.close()
}

fn sink(s: EndpointT, out: mpsc::Sender<Vec<Vec<i32>>>) -> std::result::Result<(), Box<dyn Error>> {
    let s = s.send(Ready);
    let (Value(first), s) = s.recv();
    let s = s.send(Ready);
    let (Value(second), s) = s.recv();
    s.close()?;
    out.send(vec![first, second])?;
    Ok(())
}

/// Moves two buffers of `n` elements through the kernel (three OS threads) and checks them
/// at the sink.
pub fn run(n: usize) -> Result {
    let (out, received) = mpsc::channel();
    let (thread_s, thread_k, thread_t) =
        fork_mpst(move |s| source(s, n), kernel, move |t| sink(t, out));
    let crashed = thread_s.join().is_err() | thread_k.join().is_err() | thread_t.join().is_err();
    match received.try_recv() {
        Ok(received) if !crashed => check_all(WHAT, n, &received),
        _ => Err(Box::new(Crashed(WHAT))),
    }
}
