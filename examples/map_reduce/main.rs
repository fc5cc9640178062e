//! Map-reduce, top-down without a CLI step: the session API is generated at build time
//! from `map_reduce.scr` (`examples/build.rs`) and each role below is a hand-written
//! process against it.
//!
//! The master `M` sums the squares of a list of numbers with three workers: each round it
//! maps one number to each worker, reduces their squares into the total, and when the
//! list is used up tells every worker it is done.
//!
//! `cargo run -p mpst-examples --example map_reduce` sums the squares of 1..=9.

use futures::executor::block_on;
use futures::future::try_join4;
use mpst::{Error, try_session};

/// The generated API of `map_reduce.scr`.
mod api {
    include!(concat!(env!("OUT_DIR"), "/map_reduce.rs"));
}

use api::*;

/// The master: maps `numbers` three at a time (padding the last round with zeros) and
/// returns the sum of their squares.
async fn master(role: &mut M, numbers: &[i32]) -> Result<i32, Error> {
    try_session(role, |mut s: MSession<'_, M>| async move {
        let mut total = 0;
        for round in numbers.chunks(3) {
            let item = |i: usize| round.get(i).copied().unwrap_or(0);
            let next = s.select(Map(item(0))).await?;
            let next = next.send(Map(item(1))).await?.send(Map(item(2))).await?;
            let (Reduce(x), next) = next.receive().await?;
            let (Reduce(y), next) = next.receive().await?;
            let (Reduce(z), next) = next.receive().await?;
            total += x + y + z;
            s = next;
        }
        let end = s.select(Done).await?.send(Done).await?.send(Done).await?;
        Ok((total, end))
    })
    .await
}

/// A worker's job: square what it is given. Returns how many items it squared.
macro_rules! worker {
    ($name:ident, $role:ident, $session:ident, $choice:ident) => {
        /// A worker: squares every number it is mapped until it is done.
        async fn $name(role: &mut $role) -> Result<usize, Error> {
            try_session(role, |mut s: $session<'_, $role>| async move {
                let mut items = 0;
                loop {
                    match s.branch().await? {
                        $choice::Map(Map(x), next) => {
                            items += 1;
                            s = next.send(Reduce(x * x)).await?;
                        }
                        $choice::Done(Done, end) => return Ok((items, end)),
                    }
                }
            })
            .await
        }
    };
}

worker!(worker_1, W1, W1Session, W1SessionChoice);
worker!(worker_2, W2, W2Session, W2SessionChoice);
worker!(worker_3, W3, W3Session, W3SessionChoice);

/// Sums the squares of `numbers`; also returns how many items each worker squared.
fn sum_of_squares(numbers: &[i32]) -> (i32, [usize; 3]) {
    let Roles {
        mut m,
        mut w1,
        mut w2,
        mut w3,
    } = Roles::default();
    let (total, x, y, z) = block_on(try_join4(
        master(&mut m, numbers),
        worker_1(&mut w1),
        worker_2(&mut w2),
        worker_3(&mut w3),
    ))
    .unwrap_or_else(|error| panic!("map-reduce failed: {error}"));
    (total, [x, y, z])
}

fn main() {
    let numbers: Vec<i32> = (1..=9).collect();
    println!(
        "sum of squares of {numbers:?}: {:?}",
        sum_of_squares(&numbers)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokio_multi_thread() {
        let runtime = mpst_examples::tokio_runtime().unwrap();
        let Roles {
            mut m,
            mut w1,
            mut w2,
            mut w3,
        } = Roles::default();
        let numbers: Vec<i32> = (1..=100).collect();
        let expected: i32 = numbers.iter().map(|x| x * x).sum();
        let (total, items) = runtime.block_on(async move {
            let master = tokio::spawn(async move { master(&mut m, &numbers).await });
            let workers = [
                tokio::spawn(async move { worker_1(&mut w1).await }),
                tokio::spawn(async move { worker_2(&mut w2).await }),
                tokio::spawn(async move { worker_3(&mut w3).await }),
            ];
            let items = mpst_examples::joined_all(workers).await.unwrap();
            (mpst_examples::joined(master).await.unwrap(), items)
        });
        assert_eq!(total, expected);
        assert_eq!(items, [34, 34, 34]);
    }

    #[test]
    fn sums_squares_in_rounds_of_three() {
        let numbers: Vec<i32> = (1..=10).collect();
        let expected: i32 = numbers.iter().map(|x| x * x).sum();
        assert_eq!(sum_of_squares(&numbers), (expected, [4, 4, 4]));
    }

    #[test]
    fn an_empty_list_is_done_at_once() {
        assert_eq!(sum_of_squares(&[]), (0, [0, 0, 0]));
    }
}

/// The workflows of PPoPP 2022 §2 on this example: the generated API is the projection of
/// `map_reduce.scr` onto each role (checked through serialisation, names normalised, payloads
/// compared), and the system of serialised roles is 1-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("map_reduce.scr");
        MSession<'static, M>, W1Session<'static, W1>, W2Session<'static, W2>, W3Session<'static, W3>
    }
}
