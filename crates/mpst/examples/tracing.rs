//! Watching sessions with `tracing`: a client asks a server to add numbers until it
//! says stop, and `tracing-subscriber` prints every session span and every send and
//! receive (role, peer, label, protocol state).
//!
//! Run: `cargo run -p mpst-session --features tracing --example tracing`
//! (`RUST_LOG`-style filtering: only the `mpst` target at DEBUG is shown here).

use mpst::{Branch, End, Message, Receive, Role, Roles, Select, Send, session, try_session};
use tracing_subscriber::fmt::format::FmtSpan;

type Channel = mpst::channel::Unbounded<Label>;

#[derive(Roles)]
struct Roles(C, S);

#[derive(Role)]
#[message(Label)]
struct C(#[route(S)] Channel);

#[derive(Role)]
#[message(Label)]
struct S(#[route(C)] Channel);

#[derive(Message)]
enum Label {
    Add(Add),
    Sum(Sum),
    Stop(Stop),
}

struct Add(i32, i32);
struct Sum(i32);
struct Stop;

#[session]
struct Client(Select<S, ClientChoice>);

#[session]
enum ClientChoice {
    Add(Add, Receive<S, Sum, Client>),
    Stop(Stop, End),
}

#[session]
struct Server(Branch<C, ServerChoice>);

#[session]
enum ServerChoice {
    Add(Add, Send<C, Sum, Server>),
    Stop(Stop, End),
}

fn main() -> Result<(), mpst::Error> {
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_target(false)
        .with_span_events(FmtSpan::NEW | FmtSpan::CLOSE)
        .init();
    let Roles(mut c, mut s) = Roles::default();
    let (sums, ()) = futures::executor::block_on(async {
        futures::try_join!(
            try_session(&mut c, |mut client: Client<'_, C>| async move {
                let mut sums = Vec::new();
                for (x, y) in [(1, 2), (3, 4)] {
                    let s = client.into_session().select(Add(x, y)).await?;
                    let (Sum(sum), next) = s.receive().await?;
                    sums.push(sum);
                    client = next;
                }
                let end = client.into_session().select(Stop).await?;
                Ok((sums, end))
            }),
            try_session(&mut s, |mut server: Server<'_, S>| async move {
                loop {
                    match server.into_session().branch().await? {
                        ServerChoice::Add(Add(x, y), s) => server = s.send(Sum(x + y)).await?,
                        ServerChoice::Stop(Stop, end) => return Ok(((), end)),
                    }
                }
            }),
        )
    })?;
    println!("sums: {sums:?}");
    Ok(())
}
