//! Any `Sink` + `Stream` pair can be a route: custom channel types wired by
//! `derive(Roles)` through `Pair`, hand-wired bounded channels, and sink errors that are
//! not disconnections.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use futures::{Sink, Stream};
use mpst::channel::{Abort, ChannelError, Pair};
use mpst::{End, Message, Receive, Role, Send, SendErrorKind, session, try_session};

use crate::support::declare_roles;

#[derive(Message)]
enum Label {
    Hello(Hello),
}

struct Hello(&'static str);

/// A user channel: unbounded in-memory, counting the messages sent through it.
struct Counted {
    inner: mpst::channel::Unbounded<Label>,
    sent: Arc<AtomicUsize>,
}

impl Pair<Counted> for Counted {
    fn pair() -> (Counted, Counted) {
        let (left, right) = mpst::channel::unbounded();
        let sent = Arc::new(AtomicUsize::new(0));
        (
            Counted {
                inner: left,
                sent: sent.clone(),
            },
            Counted { inner: right, sent },
        )
    }
}

impl Abort for Counted {
    fn abort(&mut self) {
        self.inner.abort();
    }
}

impl Sink<Label> for Counted {
    type Error = ChannelError;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Pin::new(&mut self.inner).poll_ready(cx)
    }

    fn start_send(mut self: Pin<&mut Self>, item: Label) -> Result<(), Self::Error> {
        self.sent.fetch_add(1, Ordering::Relaxed);
        Pin::new(&mut self.inner).start_send(item)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Pin::new(&mut self.inner).poll_close(cx)
    }
}

impl Stream for Counted {
    type Item = Result<Label, ChannelError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut self.inner).poll_next(cx)
    }
}

declare_roles!(Label over Counted: A(B), B(A));

#[session]
type Greet = Send<B, Hello, Send<B, Hello, End>>;

#[session]
type Greeted = Receive<A, Hello, Receive<A, Hello, End>>;

async fn greet(s: Greet<'_, A>) -> Result<((), End<'_, A>), mpst::Error> {
    let s = s.send(Hello("hello")).await?;
    Ok(((), s.send(Hello("world")).await?))
}

#[test]
fn derive_roles_wires_user_channels_and_named_fns_are_processes() {
    let Roles(mut a, mut b) = Roles::default();
    let sent = a.0.sent.clone();
    let (greeted, words) = futures::executor::block_on(async {
        futures::join!(
            try_session(&mut a, greet),
            try_session(&mut b, |s: Greeted<'_, B>| async move {
                let (Hello(x), s) = s.receive().await?;
                let (Hello(y), s) = s.receive().await?;
                Ok((format!("{x} {y}"), s))
            })
        )
    });
    greeted.unwrap();
    assert_eq!(words.unwrap(), "hello world");
    assert_eq!(sent.load(Ordering::Relaxed), 2);
}

/// A route whose sink fails like a broken network connection.
struct Broken;

impl Abort for Broken {
    fn abort(&mut self) {}
}

impl Stream for Broken {
    type Item = Result<Label, std::io::Error>;

    fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Poll::Ready(None)
    }
}

impl Sink<Label> for Broken {
    type Error = std::io::Error;

    fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "connection reset",
        )))
    }

    fn start_send(self: Pin<&mut Self>, _: Label) -> Result<(), Self::Error> {
        Ok(())
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }
}

#[derive(Role)]
#[message(Label)]
struct Client(#[route(Server)] Broken);

#[derive(Role)]
#[message(Label)]
struct Server;

#[session]
type Call = Send<Server, Hello, End>;

#[test]
fn sink_errors_other_than_disconnection_are_kept() {
    let mut client = Client(Broken);
    let error =
        futures::executor::block_on(try_session(&mut client, |s: Call<'_, Client>| async move {
            Ok(((), s.send(Hello("hi")).await?))
        }))
        .unwrap_err();
    assert!(!error.is_disconnected());
    let mpst::Error::Send(error) = error else {
        panic!("expected a send error");
    };
    assert_eq!(
        (error.role, error.peer, error.label),
        ("Client", "Server", Some("Hello"))
    );
    let SendErrorKind::Transport(cause) = &error.kind else {
        panic!("expected a channel error, got {:?}", error.kind);
    };
    assert_eq!(cause.to_string(), "connection reset");
    assert!(
        error
            .to_string()
            .ends_with("transport error: connection reset")
    );
    assert!(std::error::Error::source(&error).is_some());
}

#[derive(Role)]
#[message(Label)]
struct Left(#[route(Right)] mpst::channel::BoundedEnd<Label>);

#[derive(Role)]
#[message(Label)]
struct Right(#[route(Left)] mpst::channel::BoundedEnd<Label>);

#[session]
type Many = Send<Right, Hello, Send<Right, Hello, Send<Right, Hello, End>>>;

#[session]
type TakeMany = Receive<Left, Hello, Receive<Left, Hello, Receive<Left, Hello, End>>>;

#[test]
fn hand_wired_bounded_channel_applies_backpressure_without_deadlock() {
    // Capacity 0 (one slot per sender): the sender must wait for the receiver between
    // messages, so this only finishes if waiting and waking work across both sides.
    let (left, right) = mpst::channel::bounded(0);
    let (mut left, mut right) = (Left(left), Right(right));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let got = runtime.block_on(async move {
        let sender = tokio::spawn(async move {
            try_session(&mut left, |s: Many<'_, Left>| async move {
                let s = s.send(Hello("a")).await?.send(Hello("b")).await?;
                Ok(((), s.send(Hello("c")).await?))
            })
            .await
        });
        let got = try_session(&mut right, |s: TakeMany<'_, Right>| async move {
            let (Hello(x), s) = s.receive().await?;
            let (Hello(y), s) = s.receive().await?;
            let (Hello(z), s) = s.receive().await?;
            Ok(([x, y, z].concat(), s))
        })
        .await;
        sender.await.unwrap().unwrap();
        got
    });
    assert_eq!(got.unwrap(), "abc");
}
