//! FFT with 8 roles (CAMP Fig. 7; PPoPP 2022 Section 4.1, Table 1): eight processes, no
//! choice, no recursion.
//!
//! Protocol (`fft.scr`): the radix-2 Cooley–Tukey butterfly network of an 8-point FFT,
//! one process per point. Process `Pi` holds one column of an `n x 8` matrix (so it works
//! on all `n` rows at once); it starts with input column `reverse(i)` (bit reversal). In
//! stage `s = 1, 2, 3` it exchanges its column with partner `Pi xor 2^(s-1)`: in each
//! pair the lower process sends first and the upper one receives first. Then the lower
//! keeps `lower + w * upper` and the upper `lower - w * upper`, with the stage's twiddle
//! factor `w`. After three stages `Pi` holds output column `i`: the DFT of every row.
//!
//! Roles: `P0` .. `P7`. The session types are the projections of `fft.scr` (top-down
//! workflow), in `projections.rs`; `optimised.rs` has every process send before it receives. The tests check
//! each row against a naive O(n^2) DFT.
//!
//! `cargo run -p mpst-examples --example fft` transforms a 4 x 8 matrix and prints it.

mod projections;
mod protocol;

use mpst::{Error, try_session};
use num_complex::Complex64;
use projections::{Fft0, Fft1, Fft2, Fft3, Fft4, Fft5, Fft6, Fft7, upper};
use protocol::{Column, Roles, columns, input, lower, rows, twiddle};
use protocol::{P0, P1, P2, P3, P4, P5, P6, P7};

// The eight processes, by the exchange each makes in stages 1, 2 and 3 (the butterfly
// network's table is in `protocol.rs`; `lower` from there, `upper` from `projections.rs`);
// the macro also defines `run`.
protocol::processes_and_runs!();

fn main() -> Result<(), Error> {
    let matrix = input(4);
    for (row, out) in matrix
        .iter()
        .zip(futures::executor::block_on(run(&matrix))?)
    {
        println!("{row:.3?}\n  -> {out:.3?}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::assert_transformed;

    protocol::run_tasks!();

    #[test]
    fn futures_executor() {
        for n in [1, 3, 64] {
            let matrix = input(n);
            let got = futures::executor::block_on(run(&matrix)).unwrap();
            assert_transformed(&matrix, &got);
        }
    }

    #[test]
    fn an_impulse_has_a_flat_spectrum() {
        let mut impulse = [Complex64::new(0.0, 0.0); 8];
        impulse[0] = Complex64::new(1.0, 0.0);
        let got = futures::executor::block_on(run(&[impulse])).unwrap();
        assert!(
            got[0]
                .iter()
                .all(|x| (x - Complex64::new(1.0, 0.0)).norm() < 1e-12)
        );
    }

    #[test]
    fn tokio_multi_thread() {
        let matrix = input(100);
        assert_transformed(&matrix, &run_tasks(&matrix).unwrap());
    }
}

/// The workflows of PPoPP 2022 §2 on this example: each hand-written session type is the
/// projection of its role from `fft.scr` (checked through serialisation, names normalised,
/// payloads compared), and the system of serialised roles is k-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("fft.scr");
        Fft0<'static, P0>, Fft1<'static, P1>, Fft2<'static, P2>, Fft3<'static, P3>,
        Fft4<'static, P4>, Fft5<'static, P5>, Fft6<'static, P6>, Fft7<'static, P7>
    }
}
