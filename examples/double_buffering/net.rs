//! Double buffering with each role its own OS process over TCP with mutual TLS
//! (`mpst::net`).
//!
//! The roles, labels and session functions are those of the in-memory example
//! (`protocol.rs`, `kernel.rs`); only the routes differ: `Connections::into_role` builds
//! each role from its TCP connections instead of `Roles::default()`.
//!
//! One role: `double_buffering_net --config FILE [--count N] [--skew]`, or with
//! `MPST_CONFIG=FILE` and/or `MPST_ROLE`, `MPST_LISTEN`, `MPST_PEER_<ROLE>`, `MPST_CA`,
//! `MPST_CERT`, `MPST_KEY`, ... (docs/DEPLOYMENT.md): prints `LISTENING <address>`,
//! `CONNECTED`, then `OK <values read>` (the sink) or `ERR <error>`, logs to standard
//! error (`RUST_LOG`) and exits with a status of `mpst_wire::RoleExit`'s table. The
//! protocol never ends: the sink stops after `--count` values (0: never), its process
//! exits (0), and the kernel and the source then fail naming the peer that went away
//! (status 4). `--skew` makes the kernel claim another session type, which its peers
//! refuse (status 3).
//!
//! Without a role (`cargo run -p mpst-examples --bin double_buffering_net`) it launches
//! `S`, `K` and `T` as three processes on loopback (`mpst_examples::net::Launch`), moves
//! 10 values and prints what the sink read.

mod kernel;
#[allow(dead_code)] // `run` and friends serve the in-memory examples.
mod protocol;

use std::process::ExitCode;
use std::time::Duration;

use kernel::{Kernel, kernel};
use mpst::net::{Fingerprint, NetConfig};
use mpst_examples::net::{
    Launch, RoleError, connect, finish, init_logging, number_flag, role_sources, runtime,
};
use mpst_examples::{observe, observer};
use mpst_wire::RoleExit;
use protocol::{K, S, SSession, T, TSession, sink, source};

/// The protocol name (and version) every role announces in the handshake.
const PROTOCOL: &str = "double_buffering/1";

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Every role's session type fingerprint: each process knows them all, since all roles
/// are built from this binary, so each checks its peers' (see `mpst::net::NetConfig::expect`).
fn fingerprints() -> Result<[(&'static str, Fingerprint); 3], mpst::serialize::SerializeError> {
    Ok([
        ("S", Fingerprint::of::<SSession<'static, S>>()?),
        ("K", Fingerprint::of::<Kernel<'static, K>>()?),
        ("T", Fingerprint::of::<TSession<'static, T>>()?),
    ])
}

/// Runs the role `config` names; the sink returns the values it read.
async fn run_role(config: NetConfig, count: usize, skew: bool) -> Result<String, RoleError> {
    let role = config.role().to_owned();
    let mut config = config;
    for (name, fingerprint) in fingerprints()? {
        config = match name == role {
            true if skew => config.fingerprint(Fingerprint::of_bytes(b"another kernel")),
            true => config.fingerprint(fingerprint),
            false => config.expect(name, fingerprint),
        };
    }
    if !["S", "K", "T"].contains(&role.as_str()) {
        return Err(RoleError::usage(format!(
            "no role {role} in double buffering (S, K, T)"
        )));
    }
    tracing::info!(%role, protocol = config.protocol(), "connecting");
    let connections = connect(config).await?;
    tracing::info!(%role, "connected");
    println!("CONNECTED");
    match role.as_str() {
        "S" => match source(&mut connections.into_role()?).await? {},
        "K" => match kernel(connections.into_role()?).await? {},
        _ => {
            let mut t: T = connections.into_role()?;
            let (reporter, observations) = observer();
            let count = if count == 0 { usize::MAX } else { count };
            let values = observe(sink(&mut t, reporter), observations, count).await?;
            Ok(format!("{values:?}"))
        }
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
        let exit = outcome.exit().map_or("killed".into(), |e| e.to_string());
        println!(
            "{}: {} (exit {exit})",
            outcome.role,
            outcome.lines.join(" | ")
        );
        if let Some(values) = outcome.ok() {
            sink_read = values.to_owned();
        }
    }
    Ok(sink_read)
}

fn main() -> ExitCode {
    init_logging();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let sources = match role_sources(&mut args, PROTOCOL) {
        Ok(sources) => sources,
        Err(error) => return finish::<String>(Err(error)),
    };
    let count = match number_flag(&args, "--count", 10) {
        Ok(count) => count,
        Err(error) => return finish::<String>(Err(error)),
    };
    let skew = args.iter().any(|a| a == "--skew");
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(error) => return finish::<String>(Err(error)),
    };
    if sources.names_a_role() {
        let config = match sources.load() {
            Ok(config) => NetConfig::from_wire(config),
            Err(error) => return finish::<String>(Err(error.into())),
        };
        let skew = skew && config.role() == "K";
        return finish(runtime.block_on(run_role(config, count, skew)));
    }
    match runtime.block_on(launch(count)) {
        Ok(values) => {
            println!("the sink read {values}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            RoleExit::Internal.into()
        }
    }
}
