//! The actors across hosts: one hand-written `ractor` actor per role, on its host's
//! runtime, with the same behaviours as the in-memory actors of [`crate::send`] and
//! [`crate::serving`]; where those hold an `ActorRef` of a peer, these hold a [`Link`]:
//! a TCP connection to the peer's host through the relay, written by a bridging task
//! per link (length-prefixed postcard frames, `mpst-wire`'s codec), read at the peer by
//! a task per connection that hands each frame to its actor's mailbox. Requests become
//! due at the host that starts them (the services, the gateway), as the choreographies'
//! sessions do.

use std::sync::Arc;
use std::time::Duration;

use mpst_choreo::RoleName;
use mpst_wire::codec::{DEFAULT_MAX_FRAME_LENGTH, HEADER_LENGTH, check_header, decode_body};
use ractor::{Actor, ActorProcessingErr, ActorRef};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::hosts::Placement;
use super::stages::{self, Stage};
use crate::busy::Busy;
use crate::load::Recorder;
use crate::{send, serving};

/// What crosses a link between two actors.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Wire {
    /// Concurrent send: a key for request `.0` (`ks` to `s`, `s` to `c`).
    Key(u64),
    /// Concurrent send: a text for request `.0` (`cs` to `s`, `s` to `c`).
    Txt(u64),
    /// Model serving: image `.0` (gateway to a worker).
    Image(u64),
    /// Model serving: preprocessed image `.0` (a worker to the batcher).
    Tensor(u64),
    /// Model serving: a batch of images (the batcher to a model).
    Batch(Vec<u64>),
    /// Model serving: a batch's predictions (a model to the batcher, it to the gateway).
    Predictions(Vec<u64>),
}

/// An actor's mailbox: a request due here, or a message from a peer.
pub enum Msg {
    /// Request (or image) `.0` is due at this host.
    Due(u64),
    /// A message from a peer.
    Net(Wire),
}

/// The sending end of one link: messages queued here are written, in order, to the
/// peer's host by the link's bridging task.
#[derive(Clone)]
pub struct Link(mpsc::UnboundedSender<Wire>, &'static str);

impl Link {
    /// Queues `wire` for the peer (dropped if the link is gone: the run is ending).
    pub fn send(&self, wire: Wire) {
        if let Some(what) = wire.label() {
            stages::actor(Stage::SendCalled, self.1, what, 0);
        }
        let _ = self.0.send(wire);
    }
}

impl Wire {
    /// Concurrent send's message: (a key?, its request), for the `stages` probe.
    fn label(&self) -> Option<(bool, u64)> {
        match *self {
            Wire::Key(i) => Some((true, i)),
            Wire::Txt(i) => Some((false, i)),
            _ => None,
        }
    }
}

/// Opens a link from the current host to `peer` (at `addr`) and spawns its bridging
/// task on the current runtime: it connects, then writes every queued message as one
/// frame, as many as are queued in one write.
fn link(role: &str, peer: &str, addr: std::net::SocketAddr) -> Link {
    let (tx, mut rx) = mpsc::unbounded_channel::<Wire>();
    let what = format!("{role} -> {peer}");
    let at = stages::role(role);
    tokio::spawn(async move {
        let mut stream = match connect(addr).await {
            Ok(s) => s,
            Err(e) => return eprintln!("actors: link {what}: {e}"),
        };
        #[cfg(feature = "stages")]
        let (port, mut labels) = (stream.local_addr().map_or(0, |a| a.port()), Vec::new());
        let mut out = Vec::new();
        while let Some(first) = rx.recv().await {
            out.clear();
            #[cfg(feature = "stages")]
            labels.clear();
            let mut next = Some(first);
            while let Some(wire) = next {
                let frame = mpst_wire::codec::encode_frame(&wire, DEFAULT_MAX_FRAME_LENGTH);
                out.extend(frame.expect("a small message encodes"));
                #[cfg(feature = "stages")]
                labels.extend(wire.label());
                next = rx.try_recv().ok();
            }
            if let Err(e) = stream.write_all(&out).await {
                return eprintln!("actors: link {what}: {e}");
            }
            #[cfg(feature = "stages")]
            for &label in &labels {
                stages::actor(Stage::Written, at, label, port);
            }
        }
    });
    Link(tx, at)
}

async fn connect(addr: std::net::SocketAddr) -> std::io::Result<TcpStream> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match TcpStream::connect(addr).await {
            Ok(s) => {
                s.set_nodelay(true)?;
                return Ok(s);
            }
            Err(e) if Instant::now() >= deadline => return Err(e),
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

/// Accepts the peers' links on `listener` and hands every frame they carry to `actor`.
async fn serve(role: String, listener: TcpListener, actor: ActorRef<Msg>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            return;
        };
        let _ = stream.set_nodelay(true);
        let (actor, role) = (actor.clone(), role.clone());
        tokio::spawn(async move {
            if let Err(e) = read_frames(stream, &actor, stages::role(&role)).await {
                eprintln!("actors: {role}: a link failed: {e}");
            }
        });
    }
}

async fn read_frames(
    mut stream: TcpStream,
    actor: &ActorRef<Msg>,
    at: &'static str,
) -> Result<(), String> {
    let port = stream.peer_addr().map_or(0, |a| a.port());
    let mut header = [0; HEADER_LENGTH];
    let mut body = Vec::new();
    loop {
        if stream.read_exact(&mut header).await.is_err() {
            return Ok(()); // the peer closed: the run is over
        }
        let length = check_header(header, DEFAULT_MAX_FRAME_LENGTH).map_err(|e| e.to_string())?;
        body.resize(length, 0);
        stream
            .read_exact(&mut body)
            .await
            .map_err(|e| format!("inside a frame: {e}"))?;
        let wire: Wire = decode_body(&body).map_err(|e| e.to_string())?;
        let label = wire.label();
        if let Some(label) = label {
            stages::actor(Stage::Read, at, label, port);
        }
        if actor.send_message(Msg::Net(wire)).is_err() {
            return Ok(()); // the actor stopped: the run is over
        }
        if let Some(label) = label {
            stages::actor(Stage::Filed, at, label, port);
        }
    }
}

/// A role's behaviour, given its links (by peer role name).
type Behaviour = Box<dyn FnOnce(&dyn Fn(&str) -> Link) -> Node + Send>;

/// Starts every role's actor on its host: listeners first (so every link's dial finds
/// one), then each actor with its links and the task feeding it its peers' frames.
/// Returns each role's actor, in `behaviours` order.
async fn start(behaviours: Vec<(RoleName, Behaviour)>) -> Vec<ActorRef<Msg>> {
    let placement = Placement::current();
    let mut listeners = placement.listeners().await;
    let mut started = Vec::new();
    for (role, behaviour) in behaviours {
        let at = listeners.iter().position(|(r, _)| *r == role);
        let (_, listener) = listeners.swap_remove(at.expect("every role listens"));
        let (host, placement) = (placement.handle(role.as_str()), placement.clone());
        started.push(host.spawn(async move {
            let me = role.as_str();
            let node = behaviour(&|peer: &str| link(me, peer, placement.peer(me, peer)));
            let (actor, _) = Actor::spawn(None, node, ()).await.expect("an actor starts");
            tokio::spawn(serve(me.to_string(), listener, actor.clone()));
            actor
        }));
    }
    let mut actors = Vec::new();
    for s in started {
        actors.push(s.await.expect("the start task"));
    }
    actors
}

/// Sends `Due(i)` to `actor` on `role`'s host when request `i` of `recorder` is due,
/// for `i` in `0..n`.
fn schedule(role: &str, actor: &ActorRef<Msg>, recorder: &Recorder, n: u64) {
    let (actor, schedule) = (actor.clone(), recorder.schedule());
    Placement::current().handle(role).spawn(async move {
        for i in 0..n {
            crate::clock::sleep_until(schedule.at(i)).await;
            let _ = actor.send_message(Msg::Due(i));
        }
    });
}

/// The actors' behaviours (those of the in-memory actors, with links for peers).
pub enum Node {
    /// Concurrent send: a service computes for `costs[i]` in a task of its own, then
    /// sends to the server.
    Service {
        /// Its costs (`key` chooses the series).
        costs: send::Costs,
        /// The key service (else the content service).
        key: bool,
        /// The link to the server.
        server: Link,
    },
    /// Concurrent send: the server forwards everything to the client at once.
    Server(Link),
    /// Concurrent send: the client records arrivals.
    Client(Recorder),
    /// Model serving: the gateway sends image `i` to worker `i % 2` when due and
    /// records predictions.
    Gateway {
        /// Links to the two workers.
        workers: [Link; 2],
        /// Where predictions are recorded.
        recorder: Recorder,
    },
    /// Model serving: a worker preprocesses each image in a task of its own.
    Worker {
        /// Its time per image.
        cost: Duration,
        /// The link to the batcher.
        batcher: Link,
    },
    /// Model serving: the batcher gathers tensors into batches for the two models in
    /// turn, and forwards predictions to the gateway.
    Batcher {
        /// Images per batch.
        batch: u64,
        /// Links to the two models.
        models: [Link; 2],
        /// The link to the gateway.
        gateway: Link,
    },
    /// Model serving: a model serves one batch at a time (the actor handles one
    /// message at a time).
    Model {
        /// Its time per batch.
        time: Duration,
        /// Where its busy intervals are recorded.
        busy: Arc<Busy>,
        /// The link to the batcher.
        batcher: Link,
    },
}

/// The batcher's state (the other actors have none).
#[derive(Default)]
pub struct State {
    pending: Vec<u64>,
    next: usize,
}

impl Actor for Node {
    type Msg = Msg;
    type State = State;
    type Arguments = ();

    async fn pre_start(
        &self,
        _: ActorRef<Msg>,
        _: (),
    ) -> std::result::Result<State, ActorProcessingErr> {
        Ok(State::default())
    }

    async fn handle(
        &self,
        _: ActorRef<Msg>,
        msg: Msg,
        state: &mut State,
    ) -> std::result::Result<(), ActorProcessingErr> {
        match (self, msg) {
            (Node::Service { costs, key, server }, Msg::Due(i)) => {
                let (key, server) = (*key, server.clone());
                let cost = if key { &costs.key } else { &costs.txt }[i as usize];
                tokio::spawn(async move {
                    crate::clock::sleep(cost).await;
                    server.send(if key { Wire::Key(i) } else { Wire::Txt(i) });
                });
            }
            (Node::Server(client), Msg::Net(wire)) => client.send(wire),
            (Node::Client(rec), Msg::Net(Wire::Key(i))) => rec.answer("key", i),
            (Node::Client(rec), Msg::Net(Wire::Txt(i))) => rec.answer("txt", i),
            (Node::Gateway { workers, .. }, Msg::Due(i)) => {
                workers[(i % 2) as usize].send(Wire::Image(i))
            }
            (Node::Gateway { recorder, .. }, Msg::Net(Wire::Predictions(ps))) => {
                ps.iter().for_each(|&i| recorder.answer("image", i))
            }
            (Node::Worker { cost, batcher }, Msg::Net(Wire::Image(i))) => {
                let (cost, batcher) = (*cost, batcher.clone());
                tokio::spawn(async move {
                    crate::clock::sleep(cost).await;
                    batcher.send(Wire::Tensor(i));
                });
            }
            (Node::Batcher { batch, models, .. }, Msg::Net(Wire::Tensor(i))) => {
                state.pending.push(i);
                if state.pending.len() as u64 == *batch {
                    models[state.next].send(Wire::Batch(std::mem::take(&mut state.pending)));
                    state.next = 1 - state.next;
                }
            }
            (Node::Batcher { gateway, .. }, Msg::Net(Wire::Predictions(ps))) => {
                gateway.send(Wire::Predictions(ps))
            }
            (
                Node::Model {
                    time,
                    busy,
                    batcher,
                },
                Msg::Net(Wire::Batch(b)),
            ) => {
                let start = Instant::now();
                crate::clock::sleep(*time).await;
                busy.record(start, Instant::now());
                batcher.send(Wire::Predictions(b));
            }
            _ => {}
        }
        Ok(())
    }
}

fn role(name: &str) -> RoleName {
    RoleName::new(name)
}

/// Starts concurrent send's actors, one per host: the services become due on their
/// hosts on `recorder`'s schedule, `n` requests.
pub async fn start_send(costs: &send::Costs, recorder: &Recorder, n: u64) {
    let (c1, c2, rec) = (costs.clone(), costs.clone(), recorder.clone());
    let behaviours: Vec<(RoleName, Behaviour)> = vec![
        (role("C"), Box::new(move |_| Node::Client(rec))),
        (role("S"), Box::new(|l| Node::Server(l("C")))),
        (
            role("KS"),
            Box::new(move |l| Node::Service {
                costs: c1,
                key: true,
                server: l("S"),
            }),
        ),
        (
            role("CS"),
            Box::new(move |l| Node::Service {
                costs: c2,
                key: false,
                server: l("S"),
            }),
        ),
    ];
    let actors = start(behaviours).await;
    schedule("KS", &actors[2], recorder, n);
    schedule("CS", &actors[3], recorder, n);
}

/// Starts model serving's actors, one per host: images become due at the gateway on
/// `recorder`'s schedule, `n` images; the models record their busy intervals in `busy`.
pub async fn start_serving(costs: serving::Costs, recorder: &Recorder, n: u64, busy: &Arc<Busy>) {
    let time = costs.model_time();
    let (rec, b1, b2) = (recorder.clone(), busy.clone(), busy.clone());
    let worker = move |l: &dyn Fn(&str) -> Link| Node::Worker {
        cost: costs.preprocess,
        batcher: l("Batcher"),
    };
    let model = |busy: Arc<Busy>| {
        move |l: &dyn Fn(&str) -> Link| Node::Model {
            time,
            busy,
            batcher: l("Batcher"),
        }
    };
    let behaviours: Vec<(RoleName, Behaviour)> = vec![
        (
            role("Gateway"),
            Box::new(move |l| Node::Gateway {
                workers: [l("Worker1"), l("Worker2")],
                recorder: rec,
            }),
        ),
        (role("Worker1"), Box::new(worker)),
        (role("Worker2"), Box::new(worker)),
        (
            role("Batcher"),
            Box::new(move |l| Node::Batcher {
                batch: costs.batch,
                models: [l("Model1"), l("Model2")],
                gateway: l("Gateway"),
            }),
        ),
        (role("Model1"), Box::new(model(b1))),
        (role("Model2"), Box::new(model(b2))),
    ];
    let actors = start(behaviours).await;
    schedule("Gateway", &actors[0], recorder, n);
}
