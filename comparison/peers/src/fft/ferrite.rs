//! FFT with ferrite-session 0.3. Ferrite has binary sessions only, and a ferrite process
//! provides exactly one session, so (as in the paper) each stage is four independent binary
//! sessions, one per butterfly pair — the upper role provides `?column.!column`, the lower
//! one is its client — and all roles synchronise between stages. Results leave the sessions
//! through a mutex because a provider's continuation is `'static`. Runs on tokio.

use std::sync::{Arc, Mutex};

use ferrite_session::prelude::*;

use super::{Complex32, Problem, ROLES, STAGES, butterfly, is_lower};
use crate::{Crashed, Result};

const WHAT: &str = "fft/ferrite";

struct Column(Vec<Complex32>);

type Upper = ReceiveValue<Column, SendValue<Column, End>>;
type Lower = ReceiveChannel<Upper, End>;

type Slots = Arc<Mutex<Vec<Option<Vec<Complex32>>>>>;

fn store(slots: &Slots, i: usize, column: Vec<Complex32>) {
    if let Ok(mut slots) = slots.lock() {
        slots[i] = Some(column);
    }
}

fn upper(i: usize, h: usize, column: Vec<Complex32>, slots: Slots) -> Session<Upper> {
    receive_value(move |Column(other)| {
        let mut next = column.clone();
        butterfly(i, h, &mut next, &other);
        store(&slots, i, next);
        send_value(Column(column), terminate())
    })
}

fn lower(i: usize, h: usize, column: Vec<Complex32>, slots: Slots) -> Session<Lower> {
    receive_channel(move |c| {
        send_value_to(
            c,
            Column(column.clone()),
            receive_value_from(c, move |Column(other)| {
                let mut next = column;
                butterfly(i, h, &mut next, &other);
                store(&slots, i, next);
                wait(c, terminate())
            }),
        )
    })
}

/// Transforms every row (three stages of four binary sessions) and checks the result. Must
/// run inside a tokio runtime.
pub async fn run(problem: &Problem) -> Result {
    let mut columns = problem.columns.clone();
    for h in STAGES {
        let slots: Slots = Arc::new(Mutex::new(vec![None; ROLES]));
        let sessions = (0..ROLES).filter(|&i| is_lower(i, h)).map(|i| {
            let lo = lower(i, h, std::mem::take(&mut columns[i]), slots.clone());
            let hi = upper(i ^ h, h, std::mem::take(&mut columns[i ^ h]), slots.clone());
            run_session(apply_channel(lo, hi))
        });
        futures::future::join_all(sessions.collect::<Vec<_>>()).await;
        let slots = std::mem::take(&mut *slots.lock().map_err(|_| Crashed(WHAT))?);
        columns = slots
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or(Crashed(WHAT))?;
    }
    problem.check_roles(WHAT, columns)
}
