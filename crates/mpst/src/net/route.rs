//! [`TcpRoute`]: the route from a role to one peer over a TCP connection, a
//! [`Sink`] of labels and a [`Stream`] of `Result`s of labels, with buffered writes and a
//! receive time-out.

use std::fmt;
use std::future::Future as _;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::{Sink, Stream};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};
use tokio_util::codec::Framed;

use super::codec::FrameCodec;
use super::error::{NetError, NetErrorKind};

/// The default size above which buffered frames are written out without waiting for a
/// flush: 8 KiB.
pub const DEFAULT_FLUSH_THRESHOLD: usize = 8 * 1024;

/// A route to one peer over TCP carrying the label enum `M`.
///
/// * Sending ([`Sink`]) encodes into a write buffer; the buffer goes out on
///   [`poll_flush`](Sink::poll_flush), when it grows past the flush threshold, or when
///   this route is polled for a receive and would wait. Consecutive sends therefore
///   coalesce into one write.
/// * Receiving ([`Stream`]) yields `Ok(label)` per frame, then one `Err` on the first
///   failure (closed, reset, malformed or oversized frame, time-out) and ends. The error
///   names the peer.
/// * With a receive time-out, a receive that waits longer than it fails with
///   [`NetErrorKind::ReceiveTimeout`] (needs tokio's time driver).
pub struct TcpRoute<M> {
    framed: Framed<TcpStream, FrameCodec<M>>,
    peer: Arc<str>,
    receive_timeout: Option<Duration>,
    timer: Option<Pin<Box<Sleep>>>,
    failed: bool,
}

impl<M> fmt::Debug for TcpRoute<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TcpRoute")
            .field("peer", &self.peer)
            .field("stream", self.framed.get_ref())
            .field("receive_timeout", &self.receive_timeout)
            .field("failed", &self.failed)
            .finish()
    }
}

impl<M> TcpRoute<M> {
    /// Wraps a connected stream to the role `peer` (after the handshake), with frames
    /// limited to `max_frame_length` bytes.
    pub fn new(stream: TcpStream, peer: impl Into<Arc<str>>, max_frame_length: usize) -> Self {
        let mut framed = Framed::new(stream, FrameCodec::new(max_frame_length));
        framed.set_backpressure_boundary(DEFAULT_FLUSH_THRESHOLD);
        Self {
            framed,
            peer: peer.into(),
            receive_timeout: None,
            timer: None,
            failed: false,
        }
    }

    /// Fails a receive that waits longer than `timeout` (`None`: wait forever).
    pub fn with_receive_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.receive_timeout = timeout;
        self
    }

    /// Writes buffered frames out once they reach `bytes` without waiting for a flush.
    pub fn with_flush_threshold(mut self, bytes: usize) -> Self {
        self.framed.set_backpressure_boundary(bytes);
        self
    }

    /// The peer's role name.
    pub fn peer(&self) -> &str {
        &self.peer
    }

    /// The underlying connection.
    pub fn get_ref(&self) -> &TcpStream {
        self.framed.get_ref()
    }

    /// The underlying connection, e.g. to write raw bytes in tests. Frames buffered for
    /// writing and bytes read ahead are dropped.
    pub fn into_inner(self) -> TcpStream {
        self.framed.into_inner()
    }

    fn error(&mut self, kind: NetErrorKind) -> NetError {
        self.failed = true;
        self.timer = None;
        NetError::new(&*self.peer, kind)
    }
}

impl<M: Serialize> Sink<M> for TcpRoute<M> {
    type Error = NetError;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), NetError>> {
        if self.failed {
            return Poll::Ready(Err(NetError::new(&*self.peer, NetErrorKind::Closed)));
        }
        match Pin::new(&mut self.framed).poll_ready(cx) {
            Poll::Ready(Err(kind)) => Poll::Ready(Err(self.error(kind))),
            other => other.map(|_| Ok(())),
        }
    }

    fn start_send(mut self: Pin<&mut Self>, item: M) -> Result<(), NetError> {
        // An unencodable label fails this send only; the connection stays usable.
        Pin::new(&mut self.framed)
            .start_send(item)
            .map_err(|kind| NetError::new(&*self.peer, kind))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), NetError>> {
        match <Framed<_, _> as Sink<M>>::poll_flush(Pin::new(&mut self.framed), cx) {
            Poll::Ready(Err(kind)) => Poll::Ready(Err(self.error(kind))),
            other => other.map(|_| Ok(())),
        }
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), NetError>> {
        match <Framed<_, _> as Sink<M>>::poll_close(Pin::new(&mut self.framed), cx) {
            Poll::Ready(Err(kind)) => Poll::Ready(Err(self.error(kind))),
            other => other.map(|_| Ok(())),
        }
    }
}

impl<M: Serialize + DeserializeOwned> Stream for TcpRoute<M> {
    type Item = Result<M, NetError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.failed {
            return Poll::Ready(None);
        }
        // About to wait on the peer: what we buffered for it must go out first, or both
        // sides could wait for each other.
        if let Poll::Ready(Err(kind)) =
            <Framed<_, _> as Sink<M>>::poll_flush(Pin::new(&mut self.framed), cx)
        {
            return Poll::Ready(Some(Err(self.error(kind))));
        }
        match Pin::new(&mut self.framed).poll_next(cx) {
            Poll::Ready(Some(Ok(message))) => {
                self.timer = None;
                Poll::Ready(Some(Ok(message)))
            }
            Poll::Ready(Some(Err(kind))) => Poll::Ready(Some(Err(self.error(kind)))),
            Poll::Ready(None) => Poll::Ready(Some(Err(self.error(NetErrorKind::Closed)))),
            Poll::Pending => {
                let Some(timeout) = self.receive_timeout else {
                    return Poll::Pending;
                };
                let timer = self.timer.get_or_insert_with(|| {
                    Box::pin(tokio::time::sleep_until(Instant::now() + timeout))
                });
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        Poll::Ready(Some(Err(self.error(NetErrorKind::ReceiveTimeout(timeout)))))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}
