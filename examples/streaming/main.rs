//! Streaming (PPoPP 2022 Fig. 3 and Section 4.1): two roles, choice and recursion.
//!
//! Protocol (`streaming.scr`): the sink `T` tells the source `S` it is `ready`; `S`
//! answers with a `value` and the protocol repeats, or with `stop` and it ends.
//!
//! Roles: `S` (source, makes the choice), `T` (sink). Both session types are the
//! projections of `streaming.scr` (top-down workflow); `optimised.rs` has the source
//! that unrolls its first 5 values.
//!
//! `cargo run -p mpst-examples --example streaming` streams 10 values and prints them.

mod protocol;

use mpst::{End, Error, Receive, Select, session, try_session};
use protocol::{Ready, S, Stop, T, Value, run, values};

/// The source's projection: `mu x. T?ready. T!{value. x, stop. end}`.
#[session]
type Source = Receive<T, Ready, Select<T, SourceChoice>>;

#[session]
enum SourceChoice {
    Value(Value, Source),
    Stop(Stop, End),
}

/// The source: sends each value when the sink is ready, then `stop`.
async fn source(role: &mut S, values: &[i32]) -> Result<(), Error> {
    try_session(role, |mut s: Source<'_, S>| async move {
        for &value in values {
            let (Ready, t) = s.receive().await?;
            s = t.select(Value(value)).await?;
        }
        let (Ready, t) = s.receive().await?;
        Ok(((), t.select(Stop).await?))
    })
    .await
}

fn main() -> Result<(), Error> {
    let values = values(10);
    let run = run(|mut s| async move { source(&mut s, &values).await });
    let received = futures::executor::block_on(run)?;
    println!("the sink received {received:?}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::run_tasks;

    #[test]
    fn futures_executor() {
        for n in [0, 1, 10, 50] {
            let sent = values(n);
            let input = &sent;
            let run = run(|mut s| async move { source(&mut s, input).await });
            let received = futures::executor::block_on(run).unwrap();
            assert_eq!(received.len(), n);
            assert_eq!(received, sent);
        }
    }

    #[test]
    fn tokio_multi_thread() {
        let sent = values(100);
        let input = sent.clone();
        let received = run_tasks(|mut s| async move { source(&mut s, &input).await }).unwrap();
        assert_eq!(received, sent);
    }
}

/// The workflows of PPoPP 2022 §2 on this example: each hand-written session type is the
/// projection of its role from `streaming.scr` (checked through serialisation, names
/// normalised, payloads compared), and the system of serialised roles is k-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("streaming.scr"); Source<'static, S>, protocol::Sink<'static, T>
    }
}
