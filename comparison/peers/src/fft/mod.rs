//! FFT (§4.1): the 8-point discrete Fourier transform of each of the `n` rows of an
//! `n × 8` matrix, by 8 roles. Role `i` owns column `i` and runs the three stages of a
//! radix-2 decimation-in-frequency Cooley–Tukey FFT: at the stage of half-width `h`
//! (4, 2, 1) it exchanges its whole column with role `i ^ h` and keeps the sum (lower role)
//! or the twiddled difference (upper role). Role `i` ends with frequency `bitrev(i)`.
//!
//! In the projected protocol the lower role of each pair sends first and the upper role
//! receives first; the optimised one (asynchronous message reordering) has every role send
//! before it receives. Results are checked against a naive DFT computed in `f64`.

pub mod ferrite;
pub mod mpstthree;
pub mod rumpsteak;
pub mod rustfft;
pub mod sesh;

use std::f64::consts::PI;

pub use num_complex::Complex32;

/// Number of roles, and the length of each transform.
pub const ROLES: usize = 8;

/// The half-widths of the three stages, in order.
pub const STAGES: [usize; 3] = [4, 2, 1];

/// One problem instance: the columns each role starts with and the expected transform.
#[derive(Debug, Clone)]
pub struct Problem {
    /// `columns[i][r]` is row `r`, column `i` of the input matrix.
    pub columns: Vec<Vec<Complex32>>,
    /// `expected[k][r]` is frequency `k` of row `r`, from a naive DFT in `f64`.
    pub expected: Vec<Vec<Complex32>>,
}

impl Problem {
    /// A deterministic pseudo-random `n × 8` input and its transform.
    pub fn new(n: usize) -> Self {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            ((seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        };
        let columns: Vec<Vec<Complex32>> = (0..ROLES)
            .map(|_| (0..n).map(|_| Complex32::new(next(), next())).collect())
            .collect();
        let expected = (0..ROLES)
            .map(|k| (0..n).map(|r| naive_dft(&columns, r, k)).collect())
            .collect();
        Self { columns, expected }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    /// Checks an answer given as `output[k][r]` (frequency-major, like `expected`): every
    /// value within a relative 1e-4 of the naive DFT. Uses squared norms and counts misses
    /// without stopping early, so the check (run in every measured iteration) stays cheap.
    pub fn check(&self, what: &'static str, output: &[Vec<Complex32>]) -> crate::Result {
        crate::check_eq(what, ROLES, output.len())?;
        let off = |w: &Complex32, g: &Complex32| (w - g).norm_sqr() > 1e-8 * (1.0 + w.norm_sqr());
        for (k, (want, got)) in self.expected.iter().zip(output).enumerate() {
            crate::check_eq(what, want.len(), got.len())?;
            let wrong = want
                .iter()
                .zip(got)
                .fold(0usize, |wrong, (w, g)| wrong + usize::from(off(w, g)));
            if wrong > 0
                && let Some((r, (w, g))) = want
                    .iter()
                    .zip(got)
                    .enumerate()
                    .find(|(_, (w, g))| off(w, g))
            {
                let detail = format!("row {r}, frequency {k}: expected {w}, got {g}");
                return Err(Box::new(crate::Mismatch { what, detail }));
            }
        }
        Ok(())
    }

    /// Checks the columns the roles ended with (`by_role[i]` holds frequency `bitrev(i)`).
    pub fn check_roles(&self, what: &'static str, by_role: Vec<Vec<Complex32>>) -> crate::Result {
        crate::check_eq(what, ROLES, by_role.len())?;
        let mut output = vec![Vec::new(); ROLES];
        for (i, column) in by_role.into_iter().enumerate() {
            output[bit_reverse(i)] = column;
        }
        self.check(what, &output)
    }
}

/// Frequency `k` of row `r`, summed directly in `f64`.
fn naive_dft(columns: &[Vec<Complex32>], r: usize, k: usize) -> Complex32 {
    let (mut re, mut im) = (0.0f64, 0.0f64);
    for (j, column) in columns.iter().enumerate() {
        let x = column[r];
        let angle = -2.0 * PI * (j * k) as f64 / ROLES as f64;
        let (sin, cos) = angle.sin_cos();
        re += f64::from(x.re) * cos - f64::from(x.im) * sin;
        im += f64::from(x.re) * sin + f64::from(x.im) * cos;
    }
    Complex32::new(re as f32, im as f32)
}

/// Reverses the three bits of a role index.
pub fn bit_reverse(i: usize) -> usize {
    ((i & 1) << 2) | (i & 2) | ((i >> 2) & 1)
}

/// Whether role `i` is the lower role of its pair at the stage of half-width `h`.
pub fn is_lower(i: usize, h: usize) -> bool {
    i & h == 0
}

/// The twiddle factor the upper role of a pair applies: `exp(-2πi·k / 2h)`, `k = i mod h`.
fn twiddle(i: usize, h: usize) -> Complex32 {
    let angle = -2.0 * PI * (i % h) as f64 / (2 * h) as f64;
    Complex32::new(angle.cos() as f32, angle.sin() as f32)
}

/// One butterfly of role `i` at half-width `h`: combines its column with its partner's.
pub fn butterfly(i: usize, h: usize, own: &mut [Complex32], other: &[Complex32]) {
    if is_lower(i, h) {
        own.iter_mut().zip(other).for_each(|(x, y)| *x += y);
    } else {
        let w = twiddle(i, h);
        own.iter_mut()
            .zip(other)
            .for_each(|(x, y)| *x = (y - *x) * w);
    }
}
