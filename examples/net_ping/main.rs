//! The README's two-process example: `net_ping certs DIR`, then `net_ping B 127.0.0.1:7000 DIR`, then `net_ping A 127.0.0.1:7000 DIR`; or configured by `--config FILE` / `MPST_*` variables (docs/DEPLOYMENT.md).
use mpst::net::{NetConfig, TcpRoute, certs};
use mpst::{End, Message, Receive, Role, Send, session, try_session};
use mpst_examples::net::{RoleError, finish, init_logging, role_sources};
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
/// Role `role` of ping/1, proving itself with the identity in `dir` that `certs` wrote.
fn config(role: &str, dir: &Path) -> NetConfig {
    let (cert, key) = (
        dir.join(format!("{role}.pem")),
        dir.join(format!("{role}.key")),
    );
    NetConfig::new("ping/1", role).identity_files(dir.join("ca.pem"), cert, key)
}
/// B answers A's number plus one; A returns `pong N`.
async fn run(config: NetConfig) -> Result<String, RoleError> {
    match config.role() {
        "B" => {
            let b = config.bind().await?;
            let address = b.local_addr().ok_or(RoleError::usage("B needs `listen`"))?;
            println!("listening on {address}");
            let mut b: B = b.connect().await?.into_role()?;
            try_session(&mut b, |s: PongB<'_, B>| async move {
                let (n, s) = s.receive().await?;
                Ok(((), s.send(n + 1).await?))
            })
            .await?;
            Ok(String::new())
        }
        "A" => {
            let mut a: A = config.connect().await?.into_role()?;
            let pong = try_session(&mut a, |s: PingA<'_, A>| async move {
                Ok(s.send(41).await?.receive().await?)
            });
            Ok(format!("pong {}", pong.await?))
        }
        other => Err(RoleError::usage(format!("no role {other} in ping/1"))),
    }
}
#[tokio::main]
async fn main() -> ExitCode {
    init_logging(); // `tracing` to stderr, filtered by RUST_LOG
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    // `--config FILE`, `--role NAME`, then the MPST_* variables over the file.
    let sources = match role_sources(&mut args, "ping/1") {
        Ok(sources) => sources,
        Err(error) => return finish::<String>(Err(error)),
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let config = match args[..] {
        [] if sources.names_a_role() => sources.load().map(NetConfig::from_wire),
        ["certs", dir] => {
            let roles = ["A".into(), "B".into()];
            if let Err(error) = certs::write_deployment(Path::new(dir), "ping/1", &roles) {
                return finish::<String>(Err(error.into()));
            }
            println!("wrote a CA and identities for A and B of ping/1 in {dir}");
            return ExitCode::SUCCESS;
        }
        ["B", address, dir] => Ok(config("B", Path::new(dir))
            .listen(address)
            .peer_without_address("A")),
        ["A", address, dir] => Ok(config("A", Path::new(dir)).peer("B", address)),
        _ => {
            let usage =
                "usage: net_ping certs DIR | net_ping A|B ADDRESS DIR | net_ping --config FILE";
            return finish::<String>(Err(RoleError::usage(usage)));
        }
    };
    match config.map_err(RoleError::from) {
        Ok(config) => match run(config).await {
            Ok(line) => {
                if !line.is_empty() {
                    println!("{line}"); // exit status 0: the session completed
                }
                ExitCode::SUCCESS
            }
            Err(error) => finish::<String>(Err(error)), // `ERR ...`, the status of RoleExit
        },
        Err(error) => finish::<String>(Err(error)),
    }
}
