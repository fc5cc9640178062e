//! The userspace impairment relay: one thread inside the bed's router namespace runs a
//! current-thread tokio runtime with a TCP proxy and a UDP datagram relay for every
//! link and port; the test controls each link through a shared [`LinkShared`].
//!
//! Addressing: for a link between hosts `a` and `b`, host `a` reaches `b` at a *front*
//! address of the router that exists only for that direction; the relay listens there,
//! and dials `b`'s real address from `b`'s front address of the link, so `b` sees the
//! peer address that `a`'s host name resolves to on `b` (for UDP with the same port). Hosts have no route to each
//! other's real addresses and the router does not forward, so nothing bypasses the relay.

mod tcp;
mod timer;
mod udp;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::sync::{oneshot, watch};
use tokio::time::Instant;

use crate::error::{Error, Result};
use crate::impair::Impairment;

/// The shared state of one link, between the test (which changes it) and the relay.
#[derive(Debug)]
pub(crate) struct LinkShared {
    /// The link's position in the bed (part of every stream seed).
    pub(crate) index: u64,
    /// The current impairment; streams pick up changes as they go.
    pub(crate) impairment: watch::Sender<Impairment>,
    /// Whether the link is cut.
    pub(crate) partitioned: watch::Sender<bool>,
    /// Bumped to reset every open TCP connection.
    pub(crate) resets_requested: watch::Sender<u64>,
    /// When each direction's wire is free again (bandwidth limit).
    free_at: [Mutex<Option<Instant>>; 2],
    pub(crate) counters: Counters,
}

/// Counters of one link; direction 0 goes from the link's first host to its second.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) connections: AtomicU64,
    pub(crate) resets: AtomicU64,
    pub(crate) dir: [DirCounters; 2],
}

/// Counters of one direction of a link.
#[derive(Debug, Default)]
pub(crate) struct DirCounters {
    pub(crate) bytes: AtomicU64,
    pub(crate) chunks: AtomicU64,
    pub(crate) stalled: AtomicU64,
    pub(crate) datagrams: AtomicU64,
    pub(crate) dropped: AtomicU64,
    pub(crate) duplicated: AtomicU64,
    pub(crate) delivered: AtomicU64,
}

/// Adds one to a counter.
pub(crate) fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

impl LinkShared {
    pub(crate) fn new(index: u64, impairment: Impairment) -> Self {
        LinkShared {
            index,
            impairment: watch::Sender::new(impairment),
            partitioned: watch::Sender::new(false),
            resets_requested: watch::Sender::new(0),
            free_at: [Mutex::new(None), Mutex::new(None)],
            counters: Counters::default(),
        }
    }

    /// Whether the link is cut now.
    pub(crate) fn is_partitioned(&self) -> bool {
        *self.partitioned.borrow()
    }

    /// Waits until the link is not cut.
    pub(crate) async fn wait_up(&self) {
        let mut rx = self.partitioned.subscribe();
        // The sender lives as long as `self`, so this cannot fail.
        let _ = rx.wait_for(|cut| !*cut).await;
    }

    /// When `len` bytes arriving now in direction `dir` have crossed the wire, under
    /// the bandwidth limit (now, without one).
    pub(crate) fn serialize(&self, dir: usize, len: usize) -> Instant {
        let now = Instant::now();
        let Some(rate) = self.impairment.borrow().bandwidth else {
            return now;
        };
        let mut free = self.free_at[dir].lock().unwrap_or_else(|p| p.into_inner());
        let start = free.map_or(now, |f| f.max(now));
        let done = start + Duration::from_secs_f64(len as f64 / rate as f64);
        *free = Some(done);
        done
    }
}

/// One link as the relay serves it.
#[derive(Debug, Clone)]
pub(crate) struct LinkPlan {
    pub(crate) shared: Arc<LinkShared>,
    /// For each end (0, 1): the front address at which that end reaches the other.
    pub(crate) front: [Ipv4Addr; 2],
    /// For each end: its real address.
    pub(crate) real: [Ipv4Addr; 2],
    pub(crate) tcp_ports: Vec<u16>,
    pub(crate) udp_ports: Vec<u16>,
    /// How long a TCP dial to a host that does not listen yet is retried.
    pub(crate) dial_patience: Duration,
}

impl LinkPlan {
    /// Where traffic entering at end `side`'s front goes, and from which source address.
    fn route(&self, side: usize, port: u16) -> (SocketAddr, Ipv4Addr) {
        let other = 1 - side;
        (
            SocketAddr::from((self.real[other], port)),
            self.front[other],
        )
    }
}

/// The running relay; dropping it stops its thread and closes every socket.
#[derive(Debug)]
pub(crate) struct Relay {
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Relay {
    /// Starts the relay thread inside `router_ns` and binds every front socket before
    /// returning (so hosts can dial as soon as the bed is built).
    pub(crate) fn start(router_ns: &str, links: Vec<LinkPlan>, seed: u64) -> Result<Relay> {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<()>>();
        let (stop, stop_rx) = oneshot::channel::<()>();
        let ns = router_ns.to_string();
        let thread = std::thread::Builder::new()
            .name("mpst-testbed-relay".into())
            .spawn(move || {
                let runtime = crate::ns::enter(&ns).and_then(|()| {
                    disable_forwarding();
                    tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .map_err(|e| Error::io("building the relay's runtime", e))
                });
                let runtime = match runtime {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                runtime.block_on(async move {
                    match bind_all(&links, seed).await {
                        Ok(()) => {
                            let _ = ready_tx.send(Ok(()));
                            let _ = stop_rx.await;
                        }
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                        }
                    }
                });
                // Dropping the runtime cancels every task and closes every socket.
            })
            .map_err(|e| Error::io("starting the relay thread", e))?;
        let mut relay = Relay {
            stop: Some(stop),
            thread: Some(thread),
        };
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(relay),
            Ok(Err(e)) => Err(e),
            Err(_) => {
                relay.stop();
                Err(Error::Config(
                    "the relay thread ended before binding".into(),
                ))
            }
        }
    }

    fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Makes sure the router never forwards packets itself (a new namespace may inherit
/// forwarding from the root namespace); only the relay carries traffic across it.
fn disable_forwarding() {
    // /proc/sys/net shows the namespace of the opening thread, which is the router's.
    let _ = std::fs::write("/proc/sys/net/ipv4/ip_forward", "0");
}

/// Binds every front socket of every link and spawns their tasks.
async fn bind_all(links: &[LinkPlan], seed: u64) -> Result<()> {
    for link in links {
        for side in 0..2 {
            for &port in &link.tcp_ports {
                let at = SocketAddr::from((link.front[side], port));
                let listener = tokio::net::TcpListener::bind(at)
                    .await
                    .map_err(|e| Error::io(format!("relay binding TCP {at}"), e))?;
                let (target, source) = link.route(side, port);
                let route = tcp::Route {
                    link: link.shared.clone(),
                    side,
                    target,
                    source,
                    patience: link.dial_patience,
                };
                tokio::spawn(tcp::accept(listener, route, seed));
            }
        }
        let udp = udp::UdpLink::new(link.shared.clone(), link.front, link.real, seed);
        for side in 0..2 {
            for &port in &link.udp_ports {
                udp.socket(side, port).map_err(|e| {
                    Error::io(format!("relay binding UDP {}:{port}", link.front[side]), e)
                })?;
            }
        }
    }
    Ok(())
}
