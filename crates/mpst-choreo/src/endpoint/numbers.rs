//! Which session numbers an endpoint has run, held compactly, and the keys each running
//! session holds in the mailbox's tables, so that finishing a session forgets exactly its
//! own keys (work proportional to the session, not to the tables).

use super::mailbox::{Address, HashMap, HashSet};

/// Which of the mailbox's tables a held key is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Table {
    /// Claimed by a receive: `receives` and its slot in `slots`.
    Receive,
    /// Claimed by a send: `sends`.
    Send,
    /// Filed unclaimed in `slots` while the session ran.
    Unclaimed,
}

/// Session numbers: every number below `floor` has finished; above it, the sessions
/// running (with the keys each holds) and those finished out of number order. Sessions
/// numbered in order (as [`crate::Endpoint::run`] does) leave nothing behind but the
/// floor, so a long-running endpoint does not grow by one entry per session.
#[derive(Default)]
pub(crate) struct Numbers {
    floor: u64,
    running: HashMap<u64, Vec<(Table, Address)>>,
    finished: HashSet<u64>,
}

impl Numbers {
    /// Marks `n` as running; `false` if it has run or runs already.
    pub(crate) fn start(&mut self, n: u64) -> bool {
        if self.is_finished(n) || self.running.contains_key(&n) {
            return false;
        }
        self.running.insert(n, Vec::new());
        true
    }

    /// Whether session `n` has finished here.
    pub(crate) fn is_finished(&self, n: u64) -> bool {
        n < self.floor || self.finished.contains(&n)
    }

    /// Notes that running session `n` holds `address` in `table` (nothing if `n` is not
    /// running: its keys are then forgotten when claimed, or expire unclaimed).
    pub(crate) fn hold(&mut self, n: Option<u64>, table: Table, address: &Address) {
        if let Some(held) = n.and_then(|n| self.running.get_mut(&n)) {
            held.push((table, address.clone()));
        }
    }

    /// Marks `n` as finished and returns the keys it held.
    pub(crate) fn finish(&mut self, n: u64) -> Vec<(Table, Address)> {
        let held = self.running.remove(&n).unwrap_or_default();
        if n == self.floor {
            self.floor += 1;
            while self.finished.remove(&self.floor) {
                self.floor += 1;
            }
        } else if n > self.floor {
            self.finished.insert(n);
        }
        held
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
        numbers.finish(2);
        numbers.finish(3);
        assert!(numbers.is_finished(3) && !numbers.is_finished(0));
        assert_eq!(numbers.remembered(), 4);
        numbers.finish(1);
        numbers.finish(0);
        assert_eq!(numbers.remembered(), 0, "the floor moved past 3");
        assert!((0..4).all(|n| numbers.is_finished(n)));
    }
}
