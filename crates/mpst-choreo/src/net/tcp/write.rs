//! The dialling side of one TCP lane: writes its queue of frames in order and holds the
//! peer to a liveness bound — while messages sent on the lane are unacknowledged, the
//! peer must say something ([`Frame::Ack`], on the lane's other direction) at least every
//! `timeout`, or the lane fails naming the peer. TCP alone cannot tell: in a partition the
//! kernel keeps buffering (megabytes) before a write blocks, and a proxy on the way
//! acknowledges bytes the peer never gets. On a plaintext lane, sends write their frames
//! themselves while the writer has nothing in hand ([`super::inline`]); the writer counts
//! those too.

use std::io::ErrorKind;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use mpst_wire::FrameCodec;
use tokio::io::{AsyncRead, AsyncWriteExt, BufWriter, WriteHalf};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tokio_util::codec::FramedRead;

use super::accept::Frame;
use super::inline::Direct;
use crate::net::{Delivery, decode_error};
use crate::role::RoleName;
use crate::transport::{TransportCause, TransportError};

/// The largest frame a dialler reads back (an acknowledgement takes a few bytes).
const MAX_ACK_FRAME: usize = 64;

/// One outgoing lane's queue: frames, each maybe held back first.
pub(super) type Queued = (Option<BoxFuture<'static, ()>>, Vec<u8>);

/// Why a lane failed, kept for the sends that find it closed.
pub(super) type Failed = Arc<Mutex<Option<String>>>;

/// What the dialler has heard from the peer on one lane.
#[derive(Clone, Debug)]
struct Heard {
    /// Messages the peer says it read.
    read: u64,
    /// When the peer last said anything.
    at: Instant,
    /// Why the peer's direction ended, if it did.
    ended: Option<String>,
}

/// Reads the peer's acknowledgements on one lane into `heard` until the lane ends.
async fn hear<R: AsyncRead + Unpin>(
    mut acks: FramedRead<R, FrameCodec<Frame>>,
    run: u64,
    heard: watch::Sender<Heard>,
) {
    let ended = loop {
        match acks.next().await {
            Some(Ok(Frame::Ack { run: r, read })) if r == run => heard.send_modify(|h| {
                h.read = h.read.max(read);
                h.at = Instant::now();
            }),
            Some(Ok(_)) => break "a frame other than an acknowledgement of this lane".into(),
            Some(Err(e)) => break format!("the lane failed: {e}"),
            None => break "the peer closed the lane".to_string(),
        }
    };
    heard.send_modify(|h| h.ended = Some(ended));
}

/// The liveness bound of one lane: messages written, and since when the oldest of those
/// unacknowledged has waited without a word from the peer.
struct Watch {
    heard: watch::Receiver<Heard>,
    written: u64,
    since: Instant,
    timeout: Duration,
    peer: RoleName,
    /// Where sends write frames themselves (plaintext lanes).
    direct: Option<Arc<Direct>>,
}

impl Watch {
    /// One more message written.
    fn wrote(&mut self) {
        if self.heard.borrow().read >= self.written {
            // Nothing was outstanding: the wait starts now.
            self.since = Instant::now();
        }
        self.written += 1;
    }

    /// Completes with the lane's failure once the peer breaks the bound: messages
    /// unacknowledged and not a word from the peer for `timeout`, the peer's direction
    /// ended with messages unacknowledged, or an acknowledgement of more than was sent.
    async fn broken(&mut self) -> TransportError {
        loop {
            let deadline = match self.check() {
                Err(broken) => return broken,
                Ok(deadline) => deadline,
            };
            let heard = &mut self.heard;
            let changed = async {
                if heard.changed().await.is_err() {
                    // The reader is gone and said why: only the deadline is left.
                    std::future::pending::<()>().await;
                }
            };
            match deadline {
                None => changed.await,
                Some(deadline) => tokio::select! {
                    () = changed => {}
                    () = tokio::time::sleep_until(deadline) => {}
                },
            }
        }
    }

    /// The bound as things stand, without waiting: broken, or when it breaks unless the
    /// peer speaks first (`None`: nothing outstanding).
    fn check(&mut self) -> Result<Option<Instant>, TransportError> {
        // What the peer said first, then the frames sends wrote themselves: every
        // acknowledgement heard is then of messages counted.
        let heard = self.heard.borrow_and_update().clone();
        if let Some(direct) = &self.direct {
            let before = self.written;
            let (n, first) = direct.absorb(|n| before + n > heard.read);
            if n > 0 {
                if heard.read >= before {
                    self.since = first.unwrap_or_else(Instant::now);
                }
                self.written += n;
            }
        }
        let written = self.written;
        let lost =
            |text: String| TransportError::new(self.peer.clone(), TransportCause::Lost(text));
        if heard.read > written {
            let text = format!("acknowledged {} messages of the {written} sent", heard.read);
            return Err(decode_error(&self.peer, text));
        }
        let outstanding = written - heard.read;
        match (outstanding, heard.ended) {
            (0, _) => Ok(None),
            (_, Some(why)) => Err(lost(format!(
                "{why} with {outstanding} messages unacknowledged"
            ))),
            (_, None) => match heard.at.max(self.since).checked_add(self.timeout) {
                Some(deadline) if deadline <= Instant::now() => Err(lost(format!(
                    "nothing acknowledged for {:?} ({outstanding} messages outstanding)",
                    self.timeout
                ))),
                deadline => Ok(deadline),
            },
        }
    }

    /// Runs `io` unless the bound breaks first.
    async fn bound(
        &mut self,
        io: impl Future<Output = std::io::Result<()>>,
    ) -> Result<(), TransportError> {
        // The operation first: when it is done at once (most writes, into the buffer),
        // no timer is armed.
        tokio::select! {
            biased;
            done = io => done.map_err(|e| {
                let text = format!("write failed: {e}");
                TransportError::new(self.peer.clone(), TransportCause::Lost(text))
            }),
            broken = self.broken() => Err(broken),
        }
    }
}

/// One lane's writer: its stream, queue, peer and run, where failures go, and the
/// liveness bound.
pub(super) struct Writer {
    pub(super) stream: Lane,
    pub(super) queue: mpsc::UnboundedReceiver<Queued>,
    pub(super) peer: RoleName,
    pub(super) run: u64,
    pub(super) delivery: Delivery,
    pub(super) timeout: Duration,
    pub(super) failed: Failed,
}

/// A lane's connection as its writer gets it.
pub(super) enum Lane {
    /// Plaintext: the socket's read half, and the write half shared with the senders.
    Plain(tokio::net::tcp::OwnedReadHalf, Arc<Direct>),
    /// TLS: the writer's alone.
    Tls(mpst_wire::Stream),
}

/// Where the writer writes: a buffer flushed to the shared plaintext socket, or TLS.
enum Sink {
    Shared(Arc<Direct>, Vec<u8>),
    Owned(BufWriter<WriteHalf<mpst_wire::Stream>>),
}

/// How much a plaintext lane's writer gathers before it writes (as `BufWriter`'s).
const GATHER: usize = 8 * 1024;

impl Sink {
    async fn write_all(&mut self, frame: &[u8]) -> std::io::Result<()> {
        match self {
            Sink::Owned(sink) => sink.write_all(frame).await,
            Sink::Shared(_, buffer) => {
                buffer.extend_from_slice(frame);
                if buffer.len() >= GATHER {
                    self.flush().await?;
                }
                Ok(())
            }
        }
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Owned(sink) => sink.flush().await,
            Sink::Shared(direct, buffer) => {
                let mut done = 0;
                while done < buffer.len() {
                    match direct.socket().try_write(&buffer[done..]) {
                        Ok(n) => done += n,
                        Err(e) if e.kind() == ErrorKind::WouldBlock => {
                            direct.socket().writable().await?;
                        }
                        Err(e) => return Err(e),
                    }
                }
                buffer.clear();
                Ok(())
            }
        }
    }

    async fn shutdown(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Owned(sink) => sink.shutdown().await,
            // The write half shuts the socket down when its last holder (this writer:
            // the senders' lane is gone once the queue ended) drops it.
            Sink::Shared(..) => Ok(()),
        }
    }
}

/// Writes one lane's queue in order, batching what is queued into one flush, while the
/// peer keeps to the liveness bound; on the queue's end (the transport closed), says
/// goodbye, shuts the lane down and waits (at most `timeout`) until the peer has
/// acknowledged every message and closed its end. A failure is reported to the endpoint
/// and kept for later sends.
pub(super) async fn write(writer: Writer) {
    let Writer {
        stream,
        mut queue,
        peer,
        run,
        delivery,
        timeout,
        failed,
    } = writer;
    let now = Instant::now();
    let (heard_tx, heard) = watch::channel(Heard {
        read: 0,
        at: now,
        ended: None,
    });
    let (hearing, mut sink, direct) = match stream {
        Lane::Plain(reader, direct) => {
            let acks = FramedRead::new(reader, FrameCodec::new(MAX_ACK_FRAME));
            let hearing = tokio::spawn(hear(acks, run, heard_tx));
            (
                hearing,
                Sink::Shared(direct.clone(), Vec::new()),
                Some(direct),
            )
        }
        Lane::Tls(stream) => {
            let (reader, sink) = tokio::io::split(stream);
            let acks = FramedRead::new(reader, FrameCodec::new(MAX_ACK_FRAME));
            let hearing = tokio::spawn(hear(acks, run, heard_tx));
            (hearing, Sink::Owned(BufWriter::new(sink)), None)
        }
    };
    let mut watch = Watch {
        heard,
        written: 0,
        since: now,
        timeout,
        peer: peer.clone(),
        direct: direct.clone(),
    };
    let written = async {
        loop {
            // Checked on every message too, so a queue that never runs dry (the wait for
            // one below never arms its timer then) cannot outrun the bound.
            watch.check()?;
            let wrote = async {
                match &direct {
                    Some(direct) => direct.written().await,
                    None => std::future::pending().await,
                }
            };
            let next = tokio::select! {
                biased;
                next = queue.recv() => next,
                // A send wrote a frame itself: counted by the check above.
                () = wrote => continue,
                broken = watch.broken() => return Err(broken),
            };
            let Some((hold, frame)) = next else {
                break;
            };
            if let Some(hold) = hold {
                watch.bound(sink.flush()).await?;
                hold.await;
            }
            watch.bound(sink.write_all(&frame)).await?;
            watch.wrote();
            if queue.is_empty() {
                watch.bound(sink.flush()).await?;
                if let Some(direct) = &direct {
                    direct.drained(|| !queue.is_empty());
                }
            }
        }
        // Goodbye, then every message acknowledged and the peer's end closed (so no
        // acknowledgement of the peer's can meet a closed socket and reset the lane).
        // The check counts the frames sends wrote themselves.
        watch.check()?;
        if let Ok(bye) = mpst_wire::codec::encode_frame(&Frame::Bye { run }, usize::MAX) {
            watch.bound(sink.write_all(&bye)).await?;
        }
        watch.bound(sink.flush()).await?;
        watch.bound(sink.shutdown()).await?;
        let closed = async {
            loop {
                let heard = watch.heard.borrow_and_update().clone();
                if let Some(why) = heard.ended {
                    let outstanding = watch.written.saturating_sub(heard.read);
                    return match outstanding {
                        0 => Ok(()),
                        n => Err(format!("{why} with {n} messages unacknowledged")),
                    };
                }
                if watch.heard.changed().await.is_err() {
                    return Err("the lane ended".to_string());
                }
            }
        };
        let closed = tokio::time::timeout(timeout, closed)
            .await
            .unwrap_or_else(|_| {
                Err(format!(
                    "the goodbye was not acknowledged within {timeout:?}"
                ))
            });
        closed.map_err(|text| TransportError::new(peer.clone(), TransportCause::Lost(text)))
    };
    let outcome = written.await;
    hearing.abort();
    if let Err(failure) = outcome {
        if let Some(direct) = &direct {
            direct.fail();
        }
        *failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(failure.cause.to_string());
        queue.close();
        delivery.fail(failure);
    }
}

/// The error of a send on a lane whose writer failed earlier: why it failed.
pub(super) fn failed_earlier(peer: &RoleName, failed: &Failed) -> TransportError {
    let why = failed.lock().unwrap_or_else(|p| p.into_inner()).clone();
    match why {
        Some(why) => TransportError::new(
            peer.clone(),
            TransportCause::Lost(format!("the connection failed earlier: {why}")),
        ),
        None => crate::net::io_error(peer, ErrorKind::BrokenPipe, "the connection failed earlier"),
    }
}
