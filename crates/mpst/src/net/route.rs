//! [`TcpRoute`]: the route from a role to one peer over a TCP connection, a
//! [`Sink`](futures::Sink) of labels and a [`Stream`](futures::Stream) of `Result`s of labels, with buffered writes and a
//! receive time-out.

use std::fmt;
use std::future::Future as _;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::net::TcpStream;

use mpst_wire::Stream as Connection;
use tokio::time::Sleep;
use tokio_util::codec::Framed;

use super::error::{NetError, NetErrorKind};
use super::frame::RawCodec;
use super::link::{Delivered, Link, Shared, Wire, lock};
use super::tender;

mod io;

/// The default size above which buffered frames are written out without waiting for a
/// flush: 8 KiB.
pub const DEFAULT_FLUSH_THRESHOLD: usize = 8 * 1024;

/// A route to one peer over TCP carrying the label enum `M`.
///
/// * Sending ([`Sink`](futures::Sink)) encodes into a write buffer; the buffer goes out on
///   [`poll_flush`](futures::Sink::poll_flush), before a send that finds it at the flush threshold
///   or beyond (so it holds at most the threshold plus one label), or when this route is
///   polled for a receive. Consecutive sends therefore coalesce into one write.
/// * Receiving ([`Stream`](futures::Stream)) yields `Ok(label)` per frame, then one `Err` on the first
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
///   [`NetErrorKind::SendTimeout`].
/// * The peer acknowledges the labels it read (every [`ACK_INTERVAL`](super::ACK_INTERVAL)
///   that it read some, from the one thread per process that tends connections, so also
///   while its session looks elsewhere). With an idle time-out, while labels sent are
///   unacknowledged and the peer says nothing (no label, no acknowledgement) for longer
///   than it, the next send, flush or receive fails with [`NetErrorKind::Unacknowledged`]
///   (judged by that thread, at most two intervals late, never early): a role that only
///   sends learns that its peer is cut off, however much TCP (or a relay) buffered.
///   [`Sink::poll_close`](futures::Sink::poll_close) waits until every label is
///   acknowledged, bounded the same way ([`TcpRoute::delivered`] waits without closing).
///   A count above the labels sent is a protocol error
///   ([`NetErrorKind::Overacknowledged`]). None of this needs tokio's time driver; the
///   receive and idle time-outs above do.
/// * After the first failure the connection is closed (so the peer learns of it at once)
///   and every later send or receive fails.
pub struct TcpRoute<M> {
    /// The connection, shared with the tender that acknowledges and reads ahead while the
    /// session looks elsewhere.
    link: Shared,
    peer: Arc<str>,
    receive_timeout: Option<Duration>,
    timer: Option<Pin<Box<Sleep>>>,
    idle_timeout: Option<Duration>,
    /// While part of a frame is buffered: how many bytes, and when waiting for more ends.
    idle_timer: Stall,
    /// While a send waits for the peer to take buffered bytes: how many are left, and
    /// when waiting for the peer to take some ends.
    send_timer: Stall,
    /// Where labels are serialised, reused from one send to the next.
    scratch: Vec<u8>,
    max_frame_length: usize,
    _label: PhantomData<fn(M) -> M>,
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
        let link = lock(&self.link);
        f.debug_struct("TcpRoute")
            .field("peer", &self.peer)
            .field("stream", &link.framed.as_ref().map(|f| f.get_ref().tcp()))
            .field("receive_timeout", &self.receive_timeout)
            .field("ledger", &link.ledger)
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
    /// bytes. Both ends must speak this version of the link (the hello of
    /// [`NetConfig`](super::NetConfig) checks it).
    pub fn over(
        connection: Connection,
        peer: impl Into<Arc<str>>,
        max_frame_length: usize,
    ) -> Self {
        let mut framed = Framed::new(connection, RawCodec::new(max_frame_length));
        framed.set_backpressure_boundary(DEFAULT_FLUSH_THRESHOLD);
        let route = Self::with_link(Some(framed), peer, max_frame_length);
        tender::tend(&route.link);
        route
    }

    fn with_link(framed: Option<Wire>, peer: impl Into<Arc<str>>, max: usize) -> Self {
        Self {
            link: Arc::new(Mutex::new(Link::new(framed))),
            peer: peer.into(),
            receive_timeout: None,
            timer: None,
            idle_timeout: None,
            idle_timer: None,
            send_timer: None,
            scratch: Vec::new(),
            max_frame_length: max,
            _label: PhantomData,
        }
    }

    /// A route to `peer` that has already failed: every use reports the peer closed.
    pub(crate) fn closed(peer: impl Into<Arc<str>>) -> Self {
        Self::with_link(None, peer, 0)
    }

    /// Fails a receive that waits longer than `timeout` (`None`: wait forever).
    pub fn with_receive_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.receive_timeout = timeout;
        self
    }

    /// Fails a receive that holds part of a frame and gets no more of it for `timeout`,
    /// and any use of the route while labels sent are unacknowledged with no word from
    /// the peer for `timeout` (`None`: only the receive time-out applies).
    pub fn with_idle_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.idle_timeout = timeout;
        lock(&self.link).idle = timeout;
        self
    }

    /// Writes buffered frames out once they reach `bytes` without waiting for a flush.
    pub fn with_flush_threshold(self, bytes: usize) -> Self {
        if let Some(framed) = &mut lock(&self.link).framed {
            framed.set_backpressure_boundary(bytes);
        }
        self
    }

    /// The peer's role name.
    pub fn peer(&self) -> &str {
        &self.peer
    }

    /// Bytes of encoded labels (and acknowledgements) waiting in the write buffer for
    /// the next flush.
    pub fn unflushed(&self) -> usize {
        lock(&self.link)
            .framed
            .as_ref()
            .map_or(0, |f| f.write_buffer().len())
    }

    /// Labels sent on this route that the peer has not acknowledged yet (written out or
    /// still buffered).
    pub fn unacknowledged(&self) -> u64 {
        lock(&self.link).ledger.unacknowledged()
    }

    /// Whether the route failed or was closed.
    pub fn is_closed(&self) -> bool {
        lock(&self.link).framed.is_none()
    }

    /// The underlying stream (`None` once the route failed), e.g. to write raw bytes in
    /// tests. Frames buffered for writing and bytes read ahead are dropped.
    pub fn into_inner(self) -> Option<Connection> {
        let framed = lock(&self.link).framed.take();
        framed.map(Framed::into_inner)
    }

    /// Closes the connection at once, without flushing: the peer's receives fail, and
    /// every later use of this route fails.
    pub fn close_now(&mut self) {
        lock(&self.link).framed = None;
        self.timer = None;
        self.idle_timer = None;
        self.send_timer = None;
    }

    /// Polls the idle time-out while part of a frame is buffered (restarting it whenever
    /// more bytes arrived); `Ready` when it passed.
    fn poll_idle(&mut self, buffered: usize, cx: &mut Context<'_>) -> Poll<Duration> {
        let Some(idle) = self.idle_timeout else {
            return Poll::Pending;
        };
        poll_stall(&mut self.idle_timer, idle, buffered, cx).map(|()| idle)
    }

    /// Records a failure: the connection is closed so that the peer learns of it.
    fn fail(&mut self, kind: NetErrorKind) -> NetError {
        self.close_now();
        NetError::new(&*self.peer, kind)
    }

    fn closed_error(&self) -> NetError {
        NetError::new(&*self.peer, NetErrorKind::Closed)
    }

    /// Polls until every label sent is acknowledged (written out first), failing when
    /// the peer stays silent for the idle time-out with labels outstanding, closes the
    /// connection with labels outstanding, or the connection fails: what
    /// [`Sink::poll_close`](futures::Sink::poll_close) waits for before it closes. The wait is bounded by the idle
    /// time-out from the peer's last word (with no idle time-out, it is not bounded).
    pub fn poll_acknowledged_all(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), NetError>> {
        let done = lock(&self.link).poll_acknowledged_all(cx);
        match done {
            Poll::Ready(Err(kind)) => Poll::Ready(Err(self.fail(kind))),
            Poll::Ready(Ok(())) => Poll::Ready(Ok(())),
            Poll::Pending => Poll::Pending,
        }
    }

    /// A handle that waits until every label sent on this route is acknowledged
    /// ([`Delivered`]), usable after the route moved into a role.
    pub fn delivered(&self) -> Delivered {
        Delivered::new().with(&self.peer, &self.link)
    }

    /// Adds this route to `delivered`.
    pub(super) fn register(&self, delivered: &Delivered) {
        delivered.add(&self.peer, &self.link);
    }
}

impl<M> Drop for TcpRoute<M> {
    /// Tells the peer, as far as the socket takes it at once, how many labels were read:
    /// a peer waiting to hear that everything it sent arrived need not wait for a
    /// connection that is closing.
    fn drop(&mut self) {
        let mut link = lock(&self.link);
        if let Some(count) = link.ledger.untold() {
            link.acknowledge(count);
            let mut cx = Context::from_waker(Waker::noop());
            let _ = link.poll_write_out(&mut cx);
        }
    }
}

impl<M> crate::channel::Abort for TcpRoute<M> {
    /// Closes the connection at once (see [`TcpRoute::close_now`]): the peer's pending and
    /// later receives fail, and this route refuses all later use.
    fn abort(&mut self) {
        self.close_now();
    }
}
