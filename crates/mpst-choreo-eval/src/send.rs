//! Benchmark b, concurrent send (the paper's Figure 2 / 19b): the choreography of
//! `mpst_choreo_paper::concurrent_send` with this benchmark's services ([`Request`]).
//! For each request the key service `ks` and the content service `cs` compute for a
//! uniformly random 0–5 ms each (on the precise timer, [`crate::clock`]) and send a key
//! and a text to the server `s`, which forwards both to the client `c`. Latencies of `key` and of `txt`: from the request's intended time to
//! each value's arrival at `c`.

use std::sync::Arc;
use std::time::Duration;

use mpst_choreo_paper::concurrent_send::{self as figure2, C, Send2};
use ractor::{Actor, ActorProcessingErr, ActorRef};
use serde::{Deserialize, Serialize};

use crate::clock::{Noted, Probe};
use crate::drive::Implementation;
use crate::load::{Recorder, Schedule, Spec, Summary};
use crate::open_loop;

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
    /// woke (`"ks start"`, `"ks work"`, `"cs start"`, `"cs work"`), and `c` how long each
    /// key took from `ks`'s work done to its arrival (`"key delivery"`); off by default.
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

/// Request `i`'s services, the probe of the paper's one concurrent send
/// (`mpst_choreo_paper::concurrent_send::Send2`): `ks` and `cs` note how late the
/// session started and compute for their cost on the precise timer, `c` records `key`
/// and `txt` in the recorder as each arrives.
#[derive(Clone)]
pub struct Request {
    i: u64,
    costs: (Duration, Duration),
    due: std::time::Instant,
    recorder: Recorder,
    probe: Probe,
}

impl figure2::Services for Request {
    type Key = Key;
    type Txt = Txt;

    async fn key(&self) -> Key {
        let (i, probe) = (self.i, &self.probe);
        probe.note(i, "ks start", self.due);
        crate::clock::sleep_noted(self.costs.0, probe, i, Noted::KS).await;
        probe.ready(i);
        Key(i)
    }

    async fn txt(&self) -> Txt {
        let (i, probe) = (self.i, &self.probe);
        probe.note(i, "cs start", self.due);
        crate::clock::sleep_noted(self.costs.1, probe, i, Noted::CS).await;
        Txt(i)
    }

    fn key_arrived(&self, key: &Key) {
        self.probe.delivered(key.0, "key delivery");
        self.recorder.answer("key", key.0);
    }

    fn txt_arrived(&self, txt: &Txt) {
        self.recorder.answer("txt", txt.0);
    }
}

/// Session `i` of the choreography (both forms): the paper's one definition with the
/// evaluation's services.
pub type ConcurrentSend = Send2<Request, C>;

/// Session `i`: `ks` computes for `costs.0`, `cs` for `costs.1`, noting their lateness
/// on `probe`, and `c` records `key` and `txt` in `recorder` as request `i`; `in_order`
/// chooses the blocking form.
pub fn session(
    i: u64,
    costs: (Duration, Duration),
    recorder: Recorder,
    in_order: bool,
    probe: Probe,
) -> ConcurrentSend {
    let due = recorder.schedule().at(i).into_std();
    let services = Request {
        i,
        costs,
        due,
        recorder,
        probe,
    };
    Send2 {
        services,
        role: C,
        in_order,
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
    /// The client: records arrivals (and notes `key`'s delivery on the probe).
    Client(Recorder, Probe),
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
                    ("ks start", Noted::KS)
                } else {
                    ("cs start", Noted::CS)
                };
                tokio::spawn(async move {
                    probe.note(i, start, due);
                    crate::clock::sleep_noted(cost, &probe, i, work).await;
                    if key {
                        probe.ready(i);
                    }
                    let _ = server.send_message(if key {
                        Msg::Key(Key(i))
                    } else {
                        Msg::Txt(Txt(i))
                    });
                });
            }
            (Node::Server(client), msg) => client.send_message(msg)?,
            (Node::Client(rec, probe), Msg::Key(k)) => {
                probe.delivered(k.0, "key delivery");
                rec.answer("key", k.0)
            }
            (Node::Client(rec, _), Msg::Txt(t)) => rec.answer("txt", t.0),
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
    let client = spawn(Node::Client(recorder.clone(), costs.probe.clone())).await;
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
    let run = run_recorded(imp, spec, costs);
    let key = run.recorder.summary(&["key"], spec, run.end);
    let txt = run.recorder.summary(&["txt"], spec, run.end);
    (key, txt, run.failures)
}

/// [`run_with_costs`], returning the run itself: every answer's latency by request
/// (the impaired runs pool them over rounds and compare them session by session).
pub fn run_recorded(imp: Implementation, spec: &Spec, costs: Costs) -> open_loop::Finished {
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
            session(i, cost, recorder.clone(), in_order, costs.probe.clone())
        }
    };
    // The services start each session when it is due, as the actors' schedule does;
    // `s` and `c` only react to messages, like their actors.
    let starters: &[&str] = &["KS", "CS"];
    open_loop::run(
        imp,
        spec,
        (&["key", "txt"], Some(starters)),
        actors,
        sessions,
    )
}
