//! The three choreographies with ChoRus 0.5 (`chorus_lib`), written as its examples write
//! them: synchronous `run`, one thread per location, `broadcast` for knowledge of choice.
//! Messages go in program order over per-pair FIFO queues ([`LocalTransport`]) or HTTP
//! requests ([`HttpTransport`]); every value is encoded as JSON on either.

use std::thread;
use std::time::{Duration, Instant};

use chorus_lib::core::{
    ChoreoOp, Choreography, ChoreographyLocation, Located, LocationSet, Projector,
};
use chorus_lib::transport::http::{HttpTransport, HttpTransportConfigBuilder};
use chorus_lib::transport::local::{LocalTransport, LocalTransportChannelBuilder};

use crate::{Mode, key_of, mismatch, mode_of, pipeline_of, pong_of, stage, text_of};

/// Ping-pong's initiator.
#[derive(ChoreographyLocation)]
pub struct Ping;
/// Ping-pong's responder.
#[derive(ChoreographyLocation)]
pub struct Pong;

/// Figure 2's key service.
#[derive(ChoreographyLocation)]
pub struct KS;
/// Figure 2's content service.
#[derive(ChoreographyLocation)]
pub struct CS;
/// Figure 2's server.
#[derive(ChoreographyLocation)]
pub struct S;
/// Figure 2's client.
#[derive(ChoreographyLocation)]
pub struct C;

/// The pipeline's source, which chooses the mode.
#[derive(ChoreographyLocation)]
pub struct Source;
/// The pipeline's middle stage.
#[derive(ChoreographyLocation)]
pub struct Stage;
/// The pipeline's sink.
#[derive(ChoreographyLocation)]
pub struct Sink;

/// Ping sends its number, Pong answers with the next one.
pub struct PingPong(pub u64);

impl Choreography<Located<u64, Ping>> for PingPong {
    type L = LocationSet!(Ping, Pong);

    fn run(self, op: &impl ChoreoOp<Self::L>) -> Located<u64, Ping> {
        let ping = op.locally(Ping, |_| self.0);
        let at_pong = op.comm(Ping, Pong, &ping);
        let pong = op.locally(Pong, |un| pong_of(*un.unwrap(&at_pong)));
        op.comm(Pong, Ping, &pong)
    }
}

/// Figure 2: the services send a key and a text to the server, which forwards both to the
/// client (in program order: ChoRus has no out-of-order operators).
pub struct ConcurrentSend(pub u64);

impl Choreography<Located<(String, String), C>> for ConcurrentSend {
    type L = LocationSet!(KS, CS, S, C);

    fn run(self, op: &impl ChoreoOp<Self::L>) -> Located<(String, String), C> {
        let key = op.locally(KS, |_| key_of(self.0));
        let txt = op.locally(CS, |_| text_of(self.0));
        let key_s = op.comm(KS, S, &key);
        let txt_s = op.comm(CS, S, &txt);
        let key_c = op.comm(S, C, &key_s);
        let txt_c = op.comm(S, C, &txt_s);
        op.locally(C, |un| {
            (un.unwrap(&key_c).clone(), un.unwrap(&txt_c).clone())
        })
    }
}

/// The source chooses a mode and tells everyone (`broadcast`), sends its input to the
/// stage, which computes by the mode and sends the result to the sink.
pub struct Pipeline(pub u64);

impl Choreography<Located<u64, Sink>> for Pipeline {
    type L = LocationSet!(Source, Stage, Sink);

    fn run(self, op: &impl ChoreoOp<Self::L>) -> Located<u64, Sink> {
        let mode = op.locally(Source, |_| mode_of(self.0));
        let mode: Mode = op.broadcast(Source, mode);
        let input = op.locally(Source, |_| self.0);
        let at_stage = op.comm(Source, Stage, &input);
        let result = op.locally(Stage, |un| stage(mode, *un.unwrap(&at_stage)));
        let at_sink = op.comm(Stage, Sink, &result);
        op.locally(Sink, |un| un.unwrap(&at_sink) + 10)
    }
}

/// Runs `runs` runs of a choreography, one thread and projector per location; the
/// thread of the location holding the output checks it against `$expected(run)`.
macro_rules! threads {
    ($runs:expr, $channel:expr, $make:expr,
     holder: $holder:ident => $expected:expr, others: [$($other:ident),*]) => {{
        let runs: u64 = $runs;
        let mut handles: Vec<thread::JoinHandle<Result<(), String>>> = Vec::new();
        {
            let transport = LocalTransport::new($holder, $channel.clone());
            handles.push(thread::spawn(move || {
                let projector = Projector::new($holder, transport);
                for run in 0..runs {
                    let out = projector.epp_and_run($make(run));
                    let got = projector.unwrap(out);
                    let expected = $expected(run);
                    if got != expected {
                        return Err(mismatch(stringify!($make), run, &expected, &got));
                    }
                }
                Ok(())
            }));
        }
        $(
            {
                let transport = LocalTransport::new($other, $channel.clone());
                handles.push(thread::spawn(move || {
                    let projector = Projector::new($other, transport);
                    for run in 0..runs {
                        let _ = projector.epp_and_run($make(run));
                    }
                    Ok(())
                }));
            }
        )*
        let mut result = Ok(());
        for handle in handles {
            let joined = handle.join().unwrap_or_else(|_| Err("a location panicked".into()));
            result = result.and(joined);
        }
        result
    }};
}

/// Runs `runs` runs of `choreography` in memory (ChoRus's [`LocalTransport`]).
pub fn local(choreography: &str, runs: u64) -> Result<(), String> {
    match choreography {
        "ping_pong" => {
            let channel = LocalTransportChannelBuilder::new()
                .with(Ping)
                .with(Pong)
                .build();
            threads!(runs, channel, PingPong, holder: Ping => pong_of, others: [Pong])
        }
        "concurrent_send" => {
            let channel = LocalTransportChannelBuilder::new()
                .with(KS)
                .with(CS)
                .with(S)
                .with(C)
                .build();
            let expected = |run| (key_of(run), text_of(run));
            threads!(runs, channel, ConcurrentSend, holder: C => expected, others: [KS, CS, S])
        }
        "pipeline" => {
            let channel = LocalTransportChannelBuilder::new()
                .with(Source)
                .with(Stage)
                .with(Sink)
                .build();
            threads!(runs, channel, Pipeline, holder: Sink => pipeline_of, others: [Source, Stage])
        }
        other => Err(format!("unknown choreography {other}")),
    }
}

/// Runs `warmup + runs` ping-pongs over ChoRus's [`HttpTransport`] on loopback, Ping's
/// server on port `ports.0` and Pong's on `ports.1`; returns the time Ping took for the
/// last `runs` (the first send may wait a second for Pong's server to start).
pub fn ping_pong_http(warmup: u64, runs: u64, ports: (u16, u16)) -> Result<Duration, String> {
    const HOST: &str = "127.0.0.1";
    let ping = move || {
        HttpTransport::new(
            HttpTransportConfigBuilder::for_target(Ping, (HOST, ports.0))
                .with(Pong, (HOST, ports.1))
                .build(),
        )
    };
    let pong = move || {
        HttpTransport::new(
            HttpTransportConfigBuilder::for_target(Pong, (HOST, ports.1))
                .with(Ping, (HOST, ports.0))
                .build(),
        )
    };
    let ping_thread = thread::spawn(move || {
        let projector = Projector::new(Ping, ping());
        let mut start = Instant::now();
        for run in 0..warmup + runs {
            if run == warmup {
                start = Instant::now();
            }
            let got = projector.unwrap(projector.epp_and_run(PingPong(run)));
            if got != pong_of(run) {
                return Err(mismatch("ping_pong", run, &pong_of(run), &got));
            }
        }
        Ok(start.elapsed())
    });
    let pong_thread = thread::spawn(move || {
        let projector = Projector::new(Pong, pong());
        for run in 0..warmup + runs {
            let _ = projector.epp_and_run(PingPong(run));
        }
    });
    let result = ping_thread
        .join()
        .unwrap_or_else(|_| Err("Ping panicked".into()));
    pong_thread
        .join()
        .map_err(|_| "Pong panicked".to_string())?;
    result
}
