//! The paper's example choreographies (Figures 1, 2, 5, 7a, 7b and 17), each with a check
//! that every value was bound to the right variable. Shared by the chaos property tests.

#![allow(dead_code)]

pub mod fig1;
pub mod fig17;
pub mod fig2;
pub mod fig5;
pub mod fig7a;
pub mod fig7b;

use std::sync::Arc;

use mpst_choreo::{EndpointConfig, Result, RoleName, Runner, Transport};

/// What a run of a suite choreography showed.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every value was bound where it belongs.
    Correct,
    /// Some variable was bound to a wrong value (a communication-integrity violation).
    Wrong(String),
    /// A role failed with an error.
    Failed(String),
}

/// The result at `role`, or why there is none.
pub fn at<'a, X>(
    outputs: &'a [(RoleName, Result<X>)],
    role: &str,
) -> std::result::Result<&'a X, Outcome> {
    match outputs.iter().find(|(r, _)| r.as_str() == role) {
        Some((_, Ok(x))) => Ok(x),
        Some((_, Err(e))) => Err(Outcome::Failed(format!("{role}: {e}"))),
        None => Err(Outcome::Failed(format!("{role}: no output"))),
    }
}

/// Every role's outcome must be `Ok` before values are compared.
pub fn all_ok<X>(outputs: &[(RoleName, Result<X>)]) -> std::result::Result<(), Outcome> {
    for (role, result) in outputs {
        if let Err(e) = result {
            return Err(Outcome::Failed(format!("{role}: {e}")));
        }
    }
    Ok(())
}

/// Compares a bound value with the expected one.
pub fn expect<T: PartialEq + std::fmt::Debug>(
    what: &str,
    got: Option<T>,
    want: T,
) -> std::result::Result<(), Outcome> {
    match got {
        Some(got) if got == want => Ok(()),
        got => Err(Outcome::Wrong(format!(
            "{what}: got {got:?}, want {want:?}"
        ))),
    }
}

/// A runner over `transport` with `config`.
pub fn runner(transport: Arc<dyn Transport>, config: EndpointConfig) -> Runner {
    Runner::new(transport).config(config)
}

/// Collapses a check into an outcome.
pub fn outcome(check: std::result::Result<(), Outcome>) -> Outcome {
    check.err().unwrap_or(Outcome::Correct)
}

/// Every choreography of the suite by name, run once over `transport`.
pub async fn run(
    name: &str,
    transport: Arc<dyn Transport>,
    config: EndpointConfig,
    seed: u64,
) -> Outcome {
    match name {
        "fig1" => fig1::check(transport, config, seed).await,
        "fig2" => fig2::check(transport, config, seed).await,
        "fig5" => fig5::check(transport, config, seed).await,
        "fig7a" => fig7a::check(transport, config, seed).await,
        "fig7b" => fig7b::check(transport, config, seed).await,
        "fig17" => fig17::check(transport, config, seed).await,
        other => Outcome::Failed(format!("no choreography {other}")),
    }
}

/// The names of the suite, with the roles each needs.
pub fn suite() -> Vec<(&'static str, Vec<RoleName>)> {
    vec![
        ("fig1", fig1::roles()),
        ("fig2", fig2::roles()),
        ("fig5", fig5::roles()),
        ("fig7a", fig7a::roles()),
        ("fig7b", fig7b::roles()),
        ("fig17", fig17::roles()),
    ]
}
