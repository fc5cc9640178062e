//! Handles on a running bed: a [`Host`] (run processes or threads inside it, resolve
//! names as it does) and a [`Link`] (partition, heal, reset, change its impairment, read
//! its counters).

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;

use crate::bed::{HostInfo, TestBed};
use crate::error::{Error, Result};
use crate::impair::Impairment;
use crate::process::Process;
use crate::relay::{DirCounters, LinkShared};

/// The environment variable naming a role's TOML configuration file
/// (see [`Host::role`]).
pub const CONFIG_ENV: &str = "MPST_CONFIG";

/// One host of a bed.
#[derive(Clone, Copy, Debug)]
pub struct Host<'a> {
    pub(crate) bed: &'a TestBed,
    pub(crate) info: &'a HostInfo,
}

impl<'a> Host<'a> {
    /// The host name (resolvable in every linked host).
    pub fn name(&self) -> &'a str {
        &self.info.name
    }

    /// The network namespace the host is.
    pub fn namespace(&self) -> &'a str {
        &self.info.namespace
    }

    /// The host's own address (other hosts reach it only through the relay).
    pub fn address(&self) -> Ipv4Addr {
        self.info.address
    }

    /// The address `peer`'s name resolves to on this host (the relay's front address of
    /// their link; the host's own address for its own name), if it resolves.
    pub fn resolve(&self, peer: &str) -> Option<Ipv4Addr> {
        if peer == self.info.name {
            return Some(self.info.address);
        }
        self.info
            .peers
            .iter()
            .find(|(name, _)| name == peer)
            .map(|&(_, addr)| addr)
    }

    /// Whether the calling thread is inside this host's network namespace (a check
    /// before talking to the bed's addresses, which mean nothing elsewhere).
    pub fn is_current(&self) -> bool {
        crate::thread_in_namespace(&self.info.namespace)
    }

    /// A command running `program` inside the host (`ip netns exec`), which sees the
    /// host's `/etc/hosts`; the environment passes through, stdin is null. Start it
    /// with [`Process::spawn`] (or [`Host::spawn`]) to have it killed on drop.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new("ip");
        command
            .args(["netns", "exec", &self.info.namespace])
            .arg(program)
            .stdin(Stdio::null());
        command
    }

    /// Starts `command` (from [`Host::command`]) as a process killed on drop.
    pub fn spawn(&self, command: &mut Command) -> Result<Process> {
        Process::spawn(command, format!("a process on host {}", self.info.name))
    }

    /// A command running the role `program` configured by one TOML file: `config` is
    /// written to a file in the bed's directory and its path given in the environment
    /// variable [`CONFIG_ENV`] (`MPST_CONFIG`) and as the arguments `--config PATH`.
    pub fn role(&self, program: impl AsRef<std::ffi::OsStr>, config: &str) -> Result<Command> {
        let path = self.write_file("toml", config)?;
        let mut command = self.command(program);
        command.env(CONFIG_ENV, &path).arg("--config").arg(&path);
        Ok(command)
    }

    /// Writes `contents` to a new file (ending in `.ext`) in the bed's directory, named
    /// after this host, and returns its path (removed with the bed).
    pub fn write_file(&self, ext: &str, contents: &str) -> Result<PathBuf> {
        let k = self.bed.files.fetch_add(1, Ordering::Relaxed);
        let path = self
            .bed
            .dir
            .path()
            .join(format!("{}-{k}.{ext}", self.info.name));
        std::fs::write(&path, contents)
            .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
        Ok(path)
    }

    /// Runs `f` on a new thread inside the host's namespace and returns its result
    /// (sockets `f` creates live in the host). Such a thread resolves names through the
    /// root's `/etc/hosts`, so use [`Host::resolve`]. A panic in `f` propagates.
    pub fn run<F, R>(&self, f: F) -> Result<R>
    where
        F: FnOnce() -> R + Send,
        R: Send,
    {
        let ns = &self.info.namespace;
        std::thread::scope(|s| {
            let thread = s.spawn(move || crate::ns::enter(ns).map(|()| f()));
            thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    /// A multi-thread tokio runtime (with `workers` worker threads, at least 1) whose
    /// every thread, blocking pool included, lives inside the host: sockets made by
    /// tasks *spawned* on it are the host's. (A future given to `block_on` runs on the
    /// calling thread, outside the host: spawn the work and await its handle.) Its
    /// threads are named `host-NAME` (the kernel keeps 15 bytes of a name), so that
    /// per-thread counters tell the hosts apart.
    pub fn runtime(&self, workers: usize) -> Result<tokio::runtime::Runtime> {
        let ns = self.info.namespace.clone();
        // Fail here, not in a runtime thread, when the namespace cannot be entered.
        std::thread::scope(|s| s.spawn(|| crate::ns::enter(&ns)).join())
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers.max(1))
            .thread_name(format!("host-{}", self.name()))
            .enable_all()
            .on_thread_start(move || {
                if let Err(e) = crate::ns::enter(&ns) {
                    panic!("a runtime thread cannot enter its host: {e}");
                }
            })
            .build()
            .map_err(|e| Error::io("building a host's runtime", e))
    }

    /// Like [`Host::run`], on a detached thread whose handle is returned.
    pub fn spawn_thread<F, R>(&self, f: F) -> std::thread::JoinHandle<Result<R>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let ns = self.info.namespace.clone();
        std::thread::spawn(move || crate::ns::enter(&ns).map(|()| f()))
    }
}

/// One link of a bed, seen from the host it was asked for first.
#[derive(Clone, Copy, Debug)]
pub struct Link<'a> {
    pub(crate) shared: &'a LinkShared,
    pub(crate) reversed: bool,
}

impl Link<'_> {
    /// Cuts the link: TCP chunks and new connections are held, UDP datagrams dropped,
    /// until [`heal`](Self::heal).
    pub fn partition(&self) {
        self.shared.partitioned.send_replace(true);
    }

    /// Restores the link; held TCP data flows on.
    pub fn heal(&self) {
        self.shared.partitioned.send_replace(false);
    }

    /// Whether the link is cut.
    pub fn is_partitioned(&self) -> bool {
        self.shared.is_partitioned()
    }

    /// Resets every TCP connection open on the link now (both ends get an RST).
    pub fn reset_connections(&self) {
        self.shared.resets_requested.send_modify(|n| *n += 1);
    }

    /// Replaces the link's impairment; open streams use it from their next chunk or
    /// datagram.
    pub fn set_impairment(&self, impairment: Impairment) {
        self.shared.impairment.send_replace(impairment);
    }

    /// The link's current impairment.
    pub fn impairment(&self) -> Impairment {
        self.shared.impairment.borrow().clone()
    }

    /// What the relay has done on this link so far.
    pub fn stats(&self) -> LinkStats {
        let c = &self.shared.counters;
        let (out, back) = if self.reversed { (1, 0) } else { (0, 1) };
        LinkStats {
            connections: c.connections.load(Ordering::Relaxed),
            resets: c.resets.load(Ordering::Relaxed),
            outbound: DirectionStats::of(&c.dir[out]),
            inbound: DirectionStats::of(&c.dir[back]),
        }
    }
}

/// Counters of one link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// TCP connections accepted (both directions).
    pub connections: u64,
    /// TCP connections reset (by a seeded reset, a request, or a broken end).
    pub resets: u64,
    /// Traffic leaving the host the link handle was asked for first.
    pub outbound: DirectionStats,
    /// Traffic arriving at it.
    pub inbound: DirectionStats,
}

/// Counters of one direction of a link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirectionStats {
    /// TCP bytes delivered.
    pub bytes: u64,
    /// TCP chunks delivered.
    pub chunks: u64,
    /// TCP chunks stalled as lost.
    pub stalled: u64,
    /// UDP datagrams received by the relay.
    pub datagrams: u64,
    /// UDP datagrams (or copies) dropped, by loss or partition.
    pub dropped: u64,
    /// UDP extra copies made.
    pub duplicated: u64,
    /// UDP datagrams (copies included) delivered.
    pub delivered: u64,
}

impl DirectionStats {
    fn of(c: &DirCounters) -> Self {
        let l = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
        DirectionStats {
            bytes: l(&c.bytes),
            chunks: l(&c.chunks),
            stalled: l(&c.stalled),
            datagrams: l(&c.datagrams),
            dropped: l(&c.dropped),
            duplicated: l(&c.duplicated),
            delivered: l(&c.delivered),
        }
    }
}
