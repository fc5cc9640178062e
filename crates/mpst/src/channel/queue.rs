//! The message queue of one direction of a [`Spsc`](super::Spsc) route: a lock-free
//! single-producer single-consumer ring of [`INLINE`] slots stored inline (in the route's
//! one shared allocation), spilling into a locked `VecDeque` only when more than
//! [`INLINE`] messages wait at once.
//!
//! A session's routes rarely hold more than a few messages (a ping-pong holds one), so a
//! route created per run (`Roles::default()`) allocates nothing beyond its shared state,
//! and a message in the ring costs two atomic stores and no lock. The ring is Lamport's
//! bounded single-producer single-consumer queue (L. Lamport, "Specifying Concurrent
//! Program Modules", ACM TOPLAS 5(2), 1983): the producer alone writes `tail`, the
//! consumer alone writes `head`, each publishes with a release store and reads the other's
//! index with an acquire load.
//!
//! The spill keeps FIFO order with one flag, `spilled`, which only the producer sets and
//! only the consumer clears, both under the spill's lock: while it is set the producer
//! pushes into the spill only, and the consumer takes from the spill only when the ring
//! is empty, so every message in the ring is older than every spilled one.

use std::cell::UnsafeCell;
use std::collections::VecDeque;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// How many messages wait inline before the queue spills (a power of two).
pub(super) const INLINE: usize = 4;

/// A FIFO queue for one producer and one consumer.
///
/// The methods that move messages are `unsafe`: [`Queue::push`] may run on at most one
/// thread at a time (the producer), [`Queue::pop`] and [`Queue::drain`] on at most one
/// thread at a time (the consumer). [`Spsc`](super::Spsc) guarantees it: each end
/// produces into one queue and consumes from the other only through its own `&mut self`,
/// and the two ends of a route have different sides.
pub(super) struct Queue<T> {
    /// Slot `i & (INLINE - 1)` holds a message when `head <= i < tail` (wrapping).
    ring: [UnsafeCell<MaybeUninit<T>>; INLINE],
    /// How many messages the consumer has taken from the ring (wrapping); written by the
    /// consumer only.
    head: AtomicUsize,
    /// How many messages the producer has put into the ring (wrapping); written by the
    /// producer only.
    tail: AtomicUsize,
    /// The spill holds messages: the producer pushes there, not into the ring. Set by the
    /// producer, cleared by the consumer, both under `spill`'s lock.
    spilled: AtomicBool,
    /// The messages that arrived while the ring was full (or the spill not yet empty),
    /// oldest first.
    spill: Mutex<VecDeque<T>>,
}

// SAFETY: the queue hands each message from the producer's thread to the consumer's (so
// `T: Send`), and the slots are only accessed under the single-producer single-consumer
// protocol above: a slot is written by the producer before its release store of `tail`
// and read by the consumer after its acquire load of `tail`; it is written again only
// after the consumer's release store of `head` that follows its read.
unsafe impl<T: Send> Send for Queue<T> {}
// SAFETY: as above; shared references only reach the `unsafe` methods, whose callers
// guarantee one producer and one consumer, and `len`, which reads atomics and the lock.
unsafe impl<T: Send> Sync for Queue<T> {}

impl<T> Default for Queue<T> {
    #[inline]
    fn default() -> Self {
        Self {
            ring: [const { UnsafeCell::new(MaybeUninit::uninit()) }; INLINE],
            head: AtomicUsize::new(0),
            tail: AtomicUsize::new(0),
            spilled: AtomicBool::new(false),
            spill: Mutex::new(VecDeque::new()),
        }
    }
}

impl<T> Queue<T> {
    /// Initialises the queue at `queue` in place, leaving the ring's slots uninitialised
    /// (they are `MaybeUninit`), so that nothing of the ring is written or copied.
    ///
    /// # Safety
    ///
    /// `queue` is valid for writes and nothing else reads or writes it meanwhile; what it
    /// held before is overwritten without being dropped.
    #[inline]
    pub(super) unsafe fn init(queue: *mut Self) {
        // SAFETY: the caller's contract; each field but `ring` is written once.
        unsafe {
            (&raw mut (*queue).head).write(AtomicUsize::new(0));
            (&raw mut (*queue).tail).write(AtomicUsize::new(0));
            (&raw mut (*queue).spilled).write(AtomicBool::new(false));
            (&raw mut (*queue).spill).write(Mutex::new(VecDeque::new()));
        }
    }

    /// Appends `message` (the newest).
    ///
    /// # Safety
    ///
    /// No other call of `push` on this queue runs at the same time (one producer).
    #[inline]
    pub(super) unsafe fn push(&self, message: T) {
        let tail = self.tail.load(Ordering::Relaxed);
        if !self.spilled.load(Ordering::Acquire)
            && tail.wrapping_sub(self.head.load(Ordering::Acquire)) < INLINE
        {
            // SAFETY: the slot is free (the consumer has taken every message up to
            // `head`, whose acquire load orders its read before this write), and only
            // this producer writes slots.
            unsafe { (*self.ring[tail & (INLINE - 1)].get()).write(message) };
            self.tail.store(tail.wrapping_add(1), Ordering::Release);
        } else {
            self.spill_push(message);
        }
    }

    /// Pushes into the spill (out of line: only when more than [`INLINE`] messages wait).
    #[cold]
    fn spill_push(&self, message: T) {
        let mut spill = self.lock_spill();
        spill.push_back(message);
        self.spilled.store(true, Ordering::Release);
    }

    /// Removes the oldest message.
    ///
    /// # Safety
    ///
    /// No other call of `pop` or `drain` on this queue runs at the same time (one
    /// consumer).
    #[inline]
    pub(super) unsafe fn pop(&self) -> Option<T> {
        // SAFETY: the caller is the one consumer.
        if let Some(message) = unsafe { self.pop_ring() } {
            return Some(message);
        }
        if self.spilled.load(Ordering::Acquire) {
            // SAFETY: the caller is the one consumer.
            return unsafe { self.pop_spilled() };
        }
        None
    }

    /// Takes the oldest message when the ring was just found empty: from the spill if
    /// the producer spilled (else `None`, without looking at the ring again).
    ///
    /// # Safety
    ///
    /// As [`Queue::pop`].
    #[inline]
    pub(super) unsafe fn pop_spilled_if_any(&self) -> Option<T> {
        if self.spilled.load(Ordering::Acquire) {
            // SAFETY: the caller is the one consumer.
            return unsafe { self.pop_spilled() };
        }
        None
    }

    /// Takes the oldest message of the ring.
    ///
    /// # Safety
    ///
    /// As [`Queue::pop`].
    #[inline]
    pub(super) unsafe fn pop_ring(&self) -> Option<T> {
        let head = self.head.load(Ordering::Relaxed);
        if head == self.tail.load(Ordering::Acquire) {
            return None;
        }
        // SAFETY: `head < tail`, so the producer has written this slot (its release store
        // of `tail`, read above with acquire, orders the write before this read), and
        // only this consumer reads slots; advancing `head` below gives the slot back.
        let message = unsafe { (*self.ring[head & (INLINE - 1)].get()).assume_init_read() };
        self.head.store(head.wrapping_add(1), Ordering::Release);
        Some(message)
    }

    /// Takes the oldest message once the producer has spilled (out of line).
    ///
    /// # Safety
    ///
    /// As [`Queue::pop`].
    #[cold]
    unsafe fn pop_spilled(&self) -> Option<T> {
        // A message the producer put into the ring before it spilled is older than the
        // spill: the acquire load of `spilled` made it visible, so look again.
        // SAFETY: the caller is the one consumer.
        if let Some(message) = unsafe { self.pop_ring() } {
            return Some(message);
        }
        // The ring is empty and stays so while `spilled` is set.
        let mut spill = self.lock_spill();
        let message = spill.pop_front();
        if spill.is_empty() {
            self.spilled.store(false, Ordering::Release);
        }
        message
    }

    /// Takes every waiting message, oldest first (out of line: only when a route closes
    /// with messages left for a session that is over).
    ///
    /// # Safety
    ///
    /// As [`Queue::pop`].
    #[cold]
    pub(super) unsafe fn drain(&self) -> Vec<T> {
        // SAFETY: the caller is the one consumer.
        std::iter::from_fn(|| unsafe { self.pop() }).collect()
    }

    /// How many messages wait (a snapshot when the producer or the consumer is busy).
    pub(super) fn len(&self) -> usize {
        let ring = self
            .tail
            .load(Ordering::Acquire)
            .wrapping_sub(self.head.load(Ordering::Acquire));
        ring.min(INLINE) + self.lock_spill().len()
    }

    /// Locks the spill. Nothing that can panic runs under the lock but the `VecDeque`'s
    /// own allocation, after which it is still consistent, so a poisoned lock is used as is.
    fn lock_spill(&self) -> MutexGuard<'_, VecDeque<T>> {
        self.spill.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T> Drop for Queue<T> {
    fn drop(&mut self) {
        let tail = *self.tail.get_mut();
        let head = self.head.get_mut();
        while *head != tail {
            // SAFETY: `head < tail`: the slot holds a message nobody took, and `&mut self`
            // excludes both ends.
            unsafe { self.ring[*head & (INLINE - 1)].get_mut().assume_init_drop() };
            *head = head.wrapping_add(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Pushes and pops interleaved in every pattern up to a few times the inline size and
    /// compares with a `VecDeque`: same order, same length, nothing lost.
    #[test]
    fn behaves_like_a_fifo_across_the_spill() {
        for burst in 1..=3 * INLINE {
            let queue = Queue::default();
            let mut model = VecDeque::new();
            let mut next = 0u32;
            for round in 0..5 {
                for _ in 0..burst {
                    // SAFETY: one thread is both producer and consumer.
                    unsafe { queue.push(next) };
                    model.push_back(next);
                    next += 1;
                }
                // Pop a different share each round, so the ring wraps at every offset.
                for _ in 0..(burst + round) / 2 + 1 {
                    // SAFETY: as above.
                    assert_eq!(unsafe { queue.pop() }, model.pop_front());
                    assert_eq!(queue.len(), model.len());
                }
            }
            let rest: Vec<u32> = model.drain(..).collect();
            // SAFETY: as above.
            assert_eq!(unsafe { queue.drain() }, rest);
            assert_eq!(unsafe { queue.pop() }, None);
            assert_eq!(queue.len(), 0);
        }
    }

    /// Messages left in the ring and the spill are dropped with the queue, each once.
    #[test]
    fn dropping_the_queue_drops_what_waits() {
        let counter = Arc::new(());
        let queue = Queue::default();
        for _ in 0..3 * INLINE {
            // SAFETY: one thread.
            unsafe { queue.push(counter.clone()) };
        }
        // SAFETY: one thread.
        drop(unsafe { queue.pop() });
        assert_eq!(Arc::strong_count(&counter), 3 * INLINE);
        drop(queue);
        assert_eq!(Arc::strong_count(&counter), 1);
    }

    /// One producer thread and one consumer thread: every message arrives once, in order,
    /// across many wraps of the ring and bursts into the spill. Under Miri (which checks
    /// the memory orderings and data races of `unsafe` code, on many interleavings with
    /// `-Zmiri-many-seeds`) fewer messages, since it interprets every step.
    #[test]
    fn one_producer_and_one_consumer_thread_keep_order() {
        const MESSAGES: u32 = if cfg!(miri) { 500 } else { 200_000 };
        let queue = Arc::new(Queue::default());
        let producer = {
            let queue = queue.clone();
            std::thread::spawn(move || {
                for i in 0..MESSAGES {
                    // SAFETY: this thread is the only producer.
                    unsafe { queue.push(i) };
                    if i % 64 == 0 {
                        std::thread::yield_now();
                    }
                }
            })
        };
        let mut expected = 0;
        while expected < MESSAGES {
            // SAFETY: this thread is the only consumer.
            match unsafe { queue.pop() } {
                Some(i) => {
                    assert_eq!(i, expected);
                    expected += 1;
                }
                None => std::thread::yield_now(),
            }
        }
        producer.join().unwrap();
        // SAFETY: the producer is done; this thread is the only consumer.
        assert_eq!(unsafe { queue.pop() }, None);
    }
}
