//! Three buyers with each role its own OS process, over loopback TCP with mutual TLS
//! (`mpst::net`; the launcher issues each role an identity for the run): choice (accept,
//! delegate, quit) across four processes.
//!
//! The generated API (built with `--serde --channel mpst::net::AnyRoute<Label>`, see
//! `examples/build.rs`) and the processes (`buyers.rs`) are those of the in-memory
//! example; `Connections::into_role` builds each role from its TCP connections.
//!
//! `cargo run -p mpst-examples --bin three_buyers_net` launches `A`, `B`, `C` and `S` as
//! four processes (this binary with `--role R`) for the purchase where `B` delegates to
//! `C`, and prints what each role reported. `--budget-c N` changes `C`'s budget.

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
use mpst::net::Fingerprint;
use mpst_examples::net::{rendezvous, report, Launch};

/// The protocol name (and version) every role announces in the handshake.
const PROTOCOL: &str = "three_buyers/1";

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Every role's session type fingerprint (all roles are built from this binary).
fn fingerprints() -> Result<[(&'static str, Fingerprint); 4], BoxError> {
    Ok([
        ("A", Fingerprint::of::<ASession<'static, A>>()?),
        ("B", Fingerprint::of::<BSession<'static, B>>()?),
        ("C", Fingerprint::of::<CSession<'static, C>>()?),
        ("S", Fingerprint::of::<SSession<'static, S>>()?),
    ])
}

/// Runs one role of the purchase of "Session Types" where `A` pays 50, `B` can pay 10
/// and asks `C`, whose budget is `budget_c`.
async fn run_role(role: &str, budget_c: i32) -> Result<String, BoxError> {
    let mut endpoint = rendezvous(role).await?;
    let mut config = endpoint.config_mut().clone();
    for (name, fingerprint) in fingerprints()? {
        config = if name == role {
            config.fingerprint(fingerprint)
        } else {
            config.expect(name, fingerprint)
        };
    }
    *endpoint.config_mut() = config;
    let connections = endpoint.connect().await?;
    println!("CONNECTED");
    Ok(match role {
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
        "S" => format!("{:?}", seller(&mut connections.into_role()?).await?),
        other => return Err(format!("no role {other} in three buyers").into()),
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
        println!("{}: {}", outcome.role, outcome.lines.join(" | "));
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let budget_c = flag("--budget-c")
        .and_then(|c| c.parse().ok())
        .unwrap_or(100);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return report::<String, _>(Err(error)),
    };
    match flag("--role") {
        Some(role) => report(runtime.block_on(run_role(role, budget_c))),
        None => match runtime.block_on(launch(budget_c)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => report::<String, _>(Err(error)),
        },
    }
}
