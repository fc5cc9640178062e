//! What every example shares: run all roles in this process (in-memory transport), or
//! one role as its own OS process over TCP on loopback.
//!
//! ```text
//! example [--in-order]
//!     every role in this process; prints `result ROLE TEXT` per role that holds a result
//! example [--in-order] --role NAME [--listen ADDR] [--peer NAME=ADDR]... [--record]
//!     one role over TCP: listens on ADDR (default 127.0.0.1:0) and prints
//!     `listening NAME ADDR`; without --peer, reads `peer NAME ADDR` lines from standard
//!     input up to a line `go`; then runs and prints its result, and with --record one
//!     `step ...` line per communication step (for the Scribble conformance check)
//! ```
//!
//! Failures print `error ROLE MESSAGE` on standard error and exit with status 1.

use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mpst_choreo::conform::Step;
use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
use mpst_choreo::transport::InMemory;
use mpst_choreo::{Choreography, Config, Endpoint, Recorder, RoleName, RoleSet, Runner};

/// How the example was asked to run.
struct Args {
    in_order: bool,
    role: Option<String>,
    listen: SocketAddr,
    peers: Vec<(RoleName, SocketAddr)>,
    record: bool,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args {
        in_order: false,
        role: None,
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        peers: Vec::new(),
        record: false,
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--in-order" => parsed.in_order = true,
            "--record" => parsed.record = true,
            "--role" => parsed.role = Some(value("--role")?),
            "--listen" => {
                let addr = value("--listen")?;
                parsed.listen = addr.parse().map_err(|e| format!("--listen {addr}: {e}"))?;
            }
            "--peer" => {
                let peer = value("--peer")?;
                let (name, addr) = peer
                    .split_once('=')
                    .ok_or(format!("--peer {peer}: expected NAME=ADDR"))?;
                let addr = addr.parse().map_err(|e| format!("--peer {peer}: {e}"))?;
                parsed.peers.push((RoleName::new(name), addr));
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(parsed)
}

/// Runs an example: its out-of-order choreography, or with `--in-order` its twin, as
/// the command line says. `report` gives the text of what a role holds after a run.
pub fn main<A, B, X>(out_of_order: A, in_order: B, report: fn(X) -> Option<String>) -> ExitCode
where
    A: Choreography<X> + Clone + 'static,
    B: Choreography<X, Roles = A::Roles> + Clone + 'static,
    X: Send + 'static,
{
    let args = match parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("error - {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error - cannot start tokio: {e}");
            return ExitCode::FAILURE;
        }
    };
    let done = runtime.block_on(async {
        match (args.in_order, args.role.clone()) {
            (false, None) => all_roles(out_of_order, report).await,
            (true, None) => all_roles(in_order, report).await,
            (false, Some(role)) => one_role(out_of_order, report, &args, role).await,
            (true, Some(role)) => one_role(in_order, report, &args, role).await,
        }
    });
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err((role, e)) => {
            eprintln!("error {role} {e}");
            ExitCode::FAILURE
        }
    }
}

type Failure = (String, String);

async fn all_roles<Ch, X>(choreography: Ch, report: fn(X) -> Option<String>) -> Result<(), Failure>
where
    Ch: Choreography<X> + Clone + 'static,
    X: Send + 'static,
{
    let transport = Arc::new(InMemory::new(Ch::Roles::names()));
    for (role, result) in Runner::new(transport).run(choreography).await {
        let x = result.map_err(|e| (role.to_string(), e.to_string()))?;
        if let Some(text) = report(x) {
            println!("result {role} {text}");
        }
    }
    Ok(())
}

async fn one_role<Ch, X>(
    choreography: Ch,
    report: fn(X) -> Option<String>,
    args: &Args,
    role: String,
) -> Result<(), Failure>
where
    Ch: Choreography<X>,
{
    let fail = |e: &dyn std::fmt::Display| (role.clone(), e.to_string());
    let name = RoleName::new(role.clone());
    if !Ch::Roles::names().contains(&name) {
        let roles: Vec<String> = Ch::Roles::names().iter().map(|r| r.to_string()).collect();
        return Err(fail(&format!("is not a role here: {}", roles.join(", "))));
    }
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| fail(&e))?;
    let addr = listener.local_addr().map_err(|e| fail(&e))?;
    println!("listening {role} {addr}");
    std::io::stdout().flush().map_err(|e| fail(&e))?;
    let mut peers = args.peers.clone();
    if peers.is_empty() {
        peers = read_peers().map_err(|e| fail(&e))?;
    }
    peers.retain(|(peer, _)| *peer != name);
    let config = TcpConfig {
        connect_deadline: Duration::from_secs(20),
        ..TcpConfig::default()
    };
    let transport = TcpTransport::start(name.clone(), listener, peers, config)
        .await
        .map_err(|e| fail(&e))?;
    let transport = Arc::new(transport);
    let recorder = Arc::new(Recorder::new());
    let endpoint = Endpoint::with_config(
        transport.clone(),
        name,
        Config::default(),
        Some(recorder.clone()),
    )
    .map_err(|e| fail(&e))?;
    let result = endpoint.run(choreography).await;
    transport.close().await;
    let x = result.map_err(|e| fail(&e))?;
    if let Some(text) = report(x) {
        println!("result {role} {text}");
    }
    if args.record {
        for step in Step::from_events(&recorder.events()) {
            println!("step {}", step.to_line());
        }
    }
    Ok(())
}

/// `peer NAME ADDR` lines from standard input, up to `go`.
fn read_peers() -> Result<Vec<(RoleName, SocketAddr)>, String> {
    let mut peers = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| format!("reading peers: {e}"))?;
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["go"] => return Ok(peers),
            ["peer", name, addr] => {
                let addr = addr
                    .parse()
                    .map_err(|e| format!("peer {name} {addr}: {e}"))?;
                peers.push((RoleName::new(name.to_string()), addr));
            }
            _ => return Err(format!("expected `peer NAME ADDR` or `go`, got `{line}`")),
        }
    }
    Err("standard input ended before `go`".into())
}
