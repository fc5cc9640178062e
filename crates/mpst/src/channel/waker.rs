//! The waker cell of one receiver of a [`Spsc`](super::Spsc) route: the receiver *arms* it
//! before it waits and a send (or a close) wakes it, by reference, so the waker stays in
//! the cell across messages.
//!
//! `futures`' `AtomicWaker` hands its waker out on every wake (`take`), so each wait of
//! a ping-pong clones the waker back in (a reference count up in the executor, and
//! another compare-and-swap). Here the waker is kept: re-arming for the same task is one
//! `fetch_or`, and a wake reads the waker in place.
//!
//! # The state machine
//!
//! One `AtomicU8` holds three bits; every operation on it is a read-modify-write, so each
//! synchronises with every earlier one (a release sequence), which is what makes "push,
//! then wake" on one side and "arm, then look" on the other never both miss:
//!
//! * [`ARMED`]: the receiver waits; the next wake wakes it. Set by the receiver, cleared
//!   by the wake that claims the cell.
//! * [`WAKING`]: a wake holds the cell and reads the waker. Taken only when `ARMED` is set
//!   and neither lock bit is (it clears `ARMED` in the same step), released after the
//!   wake.
//! * [`REGISTERING`]: the receiver holds the cell and replaces the waker (a new task, or
//!   the first wait). Taken only when `WAKING` is clear.
//!
//! A wake that finds a lock bit set does nothing: under `REGISTERING` the receiver looks
//! at its queue after it arms (and that arm comes after the wake, so it sees the message);
//! under `WAKING` the holder wakes the receiver, and a receiver that arms while a wake
//! holds the cell wakes itself, so that it polls (and arms) again once the holder is done.
//! The receiver alone writes the waker, and only under `REGISTERING`, so it may read it
//! (to compare) without a lock.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::Waker;

/// The receiver waits: the next wake wakes it.
const ARMED: u8 = 1;
/// A wake holds the cell: it reads the waker.
const WAKING: u8 = 2;
/// The receiver holds the cell: it writes the waker.
const REGISTERING: u8 = 4;

/// The waker one receiver waits with, woken by any number of wakers on any thread.
///
/// [`WakerCell::arm`] may run on at most one thread at a time (the receiver; it is
/// `unsafe` for that); [`WakerCell::wake`] on any number.
pub(super) struct WakerCell {
    /// [`ARMED`], [`WAKING`] and [`REGISTERING`].
    state: AtomicU8,
    /// Written by the receiver under [`REGISTERING`]; read by a wake under [`WAKING`] and
    /// by the receiver at any time.
    waker: UnsafeCell<Option<Waker>>,
}

// SAFETY: the waker is `Send + Sync`; the cell is written only by the one receiver while
// it holds `REGISTERING`, which excludes a wake's read (under `WAKING`), and the state's
// acquire/release read-modify-writes order each write before the reads that follow it.
unsafe impl Send for WakerCell {}
// SAFETY: as above.
unsafe impl Sync for WakerCell {}

impl Default for WakerCell {
    #[inline]
    fn default() -> Self {
        Self {
            state: AtomicU8::new(0),
            waker: UnsafeCell::new(None),
        }
    }
}

impl WakerCell {
    /// Arms the cell with `waker`: the next [`WakerCell::wake`] wakes it. The caller must
    /// look for what it waits for *after* this (a wake that came before found the cell
    /// unarmed and did nothing, but its message is visible to that look).
    ///
    /// # Safety
    ///
    /// No other call of `arm` on this cell runs at the same time (one receiver).
    #[inline]
    pub(super) unsafe fn arm(&self, waker: &Waker) {
        // SAFETY: only `arm` writes the cell, and the caller is its one caller, so no
        // write runs now; wakes only read.
        let same = unsafe { &*self.waker.get() }
            .as_ref()
            .is_some_and(|old| old.will_wake(waker));
        if same {
            if self.state.fetch_or(ARMED, Ordering::AcqRel) & WAKING != 0 {
                // A wake holds the cell and may have decided before this arm: poll again.
                waker.wake_by_ref();
            }
        } else {
            // SAFETY: as the caller guarantees.
            unsafe { self.replace(waker) };
        }
    }

    /// Stores a new waker and arms (out of line: once per task and route).
    ///
    /// # Safety
    ///
    /// As [`WakerCell::arm`].
    #[cold]
    #[inline(never)]
    unsafe fn replace(&self, waker: &Waker) {
        if self.state.fetch_or(REGISTERING, Ordering::AcqRel) & WAKING != 0 {
            // A wake reads the old waker: leave it, and poll again to register then.
            self.state.fetch_and(!REGISTERING, Ordering::AcqRel);
            waker.wake_by_ref();
            return;
        }
        // SAFETY: this receiver holds `REGISTERING` and no wake holds `WAKING` (a wake
        // takes it only when no lock bit is set), so nothing else reads or writes the
        // cell until the release below.
        let old = unsafe { (*self.waker.get()).replace(waker.clone()) };
        // Arm, then release the lock (wakes leave the state as it is while `REGISTERING`
        // is set, and cannot claim the cell before the release).
        self.state.fetch_or(ARMED, Ordering::AcqRel);
        self.state.fetch_and(!REGISTERING, Ordering::AcqRel);
        drop(old);
    }

    /// Wakes the receiver if it is armed (disarming it); otherwise does nothing but
    /// order this call after what the caller did before (a send's push), for the
    /// receiver's next arm.
    #[inline]
    pub(super) fn wake(&self) {
        // Claim the cell if the receiver is armed and nobody holds the cell; otherwise
        // write the state back as it is: a write all the same, since every operation on
        // the state is a read-modify-write, so that it synchronises with the receiver's
        // arm.
        let mut before = self.state.load(Ordering::Relaxed);
        loop {
            let after = if before & (ARMED | WAKING | REGISTERING) == ARMED {
                (before & !ARMED) | WAKING
            } else {
                before
            };
            match self.state.compare_exchange_weak(
                before,
                after,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(now) => before = now,
            }
        }
        if before & (ARMED | WAKING | REGISTERING) == ARMED {
            // SAFETY: this wake holds `WAKING`, which keeps the receiver from writing the
            // cell (it takes `REGISTERING` only when `WAKING` is clear) until the release.
            if let Some(waker) = unsafe { &*self.waker.get() } {
                waker.wake_by_ref();
            }
            self.state.fetch_and(!WAKING, Ordering::AcqRel);
        }
    }
}

#[cfg(test)]
#[path = "waker_tests.rs"]
mod tests;
