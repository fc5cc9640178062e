//! The accepting side of the TCP transport: a cap on connections being set up and on
//! connections held, a deadline for each set-up, back-off when `accept()` fails (a full
//! file-descriptor table), and one reader per lane that refuses what its authenticated
//! peer may not send (another sender, another run) and closes a lane whose frame stalls.

use std::collections::HashSet;
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures::StreamExt;
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tokio_util::codec::Framed;

use super::setup::{self, Conn, Expect, Frame};
use crate::net::{Arrivals, Delivery, decode_error, io_error};
use crate::role::RoleName;
use crate::transport::{TransportCause, TransportError};

/// What the acceptor counts (see [`super::TcpStats`]).
#[derive(Default)]
pub(super) struct Counters {
    pub(super) connections_refused: AtomicU64,
    pub(super) envelopes_refused: AtomicU64,
    pub(super) accept_errors: AtomicU64,
}

/// Everything the acceptor and its readers share.
pub(super) struct Ctx {
    pub(super) role: RoleName,
    pub(super) program: String,
    pub(super) peers: HashSet<RoleName>,
    pub(super) max_frame_len: usize,
    pub(super) handshake_timeout: Duration,
    pub(super) frame_timeout: Duration,
    pub(super) delivery: Delivery,
    pub(super) arrivals: Arrivals,
    pub(super) counters: Arc<Counters>,
    pub(super) handshakes: Arc<Semaphore>,
    pub(super) connections: Arc<Semaphore>,
}

/// Exponential back-off between failed `accept()` calls: from `min`, doubling, at most
/// `max`; reset by a success.
#[derive(Debug)]
pub(crate) struct Backoff {
    min: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    pub(crate) fn new(min: Duration, max: Duration) -> Self {
        Backoff {
            min,
            max,
            next: min,
        }
    }

    /// The pause before the next attempt; doubles the one after it.
    pub(crate) fn pause(&mut self) -> Duration {
        let pause = self.next;
        self.next = (self.next * 2).min(self.max);
        pause
    }

    pub(crate) fn reset(&mut self) {
        self.next = self.min;
    }
}

/// Accepts connections until aborted.
pub(super) async fn accept(listener: TcpListener, ctx: Arc<Ctx>) {
    let mut backoff = Backoff::new(Duration::from_millis(5), Duration::from_secs(1));
    loop {
        match listener.accept().await {
            Ok((stream, addr)) => {
                backoff.reset();
                let permits = (
                    ctx.handshakes.clone().try_acquire_owned(),
                    ctx.connections.clone().try_acquire_owned(),
                );
                let (Ok(handshake), Ok(held)) = permits else {
                    // Over a cap: closed at once, counted, not reported one by one.
                    ctx.counters
                        .connections_refused
                        .fetch_add(1, Ordering::Relaxed);
                    drop(stream);
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let conn = Framed::new(Box::new(stream) as Box<dyn setup::Stream>, setup::codec());
                tokio::spawn(connection(conn, addr, ctx.clone(), handshake, held));
            }
            Err(e) => {
                let pause = backoff.pause();
                accept_failed(&ctx, &e, pause);
                tokio::time::sleep(pause).await;
            }
        }
    }
}

/// Counts a failed `accept()` and reports it (at most once per back-off pause).
fn accept_failed(ctx: &Ctx, e: &std::io::Error, pause: Duration) {
    ctx.counters.accept_errors.fetch_add(1, Ordering::Relaxed);
    let message = format!("accepting failed ({e}); next attempt in {pause:?}");
    let _ = ctx.delivery.send(Err(io_error(&ctx.role, e.kind(), message)));
}

/// The remote end of a connection not (yet) authenticated: its address only.
fn stranger(addr: SocketAddr) -> RoleName {
    RoleName::new(format!("the peer at {addr}"))
}

/// Sets one connection up within the handshake deadline, then reads it.
async fn connection(
    mut conn: Conn,
    addr: SocketAddr,
    ctx: Arc<Ctx>,
    handshake: OwnedSemaphorePermit,
    _held: OwnedSemaphorePermit,
) {
    let expect = Expect {
        role: &ctx.role,
        program: &ctx.program,
        peers: &ctx.peers,
    };
    let greeted = tokio::time::timeout(ctx.handshake_timeout, setup::greet(&mut conn, &expect));
    let greeted = match greeted.await {
        Ok(greeted) => greeted,
        Err(_) => Err(format!("no greeting within {:?}", ctx.handshake_timeout)),
    };
    drop(handshake);
    let (peer, lanes, run) = match greeted {
        Ok(greeted) => greeted,
        Err(reason) => {
            ctx.counters
                .connections_refused
                .fetch_add(1, Ordering::Relaxed);
            let refused = TransportError::new(stranger(addr), TransportCause::Refused(reason));
            let _ = ctx.delivery.send(Err(refused));
            return;
        }
    };
    setup::set_limit(&mut conn, ctx.max_frame_len);
    ctx.arrivals.arrived(&peer, lanes);
    if let Err(failure) = read(&mut conn, &peer, run, &ctx).await {
        let _ = ctx.delivery.send(Err(failure));
    }
}

/// The next frame of `conn`; a frame that has begun must be whole within `timeout`
/// (between frames a lane may be idle for as long as it likes).
async fn next_frame(
    conn: &mut Conn,
    timeout: Duration,
) -> Option<Result<bytes::BytesMut, std::io::Error>> {
    let tick = (timeout / 4).max(Duration::from_millis(10));
    let mut began: Option<Instant> = None;
    loop {
        match tokio::time::timeout(tick, conn.next()).await {
            Ok(item) => return item,
            Err(_) if conn.read_buffer().is_empty() => began = None,
            Err(_) => {
                let began = *began.get_or_insert_with(Instant::now);
                if began.elapsed() + tick > timeout {
                    let message = format!("a frame stalled for longer than {timeout:?}");
                    return Some(Err(std::io::Error::new(ErrorKind::TimedOut, message)));
                }
            }
        }
    }
}

/// Reads one lane of `peer` until its goodbye. Envelopes from another sender or to
/// another role are refused and counted; a frame of another run (a replay) ends the lane.
async fn read(conn: &mut Conn, peer: &RoleName, run: u64, ctx: &Ctx) -> Result<(), TransportError> {
    loop {
        let frame = match next_frame(conn, ctx.frame_timeout).await {
            Some(Ok(frame)) => frame,
            Some(Err(e)) if e.kind() == ErrorKind::InvalidData => {
                return Err(io_error(peer, e.kind(), format!("bad frame: {e}")));
            }
            Some(Err(e)) => {
                let lost = format!("the connection failed: {e}");
                return Err(TransportError::new(peer.clone(), TransportCause::Lost(lost)));
            }
            None => {
                let lost = "the connection closed without a goodbye".to_string();
                return Err(TransportError::new(peer.clone(), TransportCause::Lost(lost)));
            }
        };
        let frame = match postcard::from_bytes::<Frame>(&frame) {
            Ok(frame) => frame,
            Err(e) => {
                let message = format!("undecodable frame of {} bytes: {e}", frame.len());
                return Err(decode_error(peer, message));
            }
        };
        match frame {
            Frame::Message { run: r, .. } | Frame::Bye { run: r } if r != run => {
                ctx.counters.envelopes_refused.fetch_add(1, Ordering::Relaxed);
                let message = "a frame of another run (replayed bytes?)";
                return Err(decode_error(peer, message));
            }
            Frame::Bye { .. } => return Ok(()),
            Frame::Message { envelope, .. } => {
                if envelope.from != *peer || envelope.to != ctx.role {
                    ctx.counters.envelopes_refused.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                if ctx.delivery.send(Ok(envelope)).is_err() {
                    return Ok(());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_its_cap_and_resets() {
        let mut backoff = Backoff::new(Duration::from_millis(5), Duration::from_secs(1));
        let pauses: Vec<u128> = (0..10).map(|_| backoff.pause().as_millis()).collect();
        assert_eq!(pauses, [5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
        backoff.reset();
        assert_eq!(backoff.pause(), Duration::from_millis(5));
    }
}
