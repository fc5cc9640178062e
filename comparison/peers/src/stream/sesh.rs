//! Stream with sesh 0.1: a binary session over synchronous crossbeam channels; every
//! interaction creates the channel for the next one. Roles are OS threads (sesh is not
//! async), so the tokio runtime plays no part.

use sesh::{End, Recv, Send, Session, cancel, choose, close, recv, send};

use super::{check, value};
use crate::Result;

const WHAT: &str = "stream/sesh";

struct Ready;
struct Value(i32);

type Sink = Send<Ready, Recv<Choice, End>>;
type Source = <Sink as Session>::Dual;

enum Choice {
    Value(Recv<Value, Sink>),
    Stop(End),
}

fn source(s: Source, n: usize) -> Result<(), Box<dyn std::error::Error>> {
    let (Ready, mut s) = recv(s)?;
    for i in 0..n {
        let next = choose!(Choice::Value, s);
        let next = send(Value(value(i)), next);
        let (Ready, next) = recv(next)?;
        s = next;
    }
    let s = choose!(Choice::Stop, s);
    close(s)
}

fn sink(mut s: Sink) -> Result<(usize, i64), Box<dyn std::error::Error>> {
    let (mut count, mut sum) = (0, 0);
    loop {
        let (choice, rest) = recv(send(Ready, s))?;
        cancel(rest);
        match choice {
            Choice::Value(next) => {
                let (Value(v), next) = recv(next)?;
                count += 1;
                sum += i64::from(v);
                s = next;
            }
            Choice::Stop(end) => {
                close(end)?;
                return Ok((count, sum));
            }
        }
    }
}

/// Streams `n` values from a source thread to a sink thread and checks the sum.
pub fn run(n: usize) -> Result {
    let (t, s) = <Sink as Session>::new();
    let received = std::thread::scope(|scope| {
        let source = scope.spawn(move || source(s, n).map_err(|e| e.to_string().into()));
        let received = sink(t).map_err(|e| e.to_string());
        crate::join(WHAT, source)?;
        Ok::<_, crate::BoxError>(received?)
    })?;
    check(WHAT, n, received)
}
