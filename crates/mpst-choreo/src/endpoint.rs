//! One role's endpoint: the transport, the mailbox keyed by integrity key (which the
//! transport files into directly, through the endpoint's inbox), the record of keys
//! already used (to refuse reuse and duplicates), and the session counter that gives
//! concurrent top-level invocations distinct tokens.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::task::AbortHandle;
use tokio::time::Instant;

use crate::choreography::Choreography;
use crate::error::{ChoreoError, Result};
use crate::key::{Key, Site, Token};
use crate::op::{Op, Spare};
use crate::role::{RoleName, RoleSet};
use crate::transport::{
    Envelope, Event, EventKind, Inbox, Observer, Transport, TransportCause, TransportError,
};

mod cells;
mod filing;
mod mailbox;
mod numbers;
mod session;
mod stats;
pub(crate) mod table;
mod unclaimed;
mod waiting;

use filing::{Filing, expire};

pub(crate) use cells::CellId;
pub(crate) use mailbox::Gone;
use mailbox::{Bounds, Closed, Mailbox, Slot};
pub use stats::EndpointStats;

/// Settings of an endpoint.
#[derive(Clone, Copy, Debug)]
pub struct EndpointConfig {
    /// How long a receive waits for its message before failing with
    /// [`ChoreoError::Timeout`] (30 s by default).
    pub recv_timeout: Duration,
    /// The most envelopes held that no receive has claimed (for sessions that have not
    /// started yet, or never will); beyond it the oldest are dropped and counted in
    /// [`EndpointStats::unclaimed_dropped`]. 10,000 by default.
    pub unclaimed_limit: usize,
    /// The most payload bytes held in unclaimed envelopes (64 MiB by default); beyond it
    /// the oldest are dropped.
    pub unclaimed_bytes: usize,
    /// How long an unclaimed envelope is kept (60 s by default): a receive claimed later
    /// than that waits for it in vain and times out.
    pub unclaimed_age: Duration,
    /// Test-only negative control: ignore integrity keys and bind messages from each
    /// sender in arrival order, as a FIFO-assuming receiver would. Never set it in real
    /// code; it exists to show that the chaos tests catch mis-bindings. Only with the
    /// `testing` feature (test hooks, not for production).
    #[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
    #[cfg(feature = "testing")]
    pub ignore_keys: bool,
}

impl Default for EndpointConfig {
    fn default() -> Self {
        Self {
            recv_timeout: Duration::from_secs(30),
            unclaimed_limit: 10_000,
            unclaimed_bytes: 64 << 20,
            unclaimed_age: Duration::from_secs(60),
            #[cfg(feature = "testing")]
            ignore_keys: false,
        }
    }
}

impl EndpointConfig {
    /// Whether the test hook `ignore_keys` is set (never without `testing`).
    fn ignores_keys(&self) -> bool {
        #[cfg(feature = "testing")]
        {
            self.ignore_keys
        }
        #[cfg(not(feature = "testing"))]
        {
            false
        }
    }

    fn bounds(&self) -> Bounds {
        Bounds {
            count: self.unclaimed_limit,
            bytes: self.unclaimed_bytes,
            age: self.unclaimed_age,
        }
    }
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
    pub(crate) config: EndpointConfig,
    observer: Option<Arc<dyn Observer>>,
    mailbox: Mutex<Mailbox>,
    last_error: Mutex<Option<String>>,
    /// Runs' shared states left clean by finished runs, for the next ones (at most
    /// [`SPARES`]).
    spares: Mutex<Vec<Spare>>,
}

/// The most finished runs' states an endpoint keeps for reuse.
const SPARES: usize = 4;

/// How a registered receive completes.
pub(crate) enum Pending {
    /// Its envelope had arrived from the sender it claimed: the payload.
    Ready(Vec<u8>),
    /// It waits at its slot, in this cell of the mailbox ([`Shared::wait`]).
    Wait(CellId),
    /// It cannot complete: the sender was lost (the transport's text) or nothing more
    /// arrives.
    Failed(Gone),
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
        label: impl FnOnce() -> String,
    ) {
        if let Some(observer) = &self.observer {
            observer.observe(&Event {
                kind,
                from: from.clone(),
                to: to.clone(),
                key: key.clone(),
                label: label(),
            });
        }
    }

    /// Whether an observer records this endpoint's events (labels are made only then).
    pub(crate) fn observes(&self) -> bool {
        self.observer.is_some()
    }

    /// The envelope of a send from this role to `to`, and what the observer's `Sent`
    /// event needs afterwards: copies of `to` and `key` made only when an observer
    /// records events (the envelope takes the originals). Both send paths build it here.
    pub(crate) fn envelope(
        &self,
        to: RoleName,
        key: Key,
        payload: Vec<u8>,
    ) -> (Envelope, Option<(RoleName, Key)>) {
        let seen = self.observer.is_some().then(|| (to.clone(), key.clone()));
        let envelope = Envelope {
            from: self.role.clone(),
            to,
            key,
            payload,
        };
        (envelope, seen)
    }

    /// Reports a completed send that [`Shared::envelope`] built, if an observer records it.
    pub(crate) fn sent(&self, seen: Option<(RoleName, Key)>, label: impl FnOnce() -> String) {
        if let Some((to, key)) = seen {
            self.observe(EventKind::Sent, &self.role, &to, &key, label);
        }
    }

    /// The error of a second send of `key` by this role, whose first send was at `first`.
    pub(crate) fn reused(&self, key: &Key, first: Site) -> ChoreoError {
        ChoreoError::KeyReused(Box::new(crate::error::KeyReused {
            role: self.role.clone(),
            key: key.clone(),
            first,
            second: key.site,
        }))
    }

    /// Claims `key` for a receive from `from` and returns how it will complete. An
    /// envelope that waited unclaimed longer than [`EndpointConfig::unclaimed_age`] is dropped
    /// first, so a receive claimed that late waits for it in vain, as documented. A
    /// receive that waits gets its deadline in the endpoint's queue (`waiting.rs`). The
    /// clock is read only for those two: while nothing is held unclaimed, a receive whose
    /// envelope is there reads none.
    pub(crate) fn claim_receive(&self, from: &RoleName, key: &Key) -> Result<Pending> {
        let mut mailbox = self.mailbox();
        let now = mailbox.holds_unclaimed().then(|| {
            let now = Instant::now();
            mailbox.expire(self.config.bounds(), now);
            now
        });
        if !self.config.ignores_keys() {
            return (mailbox.claim(from, key, now, self.config.recv_timeout))
                .ok_or_else(|| self.reused(key, key.site));
        }
        let now = now.unwrap_or_else(Instant::now);
        if mailbox.slot_mut(key).is_some() {
            return Err(self.reused(key, key.site));
        }
        if let Some(env) = mailbox
            .fifo_arrived
            .get_mut(from)
            .and_then(VecDeque::pop_front)
        {
            let slots = &mut mailbox.sessions.get_or_make(session_of(key)).slots;
            slots.insert_new(key.clone(), (from.clone(), Slot::Consumed));
            return Ok(Pending::Ready(env.payload));
        }
        if let Some(gone) = waiting::failure(&mailbox.lost, mailbox.closed, from) {
            return Ok(Pending::Failed(gone));
        }
        let waiting = mailbox.fifo_waiting.entry(from.clone()).or_default();
        waiting.push_back(key.clone());
        let cell = mailbox.wait_for(from, key, now, self.config.recv_timeout);
        Ok(Pending::Wait(cell))
    }

    /// Polls the cell of a receive that waits (by its index: nothing hashed); once it is
    /// ready the cell is taken.
    pub(crate) fn poll_cell(
        &self,
        cell: CellId,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::result::Result<Vec<u8>, Gone>> {
        self.mailbox().cells.poll(cell, cx)
    }

    /// Frees the cell of a receive dropped while it waits (a delivery for it is then
    /// dropped, as late).
    pub(crate) fn free_cell(&self, cell: CellId) {
        self.mailbox().cells.free(cell);
    }

    /// How many envelopes the mailbox has dropped unclaimed so far (for a time-out's
    /// error).
    pub(crate) fn unclaimed_dropped(&self) -> u64 {
        self.mailbox().stats.unclaimed_dropped
    }

    /// Files one incoming envelope: wakes the receive waiting for it, or keeps it
    /// unclaimed (bounded), or refuses it (late, duplicate, from a sender other than
    /// the one its receive claimed).
    #[inline]
    fn deliver(&self, env: Envelope) {
        let session = session_of(&env.key);
        let mut mailbox = self.mailbox();
        if session.is_some_and(|n| mailbox.numbers.is_finished(n)) {
            mailbox.stats.late_refused += 1;
            drop(mailbox);
            self.refused(&env);
            return;
        }
        if self.config.ignores_keys() {
            return mailbox.deliver_in_arrival_order(env);
        }
        if let Err(env) = mailbox.file(env, self.config.bounds()) {
            drop(mailbox);
            self.refused(&env);
        }
    }

    fn refused(&self, env: &Envelope) {
        self.observe(
            EventKind::DuplicateRefused,
            &env.from,
            &env.to,
            &env.key,
            String::new,
        );
    }

    /// Counts a transport error and keeps its text; a lost peer fails the receives
    /// waiting for it at once.
    fn transport_failed(&self, error: &TransportError) {
        let text = error.to_string();
        *self.last_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(text.clone());
        let mut mailbox = self.mailbox();
        mailbox.stats.transport_errors += 1;
        if matches!(error.cause, TransportCause::Lost(_)) {
            mailbox.lose(&error.peer, &text);
        }
    }

    /// The shared state for a new run: one a finished run left clean, or a fresh one.
    fn take_spare(&self) -> Spare {
        let mut spares = self.spares.lock().unwrap_or_else(|p| p.into_inner());
        spares.pop().unwrap_or_default()
    }

    /// Keeps a finished run's state for a later run, if nothing of that run is left in it.
    fn keep_spare(&self, mut spare: Spare) {
        if spare.is_clean() {
            let mut spares = self.spares.lock().unwrap_or_else(|p| p.into_inner());
            if spares.len() < SPARES {
                spares.push(spare);
            }
        }
    }

    /// Marks session `n` as started; a number runs at most once per endpoint.
    fn start_session(&self, n: u64) -> Result<()> {
        let mut mailbox = self.mailbox();
        // Its envelopes that arrived first are in its entry already.
        if mailbox.numbers.is_finished(n) || !mailbox.sessions.start(n) {
            return Err(ChoreoError::SessionReused(Box::new(
                crate::error::SessionReused {
                    role: self.role.clone(),
                    session: n,
                },
            )));
        }
        Ok(())
    }

    /// Forgets the keys of finished session `n`; its late messages will be refused.
    fn end_session(&self, n: u64) {
        self.mailbox().finish(n);
    }
}

/// `from` plus `wait`, or a year after `from` if that overflows (a configuration may say
/// `Duration::MAX`).
pub(crate) fn after(from: Instant, wait: Duration) -> Instant {
    from.checked_add(wait)
        .unwrap_or_else(|| from + Duration::from_secs(365 * 24 * 3600))
}

/// One role's side of a choreography: run choreographies with [`Endpoint::run`] and the
/// endpoint plays its role in them (the library projects at run time).
pub struct Endpoint {
    shared: Arc<Shared>,
    sessions: AtomicU64,
    janitor: AbortHandle,
}

impl Endpoint {
    /// An endpoint for `role` on `transport` with the default [`EndpointConfig`]. The transport
    /// files incoming messages into the endpoint's mailbox itself (it is attached to the
    /// endpoint's [`Inbox`] here), waking the receive that waits for each directly. The
    /// endpoint spawns one task, off that path, that drops unclaimed envelopes as they
    /// expire and times waiting receives out, so it must be created inside a tokio runtime
    /// ([`ChoreoError::NoRuntime`] otherwise) with timers enabled: on a runtime without
    /// them that task stops at once, and every receive that would wait fails with
    /// [`ChoreoError::NoTimer`] rather than wait for ever.
    pub fn new(transport: Arc<dyn Transport>, role: RoleName) -> Result<Self> {
        Self::with_config(transport, role, EndpointConfig::default(), None)
    }

    /// An endpoint with a configuration and an optional observer of communication events.
    pub fn with_config(
        transport: Arc<dyn Transport>,
        role: RoleName,
        config: EndpointConfig,
        observer: Option<Arc<dyn Observer>>,
    ) -> Result<Self> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| ChoreoError::NoRuntime)?;
        let shared = Arc::new(Shared {
            role,
            transport,
            config,
            observer,
            mailbox: Mutex::default(),
            last_error: Mutex::default(),
            spares: Mutex::default(),
        });
        let inbox = Inbox::new(Filing(Arc::downgrade(&shared)));
        shared.transport.attach(&shared.role, inbox)?;
        let janitor = runtime
            .spawn(expire(Arc::downgrade(&shared)))
            .abort_handle();
        Ok(Self {
            shared,
            sessions: AtomicU64::new(0),
            janitor,
        })
    }

    /// The role this endpoint plays.
    pub fn role(&self) -> &RoleName {
        &self.shared.role
    }

    /// What the endpoint has counted so far.
    pub fn stats(&self) -> EndpointStats {
        let mut mailbox = self.shared.mailbox();
        mailbox.expire(self.shared.config.bounds(), Instant::now());
        EndpointStats {
            keys_held: mailbox.sessions.held(),
            ..mailbox.stats
        }
    }

    /// The text of the last error the transport reported to this endpoint, if any.
    pub fn last_transport_error(&self) -> Option<String> {
        let last = self.shared.last_error.lock();
        last.unwrap_or_else(|p| p.into_inner()).clone()
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

    /// Runs a choreography as session number `n` (token [`Token::session`]`(n)`), in the
    /// caller's task: the body and its pending sends and forwards are polled by the
    /// returned future, and nothing is spawned for the session (to run sessions
    /// concurrently, poll several, e.g. in a `FuturesUnordered`, or spawn them).
    /// Completes when the body and every pending send and forward have completed; then
    /// the endpoint forgets the session's keys and refuses its late messages. A session
    /// number runs at most once per endpoint ([`ChoreoError::SessionReused`]).
    pub async fn run_session<Ch, X>(&self, n: u64, choreography: Ch) -> Result<X>
    where
        Ch: Choreography<X>,
    {
        if !Ch::Roles::contains(&self.shared.role) {
            return Err(ChoreoError::UnknownRole(Box::new(self.shared.role.clone())));
        }
        self.shared.start_session(n)?;
        // Ends the session when the run completes or is dropped half-way (its keys are
        // forgotten either way), after the body and its pending futures are gone.
        let _end = EndSession(&self.shared, n);
        let mut spare = self.shared.take_spare();
        let op: Op<Ch::Roles> = Op::root(Arc::clone(&self.shared), Token::session(n), &spare);
        let out = {
            // The body and its pending sends and forwards, polled here, in the caller's
            // task; the body is dropped at the end of this block.
            let body = std::pin::pin!(choreography.run(&op));
            op.drive(body, &mut spare.pending).await
        };
        drop(op);
        self.shared.keep_spare(spare);
        out
    }
}

/// Ends session `.1` when dropped.
struct EndSession<'a>(&'a Shared, u64);

impl Drop for EndSession<'_> {
    fn drop(&mut self) {
        self.0.end_session(self.1);
    }
}

impl Drop for Endpoint {
    /// Stops the endpoint's task, which times receives out: a receive still waiting (one
    /// kept beyond its session) fails as closed rather than waiting for ever.
    fn drop(&mut self) {
        self.shared.mailbox().close(Closed::Stream);
        self.janitor.abort();
    }
}
