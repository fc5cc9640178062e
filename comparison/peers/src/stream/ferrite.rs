//! Stream with ferrite-session 0.3: a binary session where the sink *provides* the
//! recursive protocol and the source is its client. Ferrite needs recursion rather than a
//! loop on the source side (each step includes the next session), and shares the sink's
//! running total through a mutex because a provider's continuation must be `'static`.
//! Ferrite runs on tokio (it spawns a task per step), so it is measured on both runtimes.

use std::sync::{Arc, Mutex};

use ferrite_session::either::*;
use ferrite_session::prelude::*;

use super::{check, value};
use crate::Result;

const WHAT: &str = "stream/ferrite";

struct Ready;
struct Value(i32);

type SinkProtocol = Rec<SendValue<Ready, ExternalChoice<Either<ReceiveValue<Value, Z>, End>>>>;
type SourceProtocol = ReceiveChannel<SinkProtocol, End>;

fn source(i: usize, n: usize) -> Session<SourceProtocol> {
    receive_channel(move |c| {
        unfix_session(
            c,
            receive_value_from(c, move |Ready| {
                if i < n {
                    choose!(
                        c,
                        Left,
                        send_value_to(
                            c,
                            Value(value(i)),
                            include_session(source(i + 1, n), |next| {
                                send_channel_to(next, c, wait(next, terminate()))
                            })
                        )
                    )
                } else {
                    choose!(c, Right, wait(c, terminate()))
                }
            }),
        )
    })
}

fn sink(total: Arc<Mutex<(usize, i64)>>) -> Session<SinkProtocol> {
    fix_session(send_value(
        Ready,
        offer_choice! {
            Left => receive_value(move |Value(v)| {
                if let Ok(mut total) = total.lock() {
                    total.0 += 1;
                    total.1 += i64::from(v);
                }
                sink(total)
            }),
            Right => terminate(),
        },
    ))
}

/// Streams `n` values and checks the sum. Must run inside a tokio runtime.
pub async fn run(n: usize) -> Result {
    let total = Arc::new(Mutex::new((0, 0)));
    run_session(apply_channel(source(0, n), sink(total.clone()))).await;
    let received = *total.lock().map_err(|_| crate::Crashed(WHAT))?;
    check(WHAT, n, received)
}
