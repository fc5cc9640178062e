//! Unit tests of [`WakerCell`]: against a sequential model (which waker each wake wakes,
//! and that re-arming for the same task clones nothing), and with wakers on other threads
//! (no wake lost; under Miri also no data race on the cell).

use super::*;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::task::{RawWaker, RawWakerVTable};

/// What happened to one test waker: clones made and wakes received.
#[derive(Default)]
struct Counts {
    clones: AtomicUsize,
    wakes: AtomicUsize,
}

impl Counts {
    fn clones(&self) -> usize {
        self.clones.load(Ordering::SeqCst)
    }
    fn wakes(&self) -> usize {
        self.wakes.load(Ordering::SeqCst)
    }
}

/// A waker that counts into `counts` (which must outlive it and its clones).
fn counting(counts: &Counts) -> Waker {
    // A `static`, not a `const`: `Waker::will_wake` compares vtable addresses, and each
    // use of a `const` may be a new one (Miri makes it so).
    static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake, drop);
    unsafe fn clone(data: *const ()) -> RawWaker {
        // SAFETY: `data` is the `&Counts` the waker was made from, still alive.
        unsafe { &*data.cast::<Counts>() }
            .clones
            .fetch_add(1, Ordering::SeqCst);
        RawWaker::new(data, &VTABLE)
    }
    unsafe fn wake(data: *const ()) {
        // SAFETY: as above.
        unsafe { &*data.cast::<Counts>() }
            .wakes
            .fetch_add(1, Ordering::SeqCst);
    }
    unsafe fn drop(_: *const ()) {}
    let data: *const Counts = counts;
    // SAFETY: the vtable's functions keep the `RawWaker` contract for a borrowed `Counts`
    // that outlives every waker made from it (each test keeps it alive to the end).
    unsafe { Waker::from_raw(RawWaker::new(data.cast(), &VTABLE)) }
}

#[test]
fn a_wake_wakes_the_armed_receiver_once_and_re_arming_clones_nothing() {
    let counts = Counts::default();
    let waker = counting(&counts);
    let cell = WakerCell::default();
    cell.wake();
    assert_eq!(counts.wakes(), 0, "an unarmed cell wakes nobody");
    for round in 1..=5 {
        // SAFETY: one thread.
        unsafe { cell.arm(&waker) };
        cell.wake();
        cell.wake();
        assert_eq!(counts.wakes(), round, "one wake per arm");
    }
    assert_eq!(counts.clones(), 1, "the waker is stored once and kept");
}

#[test]
fn arming_for_another_task_replaces_the_waker() {
    let (first, second) = (Counts::default(), Counts::default());
    let cell = WakerCell::default();
    // SAFETY: one thread.
    unsafe { cell.arm(&counting(&first)) };
    // SAFETY: one thread.
    unsafe { cell.arm(&counting(&second)) };
    cell.wake();
    assert_eq!((first.wakes(), second.wakes()), (0, 1));
}

/// Random sequences of arms (with one of three tasks' wakers) and wakes, compared with
/// the model: a wake wakes the waker of the last arm, if no wake came since.
#[test]
fn behaves_like_the_sequential_model() {
    let counts: [Counts; 3] = Default::default();
    let wakers: Vec<Waker> = counts.iter().map(counting).collect();
    let cell = WakerCell::default();
    let mut expected = [0usize; 3];
    let mut armed: Option<usize> = None;
    let mut seed = 0x2545_f491_u32;
    for _ in 0..if cfg!(miri) { 200 } else { 10_000 } {
        // xorshift32
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        match seed % 5 {
            0..=2 => {
                let task = (seed / 5 % 3) as usize;
                // SAFETY: one thread.
                unsafe { cell.arm(&wakers[task]) };
                armed = Some(task);
            }
            _ => {
                cell.wake();
                if let Some(task) = armed.take() {
                    expected[task] += 1;
                }
            }
        }
        let woken: Vec<usize> = counts.iter().map(Counts::wakes).collect();
        assert_eq!(woken, expected);
    }
}

/// A waker that unparks the receiving thread.
struct Unpark(std::thread::Thread);

impl std::task::Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Two threads publish (a relaxed counter, so only the cell orders it) and wake; the
/// receiver arms, looks, and parks when it saw nothing new. A lost wake would park it
/// for ever (Miri reports that as a deadlock).
#[test]
fn no_wake_is_lost_between_threads() {
    const EACH: usize = if cfg!(miri) { 50 } else { 20_000 };
    let cell = Arc::new(WakerCell::default());
    let published = Arc::new(AtomicUsize::new(0));
    let senders: Vec<_> = (0..2)
        .map(|_| {
            let (cell, published) = (cell.clone(), published.clone());
            std::thread::spawn(move || {
                for _ in 0..EACH {
                    published.fetch_add(1, Ordering::Relaxed);
                    cell.wake();
                }
            })
        })
        .collect();
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let other = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut seen = 0;
    let mut rounds = 0usize;
    while seen < 2 * EACH {
        // Now and then a "new task" (another waker), so replacing races with wakes too.
        let arm_with = if rounds.is_multiple_of(7) {
            &other
        } else {
            &waker
        };
        rounds += 1;
        // SAFETY: this thread is the only receiver.
        unsafe { cell.arm(arm_with) };
        let now = published.load(Ordering::Relaxed);
        if now == seen {
            std::thread::park();
        }
        seen = now;
    }
    for sender in senders {
        sender.join().unwrap();
    }
    assert_eq!(published.load(Ordering::Relaxed), 2 * EACH);
}
