//! Three buyers with each role its own OS process over TCP with mutual TLS
//! (`mpst::net`): choice (accept, delegate, quit) across four processes.
//!
//! The generated API (built with `--serde --channel mpst::net::AnyRoute<Label>`, see
//! `examples/build.rs`) and the processes (`buyers.rs`) are those of the in-memory
//! example; `Connections::into_role` builds each role from its TCP connections.
//!
//! One role: `three_buyers_net --config FILE [--budget-c N]`, or with `MPST_CONFIG` and/or
//! `MPST_*` variables (docs/DEPLOYMENT.md), for the purchase where `B` delegates to `C`
//! (whose budget `--budget-c` sets); prints `LISTENING <address>`, `CONNECTED`, then `OK
//! <what the role got>` or `ERR <error>`, logs to standard error and exits with a status
//! of `mpst_wire::RoleExit`'s table.
//!
//! Without a role (`cargo run -p mpst-examples --bin three_buyers_net`) it launches `A`,
//! `B`, `C` and `S` as four processes on loopback and prints what each reported.

/// The generated API of `three_buyers.scr` (`Roles`, the in-memory wiring, is unused here).
#[allow(dead_code)]
mod api {
    include!(concat!(env!("OUT_DIR"), "/three_buyers.rs"));
}
mod buyers;

use std::process::ExitCode;
use std::time::Duration;

use api::*;
use buyers::{buyer_a, buyer_b, buyer_c, seller};
use mpst::net::{Fingerprint, NetConfig};
use mpst_examples::net::{
    Launch, RoleError, connect, finish, init_logging, number_flag, role_sources, runtime,
};
use mpst_wire::RoleExit;

/// The protocol name (and version) every role announces in the handshake.
const PROTOCOL: &str = "three_buyers/1";

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Every role's session type fingerprint (all roles are built from this binary).
fn fingerprints() -> Result<[(&'static str, Fingerprint); 4], mpst::serialize::SerializeError> {
    Ok([
        ("A", Fingerprint::of::<ASession<'static, A>>()?),
        ("B", Fingerprint::of::<BSession<'static, B>>()?),
        ("C", Fingerprint::of::<CSession<'static, C>>()?),
        ("S", Fingerprint::of::<SSession<'static, S>>()?),
    ])
}

/// Runs the role `config` names in the purchase of "Session Types" where `A` pays 50,
/// `B` can pay 10 and asks `C`, whose budget is `budget_c`.
async fn run_role(config: NetConfig, budget_c: i32) -> Result<String, RoleError> {
    let role = config.role().to_owned();
    if !["A", "B", "C", "S"].contains(&role.as_str()) {
        return Err(RoleError::usage(format!(
            "no role {role} in three buyers (A, B, C, S)"
        )));
    }
    let mut config = config;
    for (name, fingerprint) in fingerprints()? {
        config = if name == role {
            config.fingerprint(fingerprint)
        } else {
            config.expect(name, fingerprint)
        };
    }
    tracing::info!(%role, protocol = config.protocol(), "connecting");
    let connections = connect(config).await?;
    tracing::info!(%role, "connected");
    println!("CONNECTED");
    Ok(match role.as_str() {
        "A" => buyer_a(&mut connections.into_role()?, "Session Types", 50)
            .await?
            .to_string(),
        "B" => format!(
            "{:?}",
            buyer_b(&mut connections.into_role()?, 10, true).await?
        ),
        "C" => format!(
            "{:?}",
            buyer_c(&mut connections.into_role()?, budget_c).await?
        ),
        _ => format!("{:?}", seller(&mut connections.into_role()?).await?),
    })
}

/// Starts the four roles as processes and prints what each reported.
async fn launch(budget_c: i32) -> Result<(), BoxError> {
    let exe = std::env::current_exe()?;
    let budget = budget_c.to_string();
    let args = ["--budget-c", budget.as_str()];
    let limit = Duration::from_secs(60);
    let roles = ["A", "B", "C", "S"];
    let launch = Launch::start(&exe, &roles, PROTOCOL, &args, None, limit).await?;
    for outcome in launch.finish().await? {
        let exit = outcome.exit().map_or("killed".into(), |e| e.to_string());
        println!(
            "{}: {} (exit {exit})",
            outcome.role,
            outcome.lines.join(" | ")
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    init_logging();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let sources = match role_sources(&mut args, PROTOCOL) {
        Ok(sources) => sources,
        Err(error) => return finish::<String>(Err(error)),
    };
    let budget_c = match number_flag(&args, "--budget-c", 100) {
        Ok(budget) => budget,
        Err(error) => return finish::<String>(Err(error)),
    };
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(error) => return finish::<String>(Err(error)),
    };
    if sources.names_a_role() {
        return match sources.load() {
            Ok(config) => {
                finish(runtime.block_on(run_role(NetConfig::from_wire(config), budget_c)))
            }
            Err(error) => finish::<String>(Err(error.into())),
        };
    }
    match runtime.block_on(launch(budget_c)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            RoleExit::Internal.into()
        }
    }
}
