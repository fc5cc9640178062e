//! Benchmark b, concurrent send (the paper's Figure 2 / 19b): for each request the key
//! service `ks` and the content service `cs` compute for a uniformly random 0–5 ms each
//! (tokio sleeps) and send a key and a text to the server `s`, which forwards both to
//! the client `c`. Latencies of `key` and of `txt`: from the request's intended time to
//! each value's arrival at `c`.

use std::sync::Arc;
use std::time::Duration;

use mpst_choreo::paper::compute_at;
use mpst_choreo::{Choreography, Op, Result};
use ractor::{Actor, ActorProcessingErr, ActorRef};
use serde::{Deserialize, Serialize};

use crate::clock::Probe;
use crate::drive::Implementation;
use crate::load::{Recorder, Schedule, Spec, Summary};
use crate::open_loop;

mpst_choreo::roles! {
    /// The key service.
    pub struct KS;
    /// The content service.
    pub struct CS;
    /// The server.
    pub struct S;
    /// The client.
    pub struct C;
}

/// A decryption key for request `.0` (label `Key`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Key(pub u64);

/// An encrypted text for request `.0` (label `Txt`): the same shape as [`Key`], so only
/// integrity keys tell them apart out of order.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Txt(pub u64);

/// The services' computation time per request.
#[derive(Clone, Debug)]
pub struct Costs {
    /// `ks`'s time per request.
    pub key: Arc<Vec<Duration>>,
    /// `cs`'s time per request.
    pub txt: Arc<Vec<Duration>>,
    /// Where `ks` and `cs` note how late each session started and each work's sleep
    /// woke (`"ks start"`, `"ks work"`, `"cs start"`, `"cs work"`); off by default.
    pub probe: Probe,
}

impl Costs {
    /// Uniform 0–5 ms costs for `n` requests, from `seed`.
    pub fn uniform(seed: u64, n: u64) -> Self {
        let [key, txt] = open_loop::uniform_pair(seed, n);
        Costs {
            key,
            txt,
            probe: Probe::default(),
        }
    }

    /// No work at all for `n` requests: only each implementation's own overhead.
    pub fn zero(n: u64) -> Self {
        let zero = Arc::new(vec![Duration::ZERO; n as usize]);
        Costs {
            key: zero.clone(),
            txt: zero,
            probe: Probe::default(),
        }
    }

    /// The same costs, with their lateness noted on `probe`.
    pub fn noted(self, probe: Probe) -> Self {
        Costs { probe, ..self }
    }
}

/// Session `i` of the choreography (both forms).
pub struct ConcurrentSend {
    i: u64,
    costs: (Duration, Duration),
    recorder: Recorder,
    in_order: bool,
    probe: Probe,
}

impl ConcurrentSend {
    /// Session `i`: `ks` computes for `costs.0`, `cs` for `costs.1`, and `c` records
    /// `key` and `txt` in `recorder` as request `i`; `in_order` chooses the blocking form.
    pub fn new(i: u64, costs: (Duration, Duration), recorder: Recorder, in_order: bool) -> Self {
        ConcurrentSend {
            i,
            costs,
            recorder,
            in_order,
            probe: Probe::default(),
        }
    }

    /// The same session, noting its services' lateness on `probe`.
    pub fn noted(self, probe: Probe) -> Self {
        ConcurrentSend { probe, ..self }
    }
}

impl Choreography for ConcurrentSend {
    type Roles = mpst_choreo::RoleSet![KS, CS, S, C];

    async fn run(self, op: &Op<Self::Roles>) -> Result<()> {
        let (i, (ck, ct)) = (self.i, self.costs);
        let due = self.recorder.schedule().at(i);
        let (rec_k, rec_t) = (self.recorder.clone(), self.recorder);
        let (probe_k, probe_t) = (self.probe.clone(), self.probe);
        let key = compute_at(op.locally(KS, |_| i), |i| async move {
            probe_k.note(i, "ks start", due.into_std());
            crate::clock::sleep_noted(ck, &probe_k, i, "ks work").await;
            Key(i)
        });
        let txt = compute_at(op.locally(CS, |_| i), |i| async move {
            probe_t.note(i, "cs start", due.into_std());
            crate::clock::sleep_noted(ct, &probe_t, i, "cs work").await;
            Txt(i)
        });
        let (key, txt) = futures::join!(key, txt);
        if self.in_order {
            // Figure 2a: s takes the key, then the text, then forwards them in that order.
            let key_s = op.comm(KS, S, &key).await?;
            let txt_s = op.comm(CS, S, &txt).await?;
            let key_c = op.comm(S, C, &key_s).await?;
            op.locally(C, |u| rec_k.answer("key", u.unwrap(&key_c).0));
            let txt_c = op.comm(S, C, &txt_s).await?;
            op.locally(C, |u| rec_t.answer("txt", u.unwrap(&txt_c).0));
            return Ok(());
        }
        // Figure 15: s forwards each value as it arrives.
        let key_s = op.fcomm(KS, S, &key);
        let txt_s = op.fcomm(CS, S, &txt);
        let key_c = op.then(C, op.fcomm(S, C, key_s), move |k| rec_k.answer("key", k.0));
        let txt_c = op.then(C, op.fcomm(S, C, txt_s), move |t| rec_t.answer("txt", t.0));
        op.wait(C, op.join(C, key_c, txt_c)).await?;
        Ok(())
    }
}

/// What the actors exchange.
pub enum Msg {
    /// Request `i` is due (to the services).
    Request(u64),
    /// A key (to the server, then the client).
    Key(Key),
    /// A text (to the server, then the client).
    Txt(Txt),
}

/// The actors' behaviours.
enum Node {
    /// A service: computes for `costs[i]` in a task of its own, sends to the server.
    Service {
        costs: Costs,
        key: bool,
        server: ActorRef<Msg>,
        schedule: Schedule,
    },
    /// The server: forwards everything to the client at once.
    Server(ActorRef<Msg>),
    /// The client: records arrivals.
    Client(Recorder),
}

impl Actor for Node {
    type Msg = Msg;
    type State = ();
    type Arguments = ();

    async fn pre_start(
        &self,
        _: ActorRef<Msg>,
        _: (),
    ) -> std::result::Result<(), ActorProcessingErr> {
        Ok(())
    }

    async fn handle(
        &self,
        _: ActorRef<Msg>,
        msg: Msg,
        _: &mut (),
    ) -> std::result::Result<(), ActorProcessingErr> {
        match (self, msg) {
            (
                Node::Service {
                    costs,
                    key,
                    server,
                    schedule,
                },
                Msg::Request(i),
            ) => {
                let (key, server, due) = (*key, server.clone(), schedule.at(i).into_std());
                let series = if key { &costs.key } else { &costs.txt };
                let (cost, probe) = (series[i as usize], costs.probe.clone());
                let (start, work) = if key {
                    ("ks start", "ks work")
                } else {
                    ("cs start", "cs work")
                };
                tokio::spawn(async move {
                    probe.note(i, start, due);
                    crate::clock::sleep_noted(cost, &probe, i, work).await;
                    let _ = server.send_message(if key {
                        Msg::Key(Key(i))
                    } else {
                        Msg::Txt(Txt(i))
                    });
                });
            }
            (Node::Server(client), msg) => client.send_message(msg)?,
            (Node::Client(rec), Msg::Key(k)) => rec.answer("key", k.0),
            (Node::Client(rec), Msg::Txt(t)) => rec.answer("txt", t.0),
            _ => {}
        }
        Ok(())
    }
}

/// The actors' services (`ks` and `cs`), already connected to the server and the client.
pub struct Services(Vec<ActorRef<Msg>>);

impl Services {
    /// Asks both services for request `i`.
    pub fn request(&self, i: u64) {
        for s in &self.0 {
            let _ = s.send_message(Msg::Request(i));
        }
    }
}

/// Spawns the actors: the client records in `recorder`, the services compute `costs`.
pub async fn spawn_actors(costs: &Costs, recorder: &Recorder) -> Services {
    async fn spawn(node: Node) -> ActorRef<Msg> {
        Actor::spawn(None, node, ()).await.expect("spawn").0
    }
    let client = spawn(Node::Client(recorder.clone())).await;
    let server = spawn(Node::Server(client)).await;
    let mut services = Vec::new();
    let schedule = recorder.schedule();
    for key in [true, false] {
        let (costs, server) = (costs.clone(), server.clone());
        let node = Node::Service {
            costs,
            key,
            server,
            schedule,
        };
        services.push(spawn(node).await);
    }
    Services(services)
}

async fn start_actors(costs: &Costs, recorder: &Recorder, n: u64) {
    let services = spawn_actors(costs, recorder).await;
    let schedule = recorder.schedule();
    tokio::spawn(async move {
        for i in 0..n {
            crate::clock::sleep_until(schedule.at(i)).await;
            services.request(i);
        }
    });
}

/// Runs one implementation at `spec.rate` requests per second: the summaries of `key`
/// and of `txt`, and how many sessions failed.
pub fn run(imp: Implementation, spec: &Spec) -> (Summary, Summary, u64) {
    run_with_costs(imp, spec, Costs::uniform(spec.seed, spec.requests()))
}

/// [`run`] with the given costs (one per request) instead of the seeded ones; zero
/// costs leave only each implementation's own overhead in the latency.
pub fn run_with_costs(imp: Implementation, spec: &Spec, costs: Costs) -> (Summary, Summary, u64) {
    let costs = &costs;
    let actors = |recorder: Recorder, n| async move {
        if spec.net == crate::drive::Net::Hosts {
            crate::impaired::actors::start_send(costs, &recorder, n).await
        } else {
            start_actors(costs, &recorder, n).await
        }
    };
    let sessions = |recorder: Recorder, in_order| {
        let costs = costs.clone();
        move |i: u64| {
            let cost = (costs.key[i as usize], costs.txt[i as usize]);
            ConcurrentSend::new(i, cost, recorder.clone(), in_order).noted(costs.probe.clone())
        }
    };
    let run = open_loop::run(imp, spec, &["key", "txt"], actors, sessions);
    let key = run.recorder.summary(&["key"], spec, run.end);
    let txt = run.recorder.summary(&["txt"], spec, run.end);
    (key, txt, run.failures)
}
