//! The mailbox's entries, one per session: each holds its own slots (by key) and its
//! strays. An envelope of a session not started here is filed
//! straight into that session's entry (not started yet), so nothing is filed again when
//! the session starts, and a session's end drops its entry whole without looking at the
//! keys of any other session (a role running ahead fills its peers' mailboxes with later
//! sessions' envelopes).

use super::mailbox::{Address, Filed, HashMap};
use super::session_of;
use super::table::Table;
use crate::key::Key;
use crate::transport::Envelope;

/// Emptied entries kept for later sessions (their vectors keep their capacity).
const SPARE: usize = 16;

/// One session's keys at this endpoint.
#[derive(Default)]
pub(crate) struct Session {
    /// Whether the session has started here (an entry made by an envelope that arrived
    /// first has not; it is dropped when it holds nothing more).
    pub(crate) started: bool,
    /// Every key of the session delivered, claimed by a receive, or held unclaimed: its
    /// sender and state.
    pub(crate) slots: Table<Key, Filed>,
    /// Unclaimed envelopes whose key's slot holds an unclaimed envelope of another sender
    /// (at most one per sender and key; usually none). The receive that claims the key
    /// takes the one of its sender and refuses the other as from the wrong sender.
    pub(crate) strays: Table<Address, (Envelope, u64)>,
}

impl Session {
    /// Whether it holds no key.
    fn is_empty(&self) -> bool {
        self.slots.is_empty() && self.strays.is_empty()
    }

    /// How many keys it holds (delivered, claimed by a receive, or held unclaimed).
    fn held(&self) -> usize {
        self.slots.len() + self.strays.len()
    }
}

/// Entries kept in a short vector, scanned before the hash map is asked.
const RECENT: usize = 4;

/// The entries by session number, and one for keys of no session (a token whose first
/// frame is not a session's, which only a peer sends: held until they expire).
///
/// A few entries (the sessions running or last made, usually all of them) are a short
/// vector found by comparing numbers; the rest are in a hash map keyed by the session
/// number, which a peer chooses for the envelopes it sends, with the mailbox's keyed
/// hasher, so a flood of numbers costs a hash each. A session that starts is moved into
/// the vector if there is room. Entries of sessions not started hold at least one
/// unclaimed envelope each (they are dropped when they hold none), so the unclaimed
/// bounds bound them too.
#[derive(Default)]
pub(crate) struct Sessions {
    recent: Vec<(u64, Session)>,
    by_number: HashMap<u64, Session>,
    loose: Session,
    spare: Vec<Session>,
}

impl Sessions {
    /// The entry of `session` ([`session_of`] a key), if there is one.
    pub(crate) fn get_mut(&mut self, session: Option<u64>) -> Option<&mut Session> {
        let Some(n) = session else {
            return Some(&mut self.loose);
        };
        if let Some(at) = self.recent.iter().position(|(m, _)| *m == n) {
            return Some(&mut self.recent[at].1);
        }
        // An empty map is asked nothing (no hash computed): the common case.
        if self.by_number.is_empty() {
            return None;
        }
        self.by_number.get_mut(&n)
    }

    /// The entry of the session of `key`, if there is one.
    pub(crate) fn of(&mut self, key: &Key) -> Option<&mut Session> {
        self.get_mut(session_of(key))
    }

    /// The entry of `session`, made (not started) if there is none.
    pub(crate) fn get_or_make(&mut self, session: Option<u64>) -> &mut Session {
        let Some(n) = session else {
            return &mut self.loose;
        };
        if let Some(at) = self.recent.iter().position(|(m, _)| *m == n) {
            return &mut self.recent[at].1;
        }
        if self.recent.len() < RECENT && !self.by_number.contains_key(&n) {
            let fresh = self.spare.pop().unwrap_or_default();
            self.recent.push((n, fresh));
            let last = self.recent.len() - 1;
            return &mut self.recent[last].1;
        }
        let spare = &mut self.spare;
        (self.by_number)
            .entry(n)
            .or_insert_with(|| spare.pop().unwrap_or_default())
    }

    /// Starts session `n`: its entry (made if there is none) is marked started and moved
    /// into the short vector if there is room; `false` if it has started already.
    #[inline]
    pub(crate) fn start(&mut self, n: u64) -> bool {
        if self.recent.len() < RECENT && !self.by_number.is_empty() {
            if let Some(entry) = self.by_number.remove(&n) {
                self.recent.push((n, entry));
            }
        }
        let entry = self.get_or_make(Some(n));
        !std::mem::replace(&mut entry.started, true)
    }

    /// Takes the entry of session `n` out (it finished); give it back with
    /// [`Sessions::recycle`] once it is emptied.
    pub(crate) fn remove(&mut self, n: u64) -> Option<Session> {
        if let Some(at) = self.recent.iter().position(|(m, _)| *m == n) {
            return Some(self.recent.swap_remove(at).1);
        }
        self.by_number.remove(&n)
    }

    /// Empties a finished session's entry and keeps it for a later session if it is
    /// small.
    pub(crate) fn recycle(&mut self, mut session: Session) {
        session.started = false;
        // `&`, not `&&`: every table is cleared, whatever the others answer.
        let small = session.slots.clear() & session.strays.clear();
        if small && self.spare.len() < SPARE {
            self.spare.push(session);
        }
    }

    /// Drops the entry of `session` if it has not started and holds nothing more (its
    /// last unclaimed envelope expired).
    pub(crate) fn drop_if_idle(&mut self, session: Option<u64>) {
        let Some(n) = session else {
            return;
        };
        if (self.get_mut(session)).is_some_and(|s| !s.started && s.is_empty()) {
            if let Some(idle) = self.remove(n) {
                self.recycle(idle);
            }
        }
    }

    /// Every entry, to change.
    pub(crate) fn for_each_mut(&mut self, mut f: impl FnMut(&mut Session)) {
        self.recent.iter_mut().for_each(|(_, s)| f(s));
        self.by_number.values_mut().for_each(&mut f);
        f(&mut self.loose);
    }

    /// How many keys the entries hold.
    pub(crate) fn held(&self) -> usize {
        let recent: usize = self.recent.iter().map(|(_, s)| s.held()).sum();
        recent + self.by_number.values().map(Session::held).sum::<usize>() + self.loose.held()
    }

    /// How many entries there are beside the one for keys of no session.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.recent.len() + self.by_number.len()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::time::Instant;

    use super::super::Pending;
    use super::super::mailbox::{Bounds, Mailbox};
    use crate::key::{Key, Site, Token};
    use crate::role::RoleName;
    use crate::transport::Envelope;

    const BOUNDS: Bounds = Bounds {
        count: 10,
        bytes: 1000,
        age: Duration::from_secs(10),
    };

    fn env(session: u64, site: u64) -> Envelope {
        Envelope {
            from: RoleName::from("A"),
            to: RoleName::from("B"),
            key: Key::new(Site::from_id(site), Token::session(session)),
            payload: vec![0; 10],
        }
    }

    #[test]
    fn a_later_sessions_envelopes_wait_in_its_entry_and_are_claimed_once_it_starts() {
        let mut mailbox = Mailbox::default();
        mailbox.sessions.get_or_make(Some(0)).started = true;
        assert!(mailbox.file(env(1, 1), BOUNDS).is_ok());
        assert!(mailbox.file(env(1, 1), BOUNDS).is_err(), "a duplicate");
        assert_eq!(mailbox.stats.duplicates_refused, 1);
        assert!(mailbox.file(env(2, 1), BOUNDS).is_ok());
        assert!(mailbox.file(env(0, 1), BOUNDS).is_ok());
        let a = RoleName::from("A");
        let claimed = mailbox.claim_slot(&a, &env(0, 1).key, Instant::now(), BOUNDS.age);
        assert!(matches!(claimed, Some(Pending::Ready(_))));
        // Session 0 ends: its entry goes, the later sessions' are untouched.
        mailbox.finish(0);
        assert_eq!((mailbox.sessions.len(), mailbox.sessions.held()), (2, 2));
        assert_eq!(mailbox.unclaimed.len(), 2);
        // Session 1 starts: nothing is filed again, its envelope is there.
        mailbox.sessions.get_or_make(Some(1)).started = true;
        let claimed = mailbox.claim_slot(&a, &env(1, 1).key, Instant::now(), BOUNDS.age);
        assert!(matches!(claimed, Some(Pending::Ready(_))));
        assert_eq!(mailbox.unclaimed.len(), 1);
        // Session 2's envelope expires where it waits, and its idle entry goes with it;
        // the running session 1 keeps its entry.
        mailbox.expire(BOUNDS, Instant::now() + Duration::from_secs(11));
        assert_eq!((mailbox.sessions.len(), mailbox.unclaimed.len()), (1, 0));
        assert_eq!(mailbox.stats.unclaimed_dropped, 1);
        assert_eq!(mailbox.unclaimed.bytes, 0);
    }

    #[test]
    fn envelopes_of_sessions_not_started_count_against_the_bounds() {
        let mut mailbox = Mailbox::default();
        let three = Bounds { count: 3, ..BOUNDS };
        for n in 1..=5 {
            assert!(mailbox.file(env(n, 1), three).is_ok());
        }
        assert_eq!((mailbox.sessions.held(), mailbox.unclaimed.len()), (3, 3));
        assert_eq!(mailbox.stats.unclaimed_dropped, 2);
        assert!(mailbox.sessions.get_mut(Some(1)).is_none());
        assert!(mailbox.sessions.get_mut(Some(3)).is_some());
    }

    #[test]
    fn a_session_flooded_with_keys_is_hashed_bounded_and_dropped_when_they_expire() {
        let mut mailbox = Mailbox::default();
        let bounds = Bounds {
            count: 5000,
            bytes: 1 << 30,
            ..BOUNDS
        };
        // A peer's keys, all in one session that never starts, and some of no session.
        for site in 0..10_000 {
            assert!(mailbox.file(env(7, site), bounds).is_ok());
        }
        for site in 0..10 {
            let loose = Key::new(Site::from_id(site), Token::root().next(Site::from_id(1)));
            assert!(
                mailbox
                    .file(
                        Envelope {
                            key: loose,
                            ..env(0, 0)
                        },
                        bounds
                    )
                    .is_ok()
            );
        }
        assert_eq!(mailbox.sessions.held(), 5000);
        assert_eq!(mailbox.stats.unclaimed_dropped, 5010);
        assert_eq!(mailbox.sessions.len(), 1);
        mailbox.expire(bounds, Instant::now() + Duration::from_secs(11));
        assert_eq!((mailbox.sessions.held(), mailbox.sessions.len()), (0, 0));
        assert_eq!(mailbox.stats.unclaimed_dropped, 10_010);
    }

    #[test]
    fn entries_of_sessions_a_peer_names_are_bounded_and_dropped_with_their_envelopes() {
        let mut mailbox = Mailbox::default();
        let bounds = Bounds {
            count: 100,
            ..BOUNDS
        };
        mailbox.sessions.get_or_make(Some(0)).started = true;
        // Numbers far apart and out of order, each its own entry: at most the bound's.
        for n in (1..5000u64).rev() {
            assert!(mailbox.file(env(n * 7919 % 100_003, 1), bounds).is_ok());
            assert!(mailbox.sessions.len() <= 101);
        }
        assert_eq!(mailbox.sessions.held(), 100);
        mailbox.expire(bounds, Instant::now() + Duration::from_secs(11));
        assert_eq!(
            mailbox.sessions.len(),
            1,
            "the running session's entry stays"
        );
        assert_eq!(mailbox.stats.unclaimed_dropped, 4999);
    }
}
