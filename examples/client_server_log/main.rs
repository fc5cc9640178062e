//! Client-server log (after MultiCrusty's logging example; PPoPP 2022 Table 1): three
//! roles, choice and recursion.
//!
//! The paper gives no Scribble protocol, so `client_server_log.scr` is our design: the
//! client `C` repeatedly chooses to send a `request` to the server `S`, which records it
//! with the logger `L` (`log`) and answers `C` (`response`); or to `quit`, after which `S`
//! tells `L` to `flush`, `L` replies with the `count` of entries it logged, and `S` passes
//! it on to `C` as the `total`.
//!
//! Roles: `C` (makes the choice), `S` (answers each request with its square), `L`. The
//! session types are the projections of `client_server_log.scr` (top-down workflow).
//!
//! `cargo run -p mpst-examples --example client_server_log` sends a few requests and
//! prints the responses and the log.

use futures::future::try_join3;
use mpst::{
    Branch, End, Error, Message, Payload, Receive, Role, Roles, Select, Send, session, try_session,
};

type Channel = mpst::channel::Unbounded<Label>;

#[derive(Roles)]
struct Roles(C, S, L);

#[derive(Role)]
#[message(Label)]
struct C(#[route(S)] Channel);

#[derive(Role)]
#[message(Label)]
struct S(#[route(C)] Channel, #[route(L)] Channel);

#[derive(Role)]
#[message(Label)]
struct L(#[route(S)] Channel);

#[derive(Message)]
enum Label {
    Request(Request),
    Log(Log),
    Response(Response),
    Quit(Quit),
    Flush(Flush),
    Count(Count),
    Total(Total),
}

/// `request(i32)`
#[derive(Payload)]
struct Request(i32);
/// `log(i32)`: a request, for the log.
#[derive(Payload)]
struct Log(i32);
/// `response(i32)`
#[derive(Payload)]
struct Response(i32);
/// `quit()`
#[derive(Payload)]
struct Quit;
/// `flush()`: the session is over, report.
#[derive(Payload)]
struct Flush;
/// `count(u32)`: how many entries the logger logged.
#[derive(Payload)]
struct Count(u32);
/// `total(u32)`: the logger's count, for the client.
#[derive(Payload)]
struct Total(u32);

/// The client's projection: `mu x. S!{request. S?response. x, quit. S?total. end}`.
#[session]
type Client = Select<S, ClientChoice>;

#[session]
enum ClientChoice {
    Request(Request, Receive<S, Response, Client>),
    Quit(Quit, Receive<S, Total, End>),
}

/// The server's projection:
/// `mu x. C?{request. L!log. C!response. x, quit. L!flush. L?count. C!total. end}`.
#[session]
type Server = Branch<C, ServerChoice>;

#[session]
enum ServerChoice {
    Request(Request, Send<L, Log, Send<C, Response, Server>>),
    Quit(Quit, Send<L, Flush, Receive<L, Count, Send<C, Total, End>>>),
}

/// The logger's projection: `mu x. S?{log. x, flush. S!count. end}`.
#[session]
type Logger = Branch<S, LoggerChoice>;

#[session]
enum LoggerChoice {
    Log(Log, Logger),
    Flush(Flush, Send<S, Count, End>),
}

/// The client: sends every request, then quits. Returns the responses and the total.
async fn client(role: &mut C, requests: &[i32]) -> Result<(Vec<i32>, u32), Error> {
    try_session(role, |mut s: Client<'_, C>| async move {
        let mut responses = Vec::with_capacity(requests.len());
        for &request in requests {
            let (Response(response), t) = s.select(Request(request)).await?.receive().await?;
            responses.push(response);
            s = t;
        }
        let (Total(total), end) = s.select(Quit).await?.receive().await?;
        Ok(((responses, total), end))
    })
    .await
}

/// The server: logs each request and answers it with its square.
async fn server(role: &mut S) -> Result<(), Error> {
    try_session(role, |mut s: Server<'_, S>| async move {
        loop {
            s = match s.branch().await? {
                ServerChoice::Request(Request(x), t) => {
                    let t = t.send(Log(x)).await?;
                    t.send(Response(x.wrapping_mul(x))).await?
                }
                ServerChoice::Quit(Quit, t) => {
                    let (Count(count), t) = t.send(Flush).await?.receive().await?;
                    return Ok(((), t.send(Total(count)).await?));
                }
            }
        }
    })
    .await
}

/// The logger: keeps every entry until flushed. Returns the log.
async fn logger(role: &mut L) -> Result<Vec<i32>, Error> {
    try_session(role, |mut s: Logger<'_, L>| async move {
        let mut log = Vec::new();
        loop {
            s = match s.branch().await? {
                LoggerChoice::Log(Log(entry), t) => {
                    log.push(entry);
                    t
                }
                LoggerChoice::Flush(Flush, t) => {
                    let count = u32::try_from(log.len()).unwrap_or(u32::MAX);
                    return Ok((log, t.send(Count(count)).await?));
                }
            }
        }
    })
    .await
}

/// One session in one future (any executor): the client's responses and total, and the
/// logger's log.
async fn run(requests: &[i32]) -> Result<((Vec<i32>, u32), Vec<i32>), Error> {
    let Roles(mut c, mut s, mut l) = Roles::default();
    let (client, (), log) =
        try_join3(client(&mut c, requests), server(&mut s), logger(&mut l)).await?;
    Ok((client, log))
}

fn main() -> Result<(), Error> {
    let requests = [3, -4, 12];
    let ((responses, total), log) = futures::executor::block_on(run(&requests))?;
    println!(
        "requests {requests:?} -> responses {responses:?}; the logger logged {log:?} ({total} entries)"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn requests() -> Vec<i32> {
        (-20..30).map(|i| i * 3 + 1).collect()
    }

    #[test]
    fn futures_executor() {
        let requests = requests();
        let ((responses, total), log) = futures::executor::block_on(run(&requests)).unwrap();
        let squares: Vec<i32> = requests.iter().map(|x| x * x).collect();
        assert_eq!(responses, squares);
        assert_eq!(log, requests);
        assert_eq!(total as usize, requests.len());
    }

    #[test]
    fn quitting_at_once_logs_nothing() {
        let ((responses, total), log) = futures::executor::block_on(run(&[])).unwrap();
        assert!(responses.is_empty() && log.is_empty());
        assert_eq!(total, 0);
    }

    #[test]
    fn tokio_multi_thread() {
        let runtime = mpst_examples::tokio_runtime().unwrap();
        let requests = requests();
        let Roles(mut c, mut s, mut l) = Roles::default();
        let ((responses, total), log) = runtime.block_on(async {
            let input = requests.clone();
            let c = tokio::spawn(async move { client(&mut c, &input).await });
            let s = tokio::spawn(async move { server(&mut s).await });
            let l = tokio::spawn(async move { logger(&mut l).await });
            let client = mpst_examples::joined(c).await.unwrap();
            mpst_examples::joined(s).await.unwrap();
            (client, mpst_examples::joined(l).await.unwrap())
        });
        assert_eq!(
            responses,
            requests.iter().map(|x| x * x).collect::<Vec<_>>()
        );
        assert_eq!(log, requests);
        assert_eq!(total as usize, requests.len());
    }
}

/// The workflows of PPoPP 2022 §2 on this example: each hand-written session type is the
/// projection of its role from `client_server_log.scr` (checked through serialisation,
/// names normalised, payloads compared), and the system of serialised roles is k-MC (bottom-
/// up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("client_server_log.scr");
        Client<'static, C>, Server<'static, S>, Logger<'static, L>
    }
}
