//! The examples in one process: every role binds the right values in memory and under
//! chaos, and the in-order twins' recorded runs conform to the `.scr` beside each
//! example, while wrong traces and protocols are rejected. (Over the network they run as
//! processes: `processes.rs`; where out of order is faster: `head_of_line.rs`.)

use std::sync::Arc;
use std::time::Duration;

use mpst_choreo::conform::{ConformanceError, Protocol, Step, global_trace};
use mpst_choreo::transport::{Chaos, ChaosConfig, InMemory};
use mpst_choreo::{Choreography, Recorder, RoleSet, Runner, Transport};
use mpst_choreo_paper::{clients, concurrent_send, pipeline, producers};
use tokio::time::timeout;

const PRODUCERS: &str = include_str!("../../examples/concurrent_producers.scr");
const SEND: &str = include_str!("../../examples/concurrent_send.scr");
const CLIENTS: &str = include_str!("../../examples/concurrent_clients.scr");
const SERVING: &str = include_str!("../../examples/model_serving.scr");

/// Runs every role over `transport`; fails on the first role's error.
async fn run<Ch, X>(transport: Arc<dyn Transport>, choreography: Ch) -> Vec<X>
where
    Ch: Choreography<X> + Clone + 'static,
    X: Send + 'static,
{
    let runner = Runner::new(transport);
    let outputs = timeout(Duration::from_secs(60), runner.run(choreography))
        .await
        .expect("run ends");
    outputs
        .into_iter()
        .map(|(role, result)| result.unwrap_or_else(|e| panic!("{role}: {e}")))
        .collect()
}

fn memory<Ch: Choreography<X>, X>() -> Arc<dyn Transport> {
    Arc::new(InMemory::new(Ch::Roles::names()))
}

fn chaos<Ch: Choreography<X>, X>(seed: u64) -> Arc<dyn Transport> {
    let inner = InMemory::new(Ch::Roles::names());
    Arc::new(Chaos::new(inner, ChaosConfig::reorder(seed)))
}

/// The one text the roles report, in role order.
fn reports<X>(outputs: Vec<X>, report: fn(X) -> Option<String>) -> Vec<String> {
    outputs.into_iter().filter_map(report).collect()
}

fn producers_want() -> Vec<String> {
    let (a, b) = producers::expected(&producers::Params::example());
    vec![format!("{a:?}"), format!("{b:?}")]
}

fn send_want(client: u64) -> Vec<String> {
    vec![format!("{:?}", concurrent_send::expected(client))]
}

fn clients_want() -> Vec<String> {
    let (a, b) = clients::expected(&clients::Params::example());
    vec![format!("{a:?}"), format!("{b:?}")]
}

fn serving_want() -> Vec<String> {
    vec![format!(
        "{:?}",
        pipeline::expected(&pipeline::Params::example())
    )]
}

#[tokio::test(start_paused = true)]
async fn every_example_binds_the_right_values_in_memory_and_under_chaos() {
    use concurrent_send::{ConcurrentSend, Costs, InOrderSend};
    let p = producers::Params::example();
    let c = clients::Params::example();
    let s = pipeline::Params::example();
    let send = |client| ConcurrentSend {
        client,
        costs: Costs::example(),
    };
    for seed in 0..20 {
        let t = chaos::<producers::ConcurrentProducers, producers::Output>(seed);
        let out = run(t, producers::ConcurrentProducers(p)).await;
        assert_eq!(
            reports(out, producers::report),
            producers_want(),
            "seed {seed}"
        );
        let t = chaos::<ConcurrentSend, concurrent_send::Output>(seed);
        let out = run(t, send(seed)).await;
        assert_eq!(reports(out, concurrent_send::report), send_want(seed));
        let t = chaos::<clients::ConcurrentClients, clients::Output>(seed);
        let out = run(t, clients::ConcurrentClients(c)).await;
        assert_eq!(reports(out, clients::report), clients_want(), "seed {seed}");
        let t = chaos::<pipeline::ModelServing, pipeline::Output>(seed);
        let out = run(t, pipeline::ModelServing::out_of_order(s)).await;
        assert_eq!(
            reports(out, pipeline::report),
            serving_want(),
            "seed {seed}"
        );
    }
    // The in-order twins compute the same.
    let t = memory::<producers::InOrderProducers, producers::Output>();
    let out = run(t, producers::InOrderProducers(p)).await;
    assert_eq!(reports(out, producers::report), producers_want());
    let in_order = InOrderSend {
        client: 3,
        costs: Costs::example(),
    };
    let out = run(memory::<InOrderSend, concurrent_send::Output>(), in_order).await;
    assert_eq!(reports(out, concurrent_send::report), send_want(3));
    let t = memory::<clients::InOrderClients, clients::Output>();
    let out = run(t, clients::InOrderClients(c)).await;
    assert_eq!(reports(out, clients::report), clients_want());
    let t = memory::<pipeline::ModelServing, pipeline::Output>();
    let out = run(t, pipeline::ModelServing::in_order(s)).await;
    assert_eq!(reports(out, pipeline::report), serving_want());
}

/// Runs the choreography in memory with a recorder and returns the recorded steps.
async fn steps<Ch, X>(choreography: Ch) -> Vec<Step>
where
    Ch: Choreography<X> + Clone + 'static,
    X: Send + 'static,
{
    let recorder = Arc::new(Recorder::new());
    let runner = Runner::new(memory::<Ch, X>()).observer(recorder.clone());
    for (role, result) in runner.run(choreography).await {
        result.unwrap_or_else(|e| panic!("{role}: {e}"));
    }
    Step::from_events(&recorder.events())
}

fn conforms(
    source: &str,
    name: Option<&str>,
    steps: &[Step],
) -> std::result::Result<(), ConformanceError> {
    let protocol = Protocol::from_scribble(source, name)?;
    protocol.check(&global_trace(steps)?)
}

#[tokio::test(start_paused = true)]
async fn the_in_order_twins_conform_to_their_protocols() {
    let p = producers::Params::example();
    conforms(
        PRODUCERS,
        None,
        &steps(producers::InOrderProducers(p)).await,
    )
    .unwrap();
    let send = concurrent_send::InOrderSend {
        client: 1,
        costs: concurrent_send::Costs::example(),
    };
    conforms(SEND, None, &steps(send).await).unwrap();
    let c = clients::Params::example();
    let recorded = steps(clients::InOrderClients(c)).await;
    conforms(CLIENTS, Some("ConcurrentClients"), &recorded).unwrap();
    let s = pipeline::Params::example();
    let recorded = steps(pipeline::ModelServing::in_order(s)).await;
    // Four rounds of 12 communications and the final choice (5).
    assert_eq!(global_trace(&recorded).unwrap().len(), 4 * 12 + 5);
    conforms(SERVING, None, &recorded).unwrap();
}

#[tokio::test(start_paused = true)]
async fn wrong_traces_and_wrong_protocols_are_rejected() {
    let send = concurrent_send::InOrderSend {
        client: 1,
        costs: concurrent_send::Costs::example(),
    };
    let recorded = steps(send).await;
    // The same run against a protocol where the server forwards the text first.
    let swapped = SEND.replace(
        "Key(String) from S to C;\n    Txt(String) from S to C;",
        "Txt(String) from S to C;\n    Key(String) from S to C;",
    );
    assert_ne!(swapped, SEND);
    match conforms(&swapped, None, &recorded) {
        Err(ConformanceError::Unexpected { role, event, .. }) => {
            assert_eq!(role, "S");
            assert_eq!(event.label, "Key");
        }
        other => panic!("accepted a wrong protocol: {other:?}"),
    }
    // A trace missing its last communication leaves the client unfinished.
    let protocol = Protocol::from_scribble(SEND, None).unwrap();
    let mut trace = global_trace(&recorded).unwrap();
    trace.pop();
    assert!(matches!(
        protocol.check(&trace),
        Err(ConformanceError::Unfinished { role, .. }) if role == "C"
    ));
    // The out-of-order form with a slow key: the server forwards the text first, which
    // the in-order protocol does not allow.
    let ozone = concurrent_send::ConcurrentSend {
        client: 1,
        costs: concurrent_send::Costs {
            key: Duration::from_millis(30),
            txt: Duration::from_millis(1),
        },
    };
    let recorded = steps(ozone).await;
    match conforms(SEND, None, &recorded) {
        Err(ConformanceError::Unexpected { role, event, .. }) => {
            assert_eq!((role.as_str(), event.label.as_str()), ("S", "Txt"));
        }
        other => panic!("an out-of-order run passed as in order: {other:?}"),
    }
}
