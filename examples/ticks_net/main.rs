//! A role that only sends, slowly: the producer `P` sends `--count N` ticks (0: without
//! end), one every `--pause MS` milliseconds, then `stop`, to the consumer `C`, which adds
//! them up; each role its own OS process over `mpst::net` (mutual TLS by default).
//!
//! `P` never receives, so only acknowledgements tell it that `C` is gone: in a partition
//! it fails within its `idle_timeout` naming `C` (status 4), and after its session it
//! waits until `C` has acknowledged everything (`Connections::delivered`) before it
//! reports `OK`. `C` fails by its receive time-out naming `P`.
//!
//! One role: `ticks_net --config FILE [--count N] [--pause MS]`, or with `MPST_CONFIG=FILE`
//! and/or `MPST_*` variables (docs/DEPLOYMENT.md): prints `LISTENING <address>`,
//! `CONNECTED`, then `OK <ticks sent>` (P) or `OK <sum>` (C), or `ERR <error>`, and exits
//! with a status of `mpst_wire::RoleExit`'s table.

use std::process::ExitCode;
use std::time::Duration;

use mpst::net::{NetConfig, TcpRoute};
use mpst::{Branch, End, Message, Payload, Role, Select, session, try_session};
use mpst_examples::net::{
    RoleError, connect, finish, init_logging, number_flag, role_sources, runtime,
};

/// The protocol name (and version) every role announces in the handshake.
const PROTOCOL: &str = "ticks/1";

/// The producer.
#[derive(Role)]
#[message(Label)]
struct P(#[route(C)] TcpRoute<Label>);

/// The consumer.
#[derive(Role)]
#[message(Label)]
struct C(#[route(P)] TcpRoute<Label>);

#[derive(Message, serde::Serialize, serde::Deserialize)]
enum Label {
    Tick(Tick),
    Stop(Stop),
}

/// One tick and its number.
#[derive(Payload, serde::Serialize, serde::Deserialize)]
struct Tick(u64);
/// No more ticks.
#[derive(Payload, serde::Serialize, serde::Deserialize)]
struct Stop;

/// `mu x. C!{tick. x, stop. end}`.
#[session]
type Producer = Select<C, ProducerChoice>;

#[session]
enum ProducerChoice {
    Tick(Tick, Producer),
    Stop(Stop, End),
}

/// `mu x. P?{tick. x, stop. end}`.
#[session]
type Consumer = Branch<P, ConsumerChoice>;

#[session]
enum ConsumerChoice {
    Tick(Tick, Consumer),
    Stop(Stop, End),
}

/// Runs the role `config` names.
async fn run_role(config: NetConfig, count: u64, pause: Duration) -> Result<String, RoleError> {
    let connections = connect(config).await?;
    println!("CONNECTED");
    match connections.role() {
        "P" => {
            let delivered = connections.delivered();
            let mut role: P = connections.into_role()?;
            let sent = try_session(&mut role, |mut s: Producer<'_, P>| async move {
                let mut n = 0;
                while count == 0 || n < count {
                    s = s.select(Tick(n)).await?;
                    n += 1;
                    // Never flushed by a receive: the route's own task writes what is
                    // buffered out within 50 ms.
                    tokio::time::sleep(pause).await;
                }
                Ok((n, s.select(Stop).await?))
            })
            .await?;
            // Success only once C has acknowledged every tick.
            delivered.acknowledged().await?;
            Ok(sent.to_string())
        }
        "C" => {
            let mut role: C = connections.into_role()?;
            let sum = try_session(&mut role, |mut s: Consumer<'_, C>| async move {
                let mut sum = 0u64;
                loop {
                    match s.branch().await? {
                        ConsumerChoice::Tick(Tick(n), next) => {
                            sum += n;
                            s = next;
                        }
                        ConsumerChoice::Stop(Stop, end) => return Ok((sum, end)),
                    }
                }
            })
            .await?;
            Ok(sum.to_string())
        }
        other => Err(RoleError::usage(format!("no role {other} in {PROTOCOL}"))),
    }
}

fn main() -> ExitCode {
    init_logging();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let sources = match role_sources(&mut args, PROTOCOL) {
        Ok(sources) => sources,
        Err(error) => return finish::<String>(Err(error)),
    };
    let number = |name: &str, default: u64| number_flag(&args, name, default);
    let (count, pause) = match (number("--count", 10), number("--pause", 100)) {
        (Ok(count), Ok(pause)) => (count, Duration::from_millis(pause)),
        (Err(error), _) | (_, Err(error)) => return finish::<String>(Err(error)),
    };
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(error) => return finish::<String>(Err(error)),
    };
    if !sources.names_a_role() {
        return finish::<String>(Err(RoleError::usage(
            "ticks_net runs one role: --config FILE or MPST_ROLE",
        )));
    }
    let config = match sources.load() {
        Ok(config) => NetConfig::from_wire(config),
        Err(error) => return finish::<String>(Err(error.into())),
    };
    finish(runtime.block_on(run_role(config, count, pause)))
}
