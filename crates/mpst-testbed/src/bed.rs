//! Building a test bed ([`Builder`]) and owning it ([`TestBed`]): one network namespace
//! per host, a router namespace in the middle running the impairment relay, host names
//! in each host's `/etc/netns/<ns>/hosts`, everything removed on drop.

use std::collections::HashSet;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::handle::{Host, Link};
use crate::impair::Impairment;
use crate::ns::{self, Namespace, PREFIX};
use crate::relay::{LinkPlan, LinkShared, Relay};

/// At most this many hosts in one bed (one address octet each).
pub const MAX_HOSTS: usize = 200;

/// How long the relay retries dialling a host that does not listen yet, by default.
pub const DEFAULT_DIAL_PATIENCE: Duration = Duration::from_secs(3);

/// Beds built by this process so far (part of every namespace name).
static BEDS: AtomicU32 = AtomicU32::new(0);
/// `ip netns` set-up is serialised within a process (the first `ip netns add` mounts
/// `/run/netns`, which races).
static SETUP: Mutex<()> = Mutex::new(());
/// Stale namespaces of crashed runs are removed once per process.
static CLEAN: Once = Once::new();

/// Holds the process's namespace set-up lock.
pub(crate) fn setup_lock() -> std::sync::MutexGuard<'static, ()> {
    SETUP.lock().unwrap_or_else(|p| p.into_inner())
}

/// Describes a test bed: its hosts, the links between them, the ports the relay
/// serves and the seed of every impairment decision.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    hosts: Vec<String>,
    links: Vec<(String, String, Impairment)>,
    tcp_ports: Vec<u16>,
    udp_ports: Vec<u16>,
    seed: u64,
    dial_patience: Option<Duration>,
}

impl Builder {
    /// Adds a host named `name` (a DNS label: lowercase letters, digits and inner `-`,
    /// at most 32 characters).
    pub fn host(mut self, name: &str) -> Self {
        self.hosts.push(name.to_string());
        self
    }

    /// Links hosts `a` and `b` through the relay with `impairment` (both directions).
    pub fn link(mut self, a: &str, b: &str, impairment: Impairment) -> Self {
        self.links.push((a.to_string(), b.to_string(), impairment));
        self
    }

    /// Links every pair of hosts not linked yet with `impairment`.
    pub fn full_mesh(mut self, impairment: Impairment) -> Self {
        for (i, a) in self.hosts.iter().enumerate() {
            for b in &self.hosts[i + 1..] {
                let linked = self
                    .links
                    .iter()
                    .any(|(x, y, _)| (x == a && y == b) || (x == b && y == a));
                if !linked {
                    self.links.push((a.clone(), b.clone(), impairment.clone()));
                }
            }
        }
        self
    }

    /// Relays TCP connections to `port` on every link (a role listening on `port` is
    /// reachable by its host name there).
    pub fn tcp_port(mut self, port: u16) -> Self {
        if !self.tcp_ports.contains(&port) {
            self.tcp_ports.push(port);
        }
        self
    }

    /// Relays UDP datagrams to `port` on every link.
    pub fn udp_port(mut self, port: u16) -> Self {
        if !self.udp_ports.contains(&port) {
            self.udp_ports.push(port);
        }
        self
    }

    /// How long the relay retries dialling a host that does not listen (yet) on a
    /// relayed TCP port before it resets the connection (default
    /// [`DEFAULT_DIAL_PATIENCE`]). A role's `connect` succeeds against the relay at once,
    /// so roles started together need not start in order; zero resets at once.
    pub fn dial_patience(mut self, patience: Duration) -> Self {
        self.dial_patience = Some(patience);
        self
    }

    /// Seeds every impairment decision (default 0).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Builds the bed: namespaces, veth pairs, addresses, host names and the relay.
    /// [`Error::Unavailable`] when this machine cannot (not root, no `ip`).
    pub fn build(self) -> Result<TestBed> {
        self.validate()?;
        ns::check_available()?;
        let _serial = setup_lock();
        CLEAN.call_once(|| {
            let _ = ns::clean_stale();
        });
        let bed = BEDS.fetch_add(1, Ordering::Relaxed);
        let stem = format!("{PREFIX}{}-{bed}", std::process::id());
        let mut namespaces = Vec::new();
        let router = Namespace::create(&format!("{stem}-router"), LOCALHOST)?;
        let router_name = router.name().to_string();
        namespaces.push(router);
        let index = |name: &str| {
            self.hosts
                .iter()
                .position(|h| h == name)
                .expect("validated")
        };
        let pairs: Vec<(usize, usize)> = self
            .links
            .iter()
            .map(|(a, b, _)| (index(a), index(b)))
            .collect();
        let mut hosts = Vec::new();
        let mut router_batch = String::from("link set lo up\n");
        for (i, name) in self.hosts.iter().enumerate() {
            // The hosts linked to host i.
            let peers: Vec<usize> = pairs
                .iter()
                .filter(|&&(a, b)| a == i || b == i)
                .map(|&(a, b)| a + b - i)
                .collect();
            let mut hosts_file = format!("{LOCALHOST}{} {name}\n", real(i));
            for &j in &peers {
                hosts_file += &format!("{} {}\n", front(i, j), self.hosts[j]);
            }
            let host_ns = Namespace::create(&format!("{stem}-h-{name}"), &hosts_file)?;
            let n = i + 1;
            router_batch += &format!(
                "link add h{i} type veth peer name eth0 netns {host}\n\
                 addr add 198.18.{n}.1/24 dev h{i}\n\
                 link set h{i} up\n",
                host = host_ns.name()
            );
            for &j in &peers {
                router_batch += &format!("addr add {}/32 dev lo\n", front(i, j));
            }
            hosts.push(HostInfo {
                name: name.clone(),
                namespace: host_ns.name().to_string(),
                address: real(i),
                peers: peers
                    .iter()
                    .map(|&j| (self.hosts[j].clone(), front(i, j)))
                    .collect(),
            });
            namespaces.push(host_ns);
        }
        ns::batch(&router_name, &router_batch)?;
        for (i, host) in hosts.iter().enumerate() {
            let n = i + 1;
            ns::batch(
                &host.namespace,
                &format!(
                    "link set lo up\n\
                     addr add {}/24 dev eth0\n\
                     link set eth0 up\n\
                     route add 198.19.{n}.0/24 via 198.18.{n}.1\n",
                    real(i)
                ),
            )?;
        }
        let links: Vec<LinkInfo> = self
            .links
            .iter()
            .zip(&pairs)
            .enumerate()
            .map(|(k, ((_, _, imp), &(a, b)))| LinkInfo {
                ends: [a, b],
                plan: LinkPlan {
                    shared: Arc::new(LinkShared::new(k as u64, imp.clone())),
                    front: [front(a, b), front(b, a)],
                    real: [real(a), real(b)],
                    tcp_ports: self.tcp_ports.clone(),
                    udp_ports: self.udp_ports.clone(),
                    dial_patience: self.dial_patience.unwrap_or(DEFAULT_DIAL_PATIENCE),
                },
            })
            .collect();
        let relay = Relay::start(
            &router_name,
            links.iter().map(|l| l.plan.clone()).collect(),
            self.seed,
        )?;
        let dir = tempfile::Builder::new()
            .prefix(&format!("{stem}-"))
            .tempdir()
            .map_err(|e| Error::io("creating the bed's directory", e))?;
        ns::mark_dir(dir.path())?;
        Ok(TestBed {
            relay: Some(relay),
            namespaces,
            dir,
            hosts,
            links,
            seed: self.seed,
            files: AtomicU32::new(0),
        })
    }

    /// Builds the bed, or, when this machine cannot host one, prints
    /// `SKIPPED <test>: <why>` and returns `None` — unless the environment variable `CI`
    /// is set, where it panics instead. Any other failure panics.
    pub fn build_or_skip(self, test: &str) -> Option<TestBed> {
        match self.build() {
            Ok(bed) => Some(bed),
            Err(e @ Error::Unavailable(_)) => {
                crate::skip_or_fail(test, &e);
                None
            }
            Err(e) => panic!("{test}: building the test bed: {e}"),
        }
    }

    fn validate(&self) -> Result<()> {
        if self.hosts.is_empty() || self.hosts.len() > MAX_HOSTS {
            return Err(Error::Config(format!(
                "a bed has 1 to {MAX_HOSTS} hosts, this one {}",
                self.hosts.len()
            )));
        }
        let mut seen = HashSet::new();
        for h in &self.hosts {
            let label_ok = !h.is_empty()
                && h.len() <= 32
                && h.bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
                && !h.starts_with('-')
                && !h.ends_with('-');
            if !label_ok || h == "localhost" {
                return Err(Error::Config(format!(
                    "host name {h:?}: expected a DNS label (a-z, 0-9, inner '-', at most 32 \
                     characters) other than localhost"
                )));
            }
            if !seen.insert(h) {
                return Err(Error::Config(format!("host {h:?} is declared twice")));
            }
        }
        if self.tcp_ports.contains(&0) || self.udp_ports.contains(&0) {
            return Err(Error::Config(
                "port 0 cannot be relayed: declare the ports roles listen on".into(),
            ));
        }
        let mut linked = HashSet::new();
        for (a, b, _) in &self.links {
            for end in [a, b] {
                if !seen.contains(end) {
                    return Err(Error::Config(format!(
                        "link {a:?}-{b:?}: no host named {end:?}"
                    )));
                }
            }
            if a == b {
                return Err(Error::Config(format!(
                    "link {a:?}-{b:?} joins a host to itself"
                )));
            }
            if !linked.insert((a.min(b), a.max(b))) {
                return Err(Error::Config(format!("link {a:?}-{b:?} is declared twice")));
            }
        }
        Ok(())
    }
}

const LOCALHOST: &str = "127.0.0.1 localhost\n::1 localhost\n";

/// Host `i`'s real address (on its veth to the router).
fn real(i: usize) -> Ipv4Addr {
    Ipv4Addr::new(198, 18, i as u8 + 1, 2)
}

/// The router address at which host `from` reaches host `to` (one per direction of a
/// link, so the relay knows the link and direction from the address alone).
fn front(from: usize, to: usize) -> Ipv4Addr {
    Ipv4Addr::new(198, 19, from as u8 + 1, to as u8 + 1)
}

/// What the bed knows of one host.
#[derive(Debug)]
pub(crate) struct HostInfo {
    pub(crate) name: String,
    pub(crate) namespace: String,
    pub(crate) address: Ipv4Addr,
    /// Linked peers and the address each peer's name resolves to on this host.
    pub(crate) peers: Vec<(String, Ipv4Addr)>,
}

/// What the bed knows of one link.
#[derive(Debug)]
pub(crate) struct LinkInfo {
    /// Host indices, in the order the link was declared.
    pub(crate) ends: [usize; 2],
    pub(crate) plan: LinkPlan,
}

/// A running test bed. Dropping it stops the relay, kills every process left in its
/// namespaces and removes the namespaces, their `/etc/netns` files and its directory.
#[derive(Debug)]
pub struct TestBed {
    // Fields drop in this order: relay, namespaces (with their processes), directory.
    relay: Option<Relay>,
    namespaces: Vec<Namespace>,
    pub(crate) dir: tempfile::TempDir,
    pub(crate) hosts: Vec<HostInfo>,
    links: Vec<LinkInfo>,
    seed: u64,
    pub(crate) files: AtomicU32,
}

impl TestBed {
    /// A new description of a bed.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// The host named `name`, if there is one.
    pub fn try_host(&self, name: &str) -> Option<Host<'_>> {
        let info = self.hosts.iter().find(|h| h.name == name)?;
        Some(Host { bed: self, info })
    }

    /// The host named `name`.
    ///
    /// # Panics
    /// When the bed has no such host (a mistake in the test).
    pub fn host(&self, name: &str) -> Host<'_> {
        self.try_host(name)
            .unwrap_or_else(|| panic!("the test bed has no host named {name:?}"))
    }

    /// The link between `a` and `b`, seen from `a` (its stats' `outbound` leaves `a`).
    pub fn try_link(&self, a: &str, b: &str) -> Option<Link<'_>> {
        let ia = self.hosts.iter().position(|h| h.name == a)?;
        let ib = self.hosts.iter().position(|h| h.name == b)?;
        let info = self
            .links
            .iter()
            .find(|l| l.ends == [ia, ib] || l.ends == [ib, ia])?;
        Some(Link {
            shared: &info.plan.shared,
            reversed: info.ends[0] != ia,
        })
    }

    /// The link between `a` and `b`, seen from `a`.
    ///
    /// # Panics
    /// When the two hosts are not linked (a mistake in the test).
    pub fn link(&self, a: &str, b: &str) -> Link<'_> {
        self.try_link(a, b)
            .unwrap_or_else(|| panic!("the test bed has no link between {a:?} and {b:?}"))
    }

    /// Every link of host `name`, each seen from it (cut them all to isolate the host).
    pub fn links_of(&self, name: &str) -> Vec<Link<'_>> {
        let Some(i) = self.hosts.iter().position(|h| h.name == name) else {
            return Vec::new();
        };
        self.links
            .iter()
            .filter(|l| l.ends.contains(&i))
            .map(|l| Link {
                shared: &l.plan.shared,
                reversed: l.ends[0] != i,
            })
            .collect()
    }

    /// The names of every namespace of the bed (the router's first).
    pub fn namespaces(&self) -> Vec<String> {
        self.namespaces
            .iter()
            .map(|n| n.name().to_string())
            .collect()
    }

    /// The bed's temporary directory (role configurations; removed with the bed).
    pub fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// The seed of the bed's impairment decisions.
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl Drop for TestBed {
    fn drop(&mut self) {
        // Stop the relay before its namespace goes.
        self.relay.take();
    }
}
