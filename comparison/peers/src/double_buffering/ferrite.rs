//! Double buffering with ferrite-session 0.3: binary sessions only (as in the paper), so
//! the source and the sink each *provide* a session and the kernel is a client of both.
//! The optimised kernel is not expressible (it breaks duality with the source). The sink
//! hands its buffers out through a mutex because a provider's continuation is `'static`.
//! Ferrite runs on tokio, so it is measured on both runtimes.

use std::sync::{Arc, Mutex};

use ferrite_session::prelude::*;

use super::{check_all, fill};
use crate::Result;

const WHAT: &str = "double_buffering/ferrite";

struct Ready;
struct Value(Vec<i32>);

type SourceProtocol =
    ReceiveValue<Ready, SendValue<Value, ReceiveValue<Ready, SendValue<Value, End>>>>;
type SinkProtocol =
    SendValue<Ready, ReceiveValue<Value, SendValue<Ready, ReceiveValue<Value, End>>>>;
type KernelProtocol = ReceiveChannel<SourceProtocol, ReceiveChannel<SinkProtocol, End>>;

fn source(n: usize) -> Session<SourceProtocol> {
    receive_value(move |Ready| {
        send_value(
            Value(fill(0, n)),
            receive_value(move |Ready| send_value(Value(fill(1, n)), terminate())),
        )
    })
}

fn kernel() -> Session<KernelProtocol> {
    receive_channel(|s| {
        receive_channel(move |t| {
            send_value_to(
                s,
                Ready,
                receive_value_from(s, move |Value(first)| {
                    receive_value_from(t, move |Ready| {
                        send_value_to(
                            t,
                            Value(first),
                            send_value_to(
                                s,
                                Ready,
                                receive_value_from(s, move |Value(second)| {
                                    receive_value_from(t, move |Ready| {
                                        send_value_to(
                                            t,
                                            Value(second),
                                            wait(s, wait(t, terminate())),
                                        )
                                    })
                                }),
                            ),
                        )
                    })
                }),
            )
        })
    })
}

fn sink(out: Arc<Mutex<Vec<Vec<i32>>>>) -> Session<SinkProtocol> {
    send_value(
        Ready,
        receive_value(move |Value(first)| {
            send_value(
                Ready,
                receive_value(move |Value(second)| {
                    if let Ok(mut out) = out.lock() {
                        out.push(first);
                        out.push(second);
                    }
                    terminate()
                }),
            )
        }),
    )
}

/// Moves two buffers of `n` elements through the kernel and checks them at the sink. Must
/// run inside a tokio runtime.
pub async fn run(n: usize) -> Result {
    let out = Arc::new(Mutex::new(Vec::new()));
    run_session(apply_channel(
        apply_channel(kernel(), source(n)),
        sink(out.clone()),
    ))
    .await;
    let received = std::mem::take(&mut *out.lock().map_err(|_| crate::Crashed(WHAT))?);
    check_all(WHAT, n, &received)
}
