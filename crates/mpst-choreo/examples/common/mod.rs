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
//! example [--in-order] --quic --role NAME [--listen ADDR] [--record]
//!     the same over QUIC: prints `listening NAME ADDR CERT` (its self-signed
//!     certificate, generated now, in hexadecimal) and reads `peer NAME ADDR CERT` lines
//! ```
//!
//! Failures print `error ROLE MESSAGE` on standard error and exit with status 1.

use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mpst_choreo::conform::Step;
use mpst_choreo::net::quic::{CertificateDer, QuicConfig, QuicIdentity, QuicTransport};
use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
use mpst_choreo::transport::InMemory;
use mpst_choreo::{Choreography, Config, Endpoint, Recorder, RoleName, RoleSet, Runner, Transport};

/// How the example was asked to run.
struct Args {
    in_order: bool,
    role: Option<String>,
    listen: SocketAddr,
    peers: Vec<(RoleName, SocketAddr)>,
    record: bool,
    quic: bool,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args {
        in_order: false,
        role: None,
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        peers: Vec::new(),
        record: false,
        quic: false,
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--in-order" => parsed.in_order = true,
            "--record" => parsed.record = true,
            "--quic" => parsed.quic = true,
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

    async fn close(&self) {
        match self {
            Net::Tcp(t) => t.close().await,
            Net::Quic(t) => t.close(Duration::from_secs(20)).await,
        }
    }
}

/// Listens, says where, learns the peers and connects to them.
async fn connect(args: &Args, name: &RoleName) -> Result<Net, String> {
    let others = |peers: Vec<Peer>| peers.into_iter().filter(|p| p.name != *name);
    if args.quic {
        let socket = std::net::UdpSocket::bind(args.listen).map_err(|e| e.to_string())?;
        let addr = socket.local_addr().map_err(|e| e.to_string())?;
        let identity = QuicIdentity::generate().map_err(|e| e.to_string())?;
        announce(name, addr, Some(identity.certificate()))?;
        if !args.peers.is_empty() {
            return Err("--quic takes its peers (with certificates) on standard input".into());
        }
        let mut trusted = vec![identity.certificate().clone()];
        let mut peers = Vec::new();
        for peer in others(read_peers()?) {
            let cert = peer
                .cert
                .ok_or(format!("no certificate for {}", peer.name))?;
            trusted.push(CertificateDer::from(cert));
            peers.push((peer.name, peer.addr));
        }
        let config = QuicConfig {
            connect_deadline: Duration::from_secs(20),
            ..QuicConfig::default()
        };
        let started =
            QuicTransport::start(name.clone(), socket, &identity, &trusted, peers, config);
        return Ok(Net::Quic(Arc::new(
            started.await.map_err(|e| e.to_string())?,
        )));
    }
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| e.to_string())?;
    announce(
        name,
        listener.local_addr().map_err(|e| e.to_string())?,
        None,
    )?;
    let given = args.peers.iter().map(|(name, addr)| Peer {
        name: name.clone(),
        addr: *addr,
        cert: None,
    });
    let peers = if args.peers.is_empty() {
        read_peers()?
    } else {
        given.collect()
    };
    let peers = others(peers).map(|p| (p.name, p.addr));
    let config = TcpConfig {
        connect_deadline: Duration::from_secs(20),
        ..TcpConfig::insecure_plaintext()
    };
    let started = TcpTransport::start(name.clone(), listener, peers, config);
    Ok(Net::Tcp(Arc::new(
        started.await.map_err(|e| e.to_string())?,
    )))
}

/// `listening NAME ADDR [CERT]`, the certificate in hexadecimal.
fn announce(
    name: &RoleName,
    addr: SocketAddr,
    cert: Option<&CertificateDer<'static>>,
) -> Result<(), String> {
    let cert = cert.map(|c| format!(" {}", hex(c))).unwrap_or_default();
    println!("listening {name} {addr}{cert}");
    std::io::stdout().flush().map_err(|e| e.to_string())
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
    let net = connect(args, &name).await.map_err(|e| fail(&e))?;
    let recorder = Arc::new(Recorder::new());
    let observer = Some(recorder.clone() as _);
    let endpoint = Endpoint::with_config(net.transport(), name, Config::default(), observer)
        .map_err(|e| fail(&e))?;
    let result = endpoint.run(choreography).await;
    net.close().await;
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

/// A peer as standard input names it.
struct Peer {
    name: RoleName,
    addr: SocketAddr,
    cert: Option<Vec<u8>>,
}

/// `peer NAME ADDR [CERT]` lines from standard input, up to `go`.
fn read_peers() -> Result<Vec<Peer>, String> {
    let mut peers = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| format!("reading peers: {e}"))?;
        let words: Vec<&str> = line.split_whitespace().collect();
        let (name, addr, cert) = match words.as_slice() {
            ["go"] => return Ok(peers),
            ["peer", name, addr] => (name, addr, None),
            ["peer", name, addr, cert] => (name, addr, Some(unhex(cert)?)),
            _ => {
                return Err(format!(
                    "expected `peer NAME ADDR [CERT]` or `go`, got `{line}`"
                ));
            }
        };
        let addr = addr
            .parse()
            .map_err(|e| format!("peer {name} {addr}: {e}"))?;
        let name = RoleName::new(name.to_string());
        peers.push(Peer { name, addr, cert });
    }
    Err("standard input ended before `go`".into())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Result<Vec<u8>, String> {
    if text.len() % 2 != 0 {
        return Err(format!("a certificate of odd length {}", text.len()));
    }
    (0..text.len())
        .step_by(2)
        .map(|i| {
            let pair = text.get(i..i + 2).ok_or("not hexadecimal")?;
            u8::from_str_radix(pair, 16).map_err(|e| format!("certificate: {e}"))
        })
        .collect()
}
