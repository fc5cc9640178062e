//! Property tests: every choreography of the paper's suite binds every value correctly
//! over a chaos transport (reorder, delay, duplicate) for many seeds, and a FIFO-assuming
//! receiver that ignores keys is caught binding wrong values by the same check.

use crate::suite;

use std::sync::Arc;

use mpst_choreo::transport::{Chaos, ChaosConfig, InMemory};
use mpst_choreo::{EndpointConfig, Transport};
use suite::Outcome;

/// Seeds per choreography: `MPST_CHAOS_SEEDS` or 1,000.
fn seeds() -> u64 {
    std::env::var("MPST_CHAOS_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000)
}

/// Runs one choreography of the suite on a fresh current-thread runtime with tokio's
/// paused clock (chaos delays cost no real time), over a chaos transport.
fn run_one(
    name: &str,
    roles: &[mpst_choreo::RoleName],
    seed: u64,
    config: EndpointConfig,
) -> Outcome {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("runtime");
    rt.block_on(async {
        let net = Chaos::new(
            InMemory::new(roles.iter().cloned()),
            ChaosConfig::reorder(seed),
        );
        let net: Arc<dyn Transport> = Arc::new(net);
        suite::run(name, net, config, seed).await
    })
}

#[test]
fn every_choreography_binds_every_value_under_chaos() {
    let n = seeds();
    for (name, roles) in suite::suite() {
        for seed in 0..n {
            let outcome = run_one(name, &roles, seed, EndpointConfig::default());
            assert_eq!(outcome, Outcome::Correct, "{name}, seed {seed}");
        }
    }
}

#[test]
fn a_receiver_that_ignores_keys_is_caught_binding_wrong_values() {
    let n = seeds().min(200);
    let fifo = EndpointConfig {
        ignore_keys: true,
        ..EndpointConfig::default()
    };
    let mut caught = Vec::new();
    for (name, roles) in suite::suite() {
        let wrong = (0..n)
            .filter(|&seed| matches!(run_one(name, &roles, seed, fifo), Outcome::Wrong(_)))
            .count();
        caught.push((name, wrong));
    }
    eprintln!("negative control, wrong bindings per choreography over {n} seeds: {caught:?}");
    // The choreographies where one sender sends two values of one type to one receiver
    // must be caught: Figures 2, 5 and 17.
    for name in ["fig2", "fig5", "fig17"] {
        let wrong = caught
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |(_, w)| *w);
        assert!(
            wrong > 0,
            "{name}: the negative control was never caught ({caught:?})"
        );
    }
}

#[test]
fn the_figure_7b_consumer_takes_items_from_different_iterations_in_any_order() {
    let mut out_of_order = 0;
    for seed in 0..50 {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("runtime");
        let (outcome, seen) = rt.block_on(async {
            let roles = suite::fig7b::roles();
            let net = Chaos::new(InMemory::new(roles), ChaosConfig::reorder(seed));
            suite::fig7b::consumed(Arc::new(net), EndpointConfig::default(), 4).await
        });
        assert_eq!(outcome, Outcome::Correct, "seed {seed}");
        let p1: Vec<u64> = seen.iter().filter(|s| s.0 == "P1").map(|s| s.1).collect();
        if p1.windows(2).any(|w| w[0] > w[1]) {
            out_of_order += 1;
        }
    }
    assert!(
        out_of_order > 0,
        "no seed delivered a later iteration first"
    );
}

#[test]
fn under_drops_every_choreography_binds_correctly_or_times_out_never_wrongly() {
    let n = seeds().min(300);
    let mut timed_out = 0;
    for (name, roles) in suite::suite() {
        for seed in 0..n {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .start_paused(true)
                .build()
                .expect("runtime");
            let outcome = rt.block_on(async {
                let cfg = ChaosConfig::reorder(seed).with_drop(0.05);
                let net = Chaos::new(InMemory::new(roles.iter().cloned()), cfg);
                suite::run(name, Arc::new(net), EndpointConfig::default(), seed).await
            });
            match outcome {
                Outcome::Correct => {}
                Outcome::Failed(why) => {
                    assert!(why.contains("timed out"), "{name}, seed {seed}: {why}");
                    timed_out += 1;
                }
                Outcome::Wrong(why) => {
                    panic!("{name}, seed {seed}: wrong binding under drops: {why}")
                }
            }
        }
    }
    eprintln!("runs that timed out under drops: {timed_out}");
    assert!(timed_out > 0, "drops happened and surfaced as timeouts");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_suite_also_holds_on_a_multi_threaded_runtime() {
    for (name, roles) in suite::suite() {
        for seed in 0..10 {
            let cfg = ChaosConfig {
                max_delay: std::time::Duration::from_millis(2),
                ..ChaosConfig::reorder(seed)
            };
            let net = Chaos::new(InMemory::new(roles.iter().cloned()), cfg);
            let run = suite::run(name, Arc::new(net), EndpointConfig::default(), seed);
            let outcome = tokio::time::timeout(std::time::Duration::from_secs(20), run).await;
            assert_eq!(outcome, Ok(Outcome::Correct), "{name}, seed {seed}");
        }
    }
}
