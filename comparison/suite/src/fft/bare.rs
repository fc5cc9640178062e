//! FFT on the bare channels `mpst` uses: eight tokio tasks, one unbounded channel pair per
//! butterfly pair, no session types. The limit for ours.

use std::sync::Arc;

use futures::SinkExt;
use mpst::channel::{Unbounded, unbounded};

use super::{Complex32, Problem, ROLES, STAGES, butterfly, is_lower};
use crate::{Result, receive_bare, spawn};

const WHAT: &str = "fft/bare";

type Route = Unbounded<Vec<Complex32>>;

async fn role(
    i: usize,
    mut column: Vec<Complex32>,
    routes: [Route; 3],
    optimised: bool,
) -> Result<Vec<Complex32>> {
    for (h, mut route) in STAGES.into_iter().zip(routes) {
        let other = if optimised || is_lower(i, h) {
            route.send(column.clone()).await?;
            receive_bare(WHAT, &mut route).await??
        } else {
            let other = receive_bare(WHAT, &mut route).await??;
            route.send(column.clone()).await?;
            other
        };
        butterfly(i, h, &mut column, &other);
    }
    Ok(column)
}

/// Transforms every row with eight tasks and checks the result; `optimised` has every role
/// send before receiving.
pub async fn run(problem: Arc<Problem>, optimised: bool) -> Result {
    // routes[i][stage]: role i's end of its channel to i ^ h.
    let mut routes: Vec<Vec<Option<Route>>> = (0..ROLES).map(|_| vec![None, None, None]).collect();
    for (stage, h) in STAGES.into_iter().enumerate() {
        for i in (0..ROLES).filter(|&i| is_lower(i, h)) {
            let (lower, upper) = unbounded();
            routes[i][stage] = Some(lower);
            routes[i ^ h][stage] = Some(upper);
        }
    }
    let tasks: Vec<_> = routes
        .into_iter()
        .enumerate()
        .map(|(i, routes)| {
            let column = problem.columns[i].clone();
            let routes = routes.into_iter().flatten().collect::<Vec<_>>();
            spawn(WHAT, async move {
                let routes: [Route; 3] = routes.try_into().map_err(|_| crate::Crashed(WHAT))?;
                role(i, column, routes, optimised).await
            })
        })
        .collect();
    let mut by_role = Vec::with_capacity(ROLES);
    for task in futures::future::join_all(tasks).await {
        by_role.push(task?);
    }
    problem.check_roles(WHAT, by_role)
}
