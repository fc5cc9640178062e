//! The accepting side of the TCP transport: takes the lanes `mpst-wire`'s acceptor has
//! set up (it owns the handshake deadlines, the cap on handshakes and the back-off on
//! failed `accept()` calls), caps the lanes held, and reads each one: envelopes that its
//! authenticated peer may not send (another sender, another run) are refused and
//! counted, and a lane whose frame stalls is closed.

use std::collections::HashMap;
use std::io::ErrorKind;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use mpst_wire::{
    AcceptStats, Acceptor, Application, Connection, FrameCodec, FrameError, Peer, WireError,
    WireErrorKind,
};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tokio_util::codec::Framed;

use super::{TcpConfig, TcpStats};
use crate::net::stages::{self, Stage};
use crate::net::{Arrivals, Delivery, decode_error};
use crate::role::RoleName;
use crate::transport::{Envelope, Inbox, TransportCause, TransportError};

/// The most lanes a peer may announce.
pub(super) const MAX_LANES: u32 = 1024;

/// What travels on a lane once `mpst-wire` has set it up.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Frame {
    /// One message, tagged with the lane's run (from its set-up's nonces).
    Message {
        /// The lane's run.
        run: u64,
        /// The message.
        envelope: Envelope,
    },
    /// The sender will send nothing more on this lane.
    Bye {
        /// The lane's run.
        run: u64,
    },
    /// The other way, from the accepting end to the dialler: how many messages of the
    /// lane it has read so far (sent at most every [`ack_interval`] while messages
    /// arrive, and repeated while it waits for its endpoint), so that a dialler whose
    /// messages nobody acknowledges within its time-out knows the peer is gone, even
    /// where a proxy or a full buffer hides that from TCP.
    Ack {
        /// The lane's run.
        run: u64,
        /// Messages read on the lane so far.
        read: u64,
    },
}

/// How often at most the accepting end of a lane acknowledges what it read (and how
/// often it repeats its acknowledgement while it waits for its endpoint), for an idle
/// time-out of `idle_timeout`: an eighth of it, between 50 ms and 1 s. Often enough that
/// the dialler, which fails the lane after `idle_timeout` without a word while messages
/// are unacknowledged, hears a live peer several times within it; seldom enough that a
/// lane carrying a message every few milliseconds carries few acknowledgements back
/// (each wakes both ends and crosses the network: at the former fixed 50 ms, a lane at
/// 50 messages a second carried an acknowledgement for every two or three messages).
pub(super) fn ack_interval(idle_timeout: Duration) -> Duration {
    (idle_timeout / 8).clamp(Duration::from_millis(50), Duration::from_secs(1))
}

/// The version of what travels on a lane, sent in the hello's application field: 2
/// since the accepting end acknowledges what it read ([`Frame::Ack`]). A peer of
/// another version is refused at the set-up, naming both, rather than failing later on
/// a frame it cannot read or an acknowledgement that never comes.
pub(super) const LANE_VERSION: u8 = 2;

/// The hello's application field: the lane version and how many lanes the dialler
/// opens (one byte, then four little-endian).
pub(super) struct Lanes(pub(super) u32);

impl Application for Lanes {
    fn field(&self, _peer: &str) -> Vec<u8> {
        let mut field = vec![LANE_VERSION];
        field.extend_from_slice(&self.0.to_le_bytes());
        field
    }

    fn check(&self, _peer: &str, field: &[u8]) -> Result<(), String> {
        lanes_in(field).map(drop)
    }
}

fn lanes_in(field: &[u8]) -> Result<u32, String> {
    let version = match field {
        // Version 1 sent the lane count alone.
        [_, _, _, _] => 1,
        [version, ..] => *version,
        [] => return Err("an empty lane field, not a version and a lane count".into()),
    };
    if version != LANE_VERSION {
        return Err(format!(
            "the peer speaks lane version {version}, this side version {LANE_VERSION}: \
             run the same mpst-choreo release at every role"
        ));
    }
    let lanes = <[u8; 4]>::try_from(&field[1..])
        .map(u32::from_le_bytes)
        .map_err(|_| format!("a lane field of {} bytes, not 5", field.len()))?;
    if (1..=MAX_LANES).contains(&lanes) {
        Ok(lanes)
    } else {
        Err(format!("{lanes} lanes, not 1 to {MAX_LANES}"))
    }
}

/// Everything the readers share.
pub(super) struct Ctx {
    role: RoleName,
    max_frame_length: usize,
    idle_timeout: Duration,
    delivery: Delivery,
    arrivals: Arrivals,
    held: Arc<Semaphore>,
    /// Open lanes per peer, at most `max_lanes` each.
    live: Mutex<HashMap<RoleName, u32>>,
    max_lanes: u32,
    over_held: AtomicU64,
    envelopes_refused: AtomicU64,
}

impl Ctx {
    pub(super) fn new(
        role: RoleName,
        config: &TcpConfig,
        delivery: Delivery,
        arrivals: Arrivals,
        held: Arc<Semaphore>,
    ) -> Self {
        Ctx {
            role,
            max_frame_length: config.max_frame_length,
            idle_timeout: config.idle_timeout,
            delivery,
            arrivals,
            held,
            live: Mutex::default(),
            // Twice the lanes a peer opens: room for a lane closing while its successor
            // opens, never a flood of lanes claiming one role.
            max_lanes: 2 * config.connections_per_peer.clamp(1, MAX_LANES as usize) as u32,
            over_held: AtomicU64::new(0),
            envelopes_refused: AtomicU64::new(0),
        }
    }

    /// The transport's counts, with the acceptor's.
    pub(super) fn stats(&self, accepted: AcceptStats) -> TcpStats {
        TcpStats {
            connections_refused: accepted.refused
                + accepted.failed
                + accepted.over_cap
                + self.over_held.load(Ordering::Relaxed),
            envelopes_refused: self.envelopes_refused.load(Ordering::Relaxed),
            accept_errors: accepted.accept_errors,
        }
    }
}

/// The transport error of a `mpst-wire` failure: about the role when it is proved or
/// expected, about the remote address otherwise (never the role a stranger claimed).
pub(super) fn wire_error(error: WireError) -> TransportError {
    let peer = match &error.peer {
        Peer::Authenticated(role) | Peer::Expected(role) | Peer::Local(role) => {
            RoleName::new(role.clone())
        }
        Peer::Unauthenticated { address, .. } => RoleName::new(format!("the peer at {address}")),
    };
    let text = error.kind.to_string();
    let cause = match error.kind {
        WireErrorKind::Refused(_) | WireErrorKind::Refusing(_) | WireErrorKind::Tls(_) => {
            TransportCause::Refused(text)
        }
        WireErrorKind::Io(e) => TransportCause::Io(e),
        WireErrorKind::NotConnected { .. } | WireErrorKind::HandshakeTimeout(_) => {
            TransportCause::Io(std::io::Error::new(ErrorKind::TimedOut, text))
        }
        _ => TransportCause::Unavailable(text),
    };
    TransportError::new(peer, cause)
}

/// Takes set-up lanes from `acceptor` until aborted.
pub(super) async fn take(mut acceptor: Acceptor, ctx: Arc<Ctx>) {
    while let Some(connection) = acceptor.next().await {
        lane(connection, &ctx);
    }
}

/// Starts reading one set-up lane, unless too many are held already.
fn lane(connection: Connection, ctx: &Arc<Ctx>) {
    let Ok(permit) = ctx.held.clone().try_acquire_owned() else {
        ctx.over_held.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let run = connection.run_id().as_u64();
    let Ok(lanes) = lanes_in(connection.peer_field()) else {
        // The acceptor checked the field already.
        ctx.over_held.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let peer = RoleName::new(connection.peer_role());
    if !ctx.open_lane(&peer) {
        ctx.over_held.fetch_add(1, Ordering::Relaxed);
        return;
    }
    let port = connection.remote_addr().port();
    let (mut framed, _) = connection.framed::<Frame>(ctx.max_frame_length);
    ctx.arrivals.arrived(&peer, lanes);
    let ctx = ctx.clone();
    tokio::spawn(async move {
        if let Err(failure) = read(&mut framed, (&peer, port), run, &ctx).await {
            ctx.delivery.fail(failure);
        }
        ctx.close_lane(&peer);
        drop(permit);
    });
}

impl Ctx {
    /// Counts a lane of `peer` open, unless it has as many as it may.
    fn open_lane(&self, peer: &RoleName) -> bool {
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        let open = live.entry(peer.clone()).or_insert(0);
        if *open >= self.max_lanes {
            return false;
        }
        *open += 1;
        true
    }

    fn close_lane(&self, peer: &RoleName) {
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(open) = live.get_mut(peer) {
            *open = open.saturating_sub(1);
        }
    }
}

type Lane = Framed<mpst_wire::Stream, FrameCodec<Frame>>;

/// The next frame of `lane`; a frame that has begun must be whole within `timeout`
/// (between frames a lane may be idle for as long as it likes). `began` is when part of
/// a frame was first seen waiting in the buffer, kept across calls (a caller may drop
/// this future to send an acknowledgement and call again). A timer is armed only while
/// part of a frame waits: a frame that arrives whole, as nearly every frame does, costs
/// no timer (a timer per frame, armed and cancelled, was a lock on the runtime's timer
/// wheel twice per message).
async fn next_frame(
    lane: &mut Lane,
    timeout: Duration,
    began: &mut Option<Instant>,
) -> Option<Result<Frame, FrameError>> {
    let mut stall: Option<Pin<Box<tokio::time::Sleep>>> = None;
    std::future::poll_fn(|cx| {
        if let Poll::Ready(item) = lane.poll_next_unpin(cx) {
            *began = None;
            return Poll::Ready(item);
        }
        if lane.read_buffer().is_empty() {
            *began = None;
            stall = None;
            return Poll::Pending;
        }
        let since = *began.get_or_insert_with(Instant::now);
        let Some(deadline) = since.checked_add(timeout) else {
            return Poll::Pending;
        };
        let sleep = stall.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if sleep.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        let message = format!("a frame stalled for longer than {timeout:?}");
        let stalled = std::io::Error::new(ErrorKind::TimedOut, message);
        Poll::Ready(Some(Err(FrameError::Io(stalled))))
    })
    .await
}

/// The acknowledgements of one lane's accepting end: messages read, and what the dialler
/// was last told.
struct Acks {
    run: u64,
    /// [`ack_interval`] of the transport's idle time-out.
    interval: Duration,
    read: u64,
    told: u64,
    last: Option<Instant>,
}

impl Acks {
    fn new(run: u64, interval: Duration) -> Self {
        Acks {
            run,
            interval,
            read: 0,
            told: 0,
            last: None,
        }
    }

    /// When the dialler should next be told, if it has not been told of every message
    /// read: [`Acks::interval`] after the last acknowledgement (at once after the first).
    fn due(&self) -> Option<Instant> {
        (self.read > self.told).then(|| self.last.map_or_else(Instant::now, |l| l + self.interval))
    }

    /// Tells the dialler how many messages were read. A dialler that takes no
    /// acknowledgement for `timeout` has stopped reading: the lane is lost. One that is
    /// gone makes the write fail, which is left to the reads to report.
    async fn tell(&mut self, lane: &mut Lane, timeout: Duration) -> Result<(), String> {
        let ack = Frame::Ack {
            run: self.run,
            read: self.read,
        };
        if tokio::time::timeout(timeout, lane.send(ack)).await.is_err() {
            return Err(format!("the peer took no acknowledgement for {timeout:?}"));
        }
        self.told = self.read;
        self.last = Some(Instant::now());
        Ok(())
    }
}

/// What the reader waited for: a frame, or the time to acknowledge.
enum Next {
    Frame(Option<Result<Frame, FrameError>>),
    Acknowledge,
}

/// Reads one lane of `peer` until its goodbye, filing each envelope into the endpoint's
/// inbox here, in this task (the endpoint wakes the receive waiting for it), and
/// acknowledging what it read to the dialler ([`Frame::Ack`]). Envelopes from another
/// sender or to another role are refused and counted; a frame of another run ends the
/// lane. Until an endpoint attaches, the first envelope waits (and the lane is not read
/// further), and the acknowledgement is repeated so the dialler knows this role is there.
/// `port` is the dialler's (for the `stages` probe).
async fn read(
    lane: &mut Lane,
    (peer, port): (&RoleName, u16),
    run: u64,
    ctx: &Ctx,
) -> Result<(), TransportError> {
    let lost = |text: String| TransportError::new(peer.clone(), TransportCause::Lost(text));
    let mut inbox: Option<Inbox> = None;
    let mut acks = Acks::new(run, ack_interval(ctx.idle_timeout));
    let mut began = None;
    // One timer for the acknowledgements, moved only when the time to acknowledge
    // changes (after each acknowledgement): a timer made anew for every frame was
    // registered and cancelled on the runtime's timer wheel once a frame, and woke the
    // runtime's driver (a `write` to its eventfd) whenever it was the earliest.
    let mut ack_timer: Option<Pin<Box<tokio::time::Sleep>>> = None;
    loop {
        let next = next_frame(lane, ctx.idle_timeout, &mut began);
        let next = match acks.due() {
            None => Next::Frame(next.await),
            Some(due) => {
                let timer =
                    ack_timer.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(due)));
                if timer.deadline() != due {
                    timer.as_mut().reset(due);
                }
                tokio::select! {
                    biased;
                    frame = next => Next::Frame(frame),
                    () = timer.as_mut() => Next::Acknowledge,
                }
            }
        };
        let frame = match next {
            Next::Acknowledge => {
                acks.tell(lane, ctx.idle_timeout).await.map_err(lost)?;
                continue;
            }
            Next::Frame(Some(Ok(frame))) => frame,
            Next::Frame(Some(Err(FrameError::Io(e)))) => {
                return Err(lost(format!("the lane failed: {e}")));
            }
            Next::Frame(Some(Err(e @ FrameError::Truncated { .. }))) => {
                return Err(lost(e.to_string()));
            }
            Next::Frame(Some(Err(e))) => return Err(decode_error(peer, e.to_string())),
            Next::Frame(None) => {
                return Err(lost("the connection closed without a goodbye".into()));
            }
        };
        match frame {
            Frame::Message { run: r, .. } | Frame::Bye { run: r } | Frame::Ack { run: r, .. }
                if r != run =>
            {
                ctx.envelopes_refused.fetch_add(1, Ordering::Relaxed);
                return Err(decode_error(peer, "a frame of another run"));
            }
            Frame::Ack { .. } => {
                ctx.envelopes_refused.fetch_add(1, Ordering::Relaxed);
                return Err(decode_error(
                    peer,
                    "an acknowledgement from the dialling end",
                ));
            }
            Frame::Bye { .. } => {
                // The last word: the dialler waits for it (and for the lane to close)
                // before it counts what it sent as delivered.
                acks.tell(lane, ctx.idle_timeout).await.map_err(lost)?;
                return Ok(());
            }
            Frame::Message { envelope, .. } => {
                stages::mark(Stage::Read, &envelope, port);
                acks.read += 1;
                if envelope.from != *peer || envelope.to != ctx.role {
                    ctx.envelopes_refused.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                let inbox = match &inbox {
                    Some(inbox) => inbox,
                    None => {
                        let attached = attached(lane, &mut acks, ctx).await.map_err(lost)?;
                        inbox.insert(attached)
                    }
                };
                #[cfg(feature = "stages")]
                let marked = Envelope {
                    payload: Vec::new(),
                    from: envelope.from.clone(),
                    to: envelope.to.clone(),
                    key: envelope.key.clone(),
                };
                if !inbox.deliver(Ok(envelope)) {
                    // The endpoint is gone.
                    return Ok(());
                }
                #[cfg(feature = "stages")]
                stages::mark(Stage::Filed, &marked, port);
                if acks.due().is_some_and(|due| due <= Instant::now()) {
                    // The endpoint's task, just woken by the delivery, goes first: the
                    // acknowledgement is not on the envelope's way.
                    tokio::task::yield_now().await;
                    acks.tell(lane, ctx.idle_timeout).await.map_err(lost)?;
                }
            }
        }
    }
}

/// The endpoint's inbox, once one attaches; meanwhile the dialler is told every
/// [`Acks::interval`] what was read, so it does not take the wait for a lost peer.
async fn attached(lane: &mut Lane, acks: &mut Acks, ctx: &Ctx) -> Result<Inbox, String> {
    loop {
        tokio::select! {
            biased;
            inbox = ctx.delivery.inbox() => return Ok(inbox),
            () = tokio::time::sleep(acks.interval) => acks.tell(lane, ctx.idle_timeout).await?,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acknowledgements_come_an_eighth_of_the_idle_timeout_apart_within_bounds() {
        let ms = Duration::from_millis;
        assert_eq!(
            ack_interval(Duration::from_secs(30)),
            Duration::from_secs(1)
        );
        assert_eq!(ack_interval(Duration::from_secs(2)), ms(250));
        assert_eq!(ack_interval(ms(300)), ms(50));
        assert_eq!(ack_interval(Duration::MAX), Duration::from_secs(1));
        // A live peer is heard several times within any idle time-out of 400 ms or more.
        for timeout in [
            ms(400),
            ms(1000),
            Duration::from_secs(30),
            Duration::from_secs(3600),
        ] {
            assert!(ack_interval(timeout) * 8 <= timeout, "{timeout:?}");
        }
    }

    #[test]
    fn lane_fields_are_a_version_and_a_count_within_bounds() {
        let field = |version: u8, lanes: u32| {
            let mut field = vec![version];
            field.extend_from_slice(&lanes.to_le_bytes());
            field
        };
        assert_eq!(lanes_in(&Lanes(4).field("B")), Ok(4));
        assert_eq!(lanes_in(&field(LANE_VERSION, 4)), Ok(4));
        assert!(lanes_in(&field(LANE_VERSION, 0)).is_err());
        assert!(lanes_in(&field(LANE_VERSION, 5000)).is_err());
        assert!(
            lanes_in(&[LANE_VERSION, 1, 0])
                .unwrap_err()
                .contains("3 bytes")
        );
        assert!(lanes_in(&[]).is_err());
        // Version 1's field was the count alone; a later version is refused too.
        let old = lanes_in(&4u32.to_le_bytes()).unwrap_err();
        assert!(
            old.contains("version 1") && old.contains("version 2"),
            "{old}"
        );
        let newer = lanes_in(&field(3, 4)).unwrap_err();
        assert!(
            newer.contains("version 3") && newer.contains("version 2"),
            "{newer}"
        );
    }
}
