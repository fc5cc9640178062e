//! What connects an endpoint to its transport: the target of its [`Inbox`], which files
//! each delivery into the mailbox in the transport's own code, and the small task that
//! drops unclaimed envelopes as they expire (off the delivery path).

use std::sync::Weak;
use std::time::Duration;

use tokio::time::Instant;

use super::mailbox::Closed;
use super::{Shared, after};
use crate::transport::{Deliver, Envelope, TransportError};

/// The target of an endpoint's [`Inbox`](crate::transport::Inbox): files each delivery into the mailbox in the
/// transport's own code (waking the receive that waits for its key, if one does). It
/// holds the endpoint weakly (the endpoint holds the transport, which holds the inbox),
/// so a transport delivering to an endpoint that is gone is told so.
pub(super) struct Filing(pub(super) Weak<Shared>);

impl Deliver for Filing {
    fn deliver(&self, item: std::result::Result<Envelope, TransportError>) -> bool {
        let Some(shared) = self.0.upgrade() else {
            return false;
        };
        match item {
            Ok(env) => shared.deliver(env),
            Err(error) => shared.transport_failed(&error),
        }
        true
    }
}

impl Drop for Filing {
    /// The transport will deliver nothing more: fail the receives waiting.
    fn drop(&mut self) {
        if let Some(shared) = self.0.upgrade() {
            shared.mailbox().close(Closed::Stream);
        }
    }
}

/// The endpoint's one task, off the delivery path: fails receives whose deadline has
/// passed (`waiting.rs`: it sleeps until the next deadline, or `recv_timeout` from now
/// while none waits, so it is never late and never needs waking) and drops unclaimed
/// envelopes as they expire (age bound: it sleeps until the oldest one's expiry, or for
/// the age bound while none is held; one that arrives meanwhile is dropped at most twice
/// the age bound after it arrived, and a receive claimed after the age bound never binds
/// it: claiming expires first). Count and byte bounds are kept as each envelope is filed.
///
/// If the task ends while the endpoint lives, nothing would time receives out any more:
/// its guard then fails every waiting receive, and every later one that would wait, so
/// that none waits for ever: with [`crate::ChoreoError::NoTimer`] if it stopped while
/// making its first sleep (it panics there when the runtime has no timer), as closed
/// ([`crate::ChoreoError::Closed`]) otherwise (the runtime that ran it shut down, before
/// it first ran or while it slept). The guard is made here, outside the task's body, so
/// that it is dropped even with a task that never ran.
pub(super) fn expire(shared: Weak<Shared>) -> impl Future<Output = ()> + Send + 'static {
    let mut stopped = Stopped {
        endpoint: shared,
        reached: Reached::Spawned,
    };
    async move {
        stopped.reached = Reached::Running;
        tend(&mut stopped).await;
    }
}

/// The task's loop: expires, times out, sleeps until the next deadline, noting on its
/// guard when it has made a sleep.
async fn tend(stopped: &mut Stopped) {
    loop {
        let Some(wake) = stopped.endpoint.upgrade().map(|shared| {
            let bounds = shared.config.bounds();
            let mut mailbox = shared.mailbox();
            let now = Instant::now();
            mailbox.expire(bounds, now);
            let receives = mailbox.time_out(now, shared.config.recv_timeout);
            let idle = after(now, bounds.age.max(Duration::from_secs(1)));
            let unclaimed = mailbox.next_expiry().unwrap_or(idle);
            unclaimed.min(receives).max(now)
        }) else {
            return;
        };
        let sleep = tokio::time::sleep_until(wake);
        stopped.reached = Reached::Slept;
        sleep.await;
    }
}

/// Held by the endpoint's task: dropped with it, it closes the endpoint's mailbox to
/// receives that would wait (a no-op once the endpoint is gone, or already closed).
struct Stopped {
    endpoint: Weak<Shared>,
    reached: Reached,
}

/// How far the endpoint's task got.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reached {
    /// Spawned, never polled.
    Spawned,
    /// Running, and has made no sleep yet: without a timer, making one panics.
    Running,
    /// Has made a sleep: the runtime has a timer.
    Slept,
}

impl Drop for Stopped {
    fn drop(&mut self) {
        if let Some(shared) = self.endpoint.upgrade() {
            let why = match self.reached {
                Reached::Running => Closed::NoTimer,
                Reached::Spawned | Reached::Slept => Closed::Stream,
            };
            shared.mailbox().close(why);
        }
    }
}
