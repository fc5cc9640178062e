//! FFT with sesh 0.1: twelve binary sessions, one per butterfly pair (sesh has no
//! multiparty sessions), eight OS threads. Only the projected order is expressible: the
//! optimised one (both send first) is not dual. The tokio runtime plays no part.

use sesh::{End, Recv, Send, Session, close, recv, send};

use super::{Complex32, Problem, ROLES, STAGES, butterfly, is_lower};
use crate::Result;

const WHAT: &str = "fft/sesh";

type Lower = Send<Vec<Complex32>, Recv<Vec<Complex32>, End>>;
type Upper = <Lower as Session>::Dual;

enum Endpoint {
    Lower(Lower),
    Upper(Upper),
}

type Failure = Box<dyn std::error::Error>;

fn exchange(endpoint: Endpoint, column: &[Complex32]) -> Result<Vec<Complex32>, Failure> {
    match endpoint {
        Endpoint::Lower(s) => {
            let s = send(column.to_vec(), s);
            let (other, s) = recv(s)?;
            close(s)?;
            Ok(other)
        }
        Endpoint::Upper(s) => {
            let (other, s) = recv(s)?;
            let s = send(column.to_vec(), s);
            close(s)?;
            Ok(other)
        }
    }
}

fn role(
    i: usize,
    mut column: Vec<Complex32>,
    endpoints: Vec<Endpoint>,
) -> Result<Vec<Complex32>, Failure> {
    for (h, endpoint) in STAGES.into_iter().zip(endpoints) {
        let other = exchange(endpoint, &column)?;
        butterfly(i, h, &mut column, &other);
    }
    Ok(column)
}

/// Transforms every row with eight threads and checks the result.
pub fn run(problem: &Problem) -> Result {
    let mut endpoints: Vec<Vec<Option<Endpoint>>> =
        (0..ROLES).map(|_| vec![None, None, None]).collect();
    for (stage, h) in STAGES.into_iter().enumerate() {
        for i in (0..ROLES).filter(|&i| is_lower(i, h)) {
            let (lower, upper) = <Lower as Session>::new();
            endpoints[i][stage] = Some(Endpoint::Lower(lower));
            endpoints[i ^ h][stage] = Some(Endpoint::Upper(upper));
        }
    }
    let by_role = std::thread::scope(|scope| {
        let threads: Vec<_> = endpoints
            .into_iter()
            .enumerate()
            .map(|(i, endpoints)| {
                let column = problem.columns[i].clone();
                let endpoints = endpoints.into_iter().flatten().collect();
                scope.spawn(move || role(i, column, endpoints).map_err(|e| e.to_string().into()))
            })
            .collect();
        threads
            .into_iter()
            .map(|thread| crate::join(WHAT, thread))
            .collect::<Result<Vec<_>>>()
    })?;
    problem.check_roles(WHAT, by_role)
}
