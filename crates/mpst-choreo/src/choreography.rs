//! The `Choreography` trait (one `run` body for all roles) and a runner that plays every
//! role of a choreography in one process, all in the caller's task (or one tokio task
//! per role, when asked for).

use std::future::Future;
use std::sync::Arc;

use crate::endpoint::{Endpoint, EndpointConfig};
use crate::error::{ChoreoError, Result};
use crate::op::Op;
use crate::role::{RoleName, RoleSet};
use crate::transport::{Observer, Transport};

/// A choreography: one program for all the roles of `Roles`, returning `X`.
///
/// Implement it with `async fn run`; the library projects it at run time: an endpoint
/// playing role `R` runs the body, does its part of each operator and skips the rest.
/// Procedures are choreographies too (generic over their role parameters), called with
/// [`Op::call`].
pub trait Choreography<X = ()>: Send + Sized {
    /// The roles taking part, as `RoleSet![A, B, ...]`.
    type Roles: RoleSet;

    /// The body, run by every role.
    fn run(self, op: &Op<Self::Roles>) -> impl Future<Output = Result<X>> + Send;
}

/// Runs every role of a choreography in this process (one endpoint per role), for tests
/// and single-process programs. The roles run concurrently in the caller's task, with
/// no task spawned per role; [`Runner::spawning`] gives each role a tokio task of its
/// own instead (parallel on a multi-thread runtime).
pub struct Runner {
    transport: Arc<dyn Transport>,
    config: EndpointConfig,
    observer: Option<Arc<dyn Observer>>,
    spawning: bool,
}

impl Runner {
    /// A runner over `transport`, which must serve every role of the choreographies run.
    pub fn new(transport: Arc<dyn Transport>) -> Self {
        Self {
            transport,
            config: EndpointConfig::default(),
            observer: None,
            spawning: false,
        }
    }

    /// Runs each role in a tokio task of its own (in parallel on a multi-thread runtime;
    /// a panicking role is then reported as [`ChoreoError::Task`] instead of unwinding
    /// into the caller). Without it, every role is polled in the caller's task.
    pub fn spawning(mut self) -> Self {
        self.spawning = true;
        self
    }

    /// Sets the endpoints' configuration.
    pub fn config(mut self, config: EndpointConfig) -> Self {
        self.config = config;
        self
    }

    /// Reports every endpoint's communication events to `observer`.
    pub fn observer(mut self, observer: Arc<dyn Observer>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// Runs `choreography` as every one of its roles concurrently (session 0 of fresh
    /// endpoints, polled in the caller's task unless [`Runner::spawning`]) and returns
    /// each role's result, in the order of `Ch::Roles`.
    pub async fn run<Ch, X>(&self, choreography: Ch) -> Vec<(RoleName, Result<X>)>
    where
        Ch: Choreography<X> + Clone + 'static,
        X: Send + 'static,
    {
        let endpoints: Vec<(RoleName, Result<Endpoint>)> = Ch::Roles::names()
            .into_iter()
            .map(|role| {
                let endpoint = Endpoint::with_config(
                    Arc::clone(&self.transport),
                    role.clone(),
                    self.config,
                    self.observer.clone(),
                );
                (role, endpoint)
            })
            .collect();
        let play = |endpoint: Result<Endpoint>, choreography: Ch| async move {
            let endpoint = endpoint?;
            endpoint.run(choreography).await
        };
        if !self.spawning {
            let runs = endpoints.into_iter().map(|(role, endpoint)| {
                let run = play(endpoint, choreography.clone());
                async move { (role, run.await) }
            });
            return futures::future::join_all(runs).await;
        }
        let mut handles = Vec::new();
        for (role, endpoint) in endpoints {
            handles.push((role, tokio::spawn(play(endpoint, choreography.clone()))));
        }
        let mut out = Vec::new();
        for (role, handle) in handles {
            let result = match handle.await {
                Ok(result) => result,
                Err(e) => Err(ChoreoError::Task(Box::new(crate::error::Task {
                    role: role.clone(),
                    message: e.to_string(),
                }))),
            };
            out.push((role, result));
        }
        out
    }
}
