//! Two-role adder: the smallest complete protocol, run on every supported executor.

use mpst::{End, Message, Receive, Send, session, try_session};

use crate::support::declare_roles;

declare_roles!(Label over mpst::channel::Unbounded<Label>: A(B), B(A));

#[derive(Message)]
enum Label {
    Add(Add),
    Sum(Sum),
}

struct Add(i32);
struct Sum(i32);

#[session]
type AdderA = Send<B, Add, Send<B, Add, Receive<B, Sum, End>>>;

#[session]
type AdderB = Receive<A, Add, Receive<A, Add, Send<A, Sum, End>>>;

async fn adder_a(role: &mut A, x: i32, y: i32) -> Result<i32, mpst::Error> {
    try_session(role, |s: AdderA<'_, A>| async move {
        let s = s.send(Add(x)).await?;
        let s = s.send(Add(y)).await?;
        let (Sum(sum), s) = s.receive().await?;
        Ok((sum, s))
    })
    .await
}

async fn adder_b(role: &mut B) -> Result<(), mpst::Error> {
    try_session(role, |s: AdderB<'_, B>| async move {
        let (Add(x), s) = s.receive().await?;
        let (Add(y), s) = s.receive().await?;
        let s = s.send(Sum(x + y)).await?;
        Ok(((), s))
    })
    .await
}

#[test]
fn futures_executor() {
    let Roles(mut a, mut b) = Roles::default();
    let (sum, done) = futures::executor::block_on(async {
        futures::join!(adder_a(&mut a, 2, 3), adder_b(&mut b))
    });
    assert_eq!(sum.unwrap(), 5);
    done.unwrap();
}

#[test]
fn roles_are_reusable_across_sessions() {
    let Roles(mut a, mut b) = Roles::default();
    futures::executor::block_on(async {
        for i in 0..10 {
            let (sum, done) = futures::join!(adder_a(&mut a, i, 2 * i), adder_b(&mut b));
            assert_eq!(sum.unwrap(), 3 * i);
            done.unwrap();
        }
    });
}

#[test]
fn tokio_current_thread() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let Roles(mut a, mut b) = Roles::default();
    let (sum, done) =
        runtime.block_on(async { tokio::join!(adder_a(&mut a, 40, 2), adder_b(&mut b)) });
    assert_eq!(sum.unwrap(), 42);
    done.unwrap();
}

#[test]
fn tokio_multi_thread() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let Roles(mut a, mut b) = Roles::default();
    runtime.block_on(async {
        let a = tokio::spawn(async move { adder_a(&mut a, -7, 10).await });
        let b = tokio::spawn(async move { adder_b(&mut b).await });
        assert_eq!(a.await.unwrap().unwrap(), 3);
        b.await.unwrap().unwrap();
    });
}

#[test]
fn hand_wired_channels() {
    let (ab, ba) = mpst::channel::unbounded::<Label>();
    let (mut a, mut b) = (A(ab), B(ba));
    let route: &mut mpst::channel::Spsc<_> = <A as mpst::Route<B>>::route(&mut a);
    assert!(!route.is_aborted() && !route.is_closed());
    let (sum, done) = futures::executor::block_on(async {
        futures::join!(adder_a(&mut a, 1, 1), adder_b(&mut b))
    });
    assert_eq!(sum.unwrap(), 2);
    done.unwrap();
}
