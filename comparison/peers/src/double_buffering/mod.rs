//! Double buffering (§1, §4.1): a source `s` fills buffers, a kernel `k` passes each on to
//! a sink `t`; `k` asks `s` for a buffer with `ready` and waits for `t`'s `ready` before
//! handing it over. Two iterations, so both of the kernel's buffers are used.
//!
//! The optimised kernel (asynchronous message reordering, §2) sends both `ready`s to the
//! source first, so the source fills the second buffer while the sink reads the first.

pub mod ferrite;
pub mod mpstthree;
pub mod rumpsteak;
pub mod sesh;

/// How many buffers cross the protocol (the paper's two iterations).
pub const BUFFERS: usize = 2;

/// Element `j` of buffer `b` as the source fills it.
#[inline]
pub fn element(b: usize, j: usize) -> i32 {
    ((b * 1_000_003 + j) as i32).wrapping_mul(31) ^ 0x2a
}

/// The source's work: fills buffer `b` of `n` elements.
pub fn fill(b: usize, n: usize) -> Vec<i32> {
    (0..n).map(|j| element(b, j)).collect()
}

/// Checks that buffer `b` reached the sink intact.
///
/// Counts mismatches without stopping early, so the comparison vectorises: the check runs
/// inside every measured iteration and must not drown the protocol's own cost.
pub fn check(what: &'static str, b: usize, n: usize, buffer: &[i32]) -> crate::Result {
    crate::check_eq(what, n, buffer.len())?;
    let wrong = buffer.iter().enumerate().fold(0usize, |wrong, (j, &x)| {
        wrong + usize::from(x != element(b, j))
    });
    match buffer
        .iter()
        .enumerate()
        .find(|&(j, &x)| wrong > 0 && x != element(b, j))
    {
        None => Ok(()),
        Some((j, &x)) => crate::check_eq(what, element(b, j), x),
    }
}

/// Checks every buffer the sink received, in order.
pub fn check_all(what: &'static str, n: usize, buffers: &[Vec<i32>]) -> crate::Result {
    crate::check_eq(what, BUFFERS, buffers.len())?;
    buffers
        .iter()
        .enumerate()
        .try_for_each(|(b, buffer)| check(what, b, n, buffer))
}
