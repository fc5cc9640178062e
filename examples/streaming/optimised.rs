//! Optimised streaming (PPoPP 2022 Section 4.1, Table 1): the streaming protocol of
//! `streaming.scr`, with the source optimised by asynchronous message reordering.
//!
//! The source knows it will send at least 5 values, so it sends the first 5 at once,
//! before waiting for any `ready` from the sink; from then on it waits for a `ready` before
//! each further value and before `stop`, and finally collects the 5 `ready`s it still owes.
//! Its local type is `T!value^5. mu x. T?ready. T!{value. x, stop. T?ready^5. end}`, an
//! asynchronous subtype of the projection `mu x. T?ready. T!{value. x, stop. end}`: each
//! output moved earlier overtakes only inputs. The sink is unchanged (`protocol.rs`).
//!
//! `cargo run -p mpst-examples --example optimised_streaming` streams 10 values and
//! prints them.

mod protocol;

use mpst::{End, Error, Receive, Select, Send, session, try_session};
use protocol::{Ready, S, Stop, T, Value, run, values};

/// The optimised source: the first 5 values are sent before any `ready` is awaited.
#[session]
type OptimisedSource =
    Send<T, Value, Send<T, Value, Send<T, Value, Send<T, Value, Send<T, Value, SourceLoop>>>>>;

/// After the unrolled values: the projection's loop, shifted by 5 `ready`s.
#[session]
type SourceLoop = Receive<T, Ready, Select<T, SourceChoice>>;

#[session]
enum SourceChoice {
    Value(Value, SourceLoop),
    Stop(Stop, Drain),
}

/// After `stop`: the 5 `ready`s the sink sent for the unrolled values.
#[session]
type Drain = Receive<
    T,
    Ready,
    Receive<T, Ready, Receive<T, Ready, Receive<T, Ready, Receive<T, Ready, End>>>>,
>;

/// The optimised source: sends `first` without waiting, then each of `rest` when the sink
/// is ready, then `stop`, then receives the 5 `ready`s sent for the unrolled values.
/// (Taking the first 5 values as an array makes "at least 5 values" a type.)
async fn source(role: &mut S, first: [i32; 5], rest: &[i32]) -> Result<(), Error> {
    try_session(role, |s: OptimisedSource<'_, S>| async move {
        let [v0, v1, v2, v3, v4] = first;
        let s = s.send(Value(v0)).await?.send(Value(v1)).await?;
        let s = s.send(Value(v2)).await?.send(Value(v3)).await?;
        let mut s = s.send(Value(v4)).await?;
        for &value in rest {
            let (Ready, t) = s.receive().await?;
            s = t.select(Value(value)).await?;
        }
        let (Ready, t) = s.receive().await?;
        let s = t.select(Stop).await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, end) = s.receive().await?;
        Ok(((), end))
    })
    .await
}

/// Splits `values` (at least 5) into the unrolled head and the rest.
fn split(values: &[i32]) -> Option<([i32; 5], &[i32])> {
    let (first, rest) = values.split_first_chunk::<5>()?;
    Some((*first, rest))
}

fn main() -> Result<(), Error> {
    let values = values(10);
    let (first, rest) = split(&values).expect("10 values are at least 5");
    let run = run(|mut s| async move { source(&mut s, first, rest).await });
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
        for n in [5, 6, 10, 50] {
            let sent = values(n);
            let (first, rest) = split(&sent).unwrap();
            let run = run(|mut s| async move { source(&mut s, first, rest).await });
            let received = futures::executor::block_on(run).unwrap();
            assert_eq!(received.len(), n);
            assert_eq!(received, sent);
        }
    }

    #[test]
    fn fewer_than_five_values_cannot_be_unrolled() {
        assert!(split(&values(4)).is_none());
    }

    #[test]
    fn tokio_multi_thread() {
        let sent = values(100);
        let (first, rest) = split(&sent).unwrap();
        let rest = rest.to_vec();
        let received = run_tasks(|mut s| async move { source(&mut s, first, &rest).await });
        let received = received.unwrap();
        assert_eq!(received, sent);
    }
}

/// The workflows of PPoPP 2022 §2 on this example: the optimised (unrolled) source is an
/// asynchronous subtype of its projection from `streaming.scr` (hybrid: serialised session
/// type against the projection), every other role is its projection, and the whole
/// optimised system is k-MC (bottom-up). The DOT files beside this one record the optimised
/// roles for `mpst subtype`, `mpst kmc`, `mpst generate --optimised` and the expressiveness
/// table.
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::optimised_workflows! {
        include_str!("streaming.scr"), k = 3;
        OptimisedSource<'static, S> => include_str!("s_optimised.dot");
        protocol::Sink<'static, T>
    }
}
