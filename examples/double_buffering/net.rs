//! Double buffering with each role its own OS process, over loopback TCP with mutual TLS
//! (`mpst::net`; the launcher issues each role an identity for the run).
//!
//! The roles, labels and session functions are those of the in-memory example
//! (`protocol.rs`, `kernel.rs`); only the routes differ: `Connections::into_role` builds
//! each role from its TCP connections instead of `Roles::default()`.
//!
//! `cargo run -p mpst-examples --bin double_buffering_net` launches `S`, `K` and `T` as
//! three processes (this binary with `--role S|K|T`), moves 10 values and prints what the
//! sink read. The protocol never ends: the sink stops after `--count` values (0: never),
//! its process exits, and the kernel and the source then end with errors naming the peer
//! that went away — that is how a never-ending protocol stops across processes.
//! `--skew` makes the kernel claim another session type, which its peers refuse.

mod kernel;
#[allow(dead_code)] // `run` and friends serve the in-memory examples.
mod protocol;

use std::process::ExitCode;
use std::time::Duration;

use kernel::{kernel, Kernel};
use mpst::net::Fingerprint;
use mpst_examples::net::{rendezvous, report, Launch};
use mpst_examples::{observe, observer};
use protocol::{sink, source, SSession, TSession, K, S, T};

/// The protocol name (and version) every role announces in the handshake.
const PROTOCOL: &str = "double_buffering/1";

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Every role's session type fingerprint: each process knows them all, since all roles
/// are built from this binary, so each checks its peers' (see `mpst::net::Config::expect`).
fn fingerprints() -> Result<[(&'static str, Fingerprint); 3], BoxError> {
    Ok([
        ("S", Fingerprint::of::<SSession<'static, S>>()?),
        ("K", Fingerprint::of::<Kernel<'static, K>>()?),
        ("T", Fingerprint::of::<TSession<'static, T>>()?),
    ])
}

/// Runs one role; the sink returns the values it read.
async fn run_role(role: &str, count: usize, skew: bool) -> Result<String, BoxError> {
    let mut endpoint = rendezvous(role).await?;
    let mut config = endpoint.config_mut().clone();
    for (name, fingerprint) in fingerprints()? {
        config = match name == role {
            true if skew => config.fingerprint(Fingerprint::of_bytes(b"another kernel")),
            true => config.fingerprint(fingerprint),
            false => config.expect(name, fingerprint),
        };
    }
    *endpoint.config_mut() = config;
    let connections = endpoint.connect().await?;
    println!("CONNECTED");
    match role {
        "S" => match source(&mut connections.into_role()?).await? {},
        "K" => match kernel(connections.into_role()?).await? {},
        "T" => {
            let mut t: T = connections.into_role()?;
            let (reporter, observations) = observer();
            let count = if count == 0 { usize::MAX } else { count };
            let values = observe(sink(&mut t, reporter), observations, count).await?;
            Ok(format!("{values:?}"))
        }
        other => Err(format!("no role {other} in double buffering").into()),
    }
}

/// Starts the three roles as processes and prints what each reported.
async fn launch(count: usize) -> Result<String, BoxError> {
    let exe = std::env::current_exe()?;
    let count = count.to_string();
    let args = ["--count", count.as_str()];
    let limit = Duration::from_secs(60);
    let launch = Launch::start(&exe, &["S", "K", "T"], PROTOCOL, &args, None, limit).await?;
    let mut sink_read = String::new();
    for outcome in launch.finish().await? {
        println!("{}: {}", outcome.role, outcome.lines.join(" | "));
        if let Some(values) = outcome.ok() {
            sink_read = values.to_owned();
        }
    }
    Ok(sink_read)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let count = flag("--count").and_then(|c| c.parse().ok()).unwrap_or(10);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return report::<String, _>(Err(error)),
    };
    match flag("--role") {
        Some(role) => {
            let skew = role == "K" && args.iter().any(|a| a == "--skew");
            report(runtime.block_on(run_role(role, count, skew)))
        }
        None => {
            let read = runtime.block_on(launch(count));
            match read {
                Ok(values) => {
                    println!("the sink read {values}");
                    ExitCode::SUCCESS
                }
                Err(error) => report::<String, _>(Err(error)),
            }
        }
    }
}
