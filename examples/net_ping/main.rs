//! The README's two-process example: run `net_ping B 127.0.0.1:7000`, then `net_ping A 127.0.0.1:7000`.
use mpst::net::{Config, TcpRoute};
use mpst::{session, try_session, End, Message, Receive, Role, Send};
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
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (role, address) = (std::env::args().nth(1), std::env::args().nth(2));
    let address = address.ok_or("usage: net_ping A|B ADDRESS")?.parse()?;
    if role.as_deref() == Some("B") {
        let b = Config::new("ping/1", "B")
            .insecure_plaintext()
            .listen(address);
        let b = b.peer_without_address("A").bind().await?;
        println!("listening on {}", b.local_addr().ok_or("not bound")?);
        let mut b: B = b.connect().await?.into_role()?;
        try_session(&mut b, |s: PongB<'_, B>| async move {
            let (n, s) = s.receive().await?;
            Ok(((), s.send(n + 1).await?))
        })
        .await?;
    } else {
        let a = Config::new("ping/1", "A")
            .insecure_plaintext()
            .peer("B", address);
        let mut a: A = a.connect().await?.into_role()?;
        let pong = try_session(&mut a, |s: PingA<'_, A>| async move {
            Ok(s.send(41).await?.receive().await?)
        });
        println!("pong {}", pong.await?);
    }
    Ok(())
}
