//! Which session numbers an endpoint has finished, held compactly: a long-running
//! endpoint does not grow by one entry per session. (Which run now is the mailbox's
//! entries' business: `session.rs`.)

use super::mailbox::HashSet;

/// Finished session numbers: every number below `floor`, and those above it finished
/// out of number order. Sessions numbered in order (as [`crate::Endpoint::run`] does)
/// leave nothing behind but the floor, so a long-running endpoint does not grow by one
/// entry per session.
#[derive(Default)]
pub(crate) struct Numbers {
    floor: u64,
    finished: HashSet<u64>,
}

impl Numbers {
    /// Whether session `n` has finished here.
    pub(crate) fn is_finished(&self, n: u64) -> bool {
        n < self.floor || (!self.finished.is_empty() && self.finished.contains(&n))
    }

    /// Marks `n` as finished.
    pub(crate) fn finish(&mut self, n: u64) {
        if n == self.floor {
            self.floor += 1;
            while !self.finished.is_empty() && self.finished.remove(&self.floor) {
                self.floor += 1;
            }
        } else if n > self.floor {
            self.finished.insert(n);
        }
    }

    /// Numbers remembered beyond the floor (finished out of order).
    #[cfg(test)]
    pub(crate) fn remembered(&self) -> usize {
        self.finished.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_finished_in_order_leave_only_the_floor() {
        let mut numbers = Numbers::default();
        for n in 0..1000 {
            assert!(!numbers.is_finished(n));
            numbers.finish(n);
        }
        assert_eq!(numbers.remembered(), 0);
        assert!(numbers.is_finished(999) && !numbers.is_finished(1000));
    }

    #[test]
    fn out_of_order_finishers_are_held_until_the_floor_reaches_them() {
        let mut numbers = Numbers::default();
        numbers.finish(2);
        numbers.finish(3);
        assert!(numbers.is_finished(3) && !numbers.is_finished(0));
        assert_eq!(numbers.remembered(), 2);
        numbers.finish(1);
        numbers.finish(0);
        assert_eq!(numbers.remembered(), 0, "the floor moved past 3");
        assert!((0..4).all(|n| numbers.is_finished(n)) && !numbers.is_finished(4));
        numbers.finish(9);
        numbers.finish(9);
        assert!(numbers.is_finished(9) && !numbers.is_finished(8));
        assert_eq!(numbers.remembered(), 1);
    }
}
