//! The message queue of one direction of a [`Spsc`](super::Spsc) route: a small ring
//! buffer stored inline (in the route's one shared allocation), spilling into a
//! `VecDeque` only when more than [`INLINE`] messages wait at once.
//!
//! A session's routes rarely hold more than a few messages (a ping-pong holds one), so a
//! route created per run (`Roles::default()`) allocates nothing beyond its shared state:
//! a `VecDeque` would allocate its buffer at the first message in each direction.

use std::collections::VecDeque;

/// How many messages wait inline before the queue spills (a power of two).
pub(super) const INLINE: usize = 4;

/// A FIFO queue: the oldest messages in the inline ring, later ones in `spill`.
///
/// Invariant: `spill` is empty unless the ring is full (`len == INLINE`), so the ring
/// always holds the oldest messages and `pop` refills it from `spill` in order.
pub(super) struct Queue<T> {
    ring: [Option<T>; INLINE],
    /// Index of the oldest message in `ring`.
    head: usize,
    /// How many messages `ring` holds, from `head` on (wrapping).
    len: usize,
    /// The messages that arrived while the ring was full, oldest first.
    spill: VecDeque<T>,
}

impl<T> Default for Queue<T> {
    #[inline]
    fn default() -> Self {
        Self {
            ring: [const { None }; INLINE],
            head: 0,
            len: 0,
            spill: VecDeque::new(),
        }
    }
}

impl<T> Queue<T> {
    /// Appends `message` (the newest).
    #[inline]
    pub(super) fn push(&mut self, message: T) {
        if self.len < INLINE {
            // The ring has room, so `spill` is empty: the message goes last in the ring.
            self.ring[(self.head + self.len) & (INLINE - 1)] = Some(message);
            self.len += 1;
        } else {
            self.spill.push_back(message);
        }
    }

    /// Removes the oldest message.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            // The ring is empty, so `spill` is too.
            return None;
        }
        let message = self.ring[self.head].take();
        self.head = (self.head + 1) & (INLINE - 1);
        self.len -= 1;
        if !self.spill.is_empty() {
            self.refill();
        }
        message
    }

    /// Moves the oldest spilled message into the ring's free slot (out of line: only
    /// after more than [`INLINE`] messages waited at once).
    #[cold]
    fn refill(&mut self) {
        if let Some(next) = self.spill.pop_front() {
            self.ring[(self.head + self.len) & (INLINE - 1)] = Some(next);
            self.len += 1;
        }
    }

    /// Takes every waiting message, oldest first (out of line: only when a route closes
    /// with messages left for a session that is over).
    #[cold]
    pub(super) fn drain(&mut self) -> Vec<T> {
        std::iter::from_fn(|| self.pop()).collect()
    }

    /// How many messages wait.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.len + self.spill.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pushes and pops interleaved in every pattern up to a few times the inline size and
    /// compares with a `VecDeque`: same order, same length, nothing lost.
    #[test]
    fn behaves_like_a_fifo_across_the_spill() {
        for burst in 1..=3 * INLINE {
            let mut queue = Queue::default();
            let mut model = VecDeque::new();
            let mut next = 0u32;
            for round in 0..5 {
                for _ in 0..burst {
                    queue.push(next);
                    model.push_back(next);
                    next += 1;
                }
                // Pop a different share each round, so the ring wraps at every offset.
                for _ in 0..(burst + round) / 2 + 1 {
                    assert_eq!(queue.pop(), model.pop_front());
                    assert_eq!(queue.len(), model.len());
                }
            }
            let rest: Vec<u32> = model.drain(..).collect();
            assert_eq!(queue.drain(), rest);
            assert_eq!(queue.pop(), None);
            assert_eq!(queue.len(), 0);
        }
    }
}
