//! Ring max, top-down without a CLI step: the session API is generated at build time from
//! `ring_max.scr` (`examples/build.rs`) and each role below is a hand-written process
//! against it.
//!
//! Each of the four roles holds a number. The running maximum goes round the ring
//! `A -> B -> C -> D -> A`; then `A` sends the result round once more, so every role
//! learns the maximum.
//!
//! `cargo run -p mpst-examples --example ring_max` prints what every role learnt.

use futures::executor::block_on;
use futures::future::try_join4;
use mpst::{Error, try_session};

/// The generated API of `ring_max.scr`.
mod api {
    include!(concat!(env!("OUT_DIR"), "/ring_max.rs"));
}

use api::{A, ASession, B, BSession, C, CSession, D, DSession, Max, Result as Maximum, Roles};

/// `A`: starts the running maximum with its number, learns the maximum from `D` and
/// sends it round.
async fn role_a(role: &mut A, mine: i32) -> Result<i32, Error> {
    try_session(role, |s: ASession<'_, A>| async move {
        let (Max(max), s) = s.send(Max(mine)).await?.receive().await?;
        Ok((max, s.send(Maximum(max)).await?))
    })
    .await
}

/// `B`: passes on the larger of the running maximum and its number, then the result.
async fn role_b(role: &mut B, mine: i32) -> Result<i32, Error> {
    try_session(role, |s: BSession<'_, B>| async move {
        let (Max(max), s) = s.receive().await?;
        let (Maximum(result), s) = s.send(Max(max.max(mine))).await?.receive().await?;
        Ok((result, s.send(Maximum(result)).await?))
    })
    .await
}

/// `C`: as `B`.
async fn role_c(role: &mut C, mine: i32) -> Result<i32, Error> {
    try_session(role, |s: CSession<'_, C>| async move {
        let (Max(max), s) = s.receive().await?;
        let (Maximum(result), s) = s.send(Max(max.max(mine))).await?.receive().await?;
        Ok((result, s.send(Maximum(result)).await?))
    })
    .await
}

/// `D`: closes the ring; the last to learn the result.
async fn role_d(role: &mut D, mine: i32) -> Result<i32, Error> {
    try_session(role, |s: DSession<'_, D>| async move {
        let (Max(max), s) = s.receive().await?;
        let (Maximum(result), end) = s.send(Max(max.max(mine))).await?.receive().await?;
        Ok((result, end))
    })
    .await
}

/// What each of `A`, `B`, `C`, `D` learnt, holding `numbers` in that order.
fn ring_max(numbers: [i32; 4]) -> [i32; 4] {
    let Roles {
        mut a,
        mut b,
        mut c,
        mut d,
    } = Roles::default();
    let (a, b, c, d) = block_on(try_join4(
        role_a(&mut a, numbers[0]),
        role_b(&mut b, numbers[1]),
        role_c(&mut c, numbers[2]),
        role_d(&mut d, numbers[3]),
    ))
    .unwrap_or_else(|error| panic!("ring max failed: {error}"));
    [a, b, c, d]
}

fn main() {
    println!("{:?}", ring_max([3, 41, -7, 12]));
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
            mut d,
        } = Roles::default();
        let learnt = runtime.block_on(async {
            let tasks = [
                tokio::spawn(async move { role_a(&mut a, 5).await }),
                tokio::spawn(async move { role_b(&mut b, 17).await }),
                tokio::spawn(async move { role_c(&mut c, -3).await }),
                tokio::spawn(async move { role_d(&mut d, 16).await }),
            ];
            mpst_examples::joined_all(tasks).await.unwrap()
        });
        assert_eq!(learnt, [17; 4]);
    }

    #[test]
    fn every_role_learns_the_maximum_wherever_it_is() {
        for numbers in [
            [3, 41, -7, 12],
            [50, 1, 2, 3],
            [-1, -2, -3, -4],
            [0, 0, 0, 9],
        ] {
            let max = numbers.iter().copied().max().unwrap();
            assert_eq!(ring_max(numbers), [max; 4], "{numbers:?}");
        }
    }
}

/// The workflows of PPoPP 2022 §2 on this example: the generated API is the projection of
/// `ring_max.scr` onto each role (checked through serialisation, names normalised, payloads
/// compared), and the system of serialised roles is 1-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("ring_max.scr");
        ASession<'static, A>, BSession<'static, B>, CSession<'static, C>, DSession<'static, D>
    }
}
