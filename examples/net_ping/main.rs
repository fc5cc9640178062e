//! The README's two-process example: `net_ping certs DIR`, then `net_ping B 127.0.0.1:7000 DIR`, then `net_ping A 127.0.0.1:7000 DIR`.
use mpst::net::{certs, Config, TcpRoute};
use mpst::{session, try_session, End, Message, Receive, Role, Send};
use std::path::Path;
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
fn config(role: &str, dir: &Path) -> Config {
    let (cert, key) = (
        dir.join(format!("{role}.pem")),
        dir.join(format!("{role}.key")),
    );
    Config::new("ping/1", role).identity_files(dir.join("ca.pem"), cert, key)
}
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args[..] {
        ["certs", dir] => {
            certs::write_deployment(Path::new(dir), "ping/1", &["A".into(), "B".into()])?;
            println!("wrote a CA and identities for A and B of ping/1 in {dir}");
        }
        ["B", address, dir] => {
            let b = config("B", Path::new(dir)).listen(address);
            let b = b.peer_without_address("A").bind().await?;
            println!("listening on {}", b.local_addr().ok_or("not bound")?);
            let mut b: B = b.connect().await?.into_role()?;
            try_session(&mut b, |s: PongB<'_, B>| async move {
                let (n, s) = s.receive().await?;
                Ok(((), s.send(n + 1).await?))
            })
            .await?;
        }
        ["A", address, dir] => {
            let a = config("A", Path::new(dir)).peer("B", address);
            let mut a: A = a.connect().await?.into_role()?;
            let pong = try_session(&mut a, |s: PingA<'_, A>| async move {
                Ok(s.send(41).await?.receive().await?)
            });
            println!("pong {}", pong.await?);
        }
        _ => return Err("usage: net_ping certs DIR | net_ping A|B ADDRESS DIR".into()),
    }
    Ok(())
}
