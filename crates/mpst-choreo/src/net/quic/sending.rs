//! Sending over QUIC: each message's stream is opened, written and finished inline by
//! `send`, in the sender's task; only what is left (the peer's acknowledgement, or stream
//! credit when none is free, or a test's hold) goes to one long-lived in-flight task.

use std::io::ErrorKind;
use std::task::{Context, Waker};

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::{QuicTransport, Wire, encode, io_error, lock, lost};
use crate::transport::{Envelope, TransportError};

/// What is left of a message's send after its inline part: its stream's acknowledgement
/// (or stream credit, or a test's hold first).
type InFlight = BoxFuture<'static, ()>;

/// The sends in flight: one long-lived task polls what is left of every message's send
/// (no task per message); closing the queue lets it finish them and end.
pub(super) struct Sending {
    pub(super) queue: Option<mpsc::UnboundedSender<InFlight>>,
    pub(super) task: Option<JoinHandle<()>>,
}

impl Sending {
    pub(super) fn start() -> Self {
        let (queue, queued) = mpsc::unbounded_channel();
        Sending {
            queue: Some(queue),
            task: Some(tokio::spawn(in_flight(queued))),
        }
    }
}

/// Polls every send handed over until the queue is closed and all are done.
async fn in_flight(mut queued: mpsc::UnboundedReceiver<InFlight>) {
    let mut flying = FuturesUnordered::new();
    loop {
        tokio::select! {
            next = queued.recv() => match next {
                Some(send) => flying.push(send),
                None => break,
            },
            Some(()) = flying.next(), if !flying.is_empty() => {}
        }
    }
    while flying.next().await.is_some() {}
}

impl QuicTransport {
    /// The test hook's hold on `envelope` (never one without the `testing` feature).
    fn held(&self, envelope: &Envelope) -> Option<BoxFuture<'static, ()>> {
        #[cfg(feature = "testing")]
        {
            self.hold.as_ref().and_then(|hold| hold(envelope))
        }
        #[cfg(not(feature = "testing"))]
        {
            let _ = envelope;
            None
        }
    }

    /// Sends `envelope` inline: opens its stream, writes it and finishes it here (quinn
    /// buffers the bytes and wakes the connection's driver), with no task spawned; only
    /// what is left (the peer's acknowledgement, or stream credit when none is free) is
    /// handed to the transport's in-flight task, which polls it with its real waker.
    pub(super) fn send_inline(&self, envelope: Envelope) -> Result<(), TransportError> {
        let peer = envelope.to.clone();
        let connections = self.connections.lock().unwrap_or_else(|p| p.into_inner());
        let connection = connections.get(&peer).cloned().ok_or_else(|| {
            io_error(&peer, ErrorKind::NotConnected, "no connection to this role")
        })?;
        drop(connections);
        // A connection lost earlier (its peer silent beyond the idle time-out, or gone)
        // fails the send, so a role that only sends learns of it too.
        if let Some(reason) = connection.close_reason() {
            return Err(lost(&peer, &format!("the connection was lost: {reason}")));
        }
        let hold = self.held(&envelope);
        let frame = encode(&peer, &Wire::Message(envelope), self.max_frame_length)?;
        let delivery = self.delivery.clone();
        let to = peer.clone();
        let mut send: InFlight = Box::pin(async move {
            let sent = async {
                let mut stream = connection.open_uni().await.map_err(|e| lost(&peer, &e))?;
                let half = if hold.is_some() { frame.len() / 2 } else { 0 };
                stream
                    .write_all(&frame[..half])
                    .await
                    .map_err(|e| lost(&peer, &e))?;
                if let Some(hold) = hold {
                    hold.await;
                }
                stream
                    .write_all(&frame[half..])
                    .await
                    .map_err(|e| lost(&peer, &e))?;
                stream.finish().map_err(|e| lost(&peer, &e))?;
                match stream.stopped().await {
                    Ok(None) => Ok(()),
                    Ok(Some(code)) => Err(lost(&peer, &format!("the peer refused it ({code})"))),
                    Err(e) => Err(lost(&peer, &e)),
                }
            };
            if let Err(e) = sent.await {
                delivery.fail(e);
            }
        });
        // The inline part; the no-op waker is replaced by the in-flight task's next poll.
        if send
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
            .is_ready()
        {
            return Ok(());
        }
        let sending = lock(&self.sending);
        match &sending.queue {
            Some(queue) if queue.send(send).is_ok() => Ok(()),
            _ => Err(io_error(
                &to,
                ErrorKind::NotConnected,
                "the transport is closed",
            )),
        }
    }
}
