//! Writing a frame from the sending task itself. On a plaintext lane whose writer task
//! has nothing in hand, a send writes its frame straight to the socket (`try_write`): the
//! message leaves at once, without a wake-up of the writer task between the send and the
//! write. Whatever the socket does not take whole, and every frame while something is
//! queued, goes through the writer task as before, so a lane's frames stay whole and in
//! order. The writer still keeps the lane's liveness bound: it counts the frames written
//! here ([`Direct::absorb`]), woken only when its bound was not armed.

use std::sync::{Arc, Mutex, MutexGuard};

use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::Notify;
use tokio::time::Instant;

use super::write::Queued;

/// The writing end of a plaintext lane, shared by its senders and its writer task.
pub(super) struct Direct {
    socket: OwnedWriteHalf,
    state: Mutex<State>,
    /// Wakes the writer when a frame was written here while its bound was not armed.
    wrote: Notify,
}

#[derive(Default)]
struct State {
    /// The writer task has frames queued or in hand (or it failed): sends queue
    /// behind them.
    busy: bool,
    /// The writer failed: sends always queue (and find the queue closed).
    failed: bool,
    /// Messages written here that the writer has not counted yet.
    uncounted: u64,
    /// When the first of them was written.
    first: Option<Instant>,
    /// The writer's liveness bound is armed (messages outstanding).
    armed: bool,
}

impl Direct {
    pub(super) fn new(socket: OwnedWriteHalf) -> Arc<Self> {
        Arc::new(Direct {
            socket,
            state: Mutex::default(),
            wrote: Notify::new(),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The socket, for the writer task.
    pub(super) fn socket(&self) -> &OwnedWriteHalf {
        &self.socket
    }

    /// Sends `item`: written here when the lane is idle, it holds nothing back and the
    /// socket takes the whole frame; otherwise (what is left of it) queued for the writer
    /// with `queue`, which fails only when the writer is gone.
    pub(super) fn send<E>(
        &self,
        item: Queued,
        queue: impl FnOnce(Queued) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut state = self.state();
        let (hold, frame) = item;
        if state.busy || hold.is_some() {
            state.busy = true;
            return queue((hold, frame));
        }
        match self.socket.try_write(&frame) {
            Ok(n) if n == frame.len() => {
                state.uncounted += 1;
                let wake = state.first.is_none() && !state.armed;
                state.first.get_or_insert_with(Instant::now);
                drop(state);
                if wake {
                    self.wrote.notify_one();
                }
                Ok(())
            }
            // The rest of a frame the socket took in part: the writer writes it (and
            // counts the message); a full socket or an error: the writer waits for it
            // or reports the error.
            Ok(n) => {
                state.busy = true;
                queue((None, frame[n..].to_vec()))
            }
            Err(_) => {
                state.busy = true;
                queue((None, frame))
            }
        }
    }

    /// The messages written here since the last call, and when the first of them was;
    /// `armed` says whether the writer's bound will be armed (messages outstanding
    /// after these are counted), so that sends wake it only when it is not.
    pub(super) fn absorb(&self, armed: impl FnOnce(u64) -> bool) -> (u64, Option<Instant>) {
        let mut state = self.state();
        let taken = (std::mem::take(&mut state.uncounted), state.first.take());
        state.armed = armed(taken.0);
        taken
    }

    /// Completes once a send wrote a frame here while the writer's bound was not armed.
    pub(super) async fn written(&self) {
        self.wrote.notified().await;
    }

    /// The writer has written everything queued: sends may write here again, unless
    /// `more_queued` (checked under the lock, which senders queue under).
    pub(super) fn drained(&self, more_queued: impl FnOnce() -> bool) {
        let mut state = self.state();
        if !state.failed && !more_queued() {
            state.busy = false;
        }
    }

    /// The writer failed: every later send queues (and finds the queue closed).
    pub(super) fn fail(&self) {
        let mut state = self.state();
        state.failed = true;
        state.busy = true;
    }
}
