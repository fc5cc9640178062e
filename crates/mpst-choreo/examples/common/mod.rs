//! What every example shares: run all roles in this process (in-memory transport), or
//! one role as its own OS process over TCP (mutual TLS) or QUIC on loopback.
//!
//! ```text
//! example [--in-order]
//!     every role in this process; prints `result ROLE TEXT` per role that holds a result
//! example --write-certs DIR
//!     writes a CA and a certificate and key per role of this example into DIR
//!     (`ca.pem`, `ROLE.pem`, `ROLE.key`; the protocol named is the example's name)
//! example [--in-order] --role NAME (--certs DIR | --insecure-plaintext) [--quic]
//!         [--listen ADDR] [--peer NAME=HOST:PORT]... [--record]
//!     one role over TCP with mutual TLS (QUIC with --quic), proving itself with DIR's
//!     certificate for NAME; listens on ADDR (default 127.0.0.1:0) and prints
//!     `listening NAME ADDR`; without --peer, reads `peer NAME HOST:PORT` lines from
//!     standard input up to a line `go` (host names are looked up again on each dial
//!     retry); then runs and prints its result, and with --record one `step ...` line per
//!     communication step (for the Scribble conformance check).
//!     `--insecure-plaintext` (TCP only) lets anyone who reaches the port speak for a role.
//! example [--in-order] [--config FILE.toml] [--role NAME] [--quic] [--record]
//!         [--sessions N [--at-once B]]
//!     the same, configured by an `mpst-wire` TOML file (the format of `mpst::net`:
//!     `protocol`, `listen`, `[peers]`, `[security]`, time-outs; a shared file with
//!     `[roles]` needs --role) named by --config or MPST_CONFIG, and `MPST_*` variables
//!     over it (MPST_ROLE, MPST_LISTEN, MPST_PEER_<ROLE>, MPST_CA, MPST_CERT, MPST_KEY,
//!     MPST_CONNECT_TIMEOUT, ...: docs/DEPLOYMENT.md); prints `listening NAME ADDR` once
//!     connected. Every receive waits at most the configuration's `receive_timeout`
//!     (`none`: for ever). With --sessions N it runs sessions 0 to N-1 over its one
//!     connection, B at a time (all at once without --at-once), and prints one `result`
//!     line per session in session order (every role must be given the same N and B).
//! example --write-config DIR [--port N]
//!     writes the certificates of --write-certs and one TOML file per role (`ROLE.toml`,
//!     role i listening on 127.0.0.1:N+i, default N = 7300, peers at localhost), for
//!     `examples/run_roles.sh EXAMPLE DIR` to start every role as its own process.
//! ```
//!
//! Logs go to standard error through `tracing` (`RUST_LOG` filters). Failures print
//! `error ROLE MESSAGE` on standard error and exit with a status of `mpst_wire::RoleExit`'s
//! table: 2 bad configuration or usage, 3 could not connect, 4 a peer lost or silent, 5 a
//! protocol error, 1 the program itself.

mod deploy;

use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mpst_choreo::conform::Step;
use mpst_choreo::net::quic::{QuicConfig, QuicTransport};
use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
use mpst_choreo::transport::InMemory;
use mpst_choreo::transport::TransportError;
use mpst_choreo::{
    ChoreoError, Choreography, Endpoint, EndpointConfig, Recorder, RoleName, RoleSet, Runner,
    Transport,
};
use mpst_wire::{Identity, RoleExit};

/// How the example was asked to run.
struct Args {
    in_order: bool,
    role: Option<String>,
    listen: SocketAddr,
    peers: Vec<(RoleName, String)>,
    config: Option<PathBuf>,
    /// The configuration read from `--config`.
    wire: Option<mpst_wire::WireConfig>,
    record: bool,
    quic: bool,
    certs: Option<PathBuf>,
    plaintext: bool,
    write_certs: Option<PathBuf>,
    write_config: Option<PathBuf>,
    port: u16,
    /// Sessions to run over the one connection (network modes).
    sessions: u64,
    /// Sessions run at once (0: all).
    at_once: u64,
    /// Test-only negative control (feature `testing`): ignore integrity keys.
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    ignore_keys: bool,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args {
        in_order: false,
        role: None,
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        peers: Vec::new(),
        config: None,
        wire: None,
        record: false,
        quic: false,
        certs: None,
        plaintext: false,
        write_certs: None,
        write_config: None,
        port: 7300,
        sessions: 1,
        at_once: 0,
        ignore_keys: false,
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--in-order" => parsed.in_order = true,
            "--record" => parsed.record = true,
            "--quic" => parsed.quic = true,
            "--insecure-plaintext" => parsed.plaintext = true,
            "--certs" => parsed.certs = Some(value("--certs")?.into()),
            "--write-certs" => parsed.write_certs = Some(value("--write-certs")?.into()),
            "--write-config" => parsed.write_config = Some(value("--write-config")?.into()),
            "--port" => {
                let port = value("--port")?;
                parsed.port = port.parse().map_err(|e| format!("--port {port}: {e}"))?;
            }
            "--role" => parsed.role = Some(value("--role")?),
            "--sessions" => parsed.sessions = count("--sessions", value("--sessions")?)?,
            "--at-once" => parsed.at_once = count("--at-once", value("--at-once")?)?,
            // A negative control for tests only: never in a build without `testing`.
            #[cfg(feature = "testing")]
            "--ignore-keys" => parsed.ignore_keys = true,
            "--config" => parsed.config = Some(value("--config")?.into()),
            "--listen" => {
                let addr = value("--listen")?;
                parsed.listen = addr.parse().map_err(|e| format!("--listen {addr}: {e}"))?;
            }
            "--peer" => {
                let peer = value("--peer")?;
                let (name, addr) = peer
                    .split_once('=')
                    .ok_or(format!("--peer {peer}: expected NAME=HOST:PORT"))?;
                let addr = host_port(addr).map_err(|e| format!("--peer {peer}: {e}"))?;
                parsed.peers.push((RoleName::new(name), addr));
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(parsed)
}

/// A count of at least 1 given to `flag`.
fn count(flag: &str, value: String) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{flag} {value}: expected a whole number from 1")),
    }
}

/// Checks `HOST:PORT` without looking it up, by mpst-wire's one rule (the transport
/// looks host names up on each dial).
fn host_port(addr: &str) -> Result<String, String> {
    mpst_wire::env::check_host_port(addr).map_err(|e| format!("`{addr}`: expected {e}"))?;
    Ok(addr.to_string())
}

/// The example's name (its binary's), which is also the protocol its certificates name.
fn program() -> String {
    let exe = std::env::args().next().unwrap_or_default();
    let stem = std::path::Path::new(&exe).file_stem();
    let name = stem
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Cargo's test builds add `-<hash>`; examples are named without one.
    name.split('-').next().unwrap_or_default().to_string()
}

/// Runs an example: its out-of-order choreography, or with `--in-order` its twin, as
/// the command line says. `report` gives the text of what a role holds after a run.
#[allow(dead_code)] // `concurrent_send` calls `main_sessions` directly.
pub fn main<A, B, X>(out_of_order: A, in_order: B, report: fn(X) -> Option<String>) -> ExitCode
where
    A: Choreography<X> + Clone + 'static,
    B: Choreography<X, Roles = A::Roles> + Clone + 'static,
    X: Send + 'static,
{
    let (a, b) = (out_of_order.clone(), in_order.clone());
    main_sessions(move |_| a.clone(), move |_| b.clone(), report)
}

/// [`main`] with each session's choreography made from its number (`--sessions N` runs
/// sessions 0 to N-1; every other mode runs session 0).
pub fn main_sessions<A, B, X>(
    out_of_order: impl Fn(u64) -> A,
    in_order: impl Fn(u64) -> B,
    report: fn(X) -> Option<String>,
) -> ExitCode
where
    A: Choreography<X> + Clone + 'static,
    B: Choreography<X, Roles = A::Roles> + Clone + 'static,
    X: Send + 'static,
{
    deploy::init_logging();
    let args = match parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(e) => return fail(("-".into(), e, RoleExit::Usage)),
    };
    if let Some(dir) = &args.write_certs {
        let roles: Vec<String> = A::Roles::names().iter().map(|r| r.to_string()).collect();
        return match mpst_wire::certs::write_deployment(dir, &program(), &roles) {
            Ok(files) => {
                let mut out = std::io::stdout().lock();
                for file in files {
                    // A closed standard output loses only this list.
                    let _ = writeln!(out, "wrote {}", file.display());
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail(("-".into(), e.to_string(), RoleExit::Internal)),
        };
    }
    if let Some(dir) = &args.write_config {
        let roles: Vec<String> = A::Roles::names().iter().map(|r| r.to_string()).collect();
        return match deploy::write_config(dir, &program(), &roles, args.port) {
            Ok(files) => {
                let mut out = std::io::stdout().lock();
                for file in files {
                    let _ = writeln!(out, "wrote {}", file.display());
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail(("-".into(), e, RoleExit::Internal)),
        };
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            let e = format!("cannot start tokio: {e}");
            return fail(("-".into(), e, RoleExit::Internal));
        }
    };
    let mut args = args;
    // The command line's own peers and identities, or else a file and MPST_* variables.
    let by_hand = args.certs.is_some() || args.plaintext || !args.peers.is_empty();
    let sources = match by_hand {
        true => Ok(None),
        false => deploy::sources(args.config.as_deref(), args.role.as_deref(), &program()),
    };
    let wire =
        match sources.and_then(|s| s.map(|s| s.load().map_err(|e| e.to_string())).transpose()) {
            Ok(Some(wire)) => {
                args.role = Some(wire.role().to_string());
                Some(wire)
            }
            Ok(None) => None,
            Err(e) => {
                let role = args.role.clone().unwrap_or("-".into());
                return fail((role, e, RoleExit::Usage));
            }
        };
    let args = Args { wire, ..args };
    let done = runtime.block_on(async {
        match (args.in_order, args.role.clone()) {
            (false, None) => all_roles(out_of_order(0), report).await,
            (true, None) => all_roles(in_order(0), report).await,
            (false, Some(role)) => one_role(&out_of_order, report, &args, role).await,
            (true, Some(role)) => one_role(&in_order, report, &args, role).await,
        }
    });
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => fail(failure),
    }
}

/// A role's failure: the role, the error, and the exit status that says what happened.
type Failure = (String, String, RoleExit);

/// Prints `error ROLE MESSAGE`, logs it, and gives the failure's exit status.
fn fail((role, message, exit): Failure) -> ExitCode {
    tracing::error!(%role, exit = exit.code(), "{message}");
    eprintln!("error {role} {message}");
    exit.into()
}

async fn all_roles<Ch, X>(choreography: Ch, report: fn(X) -> Option<String>) -> Result<(), Failure>
where
    Ch: Choreography<X> + Clone + 'static,
    X: Send + 'static,
{
    let transport = Arc::new(InMemory::new(Ch::Roles::names()));
    for (role, result) in Runner::new(transport).run(choreography).await {
        let x = result.map_err(|e| (role.to_string(), e.to_string(), deploy::run_exit(&e)))?;
        if let Some(text) = report(x) {
            println!("result {role} {text}");
        }
    }
    Ok(())
}

/// A role's network end.
enum Net {
    Tcp(Arc<TcpTransport>),
    Quic(Arc<QuicTransport>),
}

impl Net {
    fn transport(&self) -> Arc<dyn Transport> {
        match self {
            Net::Tcp(t) => t.clone(),
            Net::Quic(t) => t.clone(),
        }
    }

    /// Closes, flushing what is queued; after a failed run (a peer likely gone or cut
    /// off) for at most half a second, so the exit status comes without delay.
    async fn close(&self, failed: bool) {
        let grace = Duration::from_millis(500);
        match self {
            Net::Tcp(t) if failed => {
                let _ = tokio::time::timeout(grace, t.close()).await;
            }
            Net::Tcp(t) => t.close().await,
            Net::Quic(t) => {
                t.close(if failed {
                    grace
                } else {
                    Duration::from_secs(20)
                })
                .await
            }
        }
    }
}

/// The identity of role `name` from `--certs DIR`.
fn identity(args: &Args, name: &RoleName) -> Result<Option<Identity>, String> {
    let Some(dir) = &args.certs else {
        return Ok(None);
    };
    let (cert, key) = mpst_wire::certs::role_files(dir, name.as_str());
    Identity::load(&dir.join("ca.pem"), &cert, &key)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// Connects as the configuration file and `MPST_*` variables say, then says where it
/// listens. An identity that cannot be loaded is a usage error, not a failure to connect.
async fn connect_configured(
    wire: &mpst_wire::WireConfig,
    quic: bool,
) -> Result<Net, (String, RoleExit)> {
    let usage = |e: &dyn std::fmt::Display| (e.to_string(), RoleExit::Usage);
    wire.resolve_security().map_err(|e| usage(&e))?;
    let unreachable = |e: TransportError| (e.to_string(), deploy::connect_exit(&e));
    let name = RoleName::new(wire.role());
    if quic {
        let transport = QuicTransport::connect(wire).await.map_err(unreachable)?;
        announce(&name, transport.local_addr().map_err(|e| usage(&e))?).map_err(|e| usage(&e))?;
        return Ok(Net::Quic(Arc::new(transport)));
    }
    let transport = TcpTransport::connect(wire).await.map_err(unreachable)?;
    tracing::info!(role = %name, "connected");
    announce(&name, transport.local_addr()).map_err(|e| usage(&e))?;
    Ok(Net::Tcp(Arc::new(transport)))
}

/// Listens, says where, learns the peers and connects to them.
async fn connect(args: &Args, name: &RoleName) -> Result<Net, (String, RoleExit)> {
    if let Some(wire) = &args.wire {
        return connect_configured(wire, args.quic).await;
    }
    let identity = identity(args, name).map_err(|e| (e, RoleExit::Usage))?;
    if identity.is_some() == args.plaintext {
        let e = "give exactly one of --certs DIR (see --write-certs) and --insecure-plaintext";
        return Err((e.into(), RoleExit::Usage));
    }
    if args.quic && identity.is_none() {
        return Err(("--quic needs --certs DIR".into(), RoleExit::Usage));
    }
    connect_by_hand(args, name, identity)
        .await
        .map_err(|e| (e, RoleExit::Unreachable))
}

/// [`connect`] with the peers and identities of the command line (or standard input).
async fn connect_by_hand(
    args: &Args,
    name: &RoleName,
    identity: Option<Identity>,
) -> Result<Net, String> {
    let others = |peers: Vec<(RoleName, String)>| {
        peers
            .into_iter()
            .filter(|(peer, _)| peer != name)
            .collect::<Vec<_>>()
    };
    if args.quic {
        let identity = identity.ok_or("--quic needs --certs DIR")?;
        let socket = std::net::UdpSocket::bind(args.listen).map_err(|e| e.to_string())?;
        announce(name, socket.local_addr().map_err(|e| e.to_string())?)?;
        let peers = others(peers(args)?);
        let config = QuicConfig {
            connect_timeout: Duration::from_secs(20),
            ..QuicConfig::default()
        };
        let program = program();
        let started =
            QuicTransport::start(name.clone(), socket, &identity, &program, peers, config);
        return Ok(Net::Quic(Arc::new(
            started.await.map_err(|e| e.to_string())?,
        )));
    }
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| e.to_string())?;
    announce(name, listener.local_addr().map_err(|e| e.to_string())?)?;
    let peers = others(peers(args)?);
    let security = match identity {
        Some(identity) => TcpConfig::mutual_tls(program(), identity),
        None => TcpConfig {
            protocol: program(),
            ..TcpConfig::insecure_plaintext()
        },
    };
    let config = TcpConfig {
        connect_timeout: Duration::from_secs(20),
        ..security
    };
    let started = TcpTransport::start(name.clone(), listener, peers, config);
    Ok(Net::Tcp(Arc::new(
        started.await.map_err(|e| e.to_string())?,
    )))
}

/// The peers from `--peer`, or else from standard input.
fn peers(args: &Args) -> Result<Vec<(RoleName, String)>, String> {
    if args.peers.is_empty() {
        read_peers()
    } else {
        Ok(args.peers.clone())
    }
}

/// `listening NAME ADDR`.
fn announce(name: &RoleName, addr: SocketAddr) -> Result<(), String> {
    println!("listening {name} {addr}");
    std::io::stdout().flush().map_err(|e| e.to_string())
}

async fn one_role<Ch, X>(
    choreography: &impl Fn(u64) -> Ch,
    report: fn(X) -> Option<String>,
    args: &Args,
    role: String,
) -> Result<(), Failure>
where
    Ch: Choreography<X>,
{
    let failed = |e: &ChoreoError| (role.clone(), e.to_string(), deploy::run_exit(e));
    let name = RoleName::new(role.clone());
    if !Ch::Roles::names().contains(&name) {
        let roles: Vec<String> = Ch::Roles::names().iter().map(|r| r.to_string()).collect();
        let e = format!("is not a role here: {}", roles.join(", "));
        return Err((role, e, RoleExit::Usage));
    }
    let net = connect(args, &name)
        .await
        .map_err(|(e, exit)| (role.clone(), e, exit))?;
    let recorder = Arc::new(Recorder::new());
    let observer = Some(recorder.clone() as _);
    let config = EndpointConfig {
        recv_timeout: deploy::receive_timeout(args.wire.as_ref()),
        #[cfg(feature = "testing")]
        ignore_keys: args.ignore_keys,
        ..EndpointConfig::default()
    };
    let endpoint =
        Endpoint::with_config(net.transport(), name, config, observer).map_err(|e| failed(&e))?;
    let at_once = match args.at_once {
        0 => args.sessions,
        b => b.min(args.sessions),
    };
    // Every session of a batch runs to its end; the first failure ends the run after
    // its batch, and the results of the sessions that completed are still printed.
    let mut outputs = Vec::new();
    let mut result = Ok(());
    for first in (0..args.sessions).step_by(at_once as usize) {
        let last = args.sessions.min(first + at_once);
        let runs = (first..last).map(|n| endpoint.run_session(n, choreography(n)));
        for outcome in futures::future::join_all(runs).await {
            match outcome {
                Ok(x) => outputs.push(x),
                Err(e) if result.is_ok() => result = Err(e),
                Err(_) => {}
            }
        }
        if result.is_err() {
            break;
        }
        tracing::debug!(%role, first, last, "sessions completed");
    }
    net.close(result.is_err()).await;
    for text in outputs.into_iter().filter_map(report) {
        println!("result {role} {text}");
    }
    result.map_err(|e| failed(&e))?;
    tracing::info!(%role, sessions = args.sessions, "completed");
    if args.record {
        for step in Step::from_events(&recorder.events()) {
            println!("step {}", step.to_line());
        }
    }
    Ok(())
}

/// `peer NAME HOST:PORT` lines from standard input, up to `go`.
fn read_peers() -> Result<Vec<(RoleName, String)>, String> {
    let mut peers = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| format!("reading peers: {e}"))?;
        let words: Vec<&str> = line.split_whitespace().collect();
        let (name, addr) = match words.as_slice() {
            ["go"] => return Ok(peers),
            ["peer", name, addr] => (name, addr),
            _ => {
                return Err(format!(
                    "expected `peer NAME HOST:PORT` or `go`, got `{line}`"
                ));
            }
        };
        let addr = host_port(addr).map_err(|e| format!("peer {name} {addr}: {e}"))?;
        peers.push((RoleName::new(name.to_string()), addr));
    }
    Err("standard input ended before `go`".into())
}
