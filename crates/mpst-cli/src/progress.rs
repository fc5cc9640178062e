//! Progress of long checks on a terminal: after about a second, a spinner on stderr
//! with what is being checked, how many configurations have been explored so far and
//! the elapsed time; nothing at all when stderr is not a terminal or the check is
//! quick. The check runs on a worker thread and publishes its count through a
//! [`Count`]; the calling thread draws.

use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// How long a check runs before the spinner appears.
const DELAY: Duration = Duration::from_secs(1);
/// How often the spinner's text is refreshed.
const REFRESH: Duration = Duration::from_millis(100);
/// The worker's stack: as large as the main thread's, for deep explorations.
const STACK: usize = 64 << 20;

/// The number of configurations a check has explored so far.
#[derive(Debug, Default)]
pub struct Count(AtomicUsize);

impl Count {
    /// Records that `n` configurations have been explored.
    pub fn set(&self, n: usize) {
        self.0.store(n, Ordering::Relaxed);
    }

    /// The last count recorded.
    pub fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

/// The spinner's text.
fn message(what: &str, count: usize) -> String {
    if count == 0 {
        format!("{what}…")
    } else {
        format!(
            "{what}: {} explored",
            mpst_fsm::format::count(count, "configuration")
        )
    }
}

/// Runs `work` and returns its result; shows progress on stderr if it is a terminal
/// and `work` takes longer than a second.
pub fn run<T: Send>(what: &str, work: impl FnOnce(&Count) -> T + Send) -> T {
    let count = Count::default();
    if !std::io::stderr().is_terminal() {
        return work(&count);
    }
    // The work waits here, so that it can still run on this thread if no worker
    // thread can be started.
    let slot = Mutex::new(Some(work));
    let take = || slot.lock().ok().and_then(|mut w| w.take());
    std::thread::scope(|scope| {
        let (done, finished) = mpsc::channel::<()>();
        let count = &count;
        let worker = std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(scope, move || {
                let result = take().map(|work| work(count));
                let _ = done.send(());
                result
            });
        let Ok(worker) = worker else {
            return take().map(|work| work(count));
        };
        if finished.recv_timeout(DELAY) == Err(mpsc::RecvTimeoutError::Timeout) {
            let bar = ProgressBar::new_spinner();
            if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} [{elapsed}]") {
                bar.set_style(style);
            }
            bar.enable_steady_tick(REFRESH);
            while finished.recv_timeout(REFRESH) == Err(mpsc::RecvTimeoutError::Timeout) {
                bar.set_message(message(what, count.get()));
            }
            bar.finish_and_clear();
        }
        match worker.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
    .unwrap_or_else(|| unreachable!("the work is taken exactly once"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_says_what_and_how_far() {
        assert_eq!(message("k-MC for k = 2", 0), "k-MC for k = 2…");
        assert_eq!(
            message("k-MC for k = 2", 1),
            "k-MC for k = 2: 1 configuration explored"
        );
        assert_eq!(
            message("k-MC for k = 2", 4096),
            "k-MC for k = 2: 4096 configurations explored"
        );
    }

    #[test]
    fn the_work_runs_once_and_its_result_and_count_come_back() {
        // Under `cargo test` stderr is captured, not a terminal: no spinner.
        let mut runs = 0;
        let result = run("test", |count| {
            runs += 1;
            count.set(7);
            count.get() * 6
        });
        assert_eq!((result, runs), (42, 1));
    }
}
