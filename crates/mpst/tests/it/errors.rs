//! Errors are values: dropped peers and unexpected labels end a session with an error that
//! names the role, the peer and the labels, never a hang or a panic.

use mpst::{
    Branch, End, Message, Receive, ReceiveErrorKind, Select, Send, SendErrorKind, session,
    try_session,
};

use crate::support::declare_roles;

declare_roles!(Label over mpst::channel::Unbounded<Label>: A(B), B(A));

#[derive(Message)]
enum Label {
    Ping(Ping),
    Pong(Pong),
    Quit(Quit),
}

struct Ping(u8);
struct Pong(u8);
struct Quit;

#[session]
type SendPing = Send<B, Ping, End>;

#[session]
type ReceivePong = Receive<B, Pong, End>;

#[session]
type BranchB = Branch<B, Reply>;

#[session]
enum Reply {
    Pong(Pong, End),
    Quit(Quit, End),
}

#[session]
type SelectA = Select<A, Reply>;

fn run<T>(future: impl std::future::Future<Output = T>) -> T {
    futures::executor::block_on(future)
}

#[test]
fn receive_from_dropped_peer_is_disconnected() {
    let Roles(mut a, b) = Roles::default();
    drop(b);
    let error = run(try_session(&mut a, |s: ReceivePong<'_, A>| async move {
        let (Pong(_), s) = s.receive().await?;
        Ok(((), s))
    }))
    .unwrap_err();
    assert!(error.is_disconnected());
    assert_eq!(error.peer(), Some("B"));
    let mpst::Error::Receive(error) = error else {
        panic!("expected a receive error, got {error:?}");
    };
    assert_eq!((error.role, error.peer), ("A", "B"));
    assert!(matches!(error.kind, ReceiveErrorKind::Disconnected));
    assert_eq!(
        error.to_string(),
        "role A could not receive from B (at Receive<B, Pong, End>): B disconnected"
    );
}

#[test]
fn send_to_dropped_peer_is_disconnected() {
    let Roles(mut a, b) = Roles::default();
    drop(b);
    let error = run(try_session(&mut a, |s: SendPing<'_, A>| async move {
        Ok(((), s.send(Ping(1)).await?))
    }))
    .unwrap_err();
    assert!(error.is_disconnected());
    let mpst::Error::Send(error) = error else {
        panic!("expected a send error, got {error:?}");
    };
    assert_eq!(
        (error.role, error.peer, error.label),
        ("A", "B", Some("Ping"))
    );
    assert!(matches!(error.kind, SendErrorKind::Disconnected));
    assert_eq!(
        error.to_string(),
        "role A could not send label Ping to B (at Send<B, Ping, End>): B disconnected"
    );
}

#[test]
fn branch_on_dropped_peer_is_disconnected() {
    let Roles(mut a, b) = Roles::default();
    drop(b);
    let error = run(try_session(&mut a, |s: BranchB<'_, A>| async move {
        match s.branch().await? {
            Reply::Pong(_, end) | Reply::Quit(_, end) => Ok(((), end)),
        }
    }))
    .unwrap_err();
    assert!(error.is_disconnected());
    assert_eq!(error.peer(), Some("B"));
}

#[test]
fn select_to_dropped_peer_is_disconnected() {
    let Roles(a, mut b) = Roles::default();
    drop(a);
    let error = run(try_session(&mut b, |s: SelectA<'_, B>| async move {
        Ok(((), s.select(Quit).await?))
    }))
    .unwrap_err();
    assert!(error.is_disconnected());
    assert_eq!(error.peer(), Some("A"));
}

#[test]
fn peer_dropped_mid_session_is_disconnected_not_a_hang() {
    let Roles(mut a, b) = Roles::default();
    // B takes the Ping, then gives up: its role (and so its channels) is dropped before
    // it answers. A, waiting for Pong, must get an error instead of waiting forever.
    #[session]
    type GiveUp = Receive<A, Ping, End>;
    #[session]
    type PingPong = Send<B, Ping, Receive<B, Pong, End>>;
    let quitter = async move {
        let mut b = b;
        let got = try_session(&mut b, |s: GiveUp<'_, B>| async move {
            let (Ping(n), s) = s.receive().await?;
            Ok((n, s))
        })
        .await;
        drop(b);
        got
    };
    let waiter = try_session(&mut a, |s: PingPong<'_, A>| async move {
        let s = s.send(Ping(3)).await?;
        let (Pong(n), s) = s.receive().await?;
        Ok((n, s))
    });
    let (got, result) = run(async { futures::join!(quitter, waiter) });
    assert_eq!(got.unwrap(), 3);
    let error = result.unwrap_err();
    assert!(error.is_disconnected());
    assert_eq!(error.peer(), Some("B"));
}

#[test]
fn unexpected_label_on_receive_names_both_labels() {
    let Roles(mut a, mut b) = Roles::default();
    // B's protocol says Pong; it sends Ping through a type that allows it to A — as a
    // faulty peer would. A expects Pong.
    #[session]
    type Faulty = Send<A, Ping, End>;
    let (sent, received) = run(async {
        futures::join!(
            try_session(&mut b, |s: Faulty<'_, B>| async move {
                Ok(((), s.send(Ping(9)).await?))
            }),
            try_session(&mut a, |s: ReceivePong<'_, A>| async move {
                let (Pong(_), s) = s.receive().await?;
                Ok(((), s))
            })
        )
    });
    sent.unwrap();
    let mpst::Error::Receive(error) = received.unwrap_err() else {
        panic!("expected a receive error");
    };
    assert!(matches!(
        error.kind,
        ReceiveErrorKind::UnexpectedLabel {
            received: "Ping",
            expected: &["Pong"]
        }
    ));
    assert_eq!(
        error.to_string(),
        "role A could not receive from B (at Receive<B, Pong, End>): unexpected label Ping, \
         expected Pong"
    );
}

#[test]
fn unexpected_label_on_branch_lists_the_choice() {
    let Roles(mut a, mut b) = Roles::default();
    #[session]
    type Faulty = Send<A, Ping, End>;
    let (sent, received) = run(async {
        futures::join!(
            try_session(&mut b, |s: Faulty<'_, B>| async move {
                Ok(((), s.send(Ping(9)).await?))
            }),
            try_session(&mut a, |s: BranchB<'_, A>| async move {
                match s.branch().await? {
                    Reply::Pong(_, end) | Reply::Quit(_, end) => Ok(((), end)),
                }
            })
        )
    });
    sent.unwrap();
    let error = received.unwrap_err();
    assert!(!error.is_disconnected());
    let mpst::Error::Receive(error) = error else {
        panic!("expected a receive error");
    };
    assert!(matches!(
        error.kind,
        ReceiveErrorKind::UnexpectedLabel {
            received: "Ping",
            expected: &["Pong", "Quit"]
        }
    ));
    assert!(
        error
            .to_string()
            .ends_with("unexpected label Ping, expected one of Pong, Quit")
    );
}

#[test]
fn select_then_branch_delivers_the_chosen_label() {
    let Roles(mut a, mut b) = Roles::default();
    let (sent, received) = run(async {
        futures::join!(
            try_session(&mut b, |s: SelectA<'_, B>| async move {
                Ok(((), s.select(Pong(4)).await?))
            }),
            try_session(&mut a, |s: BranchB<'_, A>| async move {
                match s.branch().await? {
                    Reply::Pong(Pong(n), end) => Ok((Some(n), end)),
                    Reply::Quit(Quit, end) => Ok((None, end)),
                }
            })
        )
    });
    sent.unwrap();
    assert_eq!(received.unwrap(), Some(4));
}

#[test]
fn errors_are_std_errors_with_sources() {
    let error = mpst::Error::from(mpst::ReceiveError {
        role: "A",
        peer: "B",
        state: "",
        kind: ReceiveErrorKind::Disconnected,
    });
    let error: Box<dyn std::error::Error> = Box::new(error);
    let source = error.source().expect("the receive error is the source");
    assert_eq!(source.to_string(), error.to_string());
}
