//! The acknowledgement bookkeeping of one connection, without I/O: how many labels this
//! side handed out and the peer acknowledged, when the peer last said anything, and how
//! many labels this side read and told the peer about — so that a sender whose labels
//! stay unacknowledged with no word from the peer for the idle time-out knows the peer
//! is cut off, however much TCP (or a relay on the way) buffered.
//!
//! The hot path reads no clock: a label read, an acknowledgement or a flush only moves a
//! counter, and [`Ledger::stamp`] (called by the tender every
//! [`ACK_INTERVAL`](super::ACK_INTERVAL)) dates what changed since its last call with the
//! time of that call. Every date is therefore at or after the event it dates, never
//! before: the bound on the peer's silence can only fire late (by at most two tending
//! rounds), never early.

use std::time::{Duration, Instant};

/// One connection's acknowledgements, both ways.
#[derive(Debug, Clone, Default)]
pub(super) struct Ledger {
    /// Labels handed to the write buffer.
    queued: u64,
    /// Labels known to be written out (the write buffer emptied after them).
    flushed: u64,
    /// The peer's latest count of labels read.
    acked: u64,
    /// Words heard from the peer (labels and acknowledgements).
    words: u64,
    /// `words` at the last stamp.
    words_stamped: u64,
    /// When the peer last said anything, as of the last stamp (none yet: never).
    heard: Option<Instant>,
    /// While labels are outstanding: when the wait for the oldest began, as of the last
    /// stamp (`None`: it began after the last stamp, or nothing is outstanding).
    since: Option<Instant>,
    /// Labels read from the peer.
    read: u64,
    /// The count the peer was last told.
    told: u64,
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
    /// A connection with nothing sent or read.
    pub(super) fn new() -> Self {
        Self::default()
    }

    /// One more label handed to the write buffer.
    pub(super) fn queued(&mut self) {
        self.queued += 1;
    }

    /// Every label queued so far is written out.
    pub(super) fn flushed(&mut self) {
        if self.queued == self.flushed {
            return;
        }
        if self.outstanding() == 0 {
            // Nothing was waiting for the peer: a wait starts, dated at the next stamp.
            self.since = None;
        }
        self.flushed = self.queued;
    }

    /// The peer says it read `count` labels; more than were sent is refused.
    pub(super) fn acknowledged(&mut self, count: u64) -> Result<(), Overcount> {
        if count > self.queued {
            return Err(Overcount {
                acknowledged: count,
                sent: self.queued,
            });
        }
        self.acked = self.acked.max(count);
        self.words += 1;
        Ok(())
    }

    /// One more label read from the peer (the peer said something).
    pub(super) fn read_one(&mut self) {
        self.read += 1;
        self.words += 1;
    }

    /// Dates what changed since the last stamp with `now`: the peer's latest word, and
    /// the start of a wait for labels that went out.
    pub(super) fn stamp(&mut self, now: Instant) {
        if self.words != self.words_stamped {
            self.words_stamped = self.words;
            self.heard = Some(now);
        }
        if self.outstanding() == 0 {
            self.since = None;
        } else if self.since.is_none() {
            self.since = Some(now);
        }
    }

    /// Labels written out and not yet acknowledged.
    pub(super) fn outstanding(&self) -> u64 {
        self.flushed.saturating_sub(self.acked)
    }

    /// Labels handed out (written or still buffered) and not yet acknowledged.
    pub(super) fn unacknowledged(&self) -> u64 {
        self.queued.saturating_sub(self.acked)
    }

    /// As of the last stamp, when the peer's silence breaks the bound unless it speaks
    /// first (`None`: nothing outstanding or not yet dated, or a time-out beyond the
    /// clock).
    pub(super) fn deadline(&self, timeout: Duration) -> Option<Instant> {
        if self.outstanding() == 0 {
            return None;
        }
        let since = self.since?;
        self.heard
            .map_or(since, |heard| heard.max(since))
            .checked_add(timeout)
    }

    /// Stamps with `now`, then: how many labels are outstanding if the peer broke the
    /// bound by `now`.
    pub(super) fn expired(&mut self, now: Instant, timeout: Duration) -> Option<u64> {
        self.stamp(now);
        self.deadline(timeout)
            .filter(|deadline| *deadline <= now)
            .map(|_| self.outstanding())
    }

    /// The count to tell the peer now, if any: what was read, when it grew since the
    /// peer was last told (or, with `repeat`, even if not: the peer must hear that this
    /// side is there while it does not read).
    pub(super) fn ack_due(&self, repeat: bool) -> Option<u64> {
        (self.read > self.told || repeat).then_some(self.read)
    }

    /// The count of labels read still to be told the peer, if any.
    pub(super) fn untold(&self) -> Option<u64> {
        self.ack_due(false)
    }

    /// The peer was told `count`.
    pub(super) fn told(&mut self, count: u64) {
        self.told = count;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn the_wait_starts_when_the_first_unacknowledged_label_goes_out() {
        let t0 = Instant::now();
        let mut ledger = Ledger::new();
        ledger.stamp(t0);
        assert_eq!(ledger.deadline(SECOND), None);
        // Buffered, not written: nothing is waited for yet.
        ledger.queued();
        ledger.stamp(t0);
        assert_eq!(ledger.deadline(SECOND), None);
        assert_eq!(ledger.unacknowledged(), 1);
        ledger.flushed();
        assert_eq!(ledger.outstanding(), 1);
        // Not dated until the next stamp: the wait starts then, never earlier.
        assert_eq!(ledger.deadline(SECOND), None);
        let t1 = t0 + 5 * SECOND;
        assert_eq!(ledger.expired(t1, SECOND), None);
        assert_eq!(ledger.deadline(SECOND), Some(t1 + SECOND));
        assert_eq!(ledger.expired(t1 + SECOND / 2, SECOND), None);
        // A later label does not restart the wait for the first.
        ledger.queued();
        ledger.flushed();
        assert_eq!(ledger.expired(t1 + SECOND, SECOND), Some(2));
    }

    #[test]
    fn any_word_from_the_peer_extends_the_wait_and_acknowledgements_settle_it() {
        let t0 = Instant::now();
        let mut ledger = Ledger::new();
        for _ in 0..3 {
            ledger.queued();
        }
        ledger.flushed();
        ledger.stamp(t0);
        // A repeated count (the peer is there but not reading) is a word too.
        ledger.acknowledged(0).unwrap();
        assert_eq!(ledger.expired(t0 + SECOND, SECOND), None);
        assert_eq!(ledger.deadline(SECOND), Some(t0 + 2 * SECOND));
        // So is a label.
        ledger.read_one();
        ledger.stamp(t0 + 3 * SECOND);
        assert_eq!(ledger.deadline(SECOND), Some(t0 + 4 * SECOND));
        // Silence since then breaks the bound.
        assert_eq!(ledger.expired(t0 + 4 * SECOND, SECOND), Some(3));
        ledger.acknowledged(2).unwrap();
        assert_eq!(ledger.outstanding(), 1);
        // Counts only grow: an older acknowledgement arriving late changes nothing.
        ledger.acknowledged(1).unwrap();
        assert_eq!(ledger.outstanding(), 1);
        ledger.acknowledged(3).unwrap();
        assert_eq!(ledger.outstanding(), 0);
        assert_eq!(ledger.deadline(SECOND), None);
        assert_eq!(ledger.expired(t0 + 100 * SECOND, SECOND), None);
        // The next label's wait starts when it goes out (dated by the next stamp), not
        // at the last word.
        ledger.queued();
        ledger.flushed();
        ledger.stamp(t0 + 110 * SECOND);
        assert_eq!(ledger.deadline(SECOND), Some(t0 + 111 * SECOND));
    }

    #[test]
    fn an_acknowledgement_of_more_than_was_sent_is_refused() {
        let mut ledger = Ledger::new();
        assert_eq!(
            ledger.acknowledged(1),
            Err(Overcount {
                acknowledged: 1,
                sent: 0
            })
        );
        ledger.queued();
        // Buffered labels may be acknowledged before this side saw its flush complete.
        assert_eq!(ledger.acknowledged(1), Ok(()));
        assert!(ledger.acknowledged(u64::MAX).is_err());
        assert_eq!(ledger.outstanding(), 0);
    }

    #[test]
    fn what_was_read_is_told_once_unless_repeated() {
        let mut ledger = Ledger::new();
        assert_eq!(ledger.ack_due(false), None);
        // A repeat tells the peer this side is there even with nothing new.
        assert_eq!(ledger.ack_due(true), Some(0));
        ledger.read_one();
        ledger.read_one();
        assert_eq!(ledger.ack_due(false), Some(2));
        ledger.told(2);
        assert_eq!(ledger.untold(), None);
        ledger.read_one();
        assert_eq!(ledger.untold(), Some(3));
        ledger.told(3);
        assert_eq!(ledger.ack_due(false), None);
        assert_eq!(ledger.ack_due(true), Some(3));
    }
}
