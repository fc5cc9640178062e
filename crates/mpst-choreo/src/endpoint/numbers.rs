//! Which session numbers an endpoint has run, held compactly: a long-running endpoint
//! does not grow by one entry per session.

use super::mailbox::HashSet;

/// Session numbers: every number below `floor` has finished; above it, the sessions
/// running and those finished out of number order. Sessions
/// numbered in order (as [`crate::Endpoint::run`] does) leave nothing behind but the
/// floor, so a long-running endpoint does not grow by one entry per session.
///
/// The running sessions are a sorted vector, not a hash set: they are this endpoint's
/// own (a peer cannot add any), usually few and started in increasing order (appended),
/// and every delivery asks whether its session runs, which a search of a few numbers
/// answers without hashing.
#[derive(Default)]
pub(crate) struct Numbers {
    floor: u64,
    running: Vec<u64>,
    finished: HashSet<u64>,
}

impl Numbers {
    /// Marks `n` as running; `false` if it has run or runs already.
    pub(crate) fn start(&mut self, n: u64) -> bool {
        if self.is_finished(n) {
            return false;
        }
        match self.running.last() {
            Some(&last) if last >= n => match self.running.binary_search(&n) {
                Ok(_) => false,
                Err(at) => {
                    self.running.insert(at, n);
                    true
                }
            },
            _ => {
                self.running.push(n);
                true
            }
        }
    }

    /// Whether session `n` has finished here.
    pub(crate) fn is_finished(&self, n: u64) -> bool {
        n < self.floor || (!self.finished.is_empty() && self.finished.contains(&n))
    }

    /// Whether session `n` has started here and not finished.
    pub(crate) fn is_running(&self, n: u64) -> bool {
        self.running.binary_search(&n).is_ok()
    }

    /// Whether the session that calls it (a running one) is the only one running.
    pub(crate) fn alone(&self) -> bool {
        self.running.len() == 1
    }

    /// Marks `n` as finished.
    pub(crate) fn finish(&mut self, n: u64) {
        if let Ok(at) = self.running.binary_search(&n) {
            self.running.remove(at);
        }
        if n == self.floor {
            self.floor += 1;
            while !self.finished.is_empty() && self.finished.remove(&self.floor) {
                self.floor += 1;
            }
        } else if n > self.floor {
            self.finished.insert(n);
        }
    }

    /// Numbers remembered beyond the floor (running or finished out of order).
    #[cfg(test)]
    pub(crate) fn remembered(&self) -> usize {
        self.running.len() + self.finished.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_finished_in_order_leave_only_the_floor_and_none_reruns() {
        let mut numbers = Numbers::default();
        for n in 0..1000 {
            assert!(numbers.start(n));
            numbers.finish(n);
        }
        assert_eq!(numbers.remembered(), 0);
        assert!(numbers.is_finished(999) && !numbers.is_finished(1000));
        assert!(!numbers.start(5), "a finished number never runs again");
    }

    #[test]
    fn out_of_order_finishers_are_held_until_the_floor_reaches_them() {
        let mut numbers = Numbers::default();
        for n in 0..4 {
            assert!(numbers.start(n));
        }
        assert!(!numbers.start(2), "running already");
        assert!(numbers.is_running(2) && !numbers.is_running(4));
        numbers.finish(2);
        numbers.finish(3);
        assert!(numbers.is_finished(3) && !numbers.is_finished(0));
        assert_eq!(numbers.remembered(), 4);
        numbers.finish(1);
        numbers.finish(0);
        assert_eq!(numbers.remembered(), 0, "the floor moved past 3");
        assert!((0..4).all(|n| numbers.is_finished(n)));
        // Started out of order (`run_session`): kept sorted, each once.
        assert!(numbers.start(9) && numbers.start(6) && numbers.start(7));
        assert!(!numbers.start(6) && !numbers.start(9));
        assert!([6, 7, 9].iter().all(|&n| numbers.is_running(n)) && !numbers.is_running(8));
        numbers.finish(7);
        assert!(!numbers.is_running(7) && numbers.is_running(6) && !numbers.alone());
    }
}
