//! Where a waiting receive gets its envelope: a cell in the mailbox's slab, found by
//! index (no channel allocated per receive, no key hashed again when the receive polls).
//!
//! A receive that must wait gets a [`CellId`] (the cell's index and a generation) when it
//! claims its key; the slot of that key in the mailbox holds the same id. A delivery,
//! time-out, lost peer or closed stream settles the cell (stores the outcome and wakes the
//! receive's waker); the receive polls its cell by index under the mailbox's lock and
//! frees it when it takes the outcome, or when it is dropped unsettled. Generations tell a
//! freed cell's id from the id of the cell that reused its index, so a settlement for a
//! receive that was dropped finds no cell and the outcome is dropped, as late.

use std::task::{Context, Poll, Waker};

use slab::Slab;

use super::mailbox::Gone;

/// A waiting receive's cell: its index in the slab and its generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CellId {
    index: usize,
    generation: u64,
}

enum State {
    /// Not settled yet: the waker of the receive's last poll, if it was polled.
    Waiting(Option<Waker>),
    /// Settled: what the receive gets (its envelope's payload: the sender and key are
    /// those it claimed).
    Settled(Result<Vec<u8>, Gone>),
}

struct Cell {
    generation: u64,
    state: State,
}

/// The cells of the receives that wait (or were settled and not polled since).
#[derive(Default)]
pub(crate) struct Cells {
    slab: Slab<Cell>,
    next_generation: u64,
    /// How many cells are not settled yet (their receives wait).
    waiting: usize,
}

impl Cells {
    /// A new unsettled cell.
    pub(crate) fn open(&mut self) -> CellId {
        let generation = self.next_generation;
        self.next_generation += 1;
        let index = self.slab.insert(Cell {
            generation,
            state: State::Waiting(None),
        });
        self.waiting += 1;
        CellId { index, generation }
    }

    fn get_mut(&mut self, id: CellId) -> Option<&mut Cell> {
        self.slab
            .get_mut(id.index)
            .filter(|cell| cell.generation == id.generation)
    }

    /// Whether the receive of `id` still waits for its outcome (it was neither settled
    /// nor dropped).
    pub(crate) fn waits(&self, id: CellId) -> bool {
        self.slab.get(id.index).is_some_and(|cell| {
            cell.generation == id.generation && matches!(cell.state, State::Waiting(_))
        })
    }

    /// How many receives wait in their cells (neither settled nor dropped).
    pub(crate) fn waiting(&self) -> usize {
        self.waiting
    }

    /// Settles the cell of `id` with `outcome` and wakes its receive; whether it did. A
    /// cell is settled at most once: `outcome` is dropped if the cell was settled already
    /// (the receive timed out) or its receive was dropped meanwhile.
    pub(crate) fn settle(&mut self, id: CellId, outcome: Result<Vec<u8>, Gone>) -> bool {
        let Some(cell) = self.get_mut(id) else {
            return false;
        };
        let State::Waiting(waker) = &mut cell.state else {
            return false;
        };
        let waker = waker.take();
        cell.state = State::Settled(outcome);
        self.waiting -= 1;
        if let Some(waker) = waker {
            waker.wake();
        }
        true
    }

    /// Polls the cell of `id`: its outcome, freeing the cell, once settled; else keeps
    /// `cx`'s waker to be woken by the settlement. A cell that is gone (the mailbox
    /// forgot it) reads as closed.
    pub(crate) fn poll(&mut self, id: CellId, cx: &mut Context<'_>) -> Poll<Result<Vec<u8>, Gone>> {
        let Some(cell) = self.get_mut(id) else {
            return Poll::Ready(Err(Gone::Closed));
        };
        match &mut cell.state {
            State::Waiting(waker) => {
                match waker {
                    Some(w) if w.will_wake(cx.waker()) => {}
                    _ => *waker = Some(cx.waker().clone()),
                }
                Poll::Pending
            }
            State::Settled(_) => match self.slab.remove(id.index).state {
                State::Settled(outcome) => Poll::Ready(outcome),
                State::Waiting(_) => unreachable!("matched as settled"),
            },
        }
    }

    /// Frees the cell of a receive dropped before it took its outcome.
    pub(crate) fn free(&mut self, id: CellId) {
        if let Some(cell) = self.get_mut(id) {
            if matches!(cell.state, State::Waiting(_)) {
                self.waiting -= 1;
            }
            self.slab.remove(id.index);
        }
    }

    /// How many cells are held (waiting, or settled and not yet polled).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.slab.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poll(cells: &mut Cells, id: CellId) -> Poll<Result<Vec<u8>, Gone>> {
        cells.poll(id, &mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn a_cell_settles_once_and_is_freed_when_taken_or_dropped() {
        let mut cells = Cells::default();
        let first = cells.open();
        assert!(poll(&mut cells, first).is_pending());
        assert!(cells.waits(first));
        assert_eq!(cells.waiting(), 1);
        assert!(cells.settle(first, Err(Gone::TimedOut)));
        assert!(!cells.waits(first));
        assert_eq!(cells.waiting(), 0);
        assert!(
            !cells.settle(first, Err(Gone::Closed)),
            "a settled cell keeps its outcome"
        );
        assert!(matches!(
            poll(&mut cells, first),
            Poll::Ready(Err(Gone::TimedOut))
        ));
        assert_eq!(cells.len(), 0);
        // The index is reused: the old id no longer names it.
        let second = cells.open();
        assert_eq!(second.index, first.index);
        assert!(!cells.settle(first, Err(Gone::TimedOut)));
        assert!(cells.waits(second), "a stale id settles nothing");
        cells.free(second);
        assert_eq!((cells.len(), cells.waiting()), (0, 0));
        assert!(!cells.settle(second, Err(Gone::Closed)));
        assert_eq!(cells.len(), 0, "a dropped receive's outcome is dropped");
        assert!(matches!(
            poll(&mut cells, second),
            Poll::Ready(Err(Gone::Closed))
        ));
    }
}
