//! The state of one session connection shared by its [`TcpRoute`](super::TcpRoute) and the
//! process's [tender](super::tender), which tends it every [`ACK_INTERVAL`] while the
//! session looks elsewhere: it reads what arrived (labels ahead into a bounded queue, the
//! peer's acknowledgements into the [`Ledger`]), acknowledges what was read, writes out
//! what is buffered, judges the peer's silence, and wakes the route when something went
//! wrong. It polls the socket with the route's own waker, so the route is never left
//! without a wake-up.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use futures::{Sink, Stream};
use mpst_wire::{FrameError, Stream as Connection};
use tokio_util::bytes::BytesMut;
use tokio_util::codec::Framed;

use super::error::NetErrorKind;
use super::frame::{Body, RawCodec, classify, put_ack};
use super::ledger::Ledger;

/// How often the tender tends each connection: what was read is acknowledged within it,
/// and the bound on a peer's silence is judged at this resolution (a failure for
/// silence comes at most two intervals after the idle time-out, never before it).
pub const ACK_INTERVAL: Duration = Duration::from_millis(50);

/// Bytes of labels the tender reads ahead of the session, each counted with
/// [`ENTRY_OVERHEAD`]; beyond them it stops reading (and repeats its acknowledgement, so
/// the peer knows this side is there).
const READ_AHEAD: usize = 1 << 20;

/// What a label read ahead costs besides its bytes (its queue entry and buffer handle),
/// so that a flood of tiny labels is bounded by memory too.
const ENTRY_OVERHEAD: usize = 64;

/// The framed connection.
pub(super) type Wire = Framed<Connection, RawCodec>;

/// One connection's shared state.
#[derive(Debug)]
pub(super) struct Link {
    /// `None` once the route failed or was closed: the socket is closed.
    pub(super) framed: Option<Wire>,
    pub(super) ledger: Ledger,
    /// Label bodies the tender read ahead of the session.
    pub(super) inbox: VecDeque<BytesMut>,
    inbox_bytes: usize,
    /// The tender saw the peer close between two frames.
    pub(super) eof: bool,
    /// What went wrong while the tender tended the connection, for the route's next use.
    pub(super) failure: Option<NetErrorKind>,
    /// The waker of the route's last poll.
    waker: Option<Waker>,
    /// The idle time-out: the longest the peer may stay silent with labels outstanding.
    pub(super) idle: Option<Duration>,
    /// Set by the tender once the peer broke the bound on its silence: how many labels
    /// were outstanding then.
    pub(super) silent: Option<u64>,
    /// Whether bytes were put in the write buffer since a flush last completed (a flush
    /// of a clean connection, the usual one before a receive waits, is skipped).
    pub(super) dirty: bool,
}

/// The shared state of a connection.
pub(super) type Shared = Arc<Mutex<Link>>;

/// Locks a link (a panic elsewhere while it was locked leaves it usable: every field is
/// consistent between two statements that touch it).
pub(super) fn lock(link: &Shared) -> MutexGuard<'_, Link> {
    link.lock().unwrap_or_else(|p| p.into_inner())
}

impl Link {
    /// A link over `framed` (none: closed).
    pub(super) fn new(framed: Option<Wire>) -> Self {
        Link {
            framed,
            ledger: Ledger::new(),
            inbox: VecDeque::new(),
            inbox_bytes: 0,
            eof: false,
            failure: None,
            waker: None,
            idle: None,
            silent: None,
            dirty: false,
        }
    }

    /// Notes the waker of the route's poll, for the tender's polls and wake-ups.
    pub(super) fn note_waker(&mut self, cx: &Context<'_>) {
        if !self.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            self.waker = Some(cx.waker().clone());
        }
    }

    /// The next label read ahead by the tender.
    pub(super) fn pop(&mut self) -> Option<BytesMut> {
        let body = self.inbox.pop_front()?;
        self.inbox_bytes -= body.len() + ENTRY_OVERHEAD;
        Some(body)
    }

    /// Keeps a label read ahead of the session.
    fn push(&mut self, label: BytesMut) {
        self.inbox_bytes += label.len() + ENTRY_OVERHEAD;
        self.inbox.push_back(label);
    }

    /// Takes one frame body read from the peer: a label is returned (and counted), an
    /// acknowledgement goes into the ledger.
    pub(super) fn take(&mut self, body: BytesMut) -> Result<Option<BytesMut>, NetErrorKind> {
        match classify(body).map_err(NetErrorKind::from)? {
            Body::Label(label) => {
                self.ledger.read_one();
                Ok(Some(label))
            }
            Body::Ack(count) => self
                .ledger
                .acknowledged(count)
                .map(|()| None)
                .map_err(|over| NetErrorKind::Overacknowledged {
                    acknowledged: over.acknowledged,
                    sent: over.sent,
                }),
        }
    }

    /// Polls the socket for the next label, taking acknowledgements on the way.
    pub(super) fn poll_label(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<BytesMut, NetErrorKind>>> {
        loop {
            let Some(framed) = &mut self.framed else {
                return Poll::Ready(None);
            };
            match Pin::new(framed).poll_next(cx) {
                Poll::Ready(Some(Ok(body))) => match self.take(body) {
                    Ok(Some(label)) => return Poll::Ready(Some(Ok(label))),
                    Ok(None) => continue,
                    Err(kind) => return Poll::Ready(Some(Err(kind))),
                },
                Poll::Ready(Some(Err(error))) => return Poll::Ready(Some(Err(error.into()))),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    /// Polls writing out the write buffer; once it is empty, every label queued is
    /// written out.
    pub(super) fn poll_write_out(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), FrameError>> {
        let Some(framed) = &mut self.framed else {
            return Poll::Ready(Ok(()));
        };
        if !self.dirty {
            return Poll::Ready(Ok(()));
        }
        let done = <Wire as Sink<&[u8]>>::poll_flush(Pin::new(framed), cx);
        if let Poll::Ready(Ok(())) = done {
            self.ledger.flushed();
            self.dirty = false;
        }
        done
    }

    /// Appends an acknowledgement of `count` labels to the write buffer.
    pub(super) fn acknowledge(&mut self, count: u64) {
        if let Some(framed) = &mut self.framed {
            put_ack(count, framed.write_buffer_mut());
            self.dirty = true;
            self.ledger.told(count);
        }
    }

    /// Reads what arrived (at most [`READ_AHEAD`] bytes of labels ahead of the session):
    /// labels into the queue, acknowledgements into the ledger, a failure or the peer's
    /// close noted for the route's next use; `true` when one of those was noted.
    pub(super) fn read_ahead(&mut self, cx: &mut Context<'_>) -> bool {
        while self.failure.is_none() && !self.eof && self.inbox_bytes < READ_AHEAD {
            match self.poll_label(cx) {
                Poll::Ready(Some(Ok(label))) => self.push(label),
                Poll::Ready(Some(Err(kind))) => self.failure = Some(kind),
                Poll::Ready(None) => self.eof = true,
                Poll::Pending => return false,
            }
        }
        self.failure.is_some() || self.eof
    }

    /// The failure of a peer that broke the bound on its silence, once the tender saw it.
    pub(super) fn silence(&self) -> Option<NetErrorKind> {
        self.silent.map(|labels| NetErrorKind::Unacknowledged {
            labels,
            timeout: self.idle.unwrap_or_default(),
        })
    }

    /// Polls until every label sent is acknowledged (written out first), failing when
    /// the peer stays silent for the idle time-out with labels outstanding (as the
    /// tender judges it), closes the connection with labels outstanding, or the
    /// connection fails (the caller closes it then). Labels that arrive meanwhile are
    /// kept for the session's next receive.
    pub(super) fn poll_acknowledged_all(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), NetErrorKind>> {
        self.note_waker(cx);
        if self.framed.is_none() {
            return Poll::Ready(Err(NetErrorKind::Closed));
        }
        if self.ledger.unacknowledged() == 0 {
            return Poll::Ready(Ok(()));
        }
        if let Some(kind) = self.failure.take() {
            return Poll::Ready(Err(kind));
        }
        while self.ledger.unacknowledged() > 0 {
            if let Poll::Ready(Err(error)) = self.poll_write_out(cx) {
                return Poll::Ready(Err(error.into()));
            }
            match self.poll_label(cx) {
                Poll::Ready(Some(Ok(label))) => self.push(label),
                // The peer's last acknowledgement may come just before its connection
                // ends (a peer done with its session closes, over TLS often without a
                // close_notify): everything acknowledged is success, the end is kept for
                // the route's next use.
                Poll::Ready(Some(Err(kind))) if self.ledger.unacknowledged() == 0 => {
                    self.failure = Some(kind);
                }
                Poll::Ready(None) if self.ledger.unacknowledged() == 0 => self.eof = true,
                Poll::Ready(Some(Err(kind))) => return Poll::Ready(Err(kind)),
                Poll::Ready(None) => {
                    let labels = self.ledger.unacknowledged();
                    return Poll::Ready(Err(NetErrorKind::ClosedUnacknowledged { labels }));
                }
                Poll::Pending => break,
            }
        }
        if self.ledger.unacknowledged() == 0 {
            return Poll::Ready(Ok(()));
        }
        // The tender wakes this wait once the peer broke the bound.
        match self.silence() {
            Some(kind) => Poll::Ready(Err(kind)),
            None => Poll::Pending,
        }
    }

    /// One round of the tender: reads what arrived, acknowledges it, writes out, judges
    /// the peer's silence, and wakes the route if it must look. `false` once the
    /// connection is closed.
    pub(super) fn tend(&mut self) -> bool {
        if self.framed.is_none() {
            return false;
        }
        let waker = self.waker.clone().unwrap_or_else(|| Waker::noop().clone());
        let mut cx = Context::from_waker(&waker);
        let mut wake = self.read_ahead(&mut cx);
        let stalled = self.inbox_bytes >= READ_AHEAD;
        let buffered = self.framed.as_ref().map_or(0, |f| f.write_buffer().len());
        // A repeat (nothing new read) only into an empty buffer: it must not pile up.
        if let Some(count) = self.ledger.ack_due(stalled && buffered == 0) {
            self.acknowledge(count);
        }
        if self.failure.is_none() {
            if let Poll::Ready(Err(error)) = self.poll_write_out(&mut cx) {
                self.failure = Some(error.into());
                wake = true;
            }
        }
        // Dated after reading: what the peer said by now counts.
        let now = Instant::now();
        match self.idle {
            Some(idle) if self.silent.is_none() => {
                self.silent = self.ledger.expired(now, idle);
                wake |= self.silent.is_some();
            }
            _ => self.ledger.stamp(now),
        }
        if wake {
            waker.wake_by_ref();
        }
        true
    }
}

/// Waits until every label sent on some routes is acknowledged by their peers: what a
/// role program awaits after its session, so that it reports success only once what it
/// sent has arrived ([`Connections::delivered`](super::Connections::delivered) for every
/// route of a role, [`TcpRoute::delivered`](super::TcpRoute::delivered) for one).
#[derive(Debug, Clone, Default)]
pub struct Delivered {
    links: Arc<Mutex<Vec<Watched>>>,
}

/// A route [`Delivered`] waits for: its peer and its connection (not kept alive by it).
type Watched = (Arc<str>, Weak<Mutex<Link>>);

impl Delivered {
    /// A handle on no route yet.
    pub(super) fn new() -> Self {
        Self::default()
    }

    /// Adds the route to `peer` over `link`.
    pub(super) fn with(self, peer: &Arc<str>, link: &Shared) -> Self {
        self.add(peer, link);
        self
    }

    /// Adds the route to `peer` over `link`.
    pub(super) fn add(&self, peer: &Arc<str>, link: &Shared) {
        let mut links = self.links.lock().unwrap_or_else(|p| p.into_inner());
        links.push((peer.clone(), Arc::downgrade(link)));
    }

    /// Waits until the peer of every route still open has acknowledged every label sent
    /// to it. Fails naming the first peer that stays silent for the idle time-out with
    /// labels outstanding, closes its connection with labels outstanding, or whose
    /// connection fails (closing that connection). Routes dropped or closed count as
    /// done: their failure was reported where it happened.
    pub async fn acknowledged(&self) -> Result<(), super::NetError> {
        let links: Vec<_> = {
            let links = self.links.lock().unwrap_or_else(|p| p.into_inner());
            links.clone()
        };
        for (peer, link) in links {
            let Some(link) = link.upgrade() else {
                continue;
            };
            if lock(&link).framed.is_none() {
                continue;
            }
            let done = std::future::poll_fn(|cx| lock(&link).poll_acknowledged_all(cx)).await;
            if let Err(kind) = done {
                lock(&link).framed = None;
                return Err(super::NetError::new(&*peer, kind));
            }
        }
        Ok(())
    }
}
