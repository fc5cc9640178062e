//! A precise async sleep for the simulated work and the load schedule: one OS thread
//! keeps the deadlines, sleeps until shortly before the next one and spins the rest of
//! the way, so each sleeper is completed within microseconds of its deadline. tokio's
//! timer rounds every sleep up to its next 1 ms tick, and a plain timed wait of the
//! thread woke 0.08–0.25 ms late on the 2-core VM, later the longer the core had been
//! idle (so later for the implementation that happened to leave the cores idler): both
//! would add the harness's own delay to every simulated computation and every scheduled
//! send, where a real service computes on a busy core. Sleepers still yield: a sleep
//! holds no core; the timer's spinning is capped at a quarter of one core (`Spin`).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

type Entry = (Reverse<(Instant, u64)>, Wake);

/// A request to the timer thread: wake this sender at this instant.
type Request = (Instant, oneshot::Sender<Instant>);

/// A sleeper to wake, told when it was fired (ordered by deadline only).
struct Wake(oneshot::Sender<Instant>);

impl PartialEq for Wake {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for Wake {}
impl PartialOrd for Wake {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Wake {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

fn timer() -> &'static Mutex<mpsc::Sender<Request>> {
    static TIMER: OnceLock<Mutex<mpsc::Sender<Request>>> = OnceLock::new();
    TIMER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Request>();
        std::thread::Builder::new()
            .name("precise-timer".into())
            .spawn(move || run(rx))
            .expect("a timer thread");
        Mutex::new(tx)
    })
}

/// How long before a deadline the timer's thread stops sleeping and spins: above the
/// usual lateness of a timed wait on the VM (0.08–0.25 ms), so the thread is awake and
/// running when the deadline comes.
const SPIN_AHEAD: Duration = Duration::from_micros(300);

/// The spinning budget: at most [`Spin::SHARE`] of the thread's time, saved up to at
/// most [`Spin::MOST`], so that a schedule dense with deadlines (the saturation runs)
/// cannot make the timer take a core from the implementations measured; without budget
/// the thread sleeps the whole way, as a plain timer does.
#[derive(Debug)]
struct Spin {
    budget: Duration,
    refilled: Instant,
}

impl Spin {
    /// The share of one core the thread may spend spinning.
    const SHARE: f64 = 0.25;
    /// The most budget saved up.
    const MOST: Duration = Duration::from_millis(20);

    fn new(now: Instant) -> Self {
        Spin {
            budget: Self::MOST,
            refilled: now,
        }
    }

    /// Whether a spin of up to [`SPIN_AHEAD`] is affordable at `now`.
    fn allowed(&mut self, now: Instant) -> bool {
        let earned = now
            .saturating_duration_since(self.refilled)
            .mul_f64(Self::SHARE);
        self.budget = (self.budget + earned).min(Self::MOST);
        self.refilled = now;
        self.budget >= SPIN_AHEAD
    }

    /// Charges a spin that lasted `spun`.
    fn spent(&mut self, spun: Duration) {
        self.budget = self.budget.saturating_sub(spun);
    }
}

fn run(rx: mpsc::Receiver<Request>) {
    let mut heap: BinaryHeap<Entry> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut spin = Spin::new(Instant::now());
    loop {
        let now = Instant::now();
        while heap.peek().is_some_and(|(Reverse((d, _)), _)| *d <= now) {
            if let Some((_, Wake(tx))) = heap.pop() {
                let _ = tx.send(Instant::now());
            }
        }
        let next = heap.peek().map(|(Reverse((d, _)), _)| *d);
        let request = match next {
            None => match rx.recv() {
                Ok(request) => request,
                Err(_) => return,
            },
            Some(deadline) => {
                let wait = deadline.saturating_duration_since(now);
                let spinning = spin.allowed(now);
                if spinning && wait <= SPIN_AHEAD {
                    let got = spin_until(&rx, deadline);
                    spin.spent(now.elapsed());
                    match got {
                        Ok(Some(request)) => request,
                        Ok(None) => continue,
                        Err(()) => return,
                    }
                } else {
                    let sleep = if spinning { wait - SPIN_AHEAD } else { wait };
                    match rx.recv_timeout(sleep) {
                        Ok(request) => request,
                        Err(RecvTimeoutError::Timeout) => continue,
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                }
            }
        };
        seq += 1;
        heap.push((Reverse((request.0, seq)), Wake(request.1)));
    }
}

/// Spins until `deadline` or a new request (`Err` once every sender is gone).
fn spin_until(rx: &mpsc::Receiver<Request>, deadline: Instant) -> Result<Option<Request>, ()> {
    while Instant::now() < deadline {
        match rx.try_recv() {
            Ok(request) => return Ok(Some(request)),
            Err(mpsc::TryRecvError::Empty) => std::hint::spin_loop(),
            Err(mpsc::TryRecvError::Disconnected) => return Err(()),
        }
    }
    Ok(None)
}

/// Sleeps until `deadline` (at once if it has passed).
pub async fn sleep_until(deadline: tokio::time::Instant) {
    fired(deadline.into_std()).await;
}

/// [`sleep_until`], returning when the timer's thread fired it (the deadline itself
/// for a sleep that had nothing to wait for or fell back on tokio's timer).
async fn fired(deadline: Instant) -> Instant {
    if deadline <= Instant::now() {
        return deadline;
    }
    let (tx, rx) = oneshot::channel();
    let sent = timer().lock().map(|t| t.send((deadline, tx)).is_ok());
    if sent.unwrap_or(false)
        && let Ok(at) = rx.await
    {
        return at;
    }
    tokio::time::sleep_until(deadline.into()).await;
    deadline
}

/// Sleeps for `duration` (not at all when it is zero): the simulated work.
pub async fn sleep(duration: Duration) {
    if !duration.is_zero() {
        sleep_until(tokio::time::Instant::now() + duration).await;
    }
}

/// What a [`Probe`] noted: session, what woke (e.g. `"ks work"`), and how late it woke
/// (actual wake-up minus intended instant).
pub type Note = (u64, &'static str, Duration);

/// Where the benchmark's sleeps note how late they woke, and how long `key` took from
/// `ks` to `c`, for the lateness trace. Off (the default) it holds nothing and every
/// method is one branch: no clock read, no lock.
#[derive(Clone, Debug, Default)]
pub struct Probe(Option<Arc<Notes>>);

/// What an active [`Probe`] holds.
#[derive(Debug, Default)]
struct Notes {
    notes: Mutex<Vec<Note>>,
    /// When each session's `key` was ready at `ks` (see [`Probe::ready`]).
    ready: Mutex<HashMap<u64, Instant>>,
}

impl Probe {
    /// A probe that keeps every note.
    pub fn on() -> Self {
        Probe(Some(Arc::default()))
    }

    /// Notes that `what` of session `i`, intended for `intended`, runs now.
    pub fn note(&self, i: u64, what: &'static str, intended: Instant) {
        if self.0.is_some() {
            self.record(i, what, Instant::now().saturating_duration_since(intended));
        }
    }

    /// Notes that session `i`'s value (e.g. `ks`'s key) is ready now, at the role that
    /// computed it: where [`Probe::delivered`] measures its delivery from.
    pub fn ready(&self, i: u64) {
        if let Some(notes) = &self.0
            && let Ok(mut ready) = notes.ready.lock()
        {
            ready.insert(i, Instant::now());
        }
    }

    /// When session `i`'s value was [`Probe::ready`], if it was.
    pub fn ready_at(&self, i: u64) -> Option<Instant> {
        let notes = self.0.as_ref()?;
        notes.ready.lock().ok()?.get(&i).copied()
    }

    /// Notes as `what` of session `i` the time from its value's [`Probe::ready`] to now,
    /// its arrival where it is used: the implementation's whole delivery, every hop and
    /// task switch between the two roles (nothing if it was never ready).
    pub fn delivered(&self, i: u64, what: &'static str) {
        if self.0.is_none() {
            return;
        }
        let now = Instant::now();
        if let Some(ready) = self.ready_at(i) {
            self.record(i, what, now.saturating_duration_since(ready));
        }
    }

    /// Notes `late` as `what` of session `i`.
    fn record(&self, i: u64, what: &'static str, late: Duration) {
        if let Some(notes) = &self.0
            && let Ok(mut notes) = notes.notes.lock()
        {
            notes.push((i, what, late));
        }
    }

    /// Everything noted so far (nothing when off).
    pub fn notes(&self) -> Vec<Note> {
        self.0
            .as_ref()
            .and_then(|n| n.notes.lock().ok().map(|n| n.clone()))
            .unwrap_or_default()
    }
}

/// The names under which [`sleep_noted`] notes one work's sleep.
#[derive(Clone, Copy, Debug)]
pub struct Noted {
    /// How late the task ran again (deadline to the task polled).
    pub work: &'static str,
    /// How late the timer's thread fired (deadline to fired): the harness's part.
    pub fire: &'static str,
    /// From fired to the task polled: the implementation's wake-up path.
    pub handoff: &'static str,
}

impl Noted {
    /// `ks`'s work.
    pub const KS: Noted = Noted {
        work: "ks work",
        fire: "ks fire",
        handoff: "ks handoff",
    };
    /// `cs`'s work.
    pub const CS: Noted = Noted {
        work: "cs work",
        fire: "cs fire",
        handoff: "cs handoff",
    };
}

/// [`sleep`], then notes on `probe` how late it woke as `names` of session `i`: in all,
/// and split into the timer's firing and the handoff to the task.
pub async fn sleep_noted(duration: Duration, probe: &Probe, i: u64, names: Noted) {
    if probe.0.is_none() {
        return sleep(duration).await;
    }
    let deadline = Instant::now() + duration;
    let fired = fired(deadline).await;
    // One reading of the clock, so that work = fire + handoff exactly.
    let now = Instant::now();
    probe.record(i, names.work, now.saturating_duration_since(deadline));
    probe.record(i, names.handoff, now.saturating_duration_since(fired));
    probe.record(i, names.fire, fired.saturating_duration_since(deadline));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Registered out of order, the sleepers are fired in the order of their deadlines.
    /// The deadlines are fixed from one start and the order is read from the instants
    /// the timer fired them, not from when each task ran again: with a relative sleep
    /// per task, a task polled 10 ms late on a loaded machine registers after a later
    /// deadline and wakes out of order (the test failed once in 50 runs beside a build).
    #[tokio::test]
    async fn sleepers_wake_in_deadline_order_and_never_early() {
        let start = Instant::now();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for ms in [15u64, 5, 10, 0] {
            let tx = tx.clone();
            tokio::spawn(async move {
                let deadline = start + Duration::from_millis(ms);
                let at = fired(deadline).await;
                let _ = tx.send((ms, at.saturating_duration_since(start)));
            });
        }
        drop(tx);
        let mut woke = Vec::new();
        while let Some(w) = rx.recv().await {
            woke.push(w);
        }
        woke.sort_by_key(|w| w.1);
        assert_eq!(
            woke.iter().map(|w| w.0).collect::<Vec<_>>(),
            vec![0, 5, 10, 15]
        );
        assert!(
            woke.iter()
                .all(|(ms, at)| *at >= Duration::from_millis(*ms))
        );
    }

    #[tokio::test]
    async fn the_timer_never_fires_before_the_deadline() {
        for us in [50u64, 250, 400, 2_000] {
            let deadline = Instant::now() + Duration::from_micros(us);
            let at = fired(deadline).await;
            assert!(at >= deadline, "{us} µs: fired {:?} early", deadline - at);
            assert!(Instant::now() >= deadline);
        }
    }

    #[test]
    fn a_delivery_is_noted_only_for_a_value_noted_ready() {
        let probe = Probe::on();
        probe.delivered(1, "key delivery");
        assert!(probe.notes().is_empty(), "nothing was ready");
        probe.ready(2);
        probe.delivered(2, "key delivery");
        let notes = probe.notes();
        assert_eq!(notes.len(), 1);
        assert_eq!((notes[0].0, notes[0].1), (2, "key delivery"));
        let off = Probe::default();
        off.ready(3);
        off.delivered(3, "key delivery");
        assert!(off.notes().is_empty(), "an off probe keeps nothing");
    }

    #[test]
    fn spinning_stops_when_its_budget_is_spent_and_resumes_as_it_refills() {
        let t0 = Instant::now();
        let mut spin = Spin::new(t0);
        assert!(spin.allowed(t0), "a fresh budget allows a spin");
        spin.spent(Spin::MOST);
        assert!(!spin.allowed(t0), "a spent budget allows none");
        // A quarter of the time passed is earned back: SPIN_AHEAD needs four times it.
        let half = t0 + SPIN_AHEAD.mul_f64(0.5 / Spin::SHARE);
        assert!(!spin.allowed(half));
        let enough = t0 + SPIN_AHEAD.mul_f64(1.0 / Spin::SHARE);
        assert!(spin.allowed(enough));
        // The budget saved up never exceeds MOST, however long the thread slept.
        assert!(spin.allowed(t0 + Duration::from_secs(60)));
        assert_eq!(spin.budget, Spin::MOST);
    }
}
