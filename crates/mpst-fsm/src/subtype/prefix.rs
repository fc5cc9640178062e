//! Prefixes with lazy removal and snapshots (PPoPP 2022, App. B.5), and the prefix
//! reduction rules \[→I\], \[→O\], \[→A\], \[→B\] of Definition 3 with fail-early detection.
//!
//! A prefix never forgets an action: it is the whole sequence of actions its machine
//! performed along the current search path (the paper's ρ), of which a suffix starting
//! at `start` may still be waiting to be matched. Matched actions are *marked* removed
//! (their position in the `removed` log is recorded), so that a snapshot — three
//! lengths — describes an older version exactly and restoring it is cheap.

use super::machine::{ActionId, ActionTable};

/// `removed_at` of an action that has not been removed.
const LIVE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Item {
    action: ActionId,
    /// `peer * 2 + 1` for a receive, `peer * 2` for a send ([`ActionTable::kind`]).
    kind: u32,
    /// Position in [`Prefix::removed`] of the removal of this item, or [`LIVE`].
    removed_at: u32,
}

/// A version of a [`Prefix`]: restore it with [`Prefix::restore`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Snapshot {
    len: u32,
    start: u32,
    removed: u32,
}

/// A lazily-removable list of actions.
#[derive(Debug, Default, Clone)]
pub(super) struct Prefix {
    items: Vec<Item>,
    /// Every item before `start` is removed; `items[start]` (if any) is live.
    start: usize,
    /// Indices of removed items, in removal order.
    removed: Vec<u32>,
}

impl Prefix {
    /// Appends an action (the rules \[OI\], \[OO\], \[II\], \[IO\] push one per side).
    pub(super) fn push(&mut self, action: ActionId, table: &ActionTable) {
        self.items.push(Item {
            action,
            kind: table.kind(action),
            removed_at: LIVE,
        });
    }

    /// Whether every action has been matched.
    pub(super) fn is_empty(&self) -> bool {
        self.start == self.items.len()
    }

    /// The current version.
    pub(super) fn snapshot(&self) -> Snapshot {
        Snapshot {
            len: self.items.len() as u32,
            start: self.start as u32,
            removed: self.removed.len() as u32,
        }
    }

    /// Goes back to an older version taken on the current search path.
    pub(super) fn restore(&mut self, snap: Snapshot) {
        for &index in &self.removed[snap.removed as usize..] {
            if let Some(item) = self.items.get_mut(index as usize) {
                item.removed_at = LIVE;
            }
        }
        self.removed.truncate(snap.removed as usize);
        self.items.truncate(snap.len as usize);
        self.start = snap.start as usize;
    }

    fn remove(&mut self, index: usize) {
        self.items[index].removed_at = self.removed.len() as u32;
        self.removed.push(index as u32);
        while self.start < self.items.len() && self.items[self.start].removed_at != LIVE {
            self.start += 1;
        }
    }

    /// The actions still waiting to be matched, in order, with their indices.
    pub(super) fn live(&self) -> impl Iterator<Item = (usize, ActionId)> + '_ {
        self.items[self.start..]
            .iter()
            .enumerate()
            .filter(|(_, item)| item.removed_at == LIVE)
            .map(move |(i, item)| (self.start + i, item.action))
    }

    /// The actions that were waiting at the time of `snap`.
    fn live_at(&self, snap: Snapshot) -> impl Iterator<Item = ActionId> + '_ {
        self.items[snap.start as usize..snap.len as usize]
            .iter()
            .filter(move |item| item.removed_at >= snap.removed)
            .map(|item| item.action)
    }

    /// Whether the waiting actions now are exactly those waiting at `snap`.
    pub(super) fn same_as(&self, snap: Snapshot) -> bool {
        // Every removal is logged once, so the live counts come for free.
        self.items.len() - self.removed.len() == (snap.len - snap.removed) as usize
            && self.live().map(|(_, a)| a).eq(self.live_at(snap))
    }

    /// Every action pushed since `snap` (the paper's ρ' for an assumption made then).
    pub(super) fn pushed_since(&self, snap: Snapshot) -> impl Iterator<Item = ActionId> + '_ {
        self.items[(snap.len as usize).min(self.items.len())..]
            .iter()
            .map(|item| item.action)
    }

    /// Every action ever pushed on the current path (the paper's ρ).
    pub(super) fn history(&self) -> impl Iterator<Item = ActionId> + '_ {
        self.items.iter().map(|item| item.action)
    }
}

/// Why the head of the subtype's prefix can never be matched, whatever is appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stuck {
    /// The head `receive` of the subtype would have to overtake the supertype's
    /// pending `send` (\[→A\] only lets receives from other peers be overtaken).
    ReceiveOvertakesSend {
        /// The subtype's receive.
        receive: ActionId,
        /// The supertype's send in the way.
        send: ActionId,
    },
    /// The subtype's head and the supertype's first action with the same peer and
    /// direction differ in label or payload sorts: neither can ever move past the other.
    Mismatch {
        /// The subtype's action.
        sub: ActionId,
        /// The supertype's action.
        sup: ActionId,
    },
}

/// Where a reduction stopped: the subtype's head waits at index `head` and every live
/// action of the supertype's prefix before `scanned` may be overtaken by it.
///
/// A configuration's children start from its prefixes plus one action at the end of
/// each, so their reduction can resume the head's scan at `scanned` instead of
/// rescanning the supertype's pending actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Resume {
    head: usize,
    scanned: usize,
}

/// Applies \[→I\], \[→O\], \[→A\], \[→B\] as long as possible (\[SUB\]).
///
/// Returns `Err` when the head of `sub` can never be reduced (fail early); otherwise
/// `sub` is empty (`Ok(None)`) or its head waits for actions the supertype has not
/// performed yet (`Ok(Some(resume))`). `hint` must come from a reduction of these very
/// prefixes before actions were appended to them (and nothing else changed).
pub(super) fn reduce(
    sub: &mut Prefix,
    sup: &mut Prefix,
    hint: Option<Resume>,
) -> Result<Option<Resume>, Stuck> {
    let mut first = hint.filter(|h| h.head == sub.start).map(|h| h.scanned);
    // After a match at `j`, a next head with the same action can skip what it skipped.
    let mut previous: Option<(ActionId, usize)> = None;
    'heads: while !sub.is_empty() {
        let head = sub.start;
        let Item {
            action: a, kind, ..
        } = sub.items[head];
        let receive = kind & 1 == 1;
        let mut j = match (first.take(), previous) {
            (Some(j), _) => j,
            (None, Some((p, j))) if p == a => j,
            _ => sup.start,
        }
        .max(sup.start);
        while j < sup.items.len() {
            let item = sup.items[j];
            if item.removed_at == LIVE {
                let b = item.action;
                if a == b {
                    // [→I] / [→O] when j is the head, [→A] / [→B] otherwise: everything
                    // skipped so far is in A^(p) (receives from other peers) or B^(p)
                    // (receives, or sends to other peers).
                    sub.remove(head);
                    sup.remove(j);
                    previous = Some((a, j + 1));
                    continue 'heads;
                }
                let b_receive = item.kind & 1 == 1;
                let same_peer = item.kind >> 1 == kind >> 1;
                match (receive, b_receive) {
                    (true, false) => {
                        return Err(Stuck::ReceiveOvertakesSend {
                            receive: a,
                            send: b,
                        });
                    }
                    (true, true) | (false, false) if same_peer => {
                        return Err(Stuck::Mismatch { sub: a, sup: b });
                    }
                    _ => {}
                }
            }
            j += 1;
        }
        return Ok(Some(Resume {
            head,
            scanned: sup.items.len(),
        }));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LocalType;
    use crate::subtype::machine::compile;

    /// A table with `q!a`=0? — built from a tiny machine so ids are known.
    fn table() -> (ActionTable, Vec<ActionId>) {
        // p!a . p?b . q?c . q!d . p!e
        let ty = LocalType::parse("p!a(). p?b(). q?c(). q!d(). p!e(). end").unwrap();
        let fsm = ty.to_fsm("r").unwrap();
        let (table, sub, _) = compile(&fsm, &fsm);
        let ids = (0..5).map(|s| sub.edges(s)[0].0).collect();
        (table, ids)
    }

    fn prefix(t: &ActionTable, ids: &[ActionId]) -> Prefix {
        let mut p = Prefix::default();
        ids.iter().for_each(|&a| p.push(a, t));
        p
    }

    #[test]
    fn send_overtakes_receives_and_sends_to_others() {
        let (t, id) = table();
        let (pa, pb, qc, qd) = (id[0], id[1], id[2], id[3]);
        // ⟨p!a ∥ p?b.q?c.q!d.p!a⟩ → ⟨ε ∥ p?b.q?c.q!d⟩ by [→B]
        let mut sub = prefix(&t, &[pa]);
        let mut sup = prefix(&t, &[pb, qc, qd, pa]);
        assert_eq!(reduce(&mut sub, &mut sup, None).map(|_| ()), Ok(()));
        assert!(sub.is_empty());
        assert_eq!(
            sup.live().map(|(_, a)| a).collect::<Vec<_>>(),
            vec![pb, qc, qd]
        );
    }

    #[test]
    fn receive_cannot_overtake_a_send_or_same_peer_receive() {
        let (t, id) = table();
        let (pa, pb, qc, qd) = (id[0], id[1], id[2], id[3]);
        let mut sub = prefix(&t, &[pb]);
        let mut sup = prefix(&t, &[qc, qd, pb]);
        assert_eq!(
            reduce(&mut sub, &mut sup, None).map(|_| ()),
            Err(Stuck::ReceiveOvertakesSend {
                receive: pb,
                send: qd
            })
        );
        let mut sub = prefix(&t, &[qc]);
        let mut sup = prefix(&t, &[pb, qc]);
        assert_eq!(
            reduce(&mut sub, &mut sup, None).map(|_| ()),
            Ok(()),
            "[→A] past p?b"
        );
        assert!(sub.is_empty());
        let mut sub = prefix(&t, &[pa]);
        let mut sup = prefix(&t, &[qc, id[4]]);
        assert_eq!(
            reduce(&mut sub, &mut sup, None).map(|_| ()),
            Err(Stuck::Mismatch {
                sub: pa,
                sup: id[4]
            })
        );
    }

    #[test]
    fn snapshots_restore_removals_and_compare_live_content() {
        let (t, id) = table();
        let (pa, pb, qc) = (id[0], id[1], id[2]);
        let mut sub = prefix(&t, &[pb]);
        let mut sup = prefix(&t, &[qc]);
        let (s0, p0) = (sub.snapshot(), sup.snapshot());
        sub.push(pa, &t);
        sup.push(pb, &t);
        sup.push(pa, &t);
        assert_eq!(reduce(&mut sub, &mut sup, None).map(|_| ()), Ok(()));
        // sub: p?b matched, p!a matched; sup: q?c waits.
        assert!(sub.is_empty());
        assert!(!sub.same_as(s0));
        assert_eq!(sup.live().count(), 1);
        assert!(sup.same_as(p0));
        assert_eq!(sub.pushed_since(s0).collect::<Vec<_>>(), vec![pa]);
        sub.restore(s0);
        sup.restore(p0);
        assert!(sub.same_as(s0) && sup.same_as(p0));
        assert_eq!(sub.live().map(|(_, a)| a).collect::<Vec<_>>(), vec![pb]);
        assert_eq!(sup.history().collect::<Vec<_>>(), vec![qc]);
    }

    #[test]
    fn resuming_a_scan_gives_the_same_reduction_as_rescanning() {
        let (t, id) = table();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..2000 {
            let (mut sub, mut sup) = (Prefix::default(), Prefix::default());
            let mut hint = None;
            for _ in 0..12 {
                sub.push(id[next(5)], &t);
                sup.push(id[next(5)], &t);
                let (mut sub2, mut sup2) = (sub.clone(), sup.clone());
                let resumed = reduce(&mut sub, &mut sup, hint);
                let fresh = reduce(&mut sub2, &mut sup2, None);
                assert_eq!(resumed.is_ok(), fresh.is_ok());
                assert_eq!(resumed.err(), fresh.err());
                assert_eq!(
                    sub.live().collect::<Vec<_>>(),
                    sub2.live().collect::<Vec<_>>()
                );
                assert_eq!(
                    sup.live().collect::<Vec<_>>(),
                    sup2.live().collect::<Vec<_>>()
                );
                match resumed {
                    Ok(h) => hint = h,
                    Err(_) => break,
                }
            }
        }
    }
}
