//! A precise async sleep for the simulated work and the load schedule: one OS thread
//! keeps the deadlines and completes each sleeper within about 0.1 ms, where tokio's
//! timer rounds every sleep up to its next 1 ms tick (up to 1 ms added to every
//! simulated computation and every scheduled send, in all implementations alike, which
//! would blur the 0–5 ms costs the benchmarks compare). Sleepers still yield: a sleep
//! holds no core.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

type Entry = (Reverse<(Instant, u64)>, Wake);

/// A request to the timer thread: wake this sender at this instant.
type Request = (Instant, oneshot::Sender<()>);

/// A sleeper to wake (ordered by deadline only).
struct Wake(oneshot::Sender<()>);

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

fn run(rx: mpsc::Receiver<Request>) {
    let mut heap: BinaryHeap<Entry> = BinaryHeap::new();
    let mut seq = 0u64;
    loop {
        let now = Instant::now();
        while heap.peek().is_some_and(|(Reverse((d, _)), _)| *d <= now) {
            if let Some((_, Wake(tx))) = heap.pop() {
                let _ = tx.send(());
            }
        }
        let wait = heap
            .peek()
            .map_or(Duration::from_secs(3600), |(Reverse((d, _)), _)| {
                d.saturating_duration_since(now)
            });
        match rx.recv_timeout(wait) {
            Ok((deadline, tx)) => {
                seq += 1;
                heap.push((Reverse((deadline, seq)), Wake(tx)));
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// Sleeps until `deadline` (at once if it has passed).
pub async fn sleep_until(deadline: tokio::time::Instant) {
    let deadline = deadline.into_std();
    if deadline <= Instant::now() {
        return;
    }
    let (tx, rx) = oneshot::channel();
    let sent = timer().lock().map(|t| t.send((deadline, tx)).is_ok());
    if sent.unwrap_or(false) {
        let _ = rx.await;
    } else {
        tokio::time::sleep_until(deadline.into()).await;
    }
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

/// Where the benchmark's sleeps note how late they woke, for the lateness trace. Off
/// (the default) it holds nothing and [`Probe::note`] is one branch: no clock read, no
/// lock.
#[derive(Clone, Debug, Default)]
pub struct Probe(Option<Arc<Mutex<Vec<Note>>>>);

impl Probe {
    /// A probe that keeps every note.
    pub fn on() -> Self {
        Probe(Some(Arc::new(Mutex::new(Vec::new()))))
    }

    /// Notes that `what` of session `i`, intended for `intended`, runs now.
    pub fn note(&self, i: u64, what: &'static str, intended: Instant) {
        if let Some(notes) = &self.0 {
            let late = Instant::now().saturating_duration_since(intended);
            if let Ok(mut notes) = notes.lock() {
                notes.push((i, what, late));
            }
        }
    }

    /// Everything noted so far (nothing when off).
    pub fn notes(&self) -> Vec<Note> {
        self.0
            .as_ref()
            .and_then(|n| n.lock().ok().map(|n| n.clone()))
            .unwrap_or_default()
    }
}

/// [`sleep`], then notes on `probe` how late it woke as `what` of session `i`.
pub async fn sleep_noted(duration: Duration, probe: &Probe, i: u64, what: &'static str) {
    if probe.0.is_none() {
        return sleep(duration).await;
    }
    let deadline = Instant::now() + duration;
    sleep_until(deadline.into()).await;
    probe.note(i, what, deadline);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn sleepers_wake_in_deadline_order_and_never_early() {
        let start = tokio::time::Instant::now();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for ms in [15u64, 5, 10, 0] {
            let tx = tx.clone();
            tokio::spawn(async move {
                sleep(Duration::from_millis(ms)).await;
                let _ = tx.send((ms, start.elapsed()));
            });
        }
        drop(tx);
        let mut woke = Vec::new();
        while let Some(w) = rx.recv().await {
            woke.push(w);
        }
        assert_eq!(
            woke.iter().map(|w| w.0).collect::<Vec<_>>(),
            vec![0, 5, 10, 15]
        );
        assert!(
            woke.iter()
                .all(|(ms, at)| *at >= Duration::from_millis(*ms))
        );
    }
}
