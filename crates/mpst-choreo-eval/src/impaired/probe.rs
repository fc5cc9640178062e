//! The per-hop probe (`send_profile --bed`): concurrent send with no service costs at
//! 0 ms on a bed, the implementations taking turns, each run's cost counted per session
//! from the kernel's per-thread counters (`/proc/self/task/*/{status,io,schedstat}`:
//! context switches, `read`/`write` calls (on eventfds and files; sockets' `sendto` and
//! `recvfrom` are not among them), CPU time), grouped by thread name (each host's
//! runtime workers, `host-ks`, `host-cs`, `host-s`, `host-c`; the relay; the precise
//! timer; the rest), with the
//! relay's chunks on the link `s`–`c`. Counts, not clocks, so that a shared machine's
//! load shows less in them. `strace -f -c` beside it counts every system call.

use std::collections::BTreeMap;

use serde::Serialize;

use super::hosts::{self, Placement};
use mpst_choreo::{RoleName, RoleSet};
use mpst_testbed::TestBed;

use super::Plan;
use crate::drive::Implementation;
use crate::load::Summary;
use crate::send;

/// What one thread (or group of threads) did: the kernel's counters.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Counts {
    /// Voluntary context switches (a thread that parked: a wake-up each).
    pub voluntary: f64,
    /// Involuntary context switches (preempted).
    pub involuntary: f64,
    /// `read` calls (`syscr`; not `recvfrom` on sockets).
    pub reads: f64,
    /// `write` calls (`syscw`: waking another thread's eventfd among them; not `sendto`).
    pub writes: f64,
    /// CPU time (µs).
    pub cpu_us: f64,
}

impl Counts {
    fn minus(self, o: Counts) -> Counts {
        Counts {
            voluntary: self.voluntary - o.voluntary,
            involuntary: self.involuntary - o.involuntary,
            reads: self.reads - o.reads,
            writes: self.writes - o.writes,
            cpu_us: self.cpu_us - o.cpu_us,
        }
    }

    fn plus(self, o: Counts) -> Counts {
        Counts {
            voluntary: self.voluntary + o.voluntary,
            involuntary: self.involuntary + o.involuntary,
            reads: self.reads + o.reads,
            writes: self.writes + o.writes,
            cpu_us: self.cpu_us + o.cpu_us,
        }
    }

    fn per(self, n: f64) -> Counts {
        Counts {
            voluntary: self.voluntary / n,
            involuntary: self.involuntary / n,
            reads: self.reads / n,
            writes: self.writes / n,
            cpu_us: self.cpu_us / n,
        }
    }
}

/// Every live thread of this process: (thread id, name, counters).
fn threads() -> Vec<(u64, String, Counts)> {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in dir.flatten() {
        let Some(tid) = entry.file_name().to_str().and_then(|t| t.parse().ok()) else {
            continue;
        };
        let path = entry.path();
        let read = |f: &str| std::fs::read_to_string(path.join(f)).unwrap_or_default();
        let field = |text: &str, key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.trim().parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        let (status, io) = (read("status"), read("io"));
        let cpu_ns = read("schedstat")
            .split_whitespace()
            .next()
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0);
        let counts = Counts {
            voluntary: field(&status, "voluntary_ctxt_switches:"),
            involuntary: field(&status, "nonvoluntary_ctxt_switches:"),
            reads: field(&io, "syscr:"),
            writes: field(&io, "syscw:"),
            cpu_us: cpu_ns / 1e3,
        };
        out.push((tid, read("comm").trim().to_string(), counts));
    }
    out
}

/// The group a thread's counts go to: its name, the digits of a numbered one left out.
fn group(name: &str) -> String {
    name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '-')
        .to_string()
}

/// One run of the probe: an implementation's cost per session.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeRun {
    /// Which implementation.
    pub implementation: &'static str,
    /// Sessions run (every one of them counted, warm-up too).
    pub sessions: u64,
    /// The key's latency (after the warm-up).
    pub key: Summary,
    /// Relay chunks on the link `s`–`c` per session, `(s to c, c to s)`.
    pub chunks_s_c: (f64, f64),
    /// Kernel counters per session, by thread group.
    pub per_session: BTreeMap<String, Counts>,
    /// Sessions that failed.
    pub failures: u64,
}

/// The probes' set-up: concurrent send's plan with no service costs at 0 ms (`seconds`
/// at `rate` a run), its roles, and a bed of one host per role with undelayed links.
pub(super) fn zero_delay_bed(
    seconds: f64,
    rate: f64,
    seed: u64,
) -> mpst_testbed::Result<(Plan, Vec<RoleName>, TestBed)> {
    let plan = Plan {
        delays_ms: vec![0],
        send_rate: rate,
        hop_duration: seconds,
        ..Plan::full(seed)
    };
    let roles = mpst_choreo_paper::concurrent_send::Roles::names();
    let bed = hosts::bed(&roles, seed)?;
    hosts::set_delay(&bed, &roles, Default::default(), Default::default(), None);
    Ok((plan, roles, bed))
}

/// Runs concurrent send with no service costs at 0 ms delay, `rounds` times each
/// implementation of `imps` in turn, `seconds` of sending at `rate` per run.
pub fn run(
    imps: &[Implementation],
    seconds: f64,
    rate: f64,
    rounds: usize,
    seed: u64,
) -> mpst_testbed::Result<Vec<ProbeRun>> {
    let (plan, roles, bed) = zero_delay_bed(seconds, rate, seed)?;
    let link = bed.link(&hosts::host_of("S"), &hosts::host_of("C"));
    let mut runs = Vec::new();
    for round in 0..rounds {
        for turn in 0..imps.len() {
            let imp = imps[(round + turn) % imps.len()];
            let spec = plan.spec(rate, seconds);
            let costs = send::Costs::zero(spec.requests());
            let before_chunks = link.stats();
            let before: BTreeMap<u64, Counts> =
                threads().into_iter().map(|(t, _, c)| (t, c)).collect();
            let placed = Placement::new(&bed, &roles, plan.threads)?.install();
            let finished = send::run_recorded(imp, &spec, costs);
            let mut per_group: BTreeMap<String, Counts> = BTreeMap::new();
            for (tid, name, counts) in threads() {
                let since = counts.minus(before.get(&tid).copied().unwrap_or_default());
                let sum = per_group.entry(group(&name)).or_default();
                *sum = sum.plus(since);
            }
            drop(placed);
            let after_chunks = link.stats();
            let n = spec.requests() as f64;
            runs.push(ProbeRun {
                implementation: imp.name(),
                sessions: spec.requests(),
                key: finished.recorder.summary(&["key"], &spec, finished.end),
                chunks_s_c: (
                    (after_chunks.outbound.chunks - before_chunks.outbound.chunks) as f64 / n,
                    (after_chunks.inbound.chunks - before_chunks.inbound.chunks) as f64 / n,
                ),
                per_session: per_group.into_iter().map(|(g, c)| (g, c.per(n))).collect(),
                failures: finished.failures,
            });
        }
    }
    Ok(runs)
}
