//! The FFT protocol's roles, labels and arithmetic, shared by the plain and the optimised
//! FFT (`main.rs`, `optimised.rs`): they differ only in the order of each exchange. The
//! runtime's FFT bench (`crates/mpst/benches/fft.rs`) includes this file too.

use mpst::{Error, FromState, Message, Payload, Receive, Role, Roles, Route, Send};
use num_complex::Complex64;

/// The route between two partners: the in-memory `Spsc`, one allocation per pair (the
/// route the runtime's FFT bench measures with this same file).
pub type Channel = mpst::channel::Spsc<Label>;

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
#[derive(Payload)]
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

/// Defines the eight FFT processes `fft0` .. `fft7`, each three butterfly stages on its
/// column, from a table of one line per process: its role, its session type (`Fft0` ..
/// `Fft7`), its index and the exchange of each stage (`lower` or `upper`). Also defines
/// `run`, which transforms every row of a matrix with the eight processes in one future
/// (any executor). Called without a table, it uses the butterfly network's: process `i` is
/// the upper partner of stage `s` when bit `s - 1` of `i` is set.
///
/// Session types, `upper` and the other names the processes use are resolved where the
/// macro is called: the plain and the optimised FFT share this wiring and differ only in
/// their session types and their `upper` exchange.
macro_rules! processes_and_runs {
    () => {
        $crate::protocol::processes_and_runs! {
            fft0(P0, Fft0, 0): lower lower lower;
            fft1(P1, Fft1, 1): upper lower lower;
            fft2(P2, Fft2, 2): lower upper lower;
            fft3(P3, Fft3, 3): upper upper lower;
            fft4(P4, Fft4, 4): lower lower upper;
            fft5(P5, Fft5, 5): upper lower upper;
            fft6(P6, Fft6, 6): lower upper upper;
            fft7(P7, Fft7, 7): upper upper upper;
        }
    };
    ($($name:ident($role:ident, $session:ident, $index:literal): $s1:ident $s2:ident $s3:ident;)*) => {
        $(
            /// One FFT process: three butterfly stages on its column.
            async fn $name(role: &mut $role, column: Column) -> Result<Column, Error> {
                try_session(role, |s: $session<'_, $role>| async move {
                    let (column, s) = $s1(s, column, twiddle($index, 1)).await?;
                    let (column, s) = $s2(s, column, twiddle($index, 2)).await?;
                    let (column, end) = $s3(s, column, twiddle($index, 4)).await?;
                    Ok((column, end))
                })
                .await
            }
        )*

        /// Transforms every row of `matrix` with the eight processes in one future (any
        /// executor).
        async fn run(matrix: &[[Complex64; 8]]) -> Result<Vec<[Complex64; 8]>, Error> {
            let Roles(mut p0, mut p1, mut p2, mut p3, mut p4, mut p5, mut p6, mut p7) =
                Roles::default();
            let [c0, c1, c2, c3, c4, c5, c6, c7] = columns(matrix);
            let outputs = futures::try_join!(
                fft0(&mut p0, c0),
                fft1(&mut p1, c1),
                fft2(&mut p2, c2),
                fft3(&mut p3, c3),
                fft4(&mut p4, c4),
                fft5(&mut p5, c5),
                fft6(&mut p6, c6),
                fft7(&mut p7, c7),
            )?;
            let (o0, o1, o2, o3, o4, o5, o6, o7) = outputs;
            Ok(rows([o0, o1, o2, o3, o4, o5, o6, o7]))
        }
    };
}
pub(crate) use processes_and_runs;

/// Defines `run_tasks` in a test module: like `run`, with each process a task on the
/// multi-thread tokio runtime (the processes are those `processes_and_runs!` defined).
#[cfg(test)]
macro_rules! run_tasks {
    () => {
        /// Like `run`, with each process a task on the multi-thread tokio runtime of the
        /// tests.
        fn run_tasks(matrix: &[[Complex64; 8]]) -> Result<Vec<[Complex64; 8]>, Error> {
            let runtime = mpst_examples::tokio_runtime().unwrap();
            let Roles(mut p0, mut p1, mut p2, mut p3, mut p4, mut p5, mut p6, mut p7) =
                Roles::default();
            let [c0, c1, c2, c3, c4, c5, c6, c7] = columns(matrix);
            let outputs = runtime.block_on(async {
                let tasks = [
                    tokio::spawn(async move { fft0(&mut p0, c0).await }),
                    tokio::spawn(async move { fft1(&mut p1, c1).await }),
                    tokio::spawn(async move { fft2(&mut p2, c2).await }),
                    tokio::spawn(async move { fft3(&mut p3, c3).await }),
                    tokio::spawn(async move { fft4(&mut p4, c4).await }),
                    tokio::spawn(async move { fft5(&mut p5, c5).await }),
                    tokio::spawn(async move { fft6(&mut p6, c6).await }),
                    tokio::spawn(async move { fft7(&mut p7, c7).await }),
                ];
                mpst_examples::joined_all(tasks).await
            })?;
            let outputs: [Column; 8] = outputs
                .try_into()
                .unwrap_or_else(|_| unreachable!("eight tasks, eight outputs"));
            Ok(rows(outputs))
        }
    };
}
#[cfg(test)]
pub(crate) use run_tasks;

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
