//! The README's two-process example: `net_ping certs DIR`, then `net_ping B
//! 127.0.0.1:7000 DIR`, then `net_ping A 127.0.0.1:7000 DIR`.
//!
//! Or configured like any role program (docs/DEPLOYMENT.md): `net_ping --config FILE`,
//! `MPST_CONFIG=FILE net_ping`, or `MPST_ROLE=A MPST_PEER_B=host:7000 MPST_CA=..
//! MPST_CERT=.. MPST_KEY=.. net_ping`; logs to standard error (`RUST_LOG`) and exits with
//! a status of `mpst_wire::RoleExit`'s table.
use mpst::net::{certs, Config, TcpRoute};
use mpst::{session, try_session, End, Message, Receive, Role, Send};
use mpst_examples::net::{finish, init_logging, role_sources, RoleError};
use std::path::Path;
use std::process::ExitCode;
#[derive(Role)]
#[message(Label)]
struct A(#[route(B)] TcpRoute<Label>);
#[derive(Role)]
#[message(Label)]
struct B(#[route(A)] TcpRoute<Label>);
#[derive(Message, serde::Serialize, serde::Deserialize)]
enum Label {
    Num(u32),
}
#[session]
type PingA = Send<B, u32, Receive<B, u32, End>>;
#[session]
type PongB = Receive<A, u32, Send<A, u32, End>>;
/// The protocol name (and version) both roles announce.
const PROTOCOL: &str = "ping/1";
/// Role `role` of ping/1, proving itself with the identity in `dir` that `certs` wrote.
fn config(role: &str, dir: &Path) -> Config {
    let (cert, key) = (
        dir.join(format!("{role}.pem")),
        dir.join(format!("{role}.key")),
    );
    Config::new(PROTOCOL, role).identity_files(dir.join("ca.pem"), cert, key)
}
/// Runs the role `config` names: B answers, A prints `pong N`.
async fn run(config: Config) -> Result<String, RoleError> {
    match config.role() {
        "B" => {
            let b = config.bind().await?;
            match b.local_addr() {
                Some(address) => println!("listening on {address}"),
                None => return Err(RoleError::usage("B needs a listen address")),
            }
            let mut b: B = b.connect().await?.into_role()?;
            try_session(&mut b, |s: PongB<'_, B>| async move {
                let (n, s) = s.receive().await?;
                Ok((n + 1, s.send(n + 1).await?))
            })
            .await
            .map(|n| format!("sent {n}"))
            .map_err(RoleError::from)
        }
        "A" => {
            let mut a: A = config.connect().await?.into_role()?;
            let pong = try_session(&mut a, |s: PingA<'_, A>| async move {
                Ok(s.send(41).await?.receive().await?)
            });
            Ok(format!("pong {}", pong.await?))
        }
        other => Err(RoleError::usage(format!(
            "no role {other} in ping/1 (A, B)"
        ))),
    }
}
fn main() -> ExitCode {
    init_logging();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let sources = match role_sources(&mut args, PROTOCOL) {
        Ok(sources) => sources,
        Err(error) => return finish::<String>(Err(error)),
    };
    let usage = || {
        eprintln!(
            "usage: net_ping certs DIR | net_ping A|B ADDRESS DIR | net_ping [--config FILE] \
             [--role A|B] (with MPST_* variables, see docs/DEPLOYMENT.md)"
        );
        ExitCode::from(mpst_wire::RoleExit::Usage.code())
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let config = match (&args[..], sources.names_a_role()) {
        (["certs", dir], false) => {
            let roles = ["A".into(), "B".into()];
            return match certs::write_deployment(Path::new(dir), PROTOCOL, &roles) {
                Ok(_) => {
                    println!("wrote a CA and identities for A and B of ping/1 in {dir}");
                    ExitCode::SUCCESS
                }
                Err(error) => finish::<String>(Err(error.into())),
            };
        }
        (["B", address, dir], false) => config("B", Path::new(dir))
            .listen(address)
            .peer_without_address("A"),
        (["A", address, dir], false) => config("A", Path::new(dir)).peer("B", address),
        ([], true) => match sources.load() {
            Ok(wire) => Config::from_wire(wire),
            Err(error) => return finish::<String>(Err(error.into())),
        },
        _ => return usage(),
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            let exit = mpst_wire::RoleExit::Internal;
            return finish::<String>(Err(RoleError {
                exit,
                message: error.to_string(),
            }));
        }
    };
    match runtime.block_on(run(config)) {
        // The README shows A's line alone.
        Ok(line) if line.starts_with("pong") => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => finish::<String>(Err(error)),
    }
}
