//! The examples over the network on loopback, every role in this process with its own
//! transport: over TCP (four connections per pair, so messages overtake) the right
//! values, and the in-order twins' runs conform to their protocols; over QUIC (a stream
//! per message) the right values.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::Duration;

use mpst_choreo::conform::{Protocol, Step, global_trace};
use mpst_choreo::net::quic::{QuicConfig, QuicTransport};
use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
use mpst_choreo::paper::{clients, concurrent_send, pipeline, producers};
use mpst_choreo::{Choreography, Endpoint, EndpointConfig, Recorder, RoleName, RoleSet, Transport};
use tokio::net::TcpListener;
use tokio::time::timeout;

/// The program of every deployment here.
const PROGRAM: &str = "examples";

/// One role's network end.
enum Net {
    Tcp(Arc<TcpTransport>),
    Quic(Arc<QuicTransport>),
}

impl Net {
    fn transport(&self) -> Arc<dyn Transport> {
        match self {
            Net::Tcp(t) => t.clone(),
            Net::Quic(t) => t.clone(),
        }
    }

    fn role(&self) -> RoleName {
        match self {
            Net::Tcp(t) => t.role().clone(),
            Net::Quic(t) => t.role().clone(),
        }
    }

    async fn close(&self) {
        match self {
            Net::Tcp(t) => t.close().await,
            Net::Quic(t) => t.close(Duration::from_secs(10)).await,
        }
    }
}

/// A transport per role, all connected over loopback (TCP with mutual TLS, or QUIC), each
/// role with its certificate of one deployment generated for the run.
async fn connect(roles: &[RoleName], quic: bool) -> Vec<Net> {
    let peers_of = |role: &RoleName, addrs: &[SocketAddr]| -> Vec<(RoleName, SocketAddr)> {
        roles
            .iter()
            .cloned()
            .zip(addrs.iter().copied())
            .filter(|(peer, _)| peer != role)
            .collect()
    };
    let pki = mpst_wire::certs::Deployment::generate(PROGRAM, roles.iter().map(RoleName::as_str))
        .unwrap();
    if quic {
        let sockets: Vec<UdpSocket> = roles
            .iter()
            .map(|_| UdpSocket::bind("127.0.0.1:0").unwrap())
            .collect();
        let addrs: Vec<SocketAddr> = sockets.iter().map(|s| s.local_addr().unwrap()).collect();
        let starts = roles.iter().zip(sockets).map(|(role, socket)| {
            let peers = peers_of(role, &addrs);
            let config = QuicConfig::default();
            let identity = pki.identity(role.as_str());
            async move {
                QuicTransport::start(role.clone(), socket, &identity, PROGRAM, peers, config).await
            }
        });
        let started = futures::future::try_join_all(starts).await.unwrap();
        return started
            .into_iter()
            .map(|t| Net::Quic(Arc::new(t)))
            .collect();
    }
    let mut listeners = Vec::new();
    for _ in roles {
        listeners.push(TcpListener::bind("127.0.0.1:0").await.unwrap());
    }
    let addrs: Vec<SocketAddr> = listeners.iter().map(|l| l.local_addr().unwrap()).collect();
    let starts = roles.iter().zip(listeners).map(|(role, listener)| {
        let peers = peers_of(role, &addrs);
        let config = TcpConfig::mutual_tls(PROGRAM, pki.identity(role.as_str()));
        TcpTransport::start(role.clone(), listener, peers, config)
    });
    let started = futures::future::try_join_all(starts).await.unwrap();
    started.into_iter().map(|t| Net::Tcp(Arc::new(t))).collect()
}

/// Runs every role of `choreography` over its own transport; returns the reports of the
/// roles that hold a result, in role order, and the recorded steps.
async fn over<Ch, X>(
    quic: bool,
    choreography: Ch,
    report: fn(X) -> Option<String>,
) -> (Vec<String>, Vec<Step>)
where
    Ch: Choreography<X> + Clone + 'static,
    X: Send + 'static,
{
    let nets = timeout(Duration::from_secs(30), connect(&Ch::Roles::names(), quic))
        .await
        .unwrap();
    let recorder = Arc::new(Recorder::new());
    let mut tasks = Vec::new();
    for net in nets {
        let role = net.role();
        let observer = Some(recorder.clone() as _);
        let endpoint = Endpoint::with_config(
            net.transport(),
            role.clone(),
            EndpointConfig::default(),
            observer,
        )
        .unwrap();
        let choreography = choreography.clone();
        tasks.push(tokio::spawn(async move {
            let result = endpoint.run(choreography).await;
            net.close().await;
            result.map_err(|e| format!("{role}: {e}"))
        }));
    }
    let mut reports = Vec::new();
    for task in tasks {
        let output = timeout(Duration::from_secs(30), task)
            .await
            .unwrap()
            .unwrap();
        reports.extend(report(output.unwrap()));
    }
    (reports, Step::from_events(&recorder.events()))
}

async fn over_tcp<Ch, X>(
    choreography: Ch,
    report: fn(X) -> Option<String>,
) -> (Vec<String>, Vec<Step>)
where
    Ch: Choreography<X> + Clone + 'static,
    X: Send + 'static,
{
    over(false, choreography, report).await
}

fn check(source: &str, name: Option<&str>, steps: &[Step]) {
    let protocol = Protocol::from_scribble(source, name).unwrap();
    let trace = global_trace(steps).unwrap();
    protocol.check(&trace).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn producers_and_concurrent_send_over_tcp() {
    let p = producers::Params::example();
    let (a, b) = producers::expected(&p);
    let want = vec![format!("{a:?}"), format!("{b:?}")];
    let (got, _) = over_tcp(producers::ConcurrentProducers(p), producers::report).await;
    assert_eq!(got, want);
    let (got, steps) = over_tcp(producers::InOrderProducers(p), producers::report).await;
    assert_eq!(got, want);
    check(
        include_str!("../../examples/concurrent_producers.scr"),
        None,
        &steps,
    );

    let costs = concurrent_send::Costs::example();
    let want = vec![format!("{:?}", concurrent_send::expected(5))];
    let ozone = concurrent_send::ConcurrentSend { client: 5, costs };
    let (got, _) = over_tcp(ozone, concurrent_send::report).await;
    assert_eq!(got, want);
    let in_order = concurrent_send::InOrderSend { client: 5, costs };
    let (got, steps) = over_tcp(in_order, concurrent_send::report).await;
    assert_eq!(got, want);
    check(
        include_str!("../../examples/concurrent_send.scr"),
        None,
        &steps,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_and_model_serving_over_tcp() {
    let c = clients::Params::example();
    let (a, b) = clients::expected(&c);
    let want = vec![format!("{a:?}"), format!("{b:?}")];
    let (got, _) = over_tcp(clients::ConcurrentClients(c), clients::report).await;
    assert_eq!(got, want);
    let (got, steps) = over_tcp(clients::InOrderClients(c), clients::report).await;
    assert_eq!(got, want);
    let source = include_str!("../../examples/concurrent_clients.scr");
    check(source, Some("ConcurrentClients"), &steps);

    let s = pipeline::Params::example();
    let want = vec![format!("{:?}", pipeline::expected(&s))];
    let ozone = pipeline::ModelServing::out_of_order(s);
    let (got, _) = over_tcp(ozone, pipeline::report).await;
    assert_eq!(got, want);
    let in_order = pipeline::ModelServing::in_order(s);
    let (got, steps) = over_tcp(in_order, pipeline::report).await;
    assert_eq!(got, want);
    check(
        include_str!("../../examples/model_serving.scr"),
        None,
        &steps,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_example_over_quic() {
    let p = producers::Params::example();
    let (a, b) = producers::expected(&p);
    let (got, _) = over(true, producers::ConcurrentProducers(p), producers::report).await;
    assert_eq!(got, [format!("{a:?}"), format!("{b:?}")]);

    let costs = concurrent_send::Costs::example();
    let ozone = concurrent_send::ConcurrentSend { client: 9, costs };
    let (got, _) = over(true, ozone, concurrent_send::report).await;
    assert_eq!(got, [format!("{:?}", concurrent_send::expected(9))]);

    let c = clients::Params::example();
    let (a, b) = clients::expected(&c);
    let (got, _) = over(true, clients::ConcurrentClients(c), clients::report).await;
    assert_eq!(got, [format!("{a:?}"), format!("{b:?}")]);

    let s = pipeline::Params::example();
    let ozone = pipeline::ModelServing::out_of_order(s);
    let (got, steps) = over(true, ozone, pipeline::report).await;
    assert_eq!(got, [format!("{:?}", pipeline::expected(&s))]);
    // The in-order twin over QUIC conforms too.
    let (_, steps_in_order) =
        over(true, pipeline::ModelServing::in_order(s), pipeline::report).await;
    check(
        include_str!("../../examples/model_serving.scr"),
        None,
        &steps_in_order,
    );
    assert!(!steps.is_empty());
}
