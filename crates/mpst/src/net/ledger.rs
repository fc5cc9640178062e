//! The acknowledgement bookkeeping of one connection, without I/O: how many labels this
//! side handed out and the peer acknowledged, when the peer last said anything, and how
//! many labels this side read and told the peer about — so that a sender whose labels
//! stay unacknowledged with no word from the peer for the idle time-out knows the peer
//! is cut off, however much TCP (or a relay on the way) buffered.

use std::time::Duration;

use tokio::time::Instant;

/// One connection's acknowledgements, both ways.
#[derive(Debug, Clone)]
pub(super) struct Ledger {
    /// Labels handed to the write buffer.
    queued: u64,
    /// Labels known to be written out (the write buffer emptied after them).
    flushed: u64,
    /// The peer's latest count of labels read.
    acked: u64,
    /// When the peer last said anything (a label or an acknowledgement).
    heard: Instant,
    /// When the oldest unacknowledged label went out, nothing being outstanding before.
    since: Instant,
    /// Labels read from the peer.
    read: u64,
    /// The count the peer was last told.
    told: u64,
    /// When the peer was last told.
    last_told: Option<Instant>,
}

/// An acknowledgement of more labels than were sent: the peer is lying or broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Overcount {
    /// The count the peer acknowledged.
    pub(super) acknowledged: u64,
    /// Labels sent so far.
    pub(super) sent: u64,
}

impl Ledger {
    /// A connection that starts now, with nothing sent or read.
    pub(super) fn new(now: Instant) -> Self {
        Ledger {
            queued: 0,
            flushed: 0,
            acked: 0,
            heard: now,
            since: now,
            read: 0,
            told: 0,
            last_told: None,
        }
    }

    /// One more label handed to the write buffer.
    pub(super) fn queued(&mut self) {
        self.queued += 1;
    }

    /// Every label queued so far is written out (at `now`).
    pub(super) fn flushed(&mut self, now: Instant) {
        if self.queued == self.flushed {
            return;
        }
        if self.outstanding() == 0 {
            // Nothing was waiting for the peer: the wait starts now.
            self.since = now;
        }
        self.flushed = self.queued;
    }

    /// The peer says it read `count` labels (at `now`); more than were sent is refused.
    pub(super) fn acknowledged(&mut self, count: u64, now: Instant) -> Result<(), Overcount> {
        if count > self.queued {
            return Err(Overcount {
                acknowledged: count,
                sent: self.queued,
            });
        }
        self.acked = self.acked.max(count);
        self.heard = now;
        Ok(())
    }

    /// Labels written out and not yet acknowledged.
    pub(super) fn outstanding(&self) -> u64 {
        self.flushed.saturating_sub(self.acked)
    }

    /// Labels handed out (written or still buffered) and not yet acknowledged.
    pub(super) fn unacknowledged(&self) -> u64 {
        self.queued.saturating_sub(self.acked)
    }

    /// When the peer's silence breaks the bound unless it speaks first (`None`: nothing
    /// outstanding, or a time-out beyond the clock).
    pub(super) fn deadline(&self, timeout: Duration) -> Option<Instant> {
        if self.outstanding() == 0 {
            return None;
        }
        self.heard.max(self.since).checked_add(timeout)
    }

    /// How many labels are outstanding if the peer broke the bound by `now`.
    pub(super) fn expired(&self, now: Instant, timeout: Duration) -> Option<u64> {
        self.deadline(timeout)
            .filter(|deadline| *deadline <= now)
            .map(|_| self.outstanding())
    }

    /// One more label read from the peer (at `now`: the peer said something).
    pub(super) fn read_one(&mut self, now: Instant) {
        self.read += 1;
        self.heard = now;
    }

    /// The count to tell the peer now, if any: what was read, when it grew since the
    /// peer was last told (or, with `repeat`, even if not: the peer must hear that this
    /// side is there while it does not read), at most once per `interval`.
    pub(super) fn ack_due(&self, now: Instant, interval: Duration, repeat: bool) -> Option<u64> {
        let waited = self.last_told.is_none_or(|last| last + interval <= now);
        ((self.read > self.told || repeat) && waited).then_some(self.read)
    }

    /// The count of labels read still to be told the peer, if any (whatever the time).
    pub(super) fn untold(&self) -> Option<u64> {
        (self.read > self.told).then_some(self.read)
    }

    /// The peer was told `count` (at `now`).
    pub(super) fn told(&mut self, count: u64, now: Instant) {
        self.told = count;
        self.last_told = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn the_wait_starts_when_the_first_unacknowledged_label_goes_out() {
        let t0 = Instant::now();
        let mut ledger = Ledger::new(t0);
        assert_eq!(ledger.deadline(SECOND), None);
        // Buffered, not written: nothing is waited for yet.
        ledger.queued();
        assert_eq!(ledger.deadline(SECOND), None);
        assert_eq!(ledger.unacknowledged(), 1);
        let t1 = t0 + 5 * SECOND;
        ledger.flushed(t1);
        assert_eq!(ledger.outstanding(), 1);
        assert_eq!(ledger.deadline(SECOND), Some(t1 + SECOND));
        assert_eq!(ledger.expired(t1 + SECOND / 2, SECOND), None);
        assert_eq!(ledger.expired(t1 + SECOND, SECOND), Some(1));
        // A later label does not restart the wait for the first.
        ledger.queued();
        ledger.flushed(t1 + SECOND / 2);
        assert_eq!(ledger.deadline(SECOND), Some(t1 + SECOND));
        assert_eq!(ledger.expired(t1 + SECOND, SECOND), Some(2));
    }

    #[test]
    fn any_word_from_the_peer_extends_the_wait_and_acknowledgements_settle_it() {
        let t0 = Instant::now();
        let mut ledger = Ledger::new(t0);
        for _ in 0..3 {
            ledger.queued();
        }
        ledger.flushed(t0);
        // A repeated count (the peer is there but not reading) is a word too.
        ledger.acknowledged(0, t0 + SECOND).unwrap();
        assert_eq!(ledger.deadline(SECOND), Some(t0 + 2 * SECOND));
        // So is a label.
        ledger.read_one(t0 + 3 * SECOND);
        assert_eq!(ledger.deadline(SECOND), Some(t0 + 4 * SECOND));
        ledger.acknowledged(2, t0 + 3 * SECOND).unwrap();
        assert_eq!(ledger.outstanding(), 1);
        // Counts only grow: an older acknowledgement arriving late changes nothing.
        ledger.acknowledged(1, t0 + 3 * SECOND).unwrap();
        assert_eq!(ledger.outstanding(), 1);
        ledger.acknowledged(3, t0 + 3 * SECOND).unwrap();
        assert_eq!(ledger.outstanding(), 0);
        assert_eq!(ledger.deadline(SECOND), None);
        assert_eq!(ledger.expired(t0 + 100 * SECOND, SECOND), None);
        // The next label's wait starts when it goes out, not at the last word.
        ledger.queued();
        ledger.flushed(t0 + 10 * SECOND);
        assert_eq!(ledger.deadline(SECOND), Some(t0 + 11 * SECOND));
    }

    #[test]
    fn an_acknowledgement_of_more_than_was_sent_is_refused() {
        let t0 = Instant::now();
        let mut ledger = Ledger::new(t0);
        assert_eq!(
            ledger.acknowledged(1, t0),
            Err(Overcount {
                acknowledged: 1,
                sent: 0
            })
        );
        ledger.queued();
        // Buffered labels may be acknowledged before this side saw its flush complete.
        assert_eq!(ledger.acknowledged(1, t0), Ok(()));
        assert!(ledger.acknowledged(u64::MAX, t0).is_err());
        assert_eq!(ledger.outstanding(), 0);
    }

    #[test]
    fn acknowledgements_are_batched_per_interval() {
        let t0 = Instant::now();
        let interval = Duration::from_millis(50);
        let mut ledger = Ledger::new(t0);
        assert_eq!(ledger.ack_due(t0, interval, false), None);
        // A repeat tells the peer this side is there even with nothing new.
        assert_eq!(ledger.ack_due(t0, interval, true), Some(0));
        ledger.read_one(t0);
        ledger.read_one(t0);
        assert_eq!(ledger.ack_due(t0, interval, false), Some(2));
        ledger.told(2, t0);
        ledger.read_one(t0);
        // Within the interval: batched with what comes next.
        assert_eq!(ledger.ack_due(t0 + interval / 2, interval, false), None);
        assert_eq!(ledger.untold(), Some(3));
        assert_eq!(ledger.ack_due(t0 + interval, interval, false), Some(3));
        ledger.told(3, t0 + interval);
        assert_eq!(ledger.untold(), None);
        assert_eq!(ledger.ack_due(t0 + 9 * interval, interval, false), None);
    }
}
