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

use mpst_wire::{FrameCodec, FrameError, Stream as Connection};
use tokio::time::Sleep;
use tokio_util::codec::Framed;

use super::error::{NetError, NetErrorKind};

/// The default size above which buffered frames are written out without waiting for a
/// flush: 8 KiB.
pub const DEFAULT_FLUSH_THRESHOLD: usize = 8 * 1024;

/// A route to one peer over TCP carrying the label enum `M`.
///
/// * Sending ([`Sink`]) encodes into a write buffer; the buffer goes out on
///   [`poll_flush`](Sink::poll_flush), before a send that finds it at the flush threshold
///   or beyond (so it holds at most the threshold plus one label), or when this route is
///   polled for a receive. Consecutive sends therefore coalesce into one write.
/// * Receiving ([`Stream`]) yields `Ok(label)` per frame, then one `Err` on the first
///   failure (reset, truncated, malformed or oversized frame, time-out) and ends. The
///   error names the peer. A peer that closes between frames just ends the stream (the
///   runtime reports the peer disconnected).
/// * With a receive time-out, a receive that waits longer than it fails with
///   [`NetErrorKind::ReceiveTimeout`] (needs tokio's time driver).
/// * With an idle time-out, a receive that has part of a frame and waits longer than it
///   for more bytes fails with [`NetErrorKind::IdleTimeout`], whatever the receive
///   time-out: a peer cannot hold a partial frame (up to the frame limit) for long.
/// * With an idle time-out, a send (or flush) that waits for the peer to take buffered
///   bytes and sees none of them go for longer than it fails with
///   [`NetErrorKind::SendTimeout`]: a role that only sends is bounded too once its peer
///   is cut off. (Only once TCP's buffers are full does a write wait: until then a
///   partition swallows what is sent, as the kernel buffers it; a receive of the session
///   is what notices the silence then, by its receive time-out.)
/// * After the first failure the connection is closed (so the peer learns of it at once)
///   and every later send or receive fails.
pub struct TcpRoute<M> {
    /// `None` once the route failed or was aborted: the socket is closed.
    framed: Option<Framed<Connection, FrameCodec<M>>>,
    peer: Arc<str>,
    receive_timeout: Option<Duration>,
    timer: Option<Pin<Box<Sleep>>>,
    idle_timeout: Option<Duration>,
    /// While part of a frame is buffered: how many bytes, and when waiting for more ends.
    idle_timer: Stall,
    /// While a send waits for the peer to take buffered bytes: how many are left, and
    /// when waiting for the peer to take some ends.
    send_timer: Stall,
}

/// A wait for bytes to move (more of a frame to arrive, or buffered bytes to go out):
/// how many there were when it last moved, and when waiting ends. Boxed whole, so a
/// route that never stalls carries a pointer, not a timer.
type Stall = Option<Box<(usize, Pin<Box<Sleep>>)>>;

/// Polls the stall of `bytes` waiting bytes (none: no stall), restarting it at `timeout`
/// from now whenever their number changed; `Ready` once it passed.
fn poll_stall(
    stall: &mut Stall,
    timeout: Duration,
    bytes: usize,
    cx: &mut Context<'_>,
) -> Poll<()> {
    if bytes == 0 {
        *stall = None;
        return Poll::Pending;
    }
    if !matches!(stall.as_deref(), Some((seen, _)) if *seen == bytes) {
        // A time-out beyond the clock's range never fires.
        let Some(deadline) = mpst_wire::deadline_after(timeout) else {
            return Poll::Pending;
        };
        match stall {
            Some(waiting) => {
                waiting.0 = bytes;
                waiting.1.as_mut().reset(deadline);
            }
            None => {
                *stall = Some(Box::new((
                    bytes,
                    Box::pin(tokio::time::sleep_until(deadline)),
                )))
            }
        }
    }
    match stall {
        Some(waiting) => waiting.1.as_mut().poll(cx),
        None => Poll::Pending,
    }
}

impl<M> fmt::Debug for TcpRoute<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TcpRoute")
            .field("peer", &self.peer)
            .field("stream", &self.framed.as_ref().map(|f| f.get_ref().tcp()))
            .field("receive_timeout", &self.receive_timeout)
            .finish()
    }
}

impl<M> TcpRoute<M> {
    /// Wraps a connected stream to the role `peer` (after the handshake), with frames
    /// limited to `max_frame_length` bytes.
    pub fn new(stream: TcpStream, peer: impl Into<Arc<str>>, max_frame_length: usize) -> Self {
        Self::over(Connection::Plain(stream), peer, max_frame_length)
    }

    /// Wraps a connected stream (plain or TLS, e.g. from an `mpst_wire::Connection`) to
    /// the role `peer` (after the handshake), with frames limited to `max_frame_length`
    /// bytes.
    pub fn over(
        connection: Connection,
        peer: impl Into<Arc<str>>,
        max_frame_length: usize,
    ) -> Self {
        let mut framed = Framed::new(connection, FrameCodec::new(max_frame_length));
        framed.set_backpressure_boundary(DEFAULT_FLUSH_THRESHOLD);
        Self {
            framed: Some(framed),
            peer: peer.into(),
            receive_timeout: None,
            timer: None,
            idle_timeout: None,
            idle_timer: None,
            send_timer: None,
        }
    }

    /// A route to `peer` that has already failed: every use reports the peer closed.
    pub(crate) fn closed(peer: impl Into<Arc<str>>) -> Self {
        Self {
            framed: None,
            peer: peer.into(),
            receive_timeout: None,
            timer: None,
            idle_timeout: None,
            idle_timer: None,
            send_timer: None,
        }
    }

    /// Fails a receive that waits longer than `timeout` (`None`: wait forever).
    pub fn with_receive_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.receive_timeout = timeout;
        self
    }

    /// Fails a receive that holds part of a frame and gets no more of it for `timeout`
    /// (`None`: only the receive time-out applies).
    pub fn with_idle_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// Writes buffered frames out once they reach `bytes` without waiting for a flush.
    pub fn with_flush_threshold(mut self, bytes: usize) -> Self {
        if let Some(framed) = &mut self.framed {
            framed.set_backpressure_boundary(bytes);
        }
        self
    }

    /// The peer's role name.
    pub fn peer(&self) -> &str {
        &self.peer
    }

    /// Bytes of encoded labels waiting in the write buffer for the next flush.
    pub fn unflushed(&self) -> usize {
        self.framed.as_ref().map_or(0, |f| f.write_buffer().len())
    }

    /// Whether the route failed or was closed.
    pub fn is_closed(&self) -> bool {
        self.framed.is_none()
    }

    /// The underlying stream (`None` once the route failed), e.g. to write raw bytes in
    /// tests. Frames buffered for writing and bytes read ahead are dropped.
    pub fn into_inner(self) -> Option<Connection> {
        self.framed.map(Framed::into_inner)
    }

    /// Closes the connection at once, without flushing: the peer's receives fail, and
    /// every later use of this route fails.
    pub fn close_now(&mut self) {
        self.framed = None;
        self.timer = None;
        self.idle_timer = None;
        self.send_timer = None;
    }

    /// Polls the idle time-out while part of a frame is buffered (restarting it whenever
    /// more bytes arrived); `Ready` when it passed.
    fn poll_idle(&mut self, cx: &mut Context<'_>) -> Poll<Duration> {
        let (Some(idle), Some(framed)) = (self.idle_timeout, &self.framed) else {
            return Poll::Pending;
        };
        let buffered = framed.read_buffer().len();
        poll_stall(&mut self.idle_timer, idle, buffered, cx).map(|()| idle)
    }

    /// Polls the idle time-out of a send that waits for the peer to take buffered bytes
    /// (restarting it whenever some went); `Ready` when it passed.
    fn poll_send_stall(&mut self, cx: &mut Context<'_>) -> Poll<Duration> {
        let (Some(idle), Some(framed)) = (self.idle_timeout, &self.framed) else {
            return Poll::Pending;
        };
        let left = framed.write_buffer().len();
        poll_stall(&mut self.send_timer, idle, left, cx).map(|()| idle)
    }

    /// Records a failure: the connection is closed so that the peer learns of it.
    fn fail(&mut self, kind: NetErrorKind) -> NetError {
        self.close_now();
        NetError::new(&*self.peer, kind)
    }

    fn closed_error(&self) -> NetError {
        NetError::new(&*self.peer, NetErrorKind::Closed)
    }
}

impl<M> crate::channel::Abort for TcpRoute<M> {
    /// Closes the connection at once (see [`TcpRoute::close_now`]): the peer's pending and
    /// later receives fail, and this route refuses all later use.
    fn abort(&mut self) {
        self.close_now();
    }
}

/// Polls one sink operation of the connection, closing it on failure or when it waits
/// for the peer to take bytes past the idle time-out.
fn sink_op<M: Serialize>(
    route: &mut TcpRoute<M>,
    cx: &mut Context<'_>,
    op: impl FnOnce(
        Pin<&mut Framed<Connection, FrameCodec<M>>>,
        &mut Context<'_>,
    ) -> Poll<Result<(), FrameError>>,
) -> Poll<Result<(), NetError>> {
    let Some(framed) = &mut route.framed else {
        return Poll::Ready(Err(route.closed_error()));
    };
    match op(Pin::new(framed), cx) {
        Poll::Ready(Err(error)) => Poll::Ready(Err(route.fail(error.into()))),
        Poll::Ready(Ok(())) => {
            route.send_timer = None;
            Poll::Ready(Ok(()))
        }
        Poll::Pending => match route.poll_send_stall(cx) {
            Poll::Ready(idle) => Poll::Ready(Err(route.fail(NetErrorKind::SendTimeout(idle)))),
            Poll::Pending => Poll::Pending,
        },
    }
}

impl<M: Serialize> Sink<M> for TcpRoute<M> {
    type Error = NetError;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), NetError>> {
        sink_op(self.get_mut(), cx, |framed, cx| framed.poll_ready(cx))
    }

    fn start_send(self: Pin<&mut Self>, item: M) -> Result<(), NetError> {
        let this = self.get_mut();
        let Some(framed) = &mut this.framed else {
            return Err(this.closed_error());
        };
        // An unencodable label fails this send only; the connection stays usable.
        Pin::new(framed)
            .start_send(item)
            .map_err(|error| NetError::new(&*this.peer, error.into()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), NetError>> {
        sink_op(self.get_mut(), cx, |framed, cx| {
            <Framed<_, _> as Sink<M>>::poll_flush(framed, cx)
        })
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), NetError>> {
        sink_op(self.get_mut(), cx, |framed, cx| {
            <Framed<_, _> as Sink<M>>::poll_close(framed, cx)
        })
    }
}

impl<M: Serialize + DeserializeOwned> Stream for TcpRoute<M> {
    type Item = Result<M, NetError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let Some(framed) = &mut this.framed else {
            return Poll::Ready(None);
        };
        // About to wait on the peer: what we buffered for it must go out first, or both
        // sides could wait for each other.
        if let Poll::Ready(Err(kind)) = <Framed<_, _> as Sink<M>>::poll_flush(Pin::new(framed), cx)
        {
            return Poll::Ready(Some(Err(this.fail(kind.into()))));
        }
        let Some(framed) = &mut this.framed else {
            return Poll::Ready(None);
        };
        match Pin::new(framed).poll_next(cx) {
            Poll::Ready(Some(Ok(message))) => {
                this.timer = None;
                Poll::Ready(Some(Ok(message)))
            }
            Poll::Ready(Some(Err(error))) => Poll::Ready(Some(Err(this.fail(error.into())))),
            // The peer closed between two frames: the stream ends, which the runtime
            // reports as the peer disconnected, as for in-memory channels.
            Poll::Ready(None) => {
                this.close_now();
                Poll::Ready(None)
            }
            Poll::Pending => {
                if let Poll::Ready(idle) = this.poll_idle(cx) {
                    return Poll::Ready(Some(Err(this.fail(NetErrorKind::IdleTimeout(idle)))));
                }
                let Some(timeout) = this.receive_timeout else {
                    return Poll::Pending;
                };
                if this.timer.is_none() {
                    // A time-out beyond the clock's range never fires.
                    let Some(deadline) = mpst_wire::deadline_after(timeout) else {
                        return Poll::Pending;
                    };
                    this.timer = Some(Box::pin(tokio::time::sleep_until(deadline)));
                }
                let Some(timer) = this.timer.as_mut() else {
                    return Poll::Pending;
                };
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        Poll::Ready(Some(Err(this.fail(NetErrorKind::ReceiveTimeout(timeout)))))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}
