//! `Offer`: an external choice across several peers — wait on every peer's route and take
//! the first label that arrives — with its choice-enum traits and its future.
//!
//! This is the projection of a role that learns a choice from whichever of several peers
//! speaks first (scribble-java's shape for a role told by `B` in one branch and by `P` in
//! another), and the session type of an optimised machine whose state receives from
//! several peers. When every variant comes from one peer, write [`Branch`](crate::Branch).
//!
//! A choice enum for `Offer` names each variant's sender with `#[from(Peer)]`, as
//! [`Choose`](crate::Choose)'s enums name their receivers with `#[to(Peer)]`:
//!
//! ```
//! use mpst::{session, try_session, End, Message, Offer, Payload, Role, Roles, Send};
//!
//! type Channel = mpst::channel::Spsc<Label>;
//! #[derive(Roles)]
//! struct Roles(B, P, D);
//! #[derive(Role)]
//! #[message(Label)]
//! struct B(#[route(P)] Channel, #[route(D)] Channel);
//! #[derive(Role)]
//! #[message(Label)]
//! struct P(#[route(B)] Channel, #[route(D)] Channel);
//! #[derive(Role)]
//! #[message(Label)]
//! struct D(#[route(B)] Channel, #[route(P)] Channel);
//! #[derive(Message)]
//! enum Label {
//!     Left(Left),
//!     Right(Right),
//! }
//! #[derive(Payload)]
//! struct Left(i32);
//! #[derive(Payload)]
//! struct Right(String);
//!
//! #[session]
//! type Told = Send<D, Left, End>;
//! #[session]
//! type Learns = Offer<Either>;
//! #[session]
//! enum Either {
//!     #[from(B)]
//!     Left(Left, End),
//!     #[from(P)]
//!     Right(Right, End),
//! }
//!
//! # futures::executor::block_on(async {
//! let Roles(mut b, _p, mut d) = Roles::default();
//! try_session(&mut b, |s: Told<'_, B>| async move { Ok(((), s.send(Left(7)).await?)) })
//!     .await?;
//! let got = try_session(&mut d, |s: Learns<'_, D>| async move {
//!     match s.offer().await? {
//!         Either::Left(Left(n), end) => Ok((format!("{n} from B"), end)),
//!         Either::Right(Right(text), end) => Ok((format!("{text} from P"), end)),
//!     }
//! })
//! .await?;
//! assert_eq!(got, "7 from B");
//! # Ok::<(), mpst::Error>(()) }).unwrap();
//! ```
//!
//! # What rustc checks
//!
//! A label is taken from a peer only when the enum says that peer sends it: the enum's
//! [`Offers::downcast`] tries, for a message from peer `i`, only the variants marked
//! `#[from(i)]`, and any other label from it is
//! [`UnexpectedLabel`](crate::ReceiveErrorKind::UnexpectedLabel) naming that peer. Each
//! variant's continuation is the type the enum declares for its (peer, label)
//! ([`OfferCase::Session`]); the role must have a receiving route from every peer the enum
//! names ([`RouteFrom`]).
//!
//! # Fairness
//!
//! The routes are polled one after the other, starting after the peer the *same choice
//! enum* last took a label from (one counter per enum in the process, [`Turn`]). So when
//! several peers always have a label ready at one `Offer`, they are served in turn: at
//! `n` peers each is taken at least once in every `n` consecutive offers of that enum
//! made by one session. Sessions that run the same enum at once share its counter, so
//! between them the rotation is only approximate, but no peer is always polled last.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};

use futures::TryStream;

use crate::deadline::{self, Expire, Until, Waiting};
use crate::error::{ReceiveError, ReceiveErrorKind};
use crate::role::{Labelled, Role, Route};
use crate::session::{FromState, State, sealed, step};

const POLLED_AFTER_READY: &str = "an mpst future was polled after it completed";

/// External choice across several peers: receive one label of the choice enum `Cases` from
/// whichever of its peers speaks first, and get the enum variant (label and continuation)
/// to `match` on. See the [module documentation](self).
///
/// Written `Offer<Cases>` inside `#[session]`, with `Cases` a `#[session] enum` whose every
/// variant names its sender: `#[from(B)] Left(Left, End)`.
#[must_use = "a session must be used until it reaches `End`"]
pub struct Offer<'r, Me: Role, Cases> {
    state: State<'r, Me>,
    _types: PhantomData<fn() -> Cases>,
}

impl<Me: Role, Cases> sealed::Sealed for Offer<'_, Me, Cases> {}

impl<'r, Me: Role, Cases> FromState<'r> for Offer<'r, Me, Cases> {
    type Role = Me;

    #[inline]
    fn from_state(state: State<'r, Me>, _: sealed::Token) -> Self {
        Self {
            state,
            _types: PhantomData,
        }
    }
}

impl<'r, Me: Role, Cases: Offers<'r, Role = Me>> Offer<'r, Me, Cases> {
    /// Waits for one of the labels of `Cases` from any of its peers; the future resolves
    /// to the matching variant of the choice enum (the label and its continuation).
    ///
    /// Fails with [`ReceiveErrorKind::UnexpectedLabel`] when a peer sends a label the enum
    /// does not take from it, and with `Disconnected` or `Transport` naming the peer whose
    /// route failed first.
    #[inline]
    pub fn offer(self) -> OfferFuture<'r, Me, Cases> {
        OfferFuture {
            state: Some(self.state),
            _types: PhantomData,
        }
    }
}

/// A role's receiving route from `Peer`, polled by [`Offer`] through the choice enum.
///
/// Implemented for every role with a route to `Peer` that is a [`TryStream`] of the role's
/// messages: every route of this crate (`Unbounded`, `Bounded`, `Spsc`, `mpst::net`'s
/// `TcpRoute` and `AnyRoute`).
pub trait RouteFrom<Peer>: Role {
    /// Polls the next message from `Peer`: `Disconnected` when the route ended, `Transport`
    /// when it failed.
    fn poll_from(&mut self, cx: &mut Context<'_>) -> Poll<Result<Self::Message, ReceiveErrorKind>>;
}

impl<Me, Peer> RouteFrom<Peer> for Me
where
    Me: Route<Peer>,
    Me::Route: TryStream<Ok = Me::Message> + Unpin,
    <Me::Route as TryStream>::Error: std::error::Error + std::marker::Send + Sync + 'static,
{
    #[inline]
    fn poll_from(&mut self, cx: &mut Context<'_>) -> Poll<Result<Me::Message, ReceiveErrorKind>> {
        Poll::Ready(
            match ready!(Pin::new(<Me as Route<Peer>>::route(self)).try_poll_next(cx)) {
                Some(Ok(message)) => Ok(message),
                Some(Err(error)) => Err(ReceiveErrorKind::from_stream_error(error)),
                None => Err(ReceiveErrorKind::Disconnected),
            },
        )
    }
}

/// The rotation of one choice enum's peers (see the module's *Fairness*): the index of
/// the peer an [`Offer`] of that enum polls first.
#[derive(Debug, Default)]
pub struct Turn(AtomicUsize);

impl Turn {
    /// Starts with the enum's first peer.
    pub const fn new() -> Self {
        Self(AtomicUsize::new(0))
    }

    fn first(&self, peers: usize) -> usize {
        self.0.load(Ordering::Relaxed) % peers
    }

    fn took(&self, peer: usize) {
        self.0.store(peer + 1, Ordering::Relaxed);
    }
}

/// A choice enum whose variants name their senders (`#[from(Peer)]`): the variants an
/// [`Offer`] can receive.
///
/// Implemented by `#[session]` on enums whose variants carry `#[from(Peer)]`. Such an enum
/// implements neither [`Choices`](crate::Choices) nor [`ChoiceTo`](crate::ChoiceTo), so it
/// cannot be used with the one-peer [`Branch`](crate::Branch) or with `Select`/`Choose`.
pub trait Offers<'r>: Sized {
    /// The role running the session.
    type Role: Role;

    /// The names of the enum's peers ([`Role::NAME`]), in order of first appearance; a
    /// peer is known by its index here.
    const PEERS: &'static [&'static str];

    /// The peers, as one text for errors that name no single one (`"B or P"`).
    const PEER_LIST: &'static str;

    /// For each peer (by index), the labels the enum takes from it.
    const LABELS: &'static [&'static [&'static str]];

    /// Polls the route from the peer of index `peer` (one of [`Offers::PEERS`]).
    fn poll_peer(
        role: &mut Self::Role,
        peer: usize,
        cx: &mut Context<'_>,
    ) -> Poll<Result<<Self::Role as Role>::Message, ReceiveErrorKind>>;

    /// Turns a message from the peer of index `peer` into the matching variant, building
    /// its continuation with [`OfferContinuation::into_session`], or gives the message back
    /// when the enum takes no such label from that peer.
    fn downcast(
        next: OfferContinuation<'r, Self>,
        peer: usize,
        message: <Self::Role as Role>::Message,
    ) -> Result<Self, <Self::Role as Role>::Message>;

    /// The enum's rotation of peers (see the module's *Fairness*).
    fn turn() -> &'static Turn;
}

/// A choice enum of [`Offer`] that takes the label `Label` from `Peer`, continuing as
/// [`OfferCase::Session`]. Implemented by `#[session]`, once per variant.
pub trait OfferCase<'r, Peer, Label>: Offers<'r> {
    /// The continuation after `Label` from `Peer`.
    type Session: FromState<'r, Role = Self::Role>;
}

/// The session state of an [`Offer`] whose label is being matched: it can only become the
/// continuation the choice `Cases` declares for that peer and label
/// ([`OfferCase::Session`]). Dropping it aborts the role.
#[must_use = "a continuation must become the chosen variant's session"]
pub struct OfferContinuation<'r, Cases: Offers<'r>> {
    state: State<'r, Cases::Role>,
}

impl<'r, Cases: Offers<'r>> OfferContinuation<'r, Cases> {
    /// The continuation after `Label` from `Peer`.
    #[inline]
    pub fn into_session<Peer, Label>(self) -> <Cases as OfferCase<'r, Peer, Label>>::Session
    where
        Cases: OfferCase<'r, Peer, Label>,
    {
        step(self.state)
    }
}

/// Receives one label of the choice `Cases` from whichever of its peers speaks first, then
/// resolves to the matching variant.
///
/// Returned by [`Offer::offer`].
#[must_use = "futures do nothing unless awaited"]
pub struct OfferFuture<'r, Me: Role, Cases> {
    state: Option<State<'r, Me>>,
    _types: PhantomData<fn() -> Cases>,
}

impl<'r, Me: Role, Cases> OfferFuture<'r, Me, Cases> {
    /// Gives up when `deadline` completes first (see
    /// [`ReceiveFuture::until`](crate::future::ReceiveFuture::until)).
    #[inline]
    pub fn until<D: Future>(self, deadline: D) -> Until<Self, D> {
        Until::new(self, deadline)
    }
}

/// Builds the error of an offer at `Me` in the state `Here`, naming `peer`.
#[cold]
fn offer_error<Me: Role, Here>(peer: &'static str, kind: ReceiveErrorKind) -> ReceiveError {
    ReceiveError {
        role: Me::NAME,
        peer,
        state: std::any::type_name::<Here>(),
        kind,
    }
}

impl<Me: Role, Cases> deadline::private::Sealed for OfferFuture<'_, Me, Cases> {}

impl<'r, Me, Cases> Expire for OfferFuture<'r, Me, Cases>
where
    Me: Role,
    Me::Message: Labelled,
    Cases: Offers<'r, Role = Me>,
{
    #[cold]
    fn expire(&mut self) -> Self::Output {
        self.state = None;
        Err(offer_error::<Me, Offer<'r, Me, Cases>>(
            Cases::PEER_LIST,
            ReceiveErrorKind::TimedOut,
        ))
    }
}

impl<'r, Me, Cases> Future for OfferFuture<'r, Me, Cases>
where
    Me: Role,
    Me::Message: Labelled,
    Cases: Offers<'r, Role = Me>,
{
    type Output = Result<Cases, ReceiveError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let state = this.state.as_mut().expect(POLLED_AFTER_READY);
        let peers = Cases::PEERS.len();
        let first = Cases::turn().first(peers.max(1));
        for k in 0..peers {
            let peer = (first + k) % peers;
            let Poll::Ready(next) = Cases::poll_peer(state.role, peer, cx) else {
                continue;
            };
            Cases::turn().took(peer);
            // On an error, dropping `state` aborts the role.
            let state = this.state.take().expect(POLLED_AFTER_READY);
            let name = Cases::PEERS[peer];
            return Poll::Ready(
                next.map_err(|kind| offer_error::<Me, Offer<'r, Me, Cases>>(name, kind))
                    .and_then(|message| {
                        let received = message.label();
                        let chosen = Cases::downcast(OfferContinuation { state }, peer, message)
                            .map_err(|_| {
                                offer_error::<Me, Offer<'r, Me, Cases>>(
                                    name,
                                    ReceiveErrorKind::UnexpectedLabel {
                                        received,
                                        expected: Cases::LABELS[peer],
                                    },
                                )
                            })?;
                        // Only a label the enum takes is a step of the session, as for
                        // `Branch`: a refused one is the error, not a receive.
                        #[cfg(feature = "tracing")]
                        crate::observe::received_from::<Me, Offer<'r, Me, Cases>>(name, received);
                        Ok(chosen)
                    }),
            );
        }
        // Nothing is ready: the role is about to wait, so it first delivers its buffered
        // sends (as every receive does), then notes the wait for a session deadline.
        if Me::BUFFERED {
            if let Err(mut error) = ready!(state.role.poll_flush(cx)) {
                error.state = std::any::type_name::<Offer<'r, Me, Cases>>();
                this.state = None;
                return Poll::Ready(Err(offer_error::<Me, Offer<'r, Me, Cases>>(
                    Cases::PEER_LIST,
                    ReceiveErrorKind::Flush(Box::new(error)),
                )));
            }
        }
        deadline::note(|| Waiting {
            role: Me::NAME,
            peer: Cases::PEER_LIST,
            state: std::any::type_name::<Offer<'r, Me, Cases>>(),
            label: None,
        });
        Poll::Pending
    }
}
