//! The recording and the table of [`super`]: every mark of a run in one list (behind a
//! lock: a probe, not a measurement of throughput), then, per session, the key's way
//! matched up stage by stage and the medians of each step.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex};
use std::time::Instant;

use serde::Serialize;

use super::Stage;
use crate::drive::Implementation;
use crate::impaired::hosts::Placement;
use crate::impaired::{measured_from, stats};
use crate::send;

/// Which message a mark is about.
#[derive(Clone, Copy, Debug)]
pub(super) enum What {
    /// An actor's message: a key (else a text) of a session.
    Label { key: bool, session: u64 },
    /// A choreography's envelope: its key's site (with its source line where this
    /// process made it) and session.
    Site {
        site: u64,
        line: Option<u32>,
        session: u64,
    },
}

/// One thing recorded.
#[derive(Clone, Copy, Debug)]
pub(super) enum Event {
    /// A message reached a stage at a role, on the connection of the dialler's port.
    Mark {
        stage: Stage,
        at: &'static str,
        what: What,
        port: u16,
        when: Instant,
    },
    /// The relay carried a chunk.
    Chunk(mpst_testbed::stages::Chunk),
}

/// Room for one run's events (a 5 s run at 50/s makes about 6,000); more are dropped.
const ROOM: usize = 1 << 16;

/// The events, each in a slot of its own: a recording thread takes the next index and
/// locks only its slot, so threads marking at the same moment (the two services, the
/// relay) do not wait for each other, which would put the probe's own futex waits into
/// the steps it measures.
static SLOTS: LazyLock<Box<[Mutex<Option<Event>>]>> =
    LazyLock::new(|| (0..ROOM).map(|_| Mutex::new(None)).collect());
static NEXT: AtomicUsize = AtomicUsize::new(0);

pub(super) fn record(event: Event) {
    let at = NEXT.fetch_add(1, Ordering::Relaxed);
    if let Some(slot) = SLOTS.get(at) {
        *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(event);
    }
}

/// Every event recorded since the last call (between runs: nothing records then).
fn take() -> Vec<Event> {
    let n = NEXT.swap(0, Ordering::Relaxed).min(ROOM);
    SLOTS[..n]
        .iter()
        .filter_map(|slot| slot.lock().unwrap_or_else(|p| p.into_inner()).take())
        .collect()
}

fn choreo_mark(mark: &mpst_choreo::net::stages::Mark<'_>) {
    use mpst_choreo::net::stages::Stage as S;
    let e = mark.envelope;
    let (stage, at) = match mark.stage {
        S::SendCalled => (Stage::SendCalled, &e.from),
        S::Written => (Stage::Written, &e.from),
        S::Queued => (Stage::Queued, &e.from),
        S::Read => (Stage::Read, &e.to),
        S::Filed => (Stage::Filed, &e.to),
    };
    let session = e.key.token.frames().first().map_or(u64::MAX, |f| f.index);
    record(Event::Mark {
        stage,
        at: super::role(at.as_str()),
        what: What::Site {
            site: e.key.site.id(),
            line: e.key.site.location().map(|l| l.line()),
            session,
        },
        port: mark.port,
        when: mark.at,
    });
}

fn relay_chunk(chunk: &mpst_testbed::stages::Chunk) {
    record(Event::Chunk(*chunk));
}

/// The steps of the key's way, in order (each from the stage before).
pub const STEPS: [&str; 13] = [
    "due -> ks's send called",
    "send called -> frame written at ks",
    "written -> relay read (ks-s)",
    "relay read -> relay written (ks-s)",
    "relay written -> read at s",
    "read -> filed at s",
    "filed -> forward's send called at s",
    "send called -> frame written at s",
    "written -> relay read (s-c)",
    "relay read -> relay written (s-c)",
    "relay written -> read at c",
    "read -> filed at c",
    "filed -> c's receive completes",
];

/// One implementation's medians, pooled over its rounds.
#[derive(Clone, Debug, Serialize)]
pub struct Table {
    /// Which implementation.
    pub implementation: &'static str,
    /// Sessions whose every stage was matched.
    pub sessions: usize,
    /// Sessions left out: a frame queued for a writer task instead of written by the
    /// send, or a stage not matched.
    pub left_out: usize,
    /// Frames queued for a writer task (choreographies), of every session.
    pub queued: usize,
    /// Sessions (of those tabulated) whose text was read at `c` before their key: the
    /// key then waits for `c` to handle the text.
    pub text_first: usize,
    /// The median of each step of [`STEPS`] (µs).
    pub steps_us: Vec<f64>,
    /// The median of the whole way, due -> receive (µs).
    pub total_us: f64,
}

/// Runs concurrent send with no service costs at 0 ms, `rounds` times each of `imps`
/// in turn, `seconds` at 50 requests/s per run, and tabulates each implementation's
/// stages.
pub fn run(
    imps: &[Implementation],
    seconds: f64,
    rounds: usize,
    seed: u64,
) -> mpst_testbed::Result<Vec<Table>> {
    mpst_choreo::net::stages::set_hook(choreo_mark);
    mpst_testbed::stages::set_hook(relay_chunk);
    let rate = 50.0;
    let (plan, roles, bed) = crate::impaired::probe::zero_delay_bed(seconds, rate, seed)?;
    let mut pooled: HashMap<&'static str, Pool> = HashMap::new();
    for round in 0..rounds {
        for turn in 0..imps.len() {
            let imp = imps[(round + turn) % imps.len()];
            let spec = plan.spec(rate, seconds);
            let costs = send::Costs::zero(spec.requests());
            take();
            let placed = Placement::new(&bed, &roles, plan.threads)?.install();
            let finished = send::run_recorded(imp, &spec, costs);
            drop(placed);
            let events = take();
            let schedule = finished.recorder.schedule();
            let received = |i: u64| {
                let latency = finished.recorder.latency("key", i)?;
                Some(schedule.at(i).into_std() + latency)
            };
            let due = |i: u64| schedule.at(i).into_std();
            let pool = pooled.entry(imp.name()).or_default();
            let sessions = measured_from(&spec) as u64..spec.requests();
            pool.add(&events, sessions, due, received);
        }
    }
    Ok(imps
        .iter()
        .filter_map(|imp| pooled.remove(imp.name()).map(|p| p.table(imp.name())))
        .collect())
}

/// Every session's steps of one implementation, over its rounds.
#[derive(Default)]
struct Pool {
    steps: Vec<Vec<f64>>,
    totals: Vec<f64>,
    left_out: usize,
    queued: usize,
    text_first: usize,
}

impl Pool {
    fn add(
        &mut self,
        events: &[Event],
        sessions: std::ops::Range<u64>,
        due: impl Fn(u64) -> Instant,
        received: impl Fn(u64) -> Option<Instant>,
    ) {
        let ways = Ways::new(events);
        self.queued += ways.queued;
        for i in sessions {
            match (ways.key(i, due(i)), received(i)) {
                (Some(mut times), Some(done)) => {
                    self.text_first += usize::from(ways.text_first(i));
                    times.push(done);
                    // Signed: a relay may read a frame before the writer's `write` returns.
                    let us = |w: &[Instant]| match w[1].checked_duration_since(w[0]) {
                        Some(d) => d.as_secs_f64(),
                        None => -w[0].duration_since(w[1]).as_secs_f64(),
                    };
                    let steps: Vec<f64> = times.windows(2).map(|w| us(w) * 1e6).collect();
                    if self.steps.is_empty() {
                        self.steps = vec![Vec::new(); steps.len()];
                    }
                    for (pool, step) in self.steps.iter_mut().zip(steps) {
                        pool.push(step);
                    }
                    self.totals.push(us(&[times[0], done]) * 1e6);
                }
                _ => self.left_out += 1,
            }
        }
    }

    fn table(mut self, implementation: &'static str) -> Table {
        Table {
            implementation,
            sessions: self.totals.len(),
            left_out: self.left_out,
            queued: self.queued,
            text_first: self.text_first,
            steps_us: self.steps.iter_mut().map(|s| stats::median(s)).collect(),
            total_us: stats::median(&mut self.totals),
        }
    }
}

/// One run's marks, indexed: (stage, role, key?, session) -> (when, port), and the
/// relay's chunks from each dialler's port in order.
struct Ways {
    marks: HashMap<(Stage, &'static str, bool, u64), (Instant, u16)>,
    chunks: HashMap<u16, Vec<(Instant, Instant)>>,
    queued: usize,
}

impl Ways {
    fn new(events: &[Event]) -> Self {
        // A choreography's sites: ks's is the key's, cs's the text's; of the two `s`
        // sends, the key's forward comes first in the source (`Send2::run`).
        let mut lines: HashMap<u64, u32> = HashMap::new();
        let mut key_sites: HashMap<u64, bool> = HashMap::new();
        let mut forwards: Vec<u64> = Vec::new();
        for e in events {
            if let Event::Mark {
                stage: Stage::SendCalled,
                at,
                what: What::Site { site, line, .. },
                ..
            } = *e
            {
                if let Some(line) = line {
                    lines.insert(site, line);
                }
                match at {
                    "KS" => drop(key_sites.insert(site, true)),
                    "CS" => drop(key_sites.insert(site, false)),
                    "S" if !forwards.contains(&site) => forwards.push(site),
                    _ => {}
                }
            }
        }
        forwards.sort_by_key(|s| lines.get(s).copied().unwrap_or(u32::MAX));
        for (n, site) in forwards.iter().enumerate() {
            key_sites.insert(*site, n == 0);
        }
        let mut ways = Ways {
            marks: HashMap::new(),
            chunks: HashMap::new(),
            queued: 0,
        };
        for e in events {
            match *e {
                Event::Mark {
                    stage,
                    at,
                    what,
                    port,
                    when,
                } => {
                    let (key, session) = match what {
                        What::Label { key, session } => (key, session),
                        What::Site { site, session, .. } => {
                            let Some(&key) = key_sites.get(&site) else {
                                continue;
                            };
                            (key, session)
                        }
                    };
                    ways.queued += usize::from(stage == Stage::Queued);
                    ways.marks
                        .entry((stage, at, key, session))
                        .or_insert((when, port));
                }
                Event::Chunk(c) if c.from_dialler => {
                    ways.chunks
                        .entry(c.port)
                        .or_default()
                        .push((c.read, c.written));
                }
                Event::Chunk(_) => {}
            }
        }
        for list in ways.chunks.values_mut() {
            list.sort();
        }
        ways
    }

    /// Whether session `i`'s text was read at `c` before its key.
    fn text_first(&self, i: u64) -> bool {
        let read = |key| self.marks.get(&(Stage::Read, "C", key, i)).map(|m| m.0);
        matches!((read(false), read(true)), (Some(t), Some(k)) if t < k)
    }

    /// The key of session `i`'s way from `due` to filed at `c`, if every stage was
    /// matched.
    fn key(&self, i: u64, due: Instant) -> Option<Vec<Instant>> {
        let mark = |stage, at| self.marks.get(&(stage, at, true, i)).copied();
        let mut times = vec![due];
        for (from, to) in [("KS", "S"), ("S", "C")] {
            let (called, _) = mark(Stage::SendCalled, from)?;
            let (written, port) = mark(Stage::Written, from)?;
            let chunks = self.chunks.get(&port)?;
            let at = chunks.partition_point(|(read, _)| *read < called);
            let &(relay_read, relay_written) = chunks.get(at)?;
            let (read, _) = mark(Stage::Read, to)?;
            let (filed, _) = mark(Stage::Filed, to)?;
            times.extend([called, written, relay_read, relay_written, read, filed]);
        }
        Some(times)
    }
}
