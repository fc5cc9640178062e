//! Failure signalling in memory: a session that fails or is dropped before `End` makes its
//! peers' receives fail promptly with an error naming it, and a cancelled session never
//! leaks a message into the next session on the same roles.

use futures::FutureExt;
use mpst::channel::ChannelError;
use mpst::{End, Error, ReceiveErrorKind, SendErrorKind, try_session};

use crate::support::{adder, declare_roles, run_until_stalled};

declare_roles!(Label over mpst::channel::Unbounded<Label>: C(S, W), S(C, W), W(C, S));

// The README's adder between `C` and `S`; `W` is a bystander for the three-role cases.
adder!();

fn expect_disconnected_from(error: Error, role: &str, peer: &str) {
    assert!(error.is_disconnected(), "{error}");
    assert_eq!(error.peer(), Some(peer), "{error}");
    let Error::Receive(error) = error else {
        panic!("expected a receive error, got {error}");
    };
    assert_eq!((error.role, error.peer), (role, peer));
    assert!(error.to_string().contains(&format!("{peer} disconnected")));
}

#[test]
fn join_of_a_role_that_fails_early_ends_instead_of_hanging() {
    // The README's `join!`, with a client that gives up before sending anything.
    let Roles(mut c, mut s, _w) = Roles::default();
    let (client, server) = run_until_stalled(async move {
        futures::join!(
            try_session(&mut c, |_: Client<'_, C>| async move {
                Err::<(i32, End<'_, C>), _>(Error::other("no numbers today"))
            }),
            server(&mut s)
        )
    });
    assert_eq!(
        client.unwrap_err().to_string(),
        "session aborted: no numbers today"
    );
    expect_disconnected_from(server.unwrap_err(), "S", "C");
}

#[test]
fn a_failure_half_way_spreads_to_the_peer_waiting_on_it() {
    // The client sends one number, then fails: the server has the first number and waits
    // for the second.
    let Roles(mut c, mut s, _w) = Roles::default();
    let (client, server) = run_until_stalled(async move {
        futures::join!(
            try_session(&mut c, |s: Client<'_, C>| async move {
                let _s = s.send(Add(1)).await?;
                Err::<(i32, End<'_, C>), _>(Error::other("changed my mind"))
            }),
            server(&mut s)
        )
    });
    assert!(client.is_err());
    let error = server.unwrap_err();
    expect_disconnected_from(error, "S", "C");
}

#[test]
fn a_dropped_session_future_releases_the_peer_blocked_on_it() {
    let Roles(mut c, mut s, _w) = Roles::default();
    // The server starts first and waits for the client's first number.
    let mut server = Box::pin(server(&mut s));
    assert!((&mut server).now_or_never().is_none());
    // The client's session starts and is dropped before it sends anything, as a timeout
    // or a `select!` would drop it.
    let mut client = Box::pin(try_session(&mut c, |s: Client<'_, C>| async move {
        std::future::pending::<()>().await;
        let (Sum(sum), end) = s.send(Add(1)).await?.send(Add(2)).await?.receive().await?;
        Ok((sum, end))
    }));
    assert!((&mut client).now_or_never().is_none());
    drop(client);
    let error = server
        .now_or_never()
        .expect("the server's pending receive fails as soon as the client is gone")
        .unwrap_err();
    expect_disconnected_from(error, "S", "C");
}

#[tokio::test(start_paused = true)]
async fn a_session_dropped_by_a_timeout_releases_its_peer_promptly() {
    use std::time::Duration;
    let Roles(mut c, mut s, _w) = Roles::default();
    let start = tokio::time::Instant::now();
    let (client, (server, failed_at)) = tokio::join!(
        // The client sends its first number, then works slowly; a timeout drops it.
        tokio::time::timeout(
            Duration::from_secs(1),
            try_session(&mut c, |s: Client<'_, C>| async move {
                let s = s.send(Add(1)).await?;
                tokio::time::sleep(Duration::from_secs(10)).await;
                let (Sum(sum), end) = s.send(Add(2)).await?.receive().await?;
                Ok((sum, end))
            })
        ),
        async {
            // A hang would be a timeout here (the paused clock jumps to it at once).
            let server = tokio::time::timeout(Duration::from_secs(60), server(&mut s)).await;
            (server, start.elapsed())
        },
    );
    assert!(client.is_err(), "the client's session timed out");
    let server = server.expect("the server does not wait for the dropped client");
    expect_disconnected_from(server.unwrap_err(), "S", "C");
    assert_eq!(
        failed_at,
        Duration::from_secs(1),
        "it fails when the client is dropped"
    );
}

/// What a later session on the same roles may give: the right answer or clear errors.
fn assert_right_or_clear(client: Result<i32, Error>, server: Result<i32, Error>, right: i32) {
    match (client, server) {
        (Ok(sum), Ok(seen)) => assert_eq!((sum, seen), (right, right), "a wrong answer"),
        (client, server) => {
            for result in [client, server] {
                if let Err(error) = result {
                    let clear = error.is_disconnected()
                        || error
                            .to_string()
                            .contains("earlier session of the role failed");
                    assert!(clear, "not a clear error: {error}");
                }
            }
        }
    }
}

#[test]
fn a_session_cancelled_after_sending_never_leaks_into_the_next() {
    let Roles(mut c, mut s, _w) = Roles::default();
    // The first session's client sends 100 and is cancelled; the server never ran.
    let mut cancelled = Box::pin(try_session(&mut c, |s: Client<'_, C>| async move {
        let s = s.send(Add(100)).await?;
        std::future::pending::<()>().await;
        let (Sum(sum), end) = s.send(Add(0)).await?.receive().await?;
        Ok((sum, end))
    }));
    assert!((&mut cancelled).now_or_never().is_none());
    drop(cancelled);
    // A new session on the same roles: before, the server took the stale 100 for the
    // client's first number and both answered 102.
    let (client, server) =
        run_until_stalled(async move { futures::join!(client(&mut c, 1, 2), server(&mut s)) });
    let Err(Error::Send(error)) = &client else {
        panic!("the spent client must refuse to send, got {client:?}");
    };
    let SendErrorKind::Transport(cause) = &error.kind else {
        panic!("expected the channel's error, got {error}");
    };
    assert_eq!(
        cause.downcast_ref::<ChannelError>(),
        Some(&ChannelError::Aborted)
    );
    assert!(error.to_string().contains("create new roles"), "{error}");
    assert_right_or_clear(client, server, 3);
}

#[test]
fn sessions_cancelled_on_both_sides_never_leak_into_the_next() {
    let Roles(mut c, mut s, _w) = Roles::default();
    // Both sides are mid-session (the server has taken 100 and waits for the second
    // number, which the client has sent too) when both are cancelled.
    {
        let mut server = Box::pin(server(&mut s));
        assert!((&mut server).now_or_never().is_none());
        let mut client = Box::pin(try_session(&mut c, |s: Client<'_, C>| async move {
            let s = s.send(Add(100)).await?.send(Add(200)).await?;
            std::future::pending::<()>().await;
            let (Sum(sum), end) = s.receive().await?;
            Ok((sum, end))
        }));
        assert!((&mut client).now_or_never().is_none());
    }
    let (client, server) =
        run_until_stalled(async move { futures::join!(client(&mut c, 1, 2), server(&mut s)) });
    assert!(client.is_err() && server.is_err());
    assert_right_or_clear(client, server, 3);
}

#[test]
fn a_peer_of_a_spent_role_fails_at_its_first_step_with_it() {
    let Roles(mut c, mut s, _w) = Roles::default();
    let failed = run_until_stalled(async move {
        let failed = try_session(&mut c, |_: Client<'_, C>| async move {
            Err::<(i32, End<'_, C>), _>(Error::other("gave up"))
        })
        .await;
        (failed, server(&mut s).await)
    });
    assert!(failed.0.is_err());
    let Error::Receive(error) = failed.1.unwrap_err() else {
        panic!("expected a receive error");
    };
    assert!(matches!(error.kind, ReceiveErrorKind::Disconnected));
    assert_eq!(error.peer, "C");
}
