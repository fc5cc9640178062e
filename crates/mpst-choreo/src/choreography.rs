//! The `Choreography` trait (one `run` body for all roles) and a runner that plays every
//! role of a choreography in one process, one tokio task per role.

use std::future::Future;
use std::sync::Arc;

use crate::endpoint::{Config, Endpoint};
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
    /// The roles taking part, as `Roles![A, B, ...]`.
    type Roles: RoleSet;

    /// The body, run by every role.
    fn run(self, op: &Op<Self::Roles>) -> impl Future<Output = Result<X>> + Send;
}

/// Runs every role of a choreography in this process (one tokio task and endpoint per
/// role), for tests and single-process programs.
pub struct Runner {
    transport: Arc<dyn Transport>,
    config: Config,
    observer: Option<Arc<dyn Observer>>,
}

impl Runner {
    /// A runner over `transport`, which must serve every role of the choreographies run.
    pub fn new(transport: Arc<dyn Transport>) -> Self {
        Self {
            transport,
            config: Config::default(),
            observer: None,
        }
    }

    /// Sets the endpoints' configuration.
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Reports every endpoint's communication events to `observer`.
    pub fn observer(mut self, observer: Arc<dyn Observer>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// Runs `choreography` as every one of its roles concurrently (session 0 of fresh
    /// endpoints) and returns each role's result, in the order of `Ch::Roles`.
    pub async fn run<Ch, X>(&self, choreography: Ch) -> Vec<(RoleName, Result<X>)>
    where
        Ch: Choreography<X> + Clone + 'static,
        X: Send + 'static,
    {
        let mut handles = Vec::new();
        for role in Ch::Roles::names() {
            let endpoint = Endpoint::with_config(
                Arc::clone(&self.transport),
                role.clone(),
                self.config,
                self.observer.clone(),
            );
            let choreography = choreography.clone();
            let handle = tokio::spawn(async move {
                let endpoint = endpoint?;
                endpoint.run(choreography).await
            });
            handles.push((role, handle));
        }
        let mut out = Vec::new();
        for (role, handle) in handles {
            let result = match handle.await {
                Ok(result) => result,
                Err(e) => Err(ChoreoError::Task {
                    role: role.clone(),
                    message: e.to_string(),
                }),
            };
            out.push((role, result));
        }
        out
    }
}
