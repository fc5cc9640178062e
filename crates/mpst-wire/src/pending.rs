//! The handshakes an acceptor has in progress, oldest first, and which one is closed to
//! make room: the oldest stranger, or only when every one has passed its checks, the
//! oldest of those; a handshake that commits to its final word leaves the registry and is
//! never closed to make room.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use crate::stream::Connection;

/// The handshakes in progress, oldest first. When `max_pending_handshakes` are, one is
/// closed to make room: the oldest stranger (a slow or idle stranger is the oldest; a real
/// peer's handshake takes milliseconds), or, only when every one has passed its checks,
/// the oldest of those. None of them has been sent the final word yet, so its dialler
/// does not count it as connected and retries. A handshake leaves this registry when it
/// commits to sending the final word ([`Slot::commit`]) and is never closed to make room
/// afterwards.
#[derive(Default)]
pub(crate) struct Pending {
    pub(crate) next_id: u64,
    pub(crate) running: VecDeque<(u64, SocketAddr, AbortHandle, Arc<AtomicBool>)>,
}

impl Pending {
    /// Removes and returns the handshake to close to make room: the oldest whose peer is
    /// not vouched for, else the oldest (with whether it was vouched for).
    pub(crate) fn victim(&mut self) -> Option<(SocketAddr, AbortHandle, bool)> {
        let at = self
            .running
            .iter()
            .position(|(_, _, _, vouched)| !vouched.load(Ordering::Acquire))
            .or(if self.running.is_empty() {
                None
            } else {
                Some(0)
            })?;
        self.running
            .remove(at)
            .map(|(_, remote, task, vouched)| (remote, task, vouched.load(Ordering::Acquire)))
    }
}

/// One handshake's place among those pending, as its task sees it.
pub(crate) struct Slot {
    pub(crate) pending: Arc<Mutex<Pending>>,
    pub(crate) id: u64,
    pub(crate) vouched: Arc<AtomicBool>,
    /// Where accepted connections wait to be taken.
    pub(crate) tx: mpsc::Sender<Connection>,
}

impl Slot {
    /// The peer has passed every check: close strangers before it to make room.
    pub(crate) fn vouch(&self) {
        self.vouched.store(true, Ordering::Release);
    }

    /// Takes this handshake out of those that may be closed to make room, before the final
    /// word is sent; `false` if it was already closed to make room (its task is being
    /// aborted: it must not send the word).
    pub(crate) fn commit(&self) -> bool {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        match pending.running.iter().position(|(i, ..)| *i == self.id) {
            Some(at) => {
                pending.running.remove(at);
                true
            }
            None => false,
        }
    }
}

pub(crate) fn finished(pending: &Mutex<Pending>, id: u64) {
    let mut pending = pending.lock().unwrap_or_else(|p| p.into_inner());
    pending.running.retain(|(i, _, _, _)| *i != id);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (a real peer's dial "succeeded" on a connection the acceptor then closed
    /// to make room for a stranger): strangers are closed first, a vouched-for handshake
    /// only when every one is vouched for, and a committed one (out of the registry) never.
    #[tokio::test]
    async fn the_oldest_stranger_is_closed_before_any_vouched_for_peer() {
        let task = || tokio::spawn(std::future::pending::<()>()).abort_handle();
        let at = |port| SocketAddr::from(([127, 0, 0, 1], port));
        let pending = Arc::new(Mutex::new(Pending::default()));
        let (tx, _rx) = mpsc::channel(1);
        let mut flags = Vec::new();
        {
            let mut registry = pending.lock().unwrap();
            for (id, vouched) in [(0, true), (1, false), (2, true), (3, false), (4, false)] {
                let flag = Arc::new(AtomicBool::new(vouched));
                flags.push(flag.clone());
                registry
                    .running
                    .push_back((id, at(id as u16 + 1), task(), flag));
            }
        }
        let slot = |id: u64| Slot {
            pending: pending.clone(),
            id,
            vouched: flags[id as usize].clone(),
            tx: tx.clone(),
        };
        // The stranger 4 commits (it passed its checks meanwhile): never closed now.
        assert!(slot(4).commit());
        let mut registry = pending.lock().unwrap();
        let victim = |r: &mut Pending| r.victim().map(|(a, _, vouched)| (a, vouched));
        assert_eq!(victim(&mut registry), Some((at(2), false)));
        assert_eq!(victim(&mut registry), Some((at(4), false)));
        assert_eq!(victim(&mut registry), Some((at(1), true)));
        assert_eq!(victim(&mut registry), Some((at(3), true)));
        assert!(victim(&mut registry).is_none());
        drop(registry);
        // One closed to make room cannot commit afterwards: it sends no final word.
        assert!(!slot(0).commit());
    }
}
