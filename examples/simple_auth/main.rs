//! Simple authentication, top-down without a CLI step: the session API of protocol
//! `SimpleAuth` is generated at build time from `simple_auth.scr` (`examples/build.rs`;
//! the file also defines `Credentials`, inlined with `do`) and each role below is a
//! hand-written process against it.
//!
//! The client `C` sends a username and a password; the server `S` accepts them (`ok`),
//! lets the client try again (`retry`) or, after too many attempts, denies access.
//!
//! `cargo run -p mpst-examples --example simple_auth` logs in after a typo.

use futures::executor::block_on;
use futures::future::try_join;
use mpst::{Error, try_session};

/// The generated API of protocol `SimpleAuth` of `simple_auth.scr`.
mod api {
    include!(concat!(env!("OUT_DIR"), "/simple_auth_simpleauth.rs"));
}

use api::{C, CAfterPasswordChoice, CSession, Deny, Password, Retry, Roles, S, SSession, Username};

/// How the session ended, with the number of attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Logged in.
    LoggedIn(usize),
    /// Denied.
    Denied(usize),
}

/// The client: tries `passwords` in turn for `user` (starting over when it runs out),
/// as long as the server lets it.
async fn client(role: &mut C, user: &str, passwords: &[&str]) -> Result<Verdict, Error> {
    try_session(role, |mut s: CSession<'_, C>| async move {
        let mut attempts = 0;
        loop {
            let password = match passwords {
                [] => "",
                _ => passwords[attempts % passwords.len()],
            };
            attempts += 1;
            let next = s.into_session().send(Username(user.to_owned())).await?;
            match next
                .send(Password(password.to_owned()))
                .await?
                .branch()
                .await?
            {
                CAfterPasswordChoice::Ok(api::Ok, end) => {
                    return Ok((Verdict::LoggedIn(attempts), end));
                }
                CAfterPasswordChoice::Deny(Deny, end) => {
                    return Ok((Verdict::Denied(attempts), end));
                }
                CAfterPasswordChoice::Retry(Retry, next) => s = next,
            }
        }
    })
    .await
}

/// The server: knows one user and password; allows `max_attempts` attempts. Returns the
/// usernames it was sent.
async fn server(
    role: &mut S,
    (user, password): (&str, &str),
    max_attempts: usize,
) -> Result<Vec<String>, Error> {
    try_session(role, |mut s: SSession<'_, S>| async move {
        let mut seen = Vec::new();
        loop {
            let (Username(given_user), next) = s.into_session().receive().await?;
            let (Password(given), next) = next.receive().await?;
            let right = given_user == user && given == password;
            seen.push(given_user);
            if right {
                return Ok((seen, next.select(api::Ok).await?));
            }
            if seen.len() >= max_attempts {
                return Ok((seen, next.select(Deny).await?));
            }
            s = next.select(Retry).await?;
        }
    })
    .await
}

/// Runs one login of `user` trying `passwords` against the account `ada`/`lovelace`.
fn login(user: &str, passwords: &[&str], max_attempts: usize) -> (Verdict, Vec<String>) {
    let Roles { mut c, mut s } = Roles::default();
    block_on(try_join(
        client(&mut c, user, passwords),
        server(&mut s, ("ada", "lovelace"), max_attempts),
    ))
    .unwrap_or_else(|error| panic!("simple auth failed: {error}"))
}

fn main() {
    println!("{:?}", login("ada", &["lovelase", "lovelace"], 3));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_in_after_retrying() {
        let (verdict, seen) = login("ada", &["lovelase", "lovelace"], 3);
        assert_eq!(verdict, Verdict::LoggedIn(2));
        assert_eq!(seen, ["ada", "ada"]);
    }

    #[test]
    fn is_denied_after_too_many_attempts() {
        assert_eq!(login("ada", &["x", "y"], 3).0, Verdict::Denied(3));
        assert_eq!(login("bob", &["lovelace"], 1).0, Verdict::Denied(1));
    }
}

/// The workflows of PPoPP 2022 §2 on this example: the generated API is the projection of
/// `simple_auth.scr` onto each role (checked through serialisation, names normalised, payloads
/// compared), and the system of serialised roles is 1-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("simple_auth.scr"), protocol = "SimpleAuth";
        CSession<'static, C>, SSession<'static, S>
    }
}
