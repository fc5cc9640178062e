//! Deadlines on in-memory channels, with any timer: a receive that gives up, a session
//! that gives up, on the futures executor (a deadline fired by hand) and on tokio (a paused
//! clock). The error names the peer and the state; the peers are released.

use std::time::Duration;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use mpst::deadline::SessionTimedOut;
use mpst::{
    Branch, End, Error, Message, Receive, ReceiveErrorKind, Role, Send, session, try_session,
    try_session_until,
};

use crate::support::declare_roles;

declare_roles!(Label over mpst::channel::Unbounded<Label>: A(B), B(A));

#[derive(Message)]
enum Label {
    Ping(Ping),
    Pong(Pong),
}

struct Ping(u32);
struct Pong(u32);

#[session]
type Ask = Send<B, Ping, Receive<B, Pong, End>>;

#[session]
type Answer = Receive<A, Ping, Send<A, Pong, End>>;

#[session]
type Choose = Branch<B, Reply>;

#[session]
enum Reply {
    Pong(Pong, End),
}

#[test]
fn a_receive_gives_up_when_its_deadline_fires_on_any_executor() {
    let Roles(mut a, mut b) = Roles::default();
    let (fire, deadline) = futures::channel::oneshot::channel::<()>();
    let mut pool = LocalPool::new();
    let asked = pool
        .spawner()
        .spawn_local_with_handle(async move {
            try_session(&mut a, |s: Ask<'_, A>| async move {
                let s = s.send(Ping(1)).await?;
                let (Pong(n), end) = s.receive().until(deadline).await?;
                Ok((n, end))
            })
            .await
        })
        .unwrap();
    // `B` takes the ping and then waits for a second message that never comes, so `A`
    // waits for its pong.
    let answered = pool
        .spawner()
        .spawn_local_with_handle(async move {
            try_session(&mut b, |s: TwoPings<'_, B>| async move {
                let (Ping(_), s) = s.receive().await?;
                let (Ping(_), s) = s.receive().await?;
                Ok(((), s.send(Pong(0)).await?))
            })
            .await
        })
        .unwrap();
    pool.run_until_stalled();
    fire.send(()).unwrap();
    let asked = pool.run_until(asked).unwrap_err();
    assert!(asked.is_timeout(), "{asked}");
    assert_eq!(
        asked.to_string(),
        "role A could not receive from B (at Receive<B, Pong, End>): timed out"
    );
    // Giving up aborted `A`: `B` is released instead of waiting forever.
    let answered = pool.run_until(answered).unwrap_err();
    assert!(answered.is_disconnected(), "{answered}");
    assert_eq!(answered.peer(), Some("A"));
}

#[session]
type TwoPings = Receive<A, Ping, Receive<A, Ping, Send<A, Pong, End>>>;

#[test]
fn a_receive_and_a_branch_within_their_deadlines_are_untouched() {
    let Roles(mut a, mut b) = Roles::default();
    let (_keep, never) = futures::channel::oneshot::channel::<()>();
    let (fire, deadline) = futures::channel::oneshot::channel::<()>();
    let mut pool = LocalPool::new();
    let answered = pool
        .spawner()
        .spawn_local_with_handle(async move {
            try_session(&mut b, |s: Answer<'_, B>| async move {
                let (Ping(n), s) = s.receive().until(never).await?;
                Ok((n, s.send(Pong(n + 1)).await?))
            })
            .await
        })
        .unwrap();
    let asked = pool
        .spawner()
        .spawn_local_with_handle(async move {
            try_session(
                &mut a,
                |s: Send<'_, A, B, Ping, Choose<'_, A>>| async move {
                    let s = s.send(Ping(41)).await?;
                    match s.branch().until(deadline).await? {
                        Reply::Pong(Pong(n), end) => Ok((n, end)),
                    }
                },
            )
            .await
        })
        .unwrap();
    pool.run_until_stalled();
    // Both steps are done before this deadline fires.
    drop(fire);
    assert_eq!(pool.run_until(answered).unwrap(), 41);
    assert_eq!(pool.run_until(asked).unwrap(), 42);
}

#[tokio::test(start_paused = true)]
async fn a_session_deadline_names_the_peer_and_state_and_releases_the_peer() {
    let Roles(mut a, mut b) = Roles::default();
    let start = tokio::time::Instant::now();
    let (asked, answered) = tokio::join!(
        try_session_until(
            &mut a,
            tokio::time::sleep(Duration::from_secs(2)),
            |s: Ask<'_, A>| async move {
                let (Pong(n), end) = s.send(Ping(1)).await?.receive().await?;
                Ok((n, end))
            }
        ),
        async {
            // `B` is slow: it answers after ten seconds, too late.
            let answered = try_session(&mut b, |s: Answer<'_, B>| async move {
                let (Ping(n), s) = s.receive().await?;
                tokio::time::sleep(Duration::from_secs(10)).await;
                Ok(((), s.send(Pong(n)).await?))
            })
            .await;
            (answered, start.elapsed())
        }
    );
    let Err(Error::Receive(error)) = asked else {
        panic!("expected a receive timeout, got {asked:?}");
    };
    assert!(matches!(error.kind, ReceiveErrorKind::TimedOut));
    assert_eq!((error.role, error.peer), ("A", "B"));
    assert_eq!(error.state_name(), "Receive<B, Pong, End>");
    // `B` learns of it at its next step with `A`, once its own work is done.
    let (answered, at) = answered;
    assert!(answered.unwrap_err().is_disconnected());
    assert_eq!(at, Duration::from_secs(10));
}

#[tokio::test(start_paused = true)]
async fn a_session_deadline_outside_any_step_is_a_session_timeout() {
    let Roles(mut a, _b) = Roles::default();
    let error = try_session_until(
        &mut a,
        tokio::time::sleep(Duration::from_millis(5)),
        |s: Ask<'_, A>| async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let (Pong(n), end) = s.send(Ping(1)).await?.receive().await?;
            Ok((n, end))
        },
    )
    .await
    .unwrap_err();
    assert!(error.is_timeout());
    let Error::Other(cause) = &error else {
        panic!("expected a session timeout, got {error}");
    };
    assert_eq!(
        cause.downcast_ref::<SessionTimedOut>(),
        Some(&SessionTimedOut { role: "A" })
    );
    assert_eq!(
        error.to_string(),
        "session aborted: the session of role A timed out"
    );
}

#[tokio::test(start_paused = true)]
async fn a_session_within_its_deadline_is_untouched() {
    let Roles(mut a, mut b) = Roles::default();
    let (asked, answered) = tokio::join!(
        try_session_until(
            &mut a,
            tokio::time::sleep(Duration::from_secs(1)),
            |s: Ask<'_, A>| async move {
                let (Pong(n), end) = s.send(Ping(1)).await?.receive().await?;
                Ok((n, end))
            }
        ),
        try_session(&mut b, |s: Answer<'_, B>| async move {
            let (Ping(n), s) = s.receive().await?;
            Ok(((), s.send(Pong(n + 1)).await?))
        })
    );
    assert_eq!(asked.unwrap(), 2);
    answered.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_branch_gives_up_with_a_tokio_timer() {
    let Roles(mut a, _b) = Roles::default();
    let start = tokio::time::Instant::now();
    let error = try_session(&mut a, |s: Choose<'_, A>| async move {
        let deadline = tokio::time::sleep(Duration::from_secs(3));
        match s.branch().until(deadline).await? {
            Reply::Pong(Pong(n), end) => Ok((n, end)),
        }
    })
    .await
    .unwrap_err();
    assert_eq!(start.elapsed(), Duration::from_secs(3));
    assert!(error.is_timeout());
    assert_eq!(
        error.to_string(),
        "role A could not receive from B (at Branch<B, Reply>): timed out"
    );
}

#[derive(Role)]
#[message(Label)]
struct Left(#[route(Right)] mpst::channel::BoundedEnd<Label>);

#[derive(Role)]
#[message(Label)]
struct Right(#[route(Left)] mpst::channel::BoundedEnd<Label>);

#[session]
type Flood = Send<Right, Ping, Send<Right, Ping, Send<Right, Ping, End>>>;

#[test]
fn a_session_deadline_names_a_send_stuck_on_a_full_channel() {
    // Capacity 0 lets one message through; nobody receives, so the second send waits.
    let (left, right) = mpst::channel::bounded(0);
    let (mut left, _right) = (Left(left), Right(right));
    let (fire, deadline) = futures::channel::oneshot::channel::<()>();
    let mut pool = LocalPool::new();
    let flood = pool
        .spawner()
        .spawn_local_with_handle(async move {
            try_session_until(&mut left, deadline, |s: Flood<'_, Left>| async move {
                let s = s.send(Ping(1)).await?.send(Ping(2)).await?;
                Ok(((), s.send(Ping(3)).await?))
            })
            .await
        })
        .unwrap();
    pool.run_until_stalled();
    fire.send(()).unwrap();
    let error = pool.run_until(flood).unwrap_err();
    assert!(error.is_timeout(), "{error}");
    let Error::Send(error) = error else {
        panic!("expected a send timeout, got {error}");
    };
    assert_eq!(
        (error.role, error.peer, error.label),
        ("Left", "Right", Some("Ping"))
    );
    assert!(matches!(error.kind, mpst::SendErrorKind::TimedOut));
    assert_eq!(
        error.to_string(),
        "role Left could not send label Ping to Right (at Send<Right, Ping, Send<Right, \
         Ping, End>>): timed out"
    );
}
