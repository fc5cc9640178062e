//! Where the roles of one impaired run live: one `mpst-testbed` host per role, a tokio
//! runtime whose threads are inside that host, and the addresses its peers' host names
//! resolve to there (the relay's fronts of their links). [`Placement::install`] makes it
//! the placement of [`Net::Hosts`](crate::drive::Net::Hosts) until its guard drops.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
use mpst_choreo::{RoleName, Transport};
use mpst_testbed::TestBed;
use tokio::net::TcpListener;
use tokio::runtime::{Handle, Runtime};

/// The TCP port every role listens on in its host (relayed on every link).
pub const PORT: u16 = 7400;

/// The host of `role`: its name in lower case (a DNS label).
pub fn host_of(role: &str) -> String {
    role.to_ascii_lowercase()
}

/// A bed for `roles`, one host each, every pair linked (no impairment yet: set it per
/// run with [`set_delay`]), [`PORT`] relayed.
pub fn bed(roles: &[RoleName], seed: u64) -> mpst_testbed::Result<TestBed> {
    let mut builder = TestBed::builder();
    for role in roles {
        builder = builder.host(&host_of(role.as_str()));
    }
    builder
        .full_mesh(mpst_testbed::Impairment::none())
        .tcp_port(PORT)
        .seed(seed)
        .build()
}

/// How long a run's placement waits before its first request is due: connections
/// through the relay take a few round trips of up to 2 × 22 ms.
pub const HEAD: Duration = Duration::from_millis(1500);

/// Sets every link of `bed` to `delay` one way with `± jitter` (seeded by the bed), the
/// jitter drawn per chunk, or per slot of the links' directions when `slots` is given
/// ([`mpst_testbed::Slots`]).
pub fn set_delay(
    bed: &TestBed,
    roles: &[RoleName],
    delay: Duration,
    jitter: Duration,
    slots: Option<mpst_testbed::Slots>,
) {
    let mut impairment = mpst_testbed::Impairment::none().delay(delay).jitter(jitter);
    impairment.slots = slots;
    for (i, a) in roles.iter().enumerate() {
        for b in &roles[i + 1..] {
            bed.link(&host_of(a.as_str()), &host_of(b.as_str()))
                .set_impairment(impairment.clone());
        }
    }
}

/// One role in its host.
struct Placed {
    role: RoleName,
    host: Handle,
    /// Every other role and where this host reaches it.
    peers: Vec<(RoleName, SocketAddr)>,
}

/// The roles of one run, each on a runtime inside its host.
pub struct Placement {
    roles: Vec<Placed>,
    /// When the run's first request is due.
    start: tokio::time::Instant,
    /// The hosts' runtimes, owned by the [`Installed`] guard once installed.
    runtimes: Vec<Runtime>,
}

static CURRENT: Mutex<Option<Arc<Placement>>> = Mutex::new(None);

impl Placement {
    /// Places every role of `roles` on its host of `bed` (a fresh runtime with
    /// `workers` threads each, so nothing of an earlier run is left running).
    pub fn new(bed: &TestBed, roles: &[RoleName], workers: usize) -> mpst_testbed::Result<Self> {
        let (mut placed, mut runtimes) = (Vec::new(), Vec::new());
        for role in roles {
            let host = bed.host(&host_of(role.as_str()));
            let peers = roles
                .iter()
                .filter(|r| *r != role)
                .map(|r| {
                    let name = host_of(r.as_str());
                    let addr = host.resolve(&name).ok_or_else(|| {
                        mpst_testbed::Error::Config(format!(
                            "{} cannot resolve {name}",
                            host.name()
                        ))
                    })?;
                    Ok((r.clone(), SocketAddr::from((addr, PORT))))
                })
                .collect::<mpst_testbed::Result<Vec<_>>>()?;
            let runtime = host.runtime(workers)?;
            placed.push(Placed {
                role: role.clone(),
                host: runtime.handle().clone(),
                peers,
            });
            runtimes.push(runtime);
        }
        Ok(Placement {
            start: tokio::time::Instant::now() + HEAD,
            roles: placed,
            runtimes,
        })
    }

    /// Makes this the placement of [`Net::Hosts`](crate::drive::Net::Hosts) runs until
    /// the guard drops (which shuts the hosts' runtimes down). There is one placement
    /// per process: impaired runs happen one at a time, like every run of the
    /// evaluation (a second install replaces the first).
    pub fn install(mut self) -> Installed {
        let runtimes = std::mem::take(&mut self.runtimes);
        *CURRENT.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(self));
        Installed(runtimes)
    }

    /// The installed placement; panics when there is none (a `Net::Hosts` run outside
    /// [`crate::impaired`]).
    pub(crate) fn current() -> Arc<Placement> {
        let current = CURRENT.lock().unwrap_or_else(|p| p.into_inner());
        current
            .clone()
            .expect("a Net::Hosts run needs an installed impaired::hosts::Placement")
    }

    /// When the run's first request is due ([`HEAD`] after the placement was made).
    pub fn start(&self) -> tokio::time::Instant {
        self.start
    }

    fn placed(&self, role: &str) -> &Placed {
        self.roles
            .iter()
            .find(|p| p.role.as_str() == role)
            .unwrap_or_else(|| panic!("role {role} has no host in this placement"))
    }

    /// The runtime (inside its host) of `role`.
    pub fn handle(&self, role: &str) -> Handle {
        self.placed(role).host.clone()
    }

    /// Where `role`'s host reaches `peer`.
    pub fn peer(&self, role: &str, peer: &str) -> SocketAddr {
        let placed = self.placed(role);
        placed
            .peers
            .iter()
            .find(|(r, _)| r.as_str() == peer)
            .map(|&(_, a)| a)
            .unwrap_or_else(|| panic!("{role} has no link to {peer}"))
    }

    /// Binds [`PORT`] in every role's host (so that every peer's dial finds a
    /// listener); each listener belongs to its host's runtime.
    pub async fn listeners(&self) -> Vec<(RoleName, TcpListener)> {
        let binds = self.roles.iter().map(|p| {
            let role = p.role.clone();
            let bound = p.host.spawn(async move {
                TcpListener::bind(("0.0.0.0", PORT))
                    .await
                    .unwrap_or_else(|e| panic!("{role}: binding port {PORT} in its host: {e}"))
            });
            async move { (p.role.clone(), bound.await.expect("the bind task")) }
        });
        futures::future::join_all(binds).await
    }
}

/// Keeps a [`Placement`] installed; dropping it uninstalls it and shuts its runtimes
/// down (waiting up to 2 s each, so the next run can bind the port again).
pub struct Installed(Vec<Runtime>);

impl Drop for Installed {
    fn drop(&mut self) {
        CURRENT.lock().unwrap_or_else(|p| p.into_inner()).take();
        for runtime in self.0.drain(..) {
            runtime.shutdown_timeout(Duration::from_secs(2));
        }
    }
}

/// Every role's `mpst-choreo` TCP transport, made in its host and connected to its
/// peers through the relay (plaintext by the explicit opt-in, as the loopback runs:
/// the evaluation measures choreographies, not TLS), one lane to each peer: one
/// connection per direction of a pair, as the actors' links. (With two, as on
/// loopback, the relay carried the key and the text to `c` in separate chunks, which
/// woke the relay and `c` more often a session, with no overtaking to gain: the bed's
/// jitter is shared by every connection of a link.)
pub(crate) async fn transports(
    names: &[RoleName],
) -> Vec<(RoleName, Arc<dyn Transport>, Option<Handle>)> {
    let placement = Placement::current();
    let config = TcpConfig {
        connections_per_peer: 1,
        ..TcpConfig::insecure_plaintext()
    };
    let listeners = placement.listeners().await;
    let starts = listeners.into_iter().map(|(name, listener)| {
        let peers: Vec<(RoleName, SocketAddr)> = names
            .iter()
            .filter(|n| **n != name)
            .map(|n| (n.clone(), placement.peer(name.as_str(), n.as_str())))
            .collect();
        let (config, host) = (config.clone(), placement.handle(name.as_str()));
        let role = name.clone();
        let started = host.spawn(async move {
            let t = TcpTransport::start(role.clone(), listener, peers, config).await;
            t.unwrap_or_else(|e| panic!("{role}: connecting through the relay: {e}"))
        });
        async move {
            let t = started.await.expect("the connect task");
            (name, Arc::new(t) as Arc<dyn Transport>, Some(host))
        }
    });
    futures::future::join_all(starts).await
}
