//! Stream (§4.1): a sink `t` sends `ready` to a source `s`, which answers `value` (and the
//! loop repeats) or `stop`. The source streams `n` values; the sink adds them up.
//!
//! The optimised source (asynchronous message reordering) sends the first [`UNROLL`] values
//! before waiting for any `ready`, as in the paper.

pub mod ferrite;
pub mod mpstthree;
pub mod rumpsteak;
pub mod sesh;

/// How many values the optimised sources send before receiving the first `ready`.
pub const UNROLL: usize = 5;

/// The `i`-th value the source sends.
#[inline]
pub fn value(i: usize) -> i32 {
    (i as i32).wrapping_mul(7) ^ 0x55
}

/// What the sink must have received for `n` values: (count, sum), computed without any
/// messaging.
pub fn expected(n: usize) -> (usize, i64) {
    (n, (0..n).map(|i| i64::from(value(i))).sum())
}

/// Checks a sink's (count, sum) for `n` values.
pub fn check(what: &'static str, n: usize, actual: (usize, i64)) -> crate::Result {
    crate::check_eq(what, expected(n), actual)
}
