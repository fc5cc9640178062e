//! The FFT protocol's roles, labels and arithmetic, shared by the plain and the optimised
//! FFT (`main.rs`, `optimised.rs`): they differ only in the order of each exchange.

use mpst::{Error, FromState, Message, Receive, Role, Roles, Route, Send};
use num_complex::Complex64;

/// The route between two partners.
pub type Channel = mpst::channel::Unbounded<Label>;

/// One column of the matrix: the values one process works on, one per row.
pub type Column = Vec<Complex64>;

/// The eight processes, wired to their three partners each.
#[derive(Roles)]
pub struct Roles(
    pub P0,
    pub P1,
    pub P2,
    pub P3,
    pub P4,
    pub P5,
    pub P6,
    pub P7,
);

macro_rules! processes {
    ($($name:ident: $first:ident $second:ident $third:ident;)*) => {$(
        /// A process of the FFT; its routes go to its partners in stages 1, 2 and 3.
        #[derive(Role)]
        #[message(Label)]
        pub struct $name(
            #[route($first)] Channel,
            #[route($second)] Channel,
            #[route($third)] Channel,
        );
    )*};
}

processes! {
    P0: P1 P2 P4;
    P1: P0 P3 P5;
    P2: P3 P0 P6;
    P3: P2 P1 P7;
    P4: P5 P6 P0;
    P5: P4 P7 P1;
    P6: P7 P4 P2;
    P7: P6 P5 P3;
}

/// The labels of `fft.scr`.
#[derive(Message)]
pub enum Label {
    /// `value(Column)`
    Value(Value),
}

/// `value(Column)`: a process's current column, sent to its partner of the stage.
pub struct Value(pub Column);

/// The twiddle factor process `index` uses in the stage where partners differ by `half`
/// (1, 2 or 4): `exp(-2 pi i j / (2 half))` with `j = index mod half`.
pub fn twiddle(index: usize, half: usize) -> Complex64 {
    let j = (index % half) as f64;
    Complex64::from_polar(1.0, -std::f64::consts::PI * j / half as f64)
}

/// The lower output of a butterfly: `lower + w * upper`, row by row.
pub fn lower_output(lower: &[Complex64], upper: &[Complex64], w: Complex64) -> Column {
    lower.iter().zip(upper).map(|(&u, &t)| u + w * t).collect()
}

/// The upper output of a butterfly: `lower - w * upper`, row by row.
pub fn upper_output(lower: &[Complex64], upper: &[Complex64], w: Complex64) -> Column {
    lower.iter().zip(upper).map(|(&u, &t)| u - w * t).collect()
}

/// The exchange of the lower partner of a butterfly (send, then receive): sends its column
/// and returns the lower output.
pub async fn lower<'r, R, P, N>(
    s: Send<'r, R, P, Value, Receive<'r, R, P, Value, N>>,
    mine: Column,
    w: Complex64,
) -> Result<(Column, N), Error>
where
    R: Route<P, Route = Channel> + Role<Message = Label>,
    P: Role,
    N: FromState<'r, Role = R>,
{
    let (Value(theirs), next) = s.send(Value(mine.clone())).await?.receive().await?;
    Ok((lower_output(&mine, &theirs, w), next))
}

/// Bit-reversal of a process index: process `p` starts with input column `reverse(p)`.
pub fn reverse(index: usize) -> usize {
    ((index & 1) << 2) | (index & 2) | ((index & 4) >> 2)
}

/// A deterministic `rows` x 8 input matrix, as rows.
pub fn input(rows: usize) -> Vec<[Complex64; 8]> {
    (0..rows)
        .map(|r| {
            std::array::from_fn(|c| {
                let k = (r * 8 + c) as f64;
                Complex64::new((0.37 * k).sin() + 0.5, (1.3 * k + 0.2).cos())
            })
        })
        .collect()
}

/// The column each process starts with: process `p` gets input column `reverse(p)`.
pub fn columns(matrix: &[[Complex64; 8]]) -> [Column; 8] {
    std::array::from_fn(|p| matrix.iter().map(|row| row[reverse(p)]).collect())
}

/// Reassembles the processes' output columns (process `p` holds output column `p`) into
/// rows.
pub fn rows(outputs: [Column; 8]) -> Vec<[Complex64; 8]> {
    let n = outputs[0].len();
    (0..n)
        .map(|r| std::array::from_fn(|k| outputs[k][r]))
        .collect()
}

/// The discrete Fourier transform of one row by its definition, in O(n^2): the
/// independent reference the tests check the processes against.
#[cfg(test)]
pub fn naive_dft(row: &[Complex64; 8]) -> [Complex64; 8] {
    std::array::from_fn(|k| {
        row.iter()
            .enumerate()
            .map(|(j, &x)| {
                let angle = -2.0 * std::f64::consts::PI * (j * k) as f64 / 8.0;
                x * Complex64::from_polar(1.0, angle)
            })
            .sum()
    })
}

/// Asserts that every row of `got` is the DFT of the same row of `matrix`, within a
/// relative tolerance.
#[cfg(test)]
pub fn assert_transformed(matrix: &[[Complex64; 8]], got: &[[Complex64; 8]]) {
    assert_eq!(matrix.len(), got.len());
    for (r, (row, out)) in matrix.iter().zip(got).enumerate() {
        let want = naive_dft(row);
        for k in 0..8 {
            let error = (want[k] - out[k]).norm();
            assert!(
                error <= 1e-9 * (1.0 + want[k].norm()),
                "row {r}, frequency {k}: got {}, expected {}",
                out[k],
                want[k]
            );
        }
    }
}
