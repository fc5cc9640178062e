//! `Offer` over `mpst::net`'s TCP routes on loopback: the desk `D` takes the label of
//! whichever of `B` and `P` speaks, one session after the other on the same connections.

use std::time::Duration;

use mpst::net::NetConfig;
use mpst::{End, Message, Offer, Payload, Role, Send, session, try_session};
use tokio::time::timeout;

type Route = mpst::net::TcpRoute<Label>;

#[derive(Role)]
#[message(Label)]
struct B(#[route(D)] Route);
#[derive(Role)]
#[message(Label)]
struct P(#[route(D)] Route);
#[derive(Role)]
#[message(Label)]
struct D(#[route(B)] Route, #[route(P)] Route);

#[derive(Message, serde::Serialize, serde::Deserialize)]
enum Label {
    Left(Left),
    Right(Right),
}
#[derive(Payload, serde::Serialize, serde::Deserialize)]
struct Left(i32);
#[derive(Payload, serde::Serialize, serde::Deserialize)]
struct Right(String);

#[session]
type BTells = Send<D, Left, End>;
#[session]
type PTells = Send<D, Right, End>;
#[session]
type Learns = Offer<Either>;
#[session]
enum Either {
    #[from(B)]
    Left(Left, End),
    #[from(P)]
    Right(Right, End),
}

fn config(role: &str) -> NetConfig {
    NetConfig::new("learn/1", role)
        .insecure_plaintext()
        .connect_timeout(Duration::from_secs(5))
}

async fn learn(d: &mut D) -> Result<String, mpst::Error> {
    try_session(d, |s: Learns<'_, D>| async move {
        match s.offer().await? {
            Either::Left(Left(n), end) => Ok((format!("B:{n}"), end)),
            Either::Right(Right(text), end) => Ok((format!("P:{text}"), end)),
        }
    })
    .await
}

#[tokio::test]
async fn the_desk_takes_whichever_peer_speaks_over_tcp() {
    timeout(Duration::from_secs(20), async {
        // Not a test of security: plain TCP, asked for by name.
        let d = config("D")
            .listen("127.0.0.1:0")
            .peer_without_address("B")
            .peer_without_address("P");
        let d = d.bind().await.unwrap();
        let at = d.local_addr().unwrap();
        let (d, b, p) = tokio::join!(
            d.connect(),
            config("B").peer("D", at).connect(),
            config("P").peer("D", at).connect()
        );
        let mut d: D = d.unwrap().into_role().unwrap();
        let mut b: B = b.unwrap().into_role().unwrap();
        let mut p: P = p.unwrap().into_role().unwrap();
        try_session(&mut b, |s: BTells<'_, B>| async move {
            Ok(((), s.send(Left(7)).await?))
        })
        .await
        .unwrap();
        assert_eq!(learn(&mut d).await.unwrap(), "B:7");
        try_session(&mut p, |s: PTells<'_, P>| async move {
            Ok(((), s.send(Right("seven".into())).await?))
        })
        .await
        .unwrap();
        assert_eq!(learn(&mut d).await.unwrap(), "P:seven");
    })
    .await
    .expect("bounded");
}
