//! OAuth (after nuscr's example), top-down without a CLI step: the session API is
//! generated at build time from `oauth.scr` (`examples/build.rs`) and each role below is a
//! hand-written process against it.
//!
//! The service `S` either asks the client `C` to log in — `C` sends its password to the
//! authorisation server `A`, which grants a token to both or refuses both — or cancels,
//! and `C` tells `A` it quits.
//!
//! `cargo run -p mpst-examples --example oauth` logs in with a right and a wrong password.

use futures::executor::block_on;
use futures::future::try_join3;
use mpst::{Error, try_session};

/// The generated API of `oauth.scr`.
mod api {
    include!(concat!(env!("OUT_DIR"), "/oauth.rs"));
}

use api::*;

/// What a role ended with: the token it was given, or none.
type Token = Option<String>;

/// The service: cancels, or has the client log in. Returns the token it got.
async fn service(role: &mut S, cancel: bool) -> Result<Token, Error> {
    try_session(role, |s: SSession<'_, S>| async move {
        if cancel {
            return Ok((None, s.select(Cancel).await?));
        }
        match s.select(Login).await?.branch().await? {
            SLoginChoice::Auth(Auth(token), end) => Ok((Some(token), end)),
            SLoginChoice::Refused(Refused, end) => Ok((None, end)),
        }
    })
    .await
}

/// The client: logs in with `password` when asked. Returns the token it got.
async fn client(role: &mut C, password: &str) -> Result<Token, Error> {
    try_session(role, |s: CSession<'_, C>| async move {
        match s.branch().await? {
            CSessionChoice::Cancel(Cancel, s) => Ok((None, s.send(Quit).await?)),
            CSessionChoice::Login(Login, s) => {
                match s
                    .send(Password(password.to_owned()))
                    .await?
                    .branch()
                    .await?
                {
                    CLoginAfterPasswordChoice::Auth(Auth(token), end) => Ok((Some(token), end)),
                    CLoginAfterPasswordChoice::Refused(Refused, end) => Ok((None, end)),
                }
            }
        }
    })
    .await
}

/// The authorisation server: grants a token derived from the password when it is
/// `secret`. Returns the token it issued.
async fn authoriser(role: &mut A, secret: &str) -> Result<Token, Error> {
    try_session(role, |s: ASession<'_, A>| async move {
        match s.branch().await? {
            ASessionChoice::Quit(Quit, end) => Ok((None, end)),
            ASessionChoice::Password(Password(given), s) if given == secret => {
                let token = format!("token-{}", given.len());
                let s = s.select(Auth(token.clone())).await?;
                Ok((Some(token.clone()), s.send(Auth(token)).await?))
            }
            ASessionChoice::Password(_, s) => {
                Ok((None, s.select(Refused).await?.send(Refused).await?))
            }
        }
    })
    .await
}

/// Runs one session: (service's, client's, authoriser's token).
fn run(cancel: bool, password: &str) -> (Token, Token, Token) {
    let Roles {
        mut a,
        mut c,
        mut s,
    } = Roles::default();
    block_on(try_join3(
        service(&mut s, cancel),
        client(&mut c, password),
        authoriser(&mut a, "hunter2"),
    ))
    .unwrap_or_else(|error| panic!("OAuth failed: {error}"))
}

fn main() {
    println!("right password: {:?}", run(false, "hunter2"));
    println!("wrong password: {:?}", run(false, "hunter3"));
    println!("cancelled: {:?}", run(true, "hunter2"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokio_multi_thread() {
        let runtime = mpst_examples::tokio_runtime().unwrap();
        let Roles {
            mut a,
            mut c,
            mut s,
        } = Roles::default();
        let tokens = runtime.block_on(async {
            let s = tokio::spawn(async move { service(&mut s, false).await });
            let c = tokio::spawn(async move { client(&mut c, "hunter2").await });
            let a = tokio::spawn(async move { authoriser(&mut a, "hunter2").await });
            [
                mpst_examples::joined(s).await.unwrap(),
                mpst_examples::joined(c).await.unwrap(),
                mpst_examples::joined(a).await.unwrap(),
            ]
        });
        assert_eq!(
            tokens,
            [
                Some("token-7".to_owned()),
                Some("token-7".to_owned()),
                Some("token-7".to_owned())
            ]
        );
    }

    #[test]
    fn the_right_password_gives_both_the_same_token() {
        let token = Some("token-7".to_owned());
        assert_eq!(run(false, "hunter2"), (token.clone(), token.clone(), token));
    }

    #[test]
    fn a_wrong_password_or_a_cancel_gives_no_token() {
        assert_eq!(run(false, "hunter3"), (None, None, None));
        assert_eq!(run(true, "hunter2"), (None, None, None));
    }
}

/// The workflows of PPoPP 2022 §2 on this example: the generated API is the projection of
/// `oauth.scr` onto each role (checked through serialisation, names normalised, payloads
/// compared), and the system of serialised roles is 1-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("oauth.scr"); ASession<'static, A>, CSession<'static, C>, SSession<'static, S>
    }
}
