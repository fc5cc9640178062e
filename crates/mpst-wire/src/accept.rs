//! Accepting peers: an [`Acceptor`] accepts connections concurrently, each with its own
//! handshake deadline, at most `max_pending_handshakes` being set up at once (beyond, the
//! oldest stranger is closed and logged to make room — a slow-loris stranger is always
//! the oldest, a real peer's handshake takes milliseconds — and never one that was sent
//! the handshake's final word, which is also never closed for its deadline); a
//! connection is handed out exactly when its final word was sent; `accept()` errors
//! (e.g. out of file descriptors) pause with exponential back-off. Every failed, slow,
//! idle or hostile connection is closed and
//! logged with its remote address and never fails the role: the role keeps accepting
//! until its expected peers have connected or its deadline passes, and (long-running)
//! afterwards, for late or restarted peers.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::error::{Attempt, Peer, Refusal, WireError, WireErrorKind};
use crate::node::Node;
use crate::pending::{Pending, Slot, finished};
use crate::stream::Connection;

/// The first pause after a failed `accept()`.
pub const FIRST_ACCEPT_PAUSE: Duration = Duration::from_millis(10);
/// The longest pause after failed `accept()`s in a row.
pub const MAX_ACCEPT_PAUSE: Duration = Duration::from_secs(1);
/// How many recent failures an acceptor remembers (for the error when a peer is missing).
const KEPT_FAILURES: usize = 8;

/// The pause after `pause` when `accept()` fails again: doubled, at most
/// [`MAX_ACCEPT_PAUSE`].
pub fn next_accept_pause(pause: Duration) -> Duration {
    pause.saturating_mul(2).min(MAX_ACCEPT_PAUSE)
}

/// The roles an acceptor admits, with how many connections each is expected to open.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expected {
    peers: BTreeMap<String, u32>,
    exclusive: bool,
}

impl Expected {
    /// Nobody yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Admits `role`, expecting `connections` connections from it.
    pub fn peer(mut self, role: impl Into<String>, connections: u32) -> Self {
        self.peers.insert(role.into(), connections);
        self
    }

    /// Refuses a role's connections beyond its expected number
    /// ([`Refusal::Duplicate`]); without this, later
    /// connections (a restarted peer) are admitted too and come out of
    /// [`Acceptor::next`].
    pub fn exclusive(mut self) -> Self {
        self.exclusive = true;
        self
    }

    /// The roles admitted.
    pub fn roles(&self) -> impl Iterator<Item = &str> {
        self.peers.keys().map(String::as_str)
    }

    /// How many connections are expected from `role` (`None`: not admitted).
    pub fn count(&self, role: &str) -> Option<u32> {
        self.peers.get(role).copied()
    }

    /// Whether connections beyond the expected number are refused.
    pub fn is_exclusive(&self) -> bool {
        self.exclusive
    }
}

/// What an acceptor has seen so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AcceptStats {
    /// Connections whose handshake succeeded: sent the final word and handed out.
    pub accepted: u64,
    /// Connections refused by the handshake (the peer was told why).
    pub refused: u64,
    /// Connections that failed otherwise (TLS, I/O, garbage, handshake time-out).
    pub failed: u64,
    /// Connections closed because `max_pending_handshakes` were being set up (the oldest
    /// is closed to make room), or because as many accepted connections were waiting to
    /// be taken (closed before the final word: the dialler retries).
    pub over_cap: u64,
    /// `accept()` calls that failed (each followed by a pause).
    pub accept_errors: u64,
}

#[derive(Default)]
pub(crate) struct Shared {
    /// Updated after the event is logged, so a watcher sees the log line already written.
    stats: watch::Sender<AcceptStats>,
    recent: Mutex<VecDeque<Attempt>>,
    /// Connections admitted per role (for exclusive expectations).
    pub(crate) admitted: Mutex<HashMap<String, u32>>,
    /// The first peer that proved its role and was refused by the application: waiting
    /// longer for that role cannot help (see [`Acceptor::wait_for`]).
    decisive: watch::Sender<Option<(String, Refusal)>>,
}

impl Shared {
    fn remember(&self, address: SocketAddr, error: &WireError) {
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        if recent.len() == KEPT_FAILURES {
            recent.pop_front();
        }
        recent.push_back(Attempt {
            target: address.to_string(),
            error: error.to_string(),
        });
    }

    /// Logs a failed or refused connection, then counts it (before its socket closes).
    pub(crate) fn failed(&self, role: &str, address: SocketAddr, error: &WireError) {
        let refused = matches!(error.kind, WireErrorKind::Refusing(_));
        tracing::warn!(role, remote = %address, %error, "connection closed");
        self.remember(address, error);
        if let (Peer::Authenticated(role), WireErrorKind::Refusing(refusal)) =
            (&error.peer, &error.kind)
        {
            if matches!(refusal, Refusal::Application(_)) {
                self.decisive.send_if_modified(|first| {
                    let unset = first.is_none();
                    if unset {
                        *first = Some((role.clone(), refusal.clone()));
                    }
                    unset
                });
            }
        }
        self.stats.send_modify(|s| {
            if refused {
                s.refused += 1;
            } else {
                s.failed += 1;
            }
        });
    }

    pub(crate) fn count(&self, update: impl FnOnce(&mut AcceptStats)) {
        self.stats.send_modify(update);
    }
}

/// Accepts peers on a listener in a background task (see the module docs). Take
/// authenticated connections with [`Acceptor::wait_for`] (until the expected peers are
/// there) or [`Acceptor::next`] (one at a time, for as long as it runs). Dropping it stops
/// accepting and closes connections not taken yet.
pub struct Acceptor {
    local: SocketAddr,
    expected: Expected,
    rx: mpsc::Receiver<Connection>,
    /// Connections received while waiting for others, not yet handed out.
    held: VecDeque<Connection>,
    task: JoinHandle<()>,
    shared: Arc<Shared>,
    role: String,
}

impl std::fmt::Debug for Acceptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Acceptor")
            .field("local", &self.local)
            .field("role", &self.role)
            .field("expected", &self.expected)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl Drop for Acceptor {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Acceptor {
    /// Starts accepting on `listener` for `node`, admitting the roles of `expected`.
    pub fn start(
        node: &Node,
        listener: TcpListener,
        expected: Expected,
    ) -> Result<Self, WireError> {
        let local = listener.local_addr().map_err(|e| {
            WireError::new(Peer::Local(node.role().to_owned()), WireErrorKind::Io(e))
        })?;
        let pending = node.config().get_max_pending_handshakes();
        let (tx, rx) = mpsc::channel(pending);
        let shared = Arc::new(Shared::default());
        let task = tokio::spawn(accept_loop(
            listener,
            node.clone(),
            Arc::new(expected.clone()),
            tx,
            shared.clone(),
        ));
        Ok(Self {
            local,
            expected,
            rx,
            held: VecDeque::new(),
            task,
            shared,
            role: node.role().to_owned(),
        })
    }

    /// The address listened on (with the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// What was expected.
    pub fn expected(&self) -> &Expected {
        &self.expected
    }

    /// Counts of what the acceptor has seen.
    pub fn stats(&self) -> AcceptStats {
        *self.shared.stats.borrow()
    }

    /// The counts as they change: each event is logged before it is counted, e.g. to
    /// wait until a stranger's connection has been dealt with. Copy the counts out
    /// (`*receiver.borrow()`) rather than holding the borrow: the acceptor cannot count
    /// while it is held.
    pub fn watch_stats(&self) -> watch::Receiver<AcceptStats> {
        self.shared.stats.subscribe()
    }

    /// The last failed or refused connections (address and error), oldest first.
    pub fn recent_failures(&self) -> Vec<Attempt> {
        let recent = self.shared.recent.lock().unwrap_or_else(|p| p.into_inner());
        recent.iter().cloned().collect()
    }

    /// The next authenticated connection, for as long as the acceptor runs (`None` only
    /// if its task ended).
    pub async fn next(&mut self) -> Option<Connection> {
        if let Some(connection) = self.held.pop_front() {
            return Some(connection);
        }
        self.rx.recv().await
    }

    /// Waits until every role of `wanted` has opened its number of connections, or
    /// `deadline` passes (`None`: no deadline). Returns those connections; others that
    /// arrive meanwhile stay for [`Acceptor::next`]. On time-out, the error names the
    /// first missing role and the last failed connections (strangers included, by
    /// address). A missing role that proved itself (mutual TLS) and was refused by the
    /// node's [`Application`](crate::Application) check ends the wait at once with that
    /// refusal, naming the role: it is the real peer, and waiting cannot help.
    pub async fn wait_for(
        &mut self,
        wanted: &Expected,
        deadline: Option<Instant>,
    ) -> Result<Vec<Connection>, WireError> {
        let mut missing: BTreeMap<&str, u32> = wanted
            .peers
            .iter()
            .filter(|&(_, &n)| n > 0)
            .map(|(r, &n)| (r.as_str(), n))
            .collect();
        let mut got = Vec::new();
        let mut kept = VecDeque::new();
        let mut take = |connection: Connection, missing: &mut BTreeMap<&str, u32>| match missing
            .get_mut(connection.peer_role())
        {
            Some(n) => {
                *n -= 1;
                if *n == 0 {
                    missing.remove(connection.peer_role());
                }
                got.push(connection);
            }
            None => kept.push_back(connection),
        };
        for connection in std::mem::take(&mut self.held) {
            take(connection, &mut missing);
        }
        let mut decisive = self.shared.decisive.subscribe();
        let mut refused = None;
        while !missing.is_empty() {
            let waiting: Vec<String> = missing.keys().map(|r| (*r).to_owned()).collect();
            let refusal = decisive.wait_for(|first| {
                first
                    .as_ref()
                    .is_some_and(|(role, _)| waiting.contains(role))
            });
            let next = async {
                tokio::select! {
                    connection = self.rx.recv() => Ok(connection),
                    first = refusal => Err(first.ok().and_then(|first| first.clone())),
                }
            };
            match crate::dial::until(deadline, next).await {
                Some(Ok(Some(connection))) => take(connection, &mut missing),
                Some(Err(first)) => {
                    refused = first;
                    break;
                }
                Some(Ok(None)) | None => break,
            }
        }
        self.held.extend(kept);
        if let Some((role, refusal)) = refused {
            return Err(WireError::new(
                Peer::Authenticated(role),
                WireErrorKind::Refusing(refusal),
            ));
        }
        if let Some((&role, _)) = missing.iter().next() {
            return Err(WireError::new(
                Peer::Expected(role.to_owned()),
                WireErrorKind::NotConnected {
                    address: self.local.to_string(),
                    attempts: 0,
                    errors: self.recent_failures(),
                },
            ));
        }
        Ok(got)
    }
}

async fn accept_loop(
    listener: TcpListener,
    node: Node,
    expected: Arc<Expected>,
    tx: mpsc::Sender<Connection>,
    shared: Arc<Shared>,
) {
    let cap = node.config().get_max_pending_handshakes();
    let pending = Arc::new(Mutex::new(Pending::default()));
    let mut pause = FIRST_ACCEPT_PAUSE;
    loop {
        match listener.accept().await {
            Ok((tcp, remote)) => {
                pause = FIRST_ACCEPT_PAUSE;
                let mut registry = pending.lock().unwrap_or_else(|p| p.into_inner());
                while registry.running.len() >= cap {
                    let Some((oldest, task, vouched)) = registry.victim() else {
                        break;
                    };
                    if vouched {
                        tracing::warn!(
                            role = node.role(),
                            remote = %oldest,
                            "closed before its final word: the oldest of {cap} connections being set up (all past their checks), to make room for {remote}; its dialler retries"
                        );
                    } else {
                        tracing::warn!(
                            role = node.role(),
                            remote = %oldest,
                            "closed: the oldest of {cap} connections being set up, to make room for {remote}"
                        );
                    }
                    shared.count(|s| s.over_cap += 1);
                    task.abort();
                }
                let id = registry.next_id;
                registry.next_id += 1;
                let vouched = Arc::new(AtomicBool::new(false));
                let slot = Slot {
                    pending: pending.clone(),
                    id,
                    vouched: vouched.clone(),
                    tx: tx.clone(),
                };
                let (node, expected, shared, done) = (
                    node.clone(),
                    expected.clone(),
                    shared.clone(),
                    pending.clone(),
                );
                let task = tokio::spawn(async move {
                    // Everything is logged and counted inside, before the socket closes
                    // or the connection is handed out.
                    crate::admit::admit(&node, &expected, &shared, tcp, remote, &slot).await;
                    finished(&done, id);
                });
                registry
                    .running
                    .push_back((id, remote, task.abort_handle(), vouched));
            }
            Err(error) => {
                tracing::warn!(role = node.role(), %error, ?pause, "accept failed; pausing");
                shared.count(|s| s.accept_errors += 1);
                tokio::time::sleep(pause).await;
                pause = next_accept_pause(pause);
            }
        }
    }
}
