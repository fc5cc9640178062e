//! FFT with rustfft 6: sequential, SIMD-tuned; the rows are laid out contiguously, planned
//! once per run (as a one-shot caller would) and transformed in place.

use rustfft::FftPlanner;

use super::{Complex32, Problem, ROLES};
use crate::Result;

const WHAT: &str = "fft/rustfft";

/// Transforms every row and checks the result.
pub fn run(problem: &Problem) -> Result {
    let n = problem.rows();
    let mut rows = vec![Complex32::default(); n * ROLES];
    for (i, column) in problem.columns.iter().enumerate() {
        for (r, &x) in column.iter().enumerate() {
            rows[r * ROLES + i] = x;
        }
    }
    FftPlanner::new().plan_fft_forward(ROLES).process(&mut rows);
    let output: Vec<Vec<Complex32>> = (0..ROLES)
        .map(|k| (0..n).map(|r| rows[r * ROLES + k]).collect())
        .collect();
    problem.check(WHAT, &output)
}
