//! One role's endpoint: the transport, the mailbox keyed by integrity key, the record of
//! keys already used (to refuse reuse and duplicates), and the session counter that gives
//! concurrent top-level invocations distinct tokens.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::oneshot;
use tokio::task::AbortHandle;
use tokio::time::Instant;

use crate::choreography::Choreography;
use crate::error::{ChoreoError, Result};
use crate::key::{Key, Site, Token};
use crate::op::Op;
use crate::role::{RoleName, RoleSet};
use crate::transport::{Envelope, Event, EventKind, Incoming, Observer, Transport};

/// Settings of an endpoint.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// How long a receive waits for its message before failing with
    /// [`ChoreoError::Timeout`].
    pub recv_timeout: Duration,
    /// Test-only negative control: ignore integrity keys and bind messages from each
    /// sender in arrival order, as a FIFO-assuming receiver would. Never set it in real
    /// code; it exists to show that the chaos tests catch mis-bindings.
    #[doc(hidden)]
    pub ignore_keys: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            recv_timeout: Duration::from_secs(30),
            ignore_keys: false,
        }
    }
}

/// Counts an endpoint keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndpointStats {
    /// Deliveries refused because their key was already delivered or consumed.
    pub duplicates_refused: u64,
    /// Errors reported by the incoming stream (decoding, I/O).
    pub transport_errors: u64,
    /// Deliveries refused because their session had already finished at this endpoint
    /// (late duplicates, or messages that a finished session never claimed).
    pub late_refused: u64,
    /// Keys the endpoint currently remembers (delivered, claimed or sent). Keys of a
    /// session are forgotten when it finishes.
    pub keys_held: usize,
}

type Reply = oneshot::Sender<Result<Envelope, ()>>;

enum Slot {
    Arrived(Envelope),
    Waiting(Reply),
    Consumed,
}

#[derive(Default)]
struct Mailbox {
    slots: HashMap<Key, Slot>,
    receives: HashMap<Key, Site>,
    sends: HashMap<(RoleName, Key), Site>,
    // The negative control (`ignore_keys`): per-sender queues, bound in arrival order.
    fifo_arrived: HashMap<RoleName, VecDeque<Envelope>>,
    fifo_waiting: HashMap<RoleName, VecDeque<Reply>>,
    stats: EndpointStats,
    closed: bool,
    // Sessions started here (so a number is never run twice) and sessions finished here
    // (whose keys are forgotten and whose late messages are refused).
    started: HashSet<u64>,
    finished: HashSet<u64>,
}

/// The top-level session a key belongs to: its token's first frame, whose site is 0 for
/// tokens made by [`Token::session`].
fn session_of(key: &Key) -> Option<u64> {
    let first = key.token.frames().first()?;
    (first.site == 0).then_some(first.index)
}

pub(crate) struct Shared {
    pub(crate) role: RoleName,
    pub(crate) transport: Arc<dyn Transport>,
    pub(crate) config: Config,
    observer: Option<Arc<dyn Observer>>,
    mailbox: Mutex<Mailbox>,
}

/// How a registered receive completes.
pub(crate) enum Pending {
    Ready(Envelope),
    Wait(oneshot::Receiver<Result<Envelope, ()>>, Instant),
}

impl Shared {
    fn mailbox(&self) -> MutexGuard<'_, Mailbox> {
        match self.mailbox.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    pub(crate) fn observe(
        &self,
        kind: EventKind,
        from: &RoleName,
        to: &RoleName,
        key: &Key,
        label: String,
    ) {
        if let Some(observer) = &self.observer {
            observer.observe(&Event {
                kind,
                from: from.clone(),
                to: to.clone(),
                key: key.clone(),
                label,
            });
        }
    }

    /// Claims `key` for a send to `to`; a second claim is [`ChoreoError::KeyReused`].
    pub(crate) fn claim_send(&self, to: &RoleName, key: &Key) -> Result<()> {
        let mut mailbox = self.mailbox();
        if let Some(first) = mailbox.sends.get(&(to.clone(), key.clone())) {
            return Err(self.reused(key, *first));
        }
        mailbox.sends.insert((to.clone(), key.clone()), key.site);
        Ok(())
    }

    fn reused(&self, key: &Key, first: Site) -> ChoreoError {
        ChoreoError::KeyReused {
            role: self.role.clone(),
            key: Box::new(key.clone()),
            first,
            second: key.site,
        }
    }

    /// Claims `key` for a receive from `from` and returns how it will complete.
    pub(crate) fn claim_receive(&self, from: &RoleName, key: &Key) -> Result<Pending> {
        let deadline = Instant::now() + self.config.recv_timeout;
        let mut mailbox = self.mailbox();
        if let Some(first) = mailbox.receives.get(key) {
            return Err(self.reused(key, *first));
        }
        mailbox.receives.insert(key.clone(), key.site);
        if self.config.ignore_keys {
            if let Some(env) = mailbox
                .fifo_arrived
                .get_mut(from)
                .and_then(VecDeque::pop_front)
            {
                return Ok(Pending::Ready(env));
            }
            let (tx, rx) = oneshot::channel();
            if mailbox.closed {
                drop(tx);
            } else {
                mailbox
                    .fifo_waiting
                    .entry(from.clone())
                    .or_default()
                    .push_back(tx);
            }
            return Ok(Pending::Wait(rx, deadline));
        }
        match mailbox.slots.remove(key) {
            Some(Slot::Arrived(env)) => {
                mailbox.slots.insert(key.clone(), Slot::Consumed);
                Ok(Pending::Ready(env))
            }
            // Unreachable while `receives` guards the key; refuse rather than guess.
            Some(other) => {
                mailbox.slots.insert(key.clone(), other);
                Err(self.reused(key, key.site))
            }
            None => {
                let (tx, rx) = oneshot::channel();
                if mailbox.closed {
                    drop(tx);
                } else {
                    mailbox.slots.insert(key.clone(), Slot::Waiting(tx));
                }
                Ok(Pending::Wait(rx, deadline))
            }
        }
    }

    /// Files one incoming envelope.
    fn deliver(&self, env: Envelope) {
        let mut mailbox = self.mailbox();
        if session_of(&env.key).is_some_and(|n| mailbox.finished.contains(&n)) {
            mailbox.stats.late_refused += 1;
            drop(mailbox);
            self.observe(
                EventKind::DuplicateRefused,
                &env.from,
                &env.to,
                &env.key,
                String::new(),
            );
            return;
        }
        if self.config.ignore_keys {
            let waiting = mailbox.fifo_waiting.entry(env.from.clone()).or_default();
            let mut env = env;
            while let Some(tx) = waiting.pop_front() {
                match tx.send(Ok(env)) {
                    Ok(()) => return,
                    // That receive gave up: offer the message to the next one.
                    Err(back) => match back {
                        Ok(e) => env = e,
                        Err(()) => return,
                    },
                }
            }
            mailbox
                .fifo_arrived
                .entry(env.from.clone())
                .or_default()
                .push_back(env);
            return;
        }
        match mailbox.slots.remove(&env.key) {
            None => {
                mailbox.slots.insert(env.key.clone(), Slot::Arrived(env));
            }
            Some(Slot::Waiting(tx)) => {
                mailbox.slots.insert(env.key.clone(), Slot::Consumed);
                // A receive that timed out has dropped its end; the message is then late.
                let _ = tx.send(Ok(env));
            }
            Some(slot @ (Slot::Arrived(_) | Slot::Consumed)) => {
                mailbox.slots.insert(env.key.clone(), slot);
                mailbox.stats.duplicates_refused += 1;
                drop(mailbox);
                self.observe(
                    EventKind::DuplicateRefused,
                    &env.from,
                    &env.to,
                    &env.key,
                    String::new(),
                );
            }
        }
    }

    /// Marks session `n` as started; a number runs at most once per endpoint.
    fn start_session(&self, n: u64) -> Result<()> {
        let mut mailbox = self.mailbox();
        if !mailbox.started.insert(n) {
            return Err(ChoreoError::SessionReused {
                role: self.role.clone(),
                session: n,
            });
        }
        Ok(())
    }

    /// Forgets the keys of finished session `n`; its late messages will be refused.
    fn end_session(&self, n: u64) {
        let mut mailbox = self.mailbox();
        let ours = |key: &Key| session_of(key) == Some(n);
        mailbox.slots.retain(|key, _| !ours(key));
        mailbox.receives.retain(|key, _| !ours(key));
        mailbox.sends.retain(|(_, key), _| !ours(key));
        mailbox.finished.insert(n);
    }

    /// The incoming stream ended: fail every pending receive now instead of at its timeout.
    fn close(&self) {
        let mut mailbox = self.mailbox();
        mailbox.closed = true;
        let slots = std::mem::take(&mut mailbox.slots);
        mailbox.slots = slots
            .into_iter()
            .map(|(key, slot)| match slot {
                Slot::Waiting(tx) => {
                    let _ = tx.send(Err(()));
                    (key, Slot::Consumed)
                }
                other => (key, other),
            })
            .collect();
        for (_, queue) in mailbox.fifo_waiting.drain() {
            for tx in queue {
                let _ = tx.send(Err(()));
            }
        }
    }
}

/// One role's side of a choreography: run choreographies with [`Endpoint::run`] and the
/// endpoint plays its role in them (the library projects at run time).
pub struct Endpoint {
    shared: Arc<Shared>,
    sessions: AtomicU64,
    driver: AbortHandle,
}

impl Endpoint {
    /// An endpoint for `role` on `transport` with the default [`Config`]. It spawns the
    /// task that files incoming messages, so it must be created inside a tokio runtime
    /// ([`ChoreoError::NoRuntime`] otherwise).
    pub fn new(transport: Arc<dyn Transport>, role: RoleName) -> Result<Self> {
        Self::with_config(transport, role, Config::default(), None)
    }

    /// An endpoint with a configuration and an optional observer of communication events.
    pub fn with_config(
        transport: Arc<dyn Transport>,
        role: RoleName,
        config: Config,
        observer: Option<Arc<dyn Observer>>,
    ) -> Result<Self> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| ChoreoError::NoRuntime)?;
        let incoming = transport.incoming(&role)?;
        let shared = Arc::new(Shared {
            role,
            transport,
            config,
            observer,
            mailbox: Mutex::default(),
        });
        let driver = runtime
            .spawn(drive(Arc::downgrade(&shared), incoming))
            .abort_handle();
        Ok(Self {
            shared,
            sessions: AtomicU64::new(0),
            driver,
        })
    }

    /// The role this endpoint plays.
    pub fn role(&self) -> &RoleName {
        &self.shared.role
    }

    /// What the endpoint has counted so far.
    pub fn stats(&self) -> EndpointStats {
        let mailbox = self.shared.mailbox();
        EndpointStats {
            keys_held: mailbox.slots.len() + mailbox.receives.len() + mailbox.sends.len(),
            ..mailbox.stats
        }
    }

    /// Runs the next top-level session of a choreography as this role. Sessions are
    /// numbered per endpoint (0, 1, …, counting calls of `run`); every role must start
    /// the same sessions in the same order, or use [`Endpoint::run_session`] (do not mix
    /// the two on one endpoint). Several may run concurrently.
    pub async fn run<Ch, X>(&self, choreography: Ch) -> Result<X>
    where
        Ch: Choreography<X>,
    {
        let n = self.sessions.fetch_add(1, Ordering::Relaxed);
        self.run_session(n, choreography).await
    }

    /// Runs a choreography as session number `n` (token [`Token::session`]`(n)`).
    /// Completes when the body and every pending send and forward have completed; then
    /// the endpoint forgets the session's keys and refuses its late messages. A session
    /// number runs at most once per endpoint ([`ChoreoError::SessionReused`]).
    pub async fn run_session<Ch, X>(&self, n: u64, choreography: Ch) -> Result<X>
    where
        Ch: Choreography<X>,
    {
        if !Ch::Roles::names().contains(&self.shared.role) {
            return Err(ChoreoError::UnknownRole(self.shared.role.clone()));
        }
        self.shared.start_session(n)?;
        let op: Op<Ch::Roles> = Op::root(Arc::clone(&self.shared), Token::session(n));
        let out = choreography.run(&op).await;
        let finished = match out {
            Ok(out) => op.finish().await.map(|()| out),
            Err(e) => Err(e),
        };
        drop(op); // aborts whatever is still pending after an error
        self.shared.end_session(n);
        finished
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

async fn drive(shared: std::sync::Weak<Shared>, mut incoming: Incoming) {
    while let Some(item) = incoming.next().await {
        let Some(shared) = shared.upgrade() else {
            return;
        };
        match item {
            Ok(env) => shared.deliver(env),
            Err(_) => shared.mailbox().stats.transport_errors += 1,
        }
    }
    if let Some(shared) = shared.upgrade() {
        shared.close();
    }
}
