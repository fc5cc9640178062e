//! The kernel of double buffering (one buffer at a time), shared by the in-memory run
//! (`main.rs`) and the multi-process run (`net.rs`).

use std::convert::Infallible;

use mpst::{Error, Receive, Send, session, try_session};

use crate::protocol::{K, Ready, S, T, Value, kernel_work};

/// The kernel's projection (PPoPP 2022 Fig. 4a):
/// `mu x. S!ready. S?value. T?ready. T!value. x`.
#[session]
pub struct Kernel(Send<S, Ready, Receive<S, Value, Receive<T, Ready, Send<T, Value, Self>>>>);

/// The kernel: one buffer at a time.
pub async fn kernel(mut role: K) -> Result<Infallible, Error> {
    try_session(&mut role, |mut s: Kernel<'_, K>| async move {
        loop {
            let t = s.into_session().send(Ready).await?;
            let (Value(value), t) = t.receive().await?;
            let (Ready, t) = t.receive().await?;
            s = t.send(Value(kernel_work(value))).await?;
        }
    })
    .await
}
