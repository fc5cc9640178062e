//! Plus or minus, top-down without a CLI step: the session API is generated at build time
//! from `plus_minus.scr` (`examples/build.rs`) and each role below is a hand-written
//! process against it.
//!
//! `A` tells `B` a secret number; `C` guesses by bisection and `B` answers `more`, `less`
//! or `correct`, keeping `A` informed. The label `correct` is overloaded: it carries the
//! secret to `A` and nothing to `C`. The generator gives the two messages two Rust types,
//! `Correct` and `CorrectI32`, that both travel as label `correct`.
//!
//! `cargo run -p mpst-examples --example plus_minus` guesses 42 in 0..=100.

use futures::executor::block_on;
use futures::future::try_join3;
use mpst::{Error, try_session};

/// The generated API of `plus_minus.scr`.
mod api {
    include!(concat!(env!("OUT_DIR"), "/plus_minus.rs"));
}

use api::*;

/// `A`: tells the secret; returns how many hints it saw before `correct`, and the secret
/// `B` confirmed.
async fn watcher(role: &mut A, secret: i32) -> Result<(usize, i32), Error> {
    try_session(role, |s: ASession<'_, A>| async move {
        let mut s = s.send(Secret(secret)).await?;
        let mut hints = 0;
        loop {
            match s.branch().await? {
                ALoopChoice::More(More, next) | ALoopChoice::Less(Less, next) => {
                    hints += 1;
                    s = next;
                }
                ALoopChoice::CorrectI32(CorrectI32(n), end) => return Ok(((hints, n), end)),
            }
        }
    })
    .await
}

/// `B`: answers each guess against the secret.
async fn keeper(role: &mut B) -> Result<(), Error> {
    try_session(role, |s: BSession<'_, B>| async move {
        let (Secret(secret), mut s) = s.receive().await?;
        loop {
            let (Guess(guess), next) = s.into_session().receive().await?;
            s = match guess.cmp(&secret) {
                std::cmp::Ordering::Less => next.select(More).await?.send(More).await?,
                std::cmp::Ordering::Greater => next.select(Less).await?.send(Less).await?,
                std::cmp::Ordering::Equal => {
                    let end = next.select(Correct).await?.send(CorrectI32(secret)).await?;
                    return Ok(((), end));
                }
            };
        }
    })
    .await
}

/// `C`: bisects `low..=high`; returns its guesses.
async fn guesser(role: &mut C, mut low: i32, mut high: i32) -> Result<Vec<i32>, Error> {
    try_session(role, |mut s: CSession<'_, C>| async move {
        let mut guesses = Vec::new();
        loop {
            let guess = low + (high - low) / 2;
            guesses.push(guess);
            match s.into_session().send(Guess(guess)).await?.branch().await? {
                CAfterGuessChoice::More(More, next) => (low, s) = (guess + 1, next),
                CAfterGuessChoice::Less(Less, next) => (high, s) = (guess - 1, next),
                CAfterGuessChoice::Correct(Correct, end) => return Ok((guesses, end)),
            }
        }
    })
    .await
}

/// Plays one game: (`A`'s hint count and confirmed secret, `C`'s guesses).
fn play(secret: i32, low: i32, high: i32) -> ((usize, i32), Vec<i32>) {
    let Roles {
        mut a,
        mut b,
        mut c,
    } = Roles::default();
    let (watched, (), guesses) = block_on(try_join3(
        watcher(&mut a, secret),
        keeper(&mut b),
        guesser(&mut c, low, high),
    ))
    .unwrap_or_else(|error| panic!("plus or minus failed: {error}"));
    (watched, guesses)
}

fn main() {
    println!("{:?}", play(42, 0, 100));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokio_multi_thread() {
        let runtime = mpst_examples::tokio_runtime().unwrap();
        let Roles {
            mut a,
            mut b,
            mut c,
        } = Roles::default();
        let (watched, guesses) = runtime.block_on(async {
            let a = tokio::spawn(async move { watcher(&mut a, 777).await });
            let b = tokio::spawn(async move { keeper(&mut b).await });
            let c = tokio::spawn(async move { guesser(&mut c, 0, 1000).await });
            mpst_examples::joined(b).await.unwrap();
            (
                mpst_examples::joined(a).await.unwrap(),
                mpst_examples::joined(c).await.unwrap(),
            )
        });
        assert_eq!(watched, (guesses.len() - 1, 777));
        assert_eq!(guesses.last(), Some(&777));
    }

    #[test]
    fn the_guesser_finds_the_secret_and_the_watcher_sees_every_hint() {
        for secret in [0, 1, 42, 99, 100] {
            let ((hints, confirmed), guesses) = play(secret, 0, 100);
            assert_eq!(confirmed, secret);
            assert_eq!(guesses.last(), Some(&secret));
            assert_eq!(hints, guesses.len() - 1);
            assert!(guesses.len() <= 7, "bisection of 101 numbers: {guesses:?}");
        }
    }
}

/// The workflows of PPoPP 2022 §2 on this example: the generated API is the projection of
/// `plus_minus.scr` onto each role (checked through serialisation, names normalised, payloads
/// compared), and the system of serialised roles is 1-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("plus_minus.scr");
        ASession<'static, A>, BSession<'static, B>, CSession<'static, C>
    }
}
