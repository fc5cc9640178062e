//! The accepting side of the TCP transport: takes the lanes `mpst-wire`'s acceptor has
//! set up (it owns the handshake deadlines, the cap on handshakes and the back-off on
//! failed `accept()` calls), caps the lanes held, and reads each one: envelopes that its
//! authenticated peer may not send (another sender, another run) are refused and
//! counted, and a lane whose frame stalls is closed.

use std::collections::HashMap;
use std::io::ErrorKind;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use mpst_wire::{
    AcceptStats, Acceptor, Application, Connection, FrameCodec, FrameError, Peer, WireError,
    WireErrorKind,
};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tokio_util::codec::Framed;

use super::{TcpConfig, TcpStats};
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
}

/// The hello's application field: how many lanes the dialler opens.
pub(super) struct Lanes(pub(super) u32);

impl Application for Lanes {
    fn field(&self, _peer: &str) -> Vec<u8> {
        self.0.to_le_bytes().to_vec()
    }

    fn check(&self, _peer: &str, field: &[u8]) -> Result<(), String> {
        lanes_in(field).map(drop)
    }
}

fn lanes_in(field: &[u8]) -> Result<u32, String> {
    let lanes = <[u8; 4]>::try_from(field)
        .map(u32::from_le_bytes)
        .map_err(|_| format!("a lane count of {} bytes, not 4", field.len()))?;
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
    let (mut framed, _) = connection.framed::<Frame>(ctx.max_frame_length);
    ctx.arrivals.arrived(&peer, lanes);
    let ctx = ctx.clone();
    tokio::spawn(async move {
        if let Err(failure) = read(&mut framed, &peer, run, &ctx).await {
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
/// (between frames a lane may be idle for as long as it likes).
async fn next_frame(lane: &mut Lane, timeout: Duration) -> Option<Result<Frame, FrameError>> {
    let tick = (timeout / 4).max(Duration::from_millis(10));
    let mut began: Option<Instant> = None;
    loop {
        match tokio::time::timeout(tick, lane.next()).await {
            Ok(item) => return item,
            Err(_) if lane.read_buffer().is_empty() => began = None,
            Err(_) => {
                let began = *began.get_or_insert_with(Instant::now);
                if began.elapsed() + tick > timeout {
                    let message = format!("a frame stalled for longer than {timeout:?}");
                    let stalled = std::io::Error::new(ErrorKind::TimedOut, message);
                    return Some(Err(FrameError::Io(stalled)));
                }
            }
        }
    }
}

/// Reads one lane of `peer` until its goodbye, filing each envelope into the endpoint's
/// inbox here, in this task (the endpoint wakes the receive waiting for it). Envelopes
/// from another sender or to another role are refused and counted; a frame of another run
/// ends the lane. Until an endpoint attaches, the first envelope waits (and the lane is
/// not read further).
async fn read(lane: &mut Lane, peer: &RoleName, run: u64, ctx: &Ctx) -> Result<(), TransportError> {
    let lost = |text: String| TransportError::new(peer.clone(), TransportCause::Lost(text));
    let mut inbox: Option<Inbox> = None;
    loop {
        let frame = match next_frame(lane, ctx.idle_timeout).await {
            Some(Ok(frame)) => frame,
            Some(Err(FrameError::Io(e))) => return Err(lost(format!("the lane failed: {e}"))),
            Some(Err(e @ FrameError::Truncated { .. })) => return Err(lost(e.to_string())),
            Some(Err(e)) => return Err(decode_error(peer, e.to_string())),
            None => return Err(lost("the connection closed without a goodbye".into())),
        };
        match frame {
            Frame::Message { run: r, .. } | Frame::Bye { run: r } if r != run => {
                ctx.envelopes_refused.fetch_add(1, Ordering::Relaxed);
                return Err(decode_error(peer, "a frame of another run"));
            }
            Frame::Bye { .. } => return Ok(()),
            Frame::Message { envelope, .. } => {
                if envelope.from != *peer || envelope.to != ctx.role {
                    ctx.envelopes_refused.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                let inbox = match &inbox {
                    Some(inbox) => inbox,
                    None => inbox.insert(ctx.delivery.inbox().await),
                };
                if !inbox.deliver(Ok(envelope)) {
                    // The endpoint is gone.
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
    fn lane_counts_are_four_bytes_within_bounds() {
        assert_eq!(lanes_in(&4u32.to_le_bytes()), Ok(4));
        assert!(lanes_in(&0u32.to_le_bytes()).is_err());
        assert!(lanes_in(&5000u32.to_le_bytes()).is_err());
        assert!(lanes_in(&[1, 0]).unwrap_err().contains("2 bytes"));
    }
}
