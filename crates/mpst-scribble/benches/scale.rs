//! Linear cost of the front end on wide choices (`generated::wide_choice_source`): parsing,
//! well-formedness and projection of every role at 1k, 10k and 100k branches of one
//! message (`direct`) and at 1k, 10k and 50k branches of two messages, the second one
//! merged by a third role (`forward`; 100k of those exceed the lowering budget of
//! `syntax::MAX_NODES`), in time
//! (criterion) and in memory (peak heap bytes of one run, counted by a wrapping
//! allocator and printed before the timings).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mpst_scribble::generated::wide_choice_source;
use mpst_scribble::{check, parse, project_all};

/// The system allocator, counting live and peak bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract for `dealloc` is passed on unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The shapes measured: name, `forward`, sizes.
const SHAPES: [(&str, bool, [usize; 3]); 2] = [
    ("direct", false, [1_000, 10_000, 100_000]),
    ("forward", true, [1_000, 10_000, 50_000]),
];

/// Parse, check and project every role, as `mpst check` does.
fn front_end(source: &str) -> usize {
    let protocols = parse(source).expect("parses");
    let protocol = &protocols[0];
    assert!(check(protocol).is_empty());
    let projections = project_all(protocol).expect("projects");
    projections.iter().map(|p| p.fsm.transition_count()).sum()
}

/// Peak heap bytes above the input while running `front_end` once.
fn peak_bytes(source: &str) -> usize {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    front_end(source);
    PEAK.load(Ordering::Relaxed) - base
}

fn wide_choices(c: &mut Criterion) {
    for (shape, forward, sizes) in SHAPES {
        for n in sizes {
            let source = wide_choice_source(n, forward);
            let peak = peak_bytes(&source);
            println!(
                "memory {shape}/{n}: input {} bytes, peak heap {} bytes ({:.0} bytes per branch)",
                source.len(),
                peak,
                peak as f64 / n as f64
            );
        }
    }
    for (shape, forward, sizes) in SHAPES {
        let mut group = c.benchmark_group(format!("front_end_wide_choice_{shape}"));
        group.sample_size(10);
        for n in sizes {
            let source = wide_choice_source(n, forward);
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::new("parse", n), &source, |b, s| {
                b.iter(|| parse(s).expect("parses"))
            });
            let protocol = parse(&source).expect("parses").remove(0);
            group.bench_with_input(BenchmarkId::new("check", n), &protocol, |b, p| {
                b.iter(|| assert!(check(p).is_empty()))
            });
            group.bench_with_input(BenchmarkId::new("project_all", n), &protocol, |b, p| {
                b.iter(|| project_all(p).expect("projects"))
            });
            group.bench_with_input(BenchmarkId::new("all", n), &source, |b, s| {
                b.iter(|| front_end(s))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, wide_choices);
criterion_main!(benches);
