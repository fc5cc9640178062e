//! Authentication (after SPY; PPoPP 2022 Table 1): three roles, choice, no recursion.
//!
//! The paper gives no Scribble protocol, so `authentication.scr` is our design: the client
//! `C` sends a `login` (its password) to the authenticator `A`. `A` either accepts — it
//! tells the service `S` the new session token (`accept`) and gives the same token to `C`
//! (`token`), after which `C` sends a `query` with the token to `S` and gets an `answer` —
//! or rejects, telling `S` (`reject`) and `C` (`denied`).
//!
//! Roles: `C`, `A` (makes the choice), `S`. The session types are the projections of
//! `authentication.scr` (top-down workflow). `S` answers with its secret only when the
//! query carries the token `A` issued.
//!
//! `cargo run -p mpst-examples --example authentication` logs in once with the right
//! password and once with a wrong one and prints what the client got.

use futures::future::try_join3;
use mpst::{
    Branch, End, Error, Message, Payload, Receive, Role, Roles, Select, Send, session, try_session,
};

type Channel = mpst::channel::Unbounded<Label>;

#[derive(Roles)]
struct Roles(C, A, S);

#[derive(Role)]
#[message(Label)]
struct C(#[route(A)] Channel, #[route(S)] Channel);

#[derive(Role)]
#[message(Label)]
struct A(#[route(C)] Channel, #[route(S)] Channel);

#[derive(Role)]
#[message(Label)]
struct S(#[route(C)] Channel, #[route(A)] Channel);

#[derive(Message)]
enum Label {
    Login(Login),
    Accept(Accept),
    Token(Token),
    Query(Query),
    Answer(Answer),
    Reject(Reject),
    Denied(Denied),
}

/// `login(String)`: the client's password.
#[derive(Payload)]
struct Login(String);
/// `accept(u64)`: to the service, the token of the accepted session.
#[derive(Payload)]
struct Accept(u64);
/// `token(u64)`: to the client, its session token.
#[derive(Payload)]
struct Token(u64);
/// `query(u64)`: the client's request, carrying its token.
#[derive(Payload)]
struct Query(u64);
/// `answer(String)`: the service's reply.
#[derive(Payload)]
struct Answer(String);
/// `reject()`: to the service, no session.
#[derive(Payload)]
struct Reject;
/// `denied()`: to the client, wrong password.
#[derive(Payload)]
struct Denied;

/// The client's projection: `A!login. A?{token. S!query. S?answer. end, denied. end}`.
#[session]
type Client = Send<A, Login, Branch<A, ClientChoice>>;

#[session]
enum ClientChoice {
    Token(Token, Send<S, Query, Receive<S, Answer, End>>),
    Denied(Denied, End),
}

/// The authenticator's projection:
/// `C?login. S!{accept. C!token. end, reject. C!denied. end}`.
#[session]
type Authenticator = Receive<C, Login, Select<S, AuthenticatorChoice>>;

#[session]
enum AuthenticatorChoice {
    Accept(Accept, Send<C, Token, End>),
    Reject(Reject, Send<C, Denied, End>),
}

/// The service's projection: `A?{accept. C?query. C!answer. end, reject. end}`.
#[session]
type Service = Branch<A, ServiceChoice>;

#[session]
enum ServiceChoice {
    Accept(Accept, Receive<C, Query, Send<C, Answer, End>>),
    Reject(Reject, End),
}

/// What the service answers to a query that carries the wrong token.
const INVALID: &str = "invalid token";

/// The client: logs in with `password`; if accepted, queries the service with its token.
/// Returns the service's answer, or `None` when the login was denied.
async fn client(role: &mut C, password: &str) -> Result<Option<String>, Error> {
    try_session(role, |s: Client<'_, C>| async move {
        match s.send(Login(password.to_owned())).await?.branch().await? {
            ClientChoice::Token(Token(token), s) => {
                let (Answer(answer), end) = s.send(Query(token)).await?.receive().await?;
                Ok((Some(answer), end))
            }
            ClientChoice::Denied(Denied, end) => Ok((None, end)),
        }
    })
    .await
}

/// The authenticator: accepts exactly `password` and then issues `token`. Returns whether
/// it accepted.
async fn authenticator(role: &mut A, password: &str, token: u64) -> Result<bool, Error> {
    try_session(role, |s: Authenticator<'_, A>| async move {
        let (Login(given), s) = s.receive().await?;
        if given == password {
            let end = s.select(Accept(token)).await?.send(Token(token)).await?;
            Ok((true, end))
        } else {
            let end = s.select(Reject).await?.send(Denied).await?;
            Ok((false, end))
        }
    })
    .await
}

/// The service: answers a query with `secret` if it carries the token the authenticator
/// issued. Returns whether it handed out the secret.
async fn service(role: &mut S, secret: &str) -> Result<bool, Error> {
    try_session(role, |s: Service<'_, S>| async move {
        match s.branch().await? {
            ServiceChoice::Accept(Accept(issued), s) => {
                let (Query(token), s) = s.receive().await?;
                let valid = token == issued;
                let answer = if valid { secret } else { INVALID };
                Ok((valid, s.send(Answer(answer.to_owned())).await?))
            }
            ServiceChoice::Reject(Reject, end) => Ok((false, end)),
        }
    })
    .await
}

const PASSWORD: &str = "open sesame";
const SECRET: &str = "the treasure is under the palm tree";

/// One login attempt in one future (any executor): the client's result, whether the
/// authenticator accepted, whether the service gave out the secret.
async fn run(password: &str, token: u64) -> Result<(Option<String>, bool, bool), Error> {
    let Roles(mut c, mut a, mut s) = Roles::default();
    try_join3(
        client(&mut c, password),
        authenticator(&mut a, PASSWORD, token),
        service(&mut s, SECRET),
    )
    .await
}

fn main() -> Result<(), Error> {
    for password in [PASSWORD, "guess"] {
        let (answer, _, _) = futures::executor::block_on(run(password, 0x5EED))?;
        match answer {
            Some(answer) => println!("login with {password:?}: the service says {answer:?}"),
            None => println!("login with {password:?}: denied"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn right_password_gets_the_secret() {
        let result = futures::executor::block_on(run(PASSWORD, 42)).unwrap();
        assert_eq!(result, (Some(SECRET.to_owned()), true, true));
    }

    #[test]
    fn wrong_password_is_denied() {
        for password in ["", "open sesame ", "Open sesame"] {
            let result = futures::executor::block_on(run(password, 42)).unwrap();
            assert_eq!(result, (None, false, false));
        }
    }

    /// A client that follows the protocol but forges its token: the type allows any `u64`,
    /// the service's check does not.
    async fn forger(role: &mut C) -> Result<Option<String>, Error> {
        try_session(role, |s: Client<'_, C>| async move {
            match s.send(Login(PASSWORD.to_owned())).await?.branch().await? {
                ClientChoice::Token(Token(token), s) => {
                    let s = s.send(Query(token.wrapping_add(1))).await?;
                    let (Answer(answer), end) = s.receive().await?;
                    Ok((Some(answer), end))
                }
                ClientChoice::Denied(Denied, end) => Ok((None, end)),
            }
        })
        .await
    }

    #[test]
    fn forged_token_gets_no_secret() {
        let Roles(mut c, mut a, mut s) = Roles::default();
        let result = futures::executor::block_on(try_join3(
            forger(&mut c),
            authenticator(&mut a, PASSWORD, 7),
            service(&mut s, SECRET),
        ))
        .unwrap();
        assert_eq!(result, (Some(INVALID.to_owned()), true, false));
    }

    #[test]
    fn tokio_multi_thread() {
        let runtime = mpst_examples::tokio_runtime().unwrap();
        for (password, accepted) in [(PASSWORD, true), ("nope", false)] {
            let Roles(mut c, mut a, mut s) = Roles::default();
            let (answer, ok, served) = runtime.block_on(async {
                let c = tokio::spawn(async move { client(&mut c, password).await });
                let a = tokio::spawn(async move { authenticator(&mut a, PASSWORD, 99).await });
                let s = tokio::spawn(async move { service(&mut s, SECRET).await });
                let ok = mpst_examples::joined(a).await.unwrap();
                let answer = mpst_examples::joined(c).await.unwrap();
                (answer, ok, mpst_examples::joined(s).await.unwrap())
            });
            assert_eq!(ok, accepted);
            assert_eq!(served, accepted);
            assert_eq!(answer, accepted.then(|| SECRET.to_owned()));
        }
    }
}

/// The workflows of PPoPP 2022 §2 on this example: each hand-written session type is the
/// projection of its role from `authentication.scr` (checked through serialisation, names
/// normalised, payloads compared), and the system of serialised roles is k-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("authentication.scr");
        Client<'static, C>, Authenticator<'static, A>, Service<'static, S>
    }
}
