//! Double buffering with sesh 0.1: sesh only has *binary* sessions, so the kernel holds two
//! of them, one with the source and one with the sink (as in the paper). That drops the
//! multiparty deadlock-freedom guarantee, and the optimised kernel is not expressible: its
//! session with the source (`!ready.!ready.?value.?value`) is not the dual of the
//! source's. Three OS threads; the tokio runtime plays no part.

use sesh::{End, Recv, Send, Session, close, recv, send};

use super::{check_all, fill};
use crate::Result;

const WHAT: &str = "double_buffering/sesh";

struct Ready;
struct Value(Vec<i32>);

type KernelSource = Send<Ready, Recv<Value, Send<Ready, Recv<Value, End>>>>;
type KernelSink = Recv<Ready, Send<Value, Recv<Ready, Send<Value, End>>>>;

type Failure = Box<dyn std::error::Error>;

fn source(s: <KernelSource as Session>::Dual, n: usize) -> Result<(), Failure> {
    let (Ready, s) = recv(s)?;
    let s = send(Value(fill(0, n)), s);
    let (Ready, s) = recv(s)?;
    let s = send(Value(fill(1, n)), s);
    close(s)
}

fn kernel(s: KernelSource, t: KernelSink) -> Result<(), Failure> {
    let s = send(Ready, s);
    let (Value(buffer), s) = recv(s)?;
    let (Ready, t) = recv(t)?;
    let t = send(Value(buffer), t);
    let s = send(Ready, s);
    let (Value(buffer), s) = recv(s)?;
    let (Ready, t) = recv(t)?;
    let t = send(Value(buffer), t);
    close(s)?;
    close(t)
}

fn sink(t: <KernelSink as Session>::Dual) -> Result<Vec<Vec<i32>>, Failure> {
    let t = send(Ready, t);
    let (Value(first), t) = recv(t)?;
    let t = send(Ready, t);
    let (Value(second), t) = recv(t)?;
    close(t)?;
    Ok(vec![first, second])
}

/// Moves two buffers of `n` elements through the kernel and checks them at the sink.
pub fn run(n: usize) -> Result {
    let (k_s, s_k) = <KernelSource as Session>::new();
    let (k_t, t_k) = <KernelSink as Session>::new();
    let received = std::thread::scope(|scope| {
        let source = scope.spawn(move || source(s_k, n).map_err(|e| e.to_string().into()));
        let kernel = scope.spawn(move || kernel(k_s, k_t).map_err(|e| e.to_string().into()));
        let received = sink(t_k).map_err(|e| e.to_string());
        crate::join(WHAT, source)?;
        crate::join(WHAT, kernel)?;
        Ok::<_, crate::BoxError>(received?)
    })?;
    check_all(WHAT, n, &received)
}
