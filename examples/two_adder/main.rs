//! Two adder (nuscr's `Adder`; PPoPP 2022 Table 1): two roles, choice and recursion.
//!
//! Protocol (`two_adder.scr`): the client `C` repeatedly chooses either to send two
//! numbers (`add`, `add`) to the server `S` and get back their `sum`, or to say `bye`, which
//! `S` acknowledges with `bye` and the session ends.
//!
//! Roles: `C` (client, makes the choice), `S` (server). The session types below are the
//! projections of `two_adder.scr` onto `C` and `S`, written by hand (top-down workflow).
//!
//! `cargo run -p mpst-examples --example two_adder` sums a few pairs and prints the sums.

use futures::future::try_join;
use mpst::{
    Branch, End, Error, Message, Payload, Receive, Role, Roles, Select, Send, session, try_session,
};

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
    Bye(Bye),
}

#[derive(Payload)]
struct Add(i32);
#[derive(Payload)]
struct Sum(i32);
#[derive(Payload)]
struct Bye;

#[session]
type Client = Select<S, ClientChoice>;

#[session]
enum ClientChoice {
    Add(Add, Send<S, Add, Receive<S, Sum, Client>>),
    Bye(Bye, Receive<S, Bye, End>),
}

#[session]
type Server = Branch<C, ServerChoice>;

#[session]
enum ServerChoice {
    Add(Add, Receive<C, Add, Send<C, Sum, Server>>),
    Bye(Bye, Send<C, Bye, End>),
}

/// The client: asks for the sum of every pair, then says bye. Returns the sums.
async fn client(role: &mut C, pairs: &[(i32, i32)]) -> Result<Vec<i32>, Error> {
    try_session(role, |mut s: Client<'_, C>| async move {
        let mut sums = Vec::with_capacity(pairs.len());
        for &(x, y) in pairs {
            let t = s.select(Add(x)).await?.send(Add(y)).await?;
            let (Sum(sum), t) = t.receive().await?;
            sums.push(sum);
            s = t;
        }
        let (Bye, end) = s.select(Bye).await?.receive().await?;
        Ok((sums, end))
    })
    .await
}

/// The server: answers every pair with its sum until the client says bye. Returns how
/// many sums it computed.
async fn server(role: &mut S) -> Result<usize, Error> {
    try_session(role, |mut s: Server<'_, S>| async move {
        let mut served = 0;
        loop {
            s = match s.branch().await? {
                ServerChoice::Add(Add(x), t) => {
                    let (Add(y), t) = t.receive().await?;
                    served += 1;
                    t.send(Sum(x.wrapping_add(y))).await?
                }
                ServerChoice::Bye(Bye, t) => return Ok((served, t.send(Bye).await?)),
            }
        }
    })
    .await
}

/// Runs both roles in one future (any executor). Returns the client's sums and the count
/// of sums the server computed.
async fn run(pairs: &[(i32, i32)]) -> Result<(Vec<i32>, usize), Error> {
    let Roles(mut c, mut s) = Roles::default();
    try_join(client(&mut c, pairs), server(&mut s)).await
}

fn main() -> Result<(), Error> {
    let pairs = [(1, 2), (30, 12), (-5, 5)];
    let (sums, served) = futures::executor::block_on(run(&pairs))?;
    for ((x, y), sum) in pairs.iter().zip(&sums) {
        println!("{x} + {y} = {sum}");
    }
    println!("the server computed {served} sums");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs() -> Vec<(i32, i32)> {
        (0..50).map(|i| (i * 7 - 100, 3 * i + 1)).collect()
    }

    fn expected(pairs: &[(i32, i32)]) -> Vec<i32> {
        pairs.iter().map(|&(x, y)| x + y).collect()
    }

    #[test]
    fn futures_executor() {
        let pairs = pairs();
        let (sums, served) = futures::executor::block_on(run(&pairs)).unwrap();
        assert_eq!(sums, expected(&pairs));
        assert_eq!(served, pairs.len());
    }

    #[test]
    fn no_pairs_ends_with_bye() {
        let (sums, served) = futures::executor::block_on(run(&[])).unwrap();
        assert!(sums.is_empty());
        assert_eq!(served, 0);
    }

    #[test]
    fn tokio_multi_thread() {
        let runtime = mpst_examples::tokio_runtime().unwrap();
        let pairs = pairs();
        let Roles(mut c, mut s) = Roles::default();
        let (sums, served) = runtime.block_on(async {
            let input = pairs.clone();
            let c = tokio::spawn(async move { client(&mut c, &input).await });
            let s = tokio::spawn(async move { server(&mut s).await });
            (
                mpst_examples::joined(c).await,
                mpst_examples::joined(s).await,
            )
        });
        assert_eq!(sums.unwrap(), expected(&pairs));
        assert_eq!(served.unwrap(), pairs.len());
    }

    #[test]
    fn roles_are_reused_across_sessions() {
        let Roles(mut c, mut s) = Roles::default();
        futures::executor::block_on(async {
            for n in 0..5 {
                let pairs: Vec<_> = (0..n).map(|i| (i, n)).collect();
                let (sums, served) = try_join(client(&mut c, &pairs), server(&mut s))
                    .await
                    .unwrap();
                assert_eq!(sums, expected(&pairs));
                assert_eq!(served, pairs.len());
            }
        });
    }
}

/// The workflows of PPoPP 2022 §2 on this example: each hand-written session type is the
/// projection of its role from `two_adder.scr` (checked through serialisation, names
/// normalised, payloads compared), and the system of serialised roles is k-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("two_adder.scr"); Client<'static, C>, Server<'static, S>
    }
}
