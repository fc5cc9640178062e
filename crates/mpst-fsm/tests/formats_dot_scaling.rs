//! The DOT reader is linear in memory: reading an input four times larger (more
//! states in one digraph, or more digraphs) allocates at most about four times as many
//! blocks and bytes, and never holds more than a fixed multiple of the input at once.
//! Counted with a counting allocator, so the test does not depend on the machine's
//! load; the time it takes is measured by `benches/formats.rs` (`dot_read/…`) and in
//! BENCHMARKS.md (a 100 MB file).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use mpst_fsm::families;
use mpst_fsm::format::{parse_dot_nondeterministic, write_dot};

/// Counts allocations, bytes allocated and the peak of bytes live.
struct Counting;

static BLOCKS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        BLOCKS.fetch_add(1, Relaxed);
        BYTES.fetch_add(layout.size(), Relaxed);
        let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(live, Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: `ptr` was allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Blocks allocated, bytes allocated and peak bytes live (above what was live
/// before) while reading `input`; the number of machines read.
fn cost(input: &str) -> (usize, usize, usize, usize) {
    let (blocks, bytes, live) = (
        BLOCKS.load(Relaxed),
        BYTES.load(Relaxed),
        LIVE.load(Relaxed),
    );
    PEAK.store(live, Relaxed);
    let machines = parse_dot_nondeterministic(input)
        .expect("generated DOT")
        .len();
    (
        BLOCKS.load(Relaxed) - blocks,
        BYTES.load(Relaxed) - bytes,
        PEAK.load(Relaxed) - live,
        machines,
    )
}

/// The DOT text of every machine of `system`, one digraph after the other.
fn dot(system: &[mpst_fsm::Fsm]) -> String {
    system.iter().map(write_dot).collect()
}

/// `small` and `large` (about four times longer) cost at most 4.5 times as much, and
/// the peak stays under 40 bytes per input byte.
fn assert_linear(what: &str, small: &str, large: &str) {
    let ratio = large.len() as f64 / small.len() as f64;
    assert!((3.5..5.0).contains(&ratio), "{what}: inputs {ratio}x apart");
    let s = cost(small);
    let l = cost(large);
    for (name, a, b) in [
        ("blocks", s.0, l.0),
        ("bytes", s.1, l.1),
        ("peak", s.2, l.2),
    ] {
        let grown = b as f64 / a as f64;
        assert!(
            grown <= ratio * 1.15,
            "{what}: {name} grew {grown:.2}x for an input {ratio:.2}x longer ({a} -> {b})"
        );
    }
    assert!(
        l.2 <= 40 * large.len(),
        "{what}: peak {} bytes for {} bytes of input",
        l.2,
        large.len()
    );
}

/// One test, so that no other test allocates while the counters run.
#[test]
fn large_digraphs_and_many_digraphs_are_read_in_linear_memory() {
    // One digraph: the stream source with n and 4n unrolled sends.
    let small = dot(&families::stream(5_000).optimised_system());
    let large = dot(&families::stream(20_000).optimised_system());
    assert_linear("stream", &small, &large);
    // Many digraphs: rings of 500 and 2,000 roles.
    let small = dot(&families::ring(500).optimised_system());
    let large = dot(&families::ring(2_000).optimised_system());
    assert_linear("ring", &small, &large);
    assert_eq!(cost(&large).3, 2_000);
}
