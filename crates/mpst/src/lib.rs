//! Asynchronous multiparty session types for async Rust.
//!
//! `mpst` checks, with the Rust type checker, that each participant ("role") of a
//! message-passing protocol sends and receives exactly what its *local session type* says,
//! in order, to the right peer. It follows §2.1 of *Deadlock-Free Asynchronous Message
//! Reordering in Rust with Multiparty Session Types* (Cutner, Yoshida, Vassor; PPoPP 2022).
//!
//! # A guided tour
//!
//! ## 1. A complete protocol
//!
//! Role `A` sends two numbers to `B` and gets their sum back, then tells `C` the result.
//!
//! ```
//! use mpst::{try_session, session, End, Message, Receive, Role, Roles, Send};
//!
//! // Every pair of roles talks over a bidirectional in-memory route of labels (`Spsc`:
//! // one allocation per pair of roles, the fastest in-memory route).
//! type Channel = mpst::channel::Spsc<Label>;
//!
//! // All roles of the protocol; `Roles::default()` creates and wires every channel.
//! #[derive(Roles)]
//! struct Roles(A, B, C);
//!
//! // A role is a struct with one route per peer it talks to.
//! #[derive(Role)]
//! #[message(Label)]
//! struct A(#[route(B)] Channel, #[route(C)] Channel);
//!
//! #[derive(Role)]
//! #[message(Label)]
//! struct B(#[route(A)] Channel, #[route(C)] Channel);
//!
//! #[derive(Role)]
//! #[message(Label)]
//! struct C(#[route(A)] Channel, #[route(B)] Channel);
//!
//! // The labels: one enum for the wire, one type per label.
//! #[derive(Message)]
//! enum Label {
//!     Add(Add),
//!     Sum(Sum),
//! }
//!
//! struct Add(i32);
//! struct Sum(i32);
//!
//! // Local session types, written as in the paper; `#[session]` adds the lifetime and
//! // the role parameters, so `AdderA` becomes `AdderA<'r, Me>`.
//! #[session]
//! type AdderA = Send<B, Add, Send<B, Add, Receive<B, Sum, Send<C, Sum, End>>>>;
//! #[session]
//! type AdderB = Receive<A, Add, Receive<A, Add, Send<A, Sum, End>>>;
//! #[session]
//! type AdderC = Receive<A, Sum, End>;
//!
//! async fn adder_a(role: &mut A) -> Result<i32, mpst::Error> {
//!     try_session(role, |s: AdderA<'_, A>| async move {
//!         let s = s.send(Add(1)).await?;
//!         let s = s.send(Add(2)).await?;
//!         let (Sum(x), s) = s.receive().await?;
//!         let s = s.send(Sum(x)).await?;
//!         Ok((x, s)) // the closure must hand back the `End`
//!     })
//!     .await
//! }
//!
//! async fn adder_b(role: &mut B) -> Result<(), mpst::Error> {
//!     try_session(role, |s: AdderB<'_, B>| async move {
//!         let (Add(x), s) = s.receive().await?;
//!         let (Add(y), s) = s.receive().await?;
//!         let s = s.send(Sum(x + y)).await?;
//!         Ok(((), s))
//!     })
//!     .await
//! }
//!
//! async fn adder_c(role: &mut C) -> Result<i32, mpst::Error> {
//!     try_session(role, |s: AdderC<'_, C>| async move {
//!         let (Sum(x), s) = s.receive().await?;
//!         Ok((x, s))
//!     })
//!     .await
//! }
//!
//! let Roles(mut a, mut b, mut c) = Roles::default();
//! let (a, b, c) = futures::executor::block_on(async {
//!     futures::join!(adder_a(&mut a), adder_b(&mut b), adder_c(&mut c))
//! });
//! assert_eq!((a.unwrap(), c.unwrap()), (3, 3));
//! b.unwrap();
//! ```
//!
//! ## 2. Recursion and choice
//!
//! Recursive types are named structs whose single field may mention `Self`; `into_session`
//! unfolds one level. Choices are enums of `Variant(Label, Continuation)`, used by
//! [`Select`] (internal choice: we pick the label) and [`Branch`] (external choice: the
//! peer picks, we `match`). When the branches of an internal choice go to different
//! peers, each variant names its own (`#[to(B)] Left(Left, ..)`, `#[to(C)] Right(..)`)
//! and the choice is a [`Choose<Cases>`](Choose), sent with `choose(label)`. When a role
//! learns a choice from whichever of several peers speaks first, each variant names its
//! sender (`#[from(B)] Left(Left, ..)`, `#[from(P)] Right(..)`) and the choice is an
//! [`Offer<Cases>`](Offer), received with `offer()`: it waits on every one of those peers
//! and takes the first label to arrive (see [`offer`] for the rule that keeps one peer
//! from starving another). A protocol without `End` runs in a `loop`, whose type `!`
//! coerces to what the closure must return.
//!
//! ```
//! use mpst::{try_session, session, Branch, End, Message, Receive, Role, Roles, Select, Send};
//!
//! type Channel = mpst::channel::Spsc<Label>;
//!
//! #[derive(Roles)]
//! struct Roles(S, T);
//!
//! #[derive(Role)]
//! #[message(Label)]
//! struct S(#[route(T)] Channel);
//!
//! #[derive(Role)]
//! #[message(Label)]
//! struct T(#[route(S)] Channel);
//!
//! #[derive(Message)]
//! enum Label {
//!     Ready(Ready),
//!     Value(Value),
//!     Stop(Stop),
//! }
//!
//! struct Ready;
//! struct Value(u64);
//! struct Stop;
//!
//! // The source: receive `Ready`, then either send a `Value` and start over, or `Stop`.
//! #[session]
//! struct Source(Receive<T, Ready, Select<T, SourceChoice>>);
//!
//! #[session]
//! enum SourceChoice {
//!     Value(Value, Source),
//!     Stop(Stop, End),
//! }
//!
//! // The sink: send `Ready`, then branch on what the source chose.
//! #[session]
//! struct Sink(Send<S, Ready, Branch<S, SinkChoice>>);
//!
//! #[session]
//! enum SinkChoice {
//!     Value(Value, Sink),
//!     Stop(Stop, End),
//! }
//!
//! async fn source(role: &mut S, values: &[u64]) -> Result<(), mpst::Error> {
//!     try_session(role, |mut s: Source<'_, S>| async move {
//!         let mut values = values.iter();
//!         loop {
//!             let (Ready, choice) = s.into_session().receive().await?;
//!             match values.next() {
//!                 Some(&v) => s = choice.select(Value(v)).await?,
//!                 None => return Ok(((), choice.select(Stop).await?)),
//!             }
//!         }
//!     })
//!     .await
//! }
//!
//! async fn sink(role: &mut T) -> Result<u64, mpst::Error> {
//!     try_session(role, |mut s: Sink<'_, T>| async move {
//!         let mut total = 0;
//!         loop {
//!             match s.into_session().send(Ready).await?.branch().await? {
//!                 SinkChoice::Value(Value(v), next) => {
//!                     total += v;
//!                     s = next;
//!                 }
//!                 SinkChoice::Stop(Stop, end) => return Ok((total, end)),
//!             }
//!         }
//!     })
//!     .await
//! }
//!
//! let Roles(mut s, mut t) = Roles::default();
//! let (sent, total) = futures::executor::block_on(async {
//!     futures::join!(source(&mut s, &[1, 2, 3, 4]), sink(&mut t))
//! });
//! sent.unwrap();
//! assert_eq!(total.unwrap(), 10);
//! ```
//!
//! ## 3. What it guarantees, and how
//!
//! | Feature | How |
//! |---|---|
//! | each step follows the local type | primitives [`Send`], [`Receive`], [`Select`], [`Choose`], [`Branch`], [`Offer`], [`End`] are generic over peer, label and continuation; a wrong label or peer is a type error (an [`Offer`] takes a label from a peer only when its enum's `#[from]` says so) |
//! | no step skipped or repeated | every primitive is consumed by its step (move semantics); the closure of [`try_session`] must return [`End`], and sessions cannot be built by hand ([`State`] has no public constructor, and [`FromState`] is sealed: no user type receives a `State`, and only the runtime can call [`FromState::from_state`]) |
//! | one session per role at a time | [`try_session`] takes `&mut` role |
//! | roles reused across sessions | the borrow ends when [`try_session`] returns |
//! | recursion | `#[session] struct Name(..Self..)` and `loop` |
//! | choice | `#[session] enum`, [`Choice`] (select), [`Choices`] (branch), [`ChoiceTo`] (choose), [`Offers`] and [`OfferCase`] (offer) |
//! | any transport | a route is a [`futures::Sink`] of the label enum + a [`futures::TryStream`] of it (`Stream<Item = Result<Label, E>>`) + [`channel::Abort`], see [`channel`]; sends are not flushed one by one: the role flushes all its routes before it waits on a receive and at [`End`] |
//! | in-memory channels | [`channel::Unbounded`], [`channel::Bounded`], [`channel::unbounded`], [`channel::bounded`] |
//! | errors are values | [`Error`], [`SendError`], [`ReceiveError`] name the role, the peer, the protocol state and the labels; a transport's error is kept as the cause ([`ReceiveErrorKind::Transport`], [`SendErrorKind::Transport`]); a dropped peer is [`ReceiveErrorKind::Disconnected`] / [`SendErrorKind::Disconnected`], never a hang |
//! | failures spread, never hang | a session that fails or is dropped before [`End`] aborts its role's routes: its peers' receives fail with `Disconnected` naming it, and the role refuses later sessions rather than deliver a stale message (see [`try_session`]) |
//! | any executor | only `futures` traits are used: tested on `futures::executor`, tokio current-thread and multi-thread |
//! | cost | static dispatch, pointer-sized session values (the role borrow; `tests/it/introspect.rs` checks the size), the label enum sent as is, no per-message allocation beyond the channel's own |
//! | introspection | [`introspect`] walks any session type without running it; [`Role::NAME`], [`Message::NAME`], [`Labelled`], [`Choices::Variants`], [`IntoSession::Session`] |
//!
//! What the type system cannot check alone: that the local types of all roles fit together
//! (projection, asynchronous subtyping and k-MC in the sibling crates do that). What a
//! failed or cancelled session leaves behind is handled at run time (section 8).
//!
//! ## 4. What the macros generate (for code generators)
//!
//! * `#[derive(Role)] #[message(Label)] struct A(#[route(B)] Chan, ..)` (tuple or named
//!   fields): `impl Role for A { type Message = Label; const NAME = "A"; }`, one
//!   `impl Route<B> for A { type Route = Chan; }` per routed field, and a hidden builder for
//!   `derive(Roles)`. Fields without `#[route]` are filled with `Default::default()`. The
//!   `Role` impl also defines [`Role::poll_flush`] (flush every route, in field order, and
//!   name the peer whose flush failed), [`Role::begin`] and [`Role::abort`] (call
//!   [`channel::Abort`] on every route), [`Role::abort_handle`] (every route's
//!   [`channel::Abort::handle`], nested in pairs) and the constants [`Role::DETACHED`]
//!   (every route's `Abort::DETACHED`) and [`Role::BUFFERED`] (any route's
//!   `Abort::BUFFERED`), so each route type must be a `Sink<Label>` and implement
//!   [`channel::Abort`].
//! * `#[derive(Roles)] struct Roles(A, B, ..)` (tuple or named fields): `impl Default`,
//!   creating one [`channel::Pair`] per pair of roles routing to each other. Both ends'
//!   route types must be `'static` and `Pair` with each other.
//! * `#[derive(Message)] enum Label { Add(Add), .. }`: `impl Message<Add> for Label` (with
//!   `NAME = "Add"`, the variant's name), `From<Add> for Label`,
//!   `TryFrom<Label> for Add` and [`Labelled`]. Each variant wraps exactly one type, each
//!   type once.
//! * `#[session] type X = P;` becomes `type X<'__r, __R> = P';` where in `P'` every
//!   primitive gets `'__r, __R` prepended (`Send<'__r, __R, Peer, Label, Next>`,
//!   `Select<'__r, __R, Peer, Choice>`, `End<'__r, __R>`) and every other type in a
//!   continuation position is taken to be a `#[session]` type and gets `<'__r, __R, ..>`
//!   prepended to its own arguments. Primitives are recognised by the last path segment
//!   (`mpst::Send` works; a renamed import does not).
//!   A type alias may have its own parameters (`type Twice<To, L, Next> = ...`): they are
//!   left as they are, and arguments written with primitives are rewritten
//!   (`Twice<B, Num, Send<B, Text, End>>` works).
//! * `#[session] struct L(P);` becomes `struct L<'__r, __R>(P')` with `Self` replaced by
//!   `L<'__r, __R>`, plus [`IntoSession`] (hence [`FromState`]), [`introspect::SessionType`] and an
//!   inherent `into_session`.
//! * `#[session] enum C { V(Label, P), .. }` becomes `enum C<'__r, __R> { V(Label, P'), .. }`
//!   plus [`Choices`], one [`Choice<'__r, Label>`](Choice) per variant and
//!   [`introspect::ChoiceType`]. When every variant names its peer (`#[to(P)] V(Label,
//!   P)`), the enum gets one [`ChoiceTo<'__r, Label>`](ChoiceTo) per variant (its peer
//!   and continuation) and `ChoiceType` instead, for [`Choose`]; no `Choice`/`Choices`,
//!   so it cannot be used with `Select` or `Branch`. When every variant names its sender
//!   (`#[from(P)] V(Label, P)`), the enum gets [`Offers`] (its peers, how to poll each one's
//!   route, which variants a message from each may become), one
//!   [`OfferCase<'__r, Peer, Label>`](OfferCase) per variant and `ChoiceType`, for
//!   [`Offer`]. Structs and enums cannot have parameters of their own.
//!
//! Full type names are therefore `AdderA<'r, A>` (write `AdderA<'_, A>` in a closure), and
//! a generated API only has to emit the paper's notation under `#[session]`.
//!
//! ## 5. Walking a session type (for `serialize`)
//!
//! Every session type implements [`introspect::SessionType`]: `S::visit(&mut visitor)`
//! reports each step (send, receive, select, branch and their variants, end) to an
//! [`introspect::Visitor`] with the peer as a type (`P::NAME`) and the label as a type (its
//! name from [`Labelled::name_of`] on the role's message enum, its payload sorts from
//! [`Labelled::sorts_of`], i.e. [`Payload::SORTS`] where the label type derives it). Named structs and choice types report themselves through
//! [`introspect::Visitor::named`], which closes recursion. The role running `S` is
//! `<S as FromState>::Role`. The `serialize` feature's `serialize::<S>()` (session type to
//! FSM) is one such visitor; see [`introspect`] for the exact protocol.
//!
//! At type level, a choice enum also lists its `(Label, Continuation)` pairs in
//! [`Choices::Variants`], and a named struct its body in [`IntoSession::Session`].
//!
//! ## 6. Deviations from the paper, and limits
//!
//! * Session types carry two leading parameters, `'r` and the role `R` (the paper elides
//!   them in the same way under `#[session]`).
//! * Errors name the role and the peer (`&'static str`), and an unexpected label reports
//!   what arrived and what was expected; the unexpected message itself is dropped.
//!   [`Error::other`] lets a process leave an infinite protocol early.
//! * `derive(Roles)` wires only pairs of roles that route to each other, so rings and
//!   partial meshes need no unused channels.
//! * `#[session]` recognises primitives by name: import them as `Send`, `Receive`,
//!   `Select`, `Choose`, `Branch`, `Offer`, `End` (or write `mpst::Send`), not under other
//!   names.
//! * `#[session]` structs and enums cannot have parameters of their own (aliases can), so
//!   that their introspection impls need no bounds; a choice used only with `Select` is
//!   never constructed and gets `#[allow(dead_code)]`.
//! * Routes receive `Result`s (`Stream<Item = Result<Label, E>>`): an `Err` fails the
//!   receive with [`ReceiveErrorKind::Transport`] carrying it; the in-memory channels'
//!   error is [`channel::ChannelError`].
//! * `Send` is the paper's name for the sending primitive and std's name for its marker
//!   trait. The primitive keeps the name (the paper's notation, and what generated APIs
//!   write), so importing `mpst::Send` shadows the marker in that module, and only there:
//!   a generated API sits in a module of its own (`pub mod api { include!(..) }`), whose
//!   imports do not leak into yours. In a module that needs both, leave the primitive
//!   unimported and write it `mpst::Send<..>` (`#[session]` knows a primitive by its last
//!   path segment); `Send` is then the marker:
//!
//!   ```
//!   use mpst::{session, End, Message, Receive, Role};
//!
//!   type Channel = mpst::channel::Spsc<Label>;
//!   #[derive(Role)]
//!   #[message(Label)]
//!   struct A(#[route(B)] Channel);
//!   #[derive(Role)]
//!   #[message(Label)]
//!   struct B(#[route(A)] Channel);
//!   #[derive(Message)]
//!   enum Label {
//!       Ping(Ping),
//!   }
//!   struct Ping;
//!
//!   #[session]
//!   type Asks = mpst::Send<B, Ping, Receive<B, Ping, End>>;
//!
//!   // `Send` here is the marker trait, not the primitive.
//!   fn crosses_threads<T: Send>(value: T) -> T {
//!       value
//!   }
//!   let Ping = crosses_threads(Ping);
//!   let session: Option<Asks<'static, A>> = None;
//!   assert!(session.is_none());
//!   ```
//!
//! ## 7. Checking hand-written types (features `serialize` and `scribble`)
//!
//! With feature `serialize`, `mpst::serialize::serialize::<KernelSession<'static, K>>()`
//! turns a session type into the FSM of its role (PPoPP 2022 §2.2), and
//! `mpst::verify::assert_kmc(&[fsm_s, fsm_k, fsm_t], 1)` checks the serialised roles of a
//! protocol together by k-MC, failing with the counterexample (bottom-up workflow). With
//! feature `scribble` as well, one line checks a role against its projection from a `.scr`
//! file (hybrid workflow, §2.3):
//! `mpst::verify::assert_subtype_of_projection::<KernelSession<'static, K>>(include_str!("db.scr"), "K")`.
//! Names are compared as `mpst generate` writes them (`ready` is `Ready`), payloads as the
//! Rust types it writes (`value(int)` is `struct Value(i32)`), so every label type of a
//! serialised role declares its fields with `#[derive(Payload)]`; see the `verify` module.
//! A protocol label sent with two payload lists is two label types whose variants name the
//! label: `#[message(label = "Correct")]`.
//!
//! ## 8. Failures, cancellation and deadlines
//!
//! A session that does not reach [`End`] — its closure returns `Err`, a step fails, or its
//! future is dropped (by a timeout, a `select!`, a cancelled task) — *aborts* its role:
//! every route is closed at once ([`channel::Abort`]). Its peers' pending and later
//! receives from it fail with [`ReceiveErrorKind::Disconnected`] naming it, so one
//! failure ends every session that depends on it instead of leaving them waiting. The
//! aborted role is spent: its later sessions fail at their first step
//! ([`channel::ChannelError::Aborted`]), and a peer's session that begins after the abort
//! receives nothing the spent role sent, so a cancelled session never leaks a message into
//! a later one (a right answer or a clear error, never a wrong answer). Build new roles to
//! start again. What a dropped future leaves behind is listed under [`try_session`].
//!
//! ```
//! use mpst::{session, try_session, End, Error, Message, Receive, Role, Roles, Send};
//!
//! type Channel = mpst::channel::Spsc<Label>;
//! #[derive(Roles)]
//! struct Roles(C, S);
//! #[derive(Role)]
//! #[message(Label)]
//! struct C(#[route(S)] Channel);
//! #[derive(Role)]
//! #[message(Label)]
//! struct S(#[route(C)] Channel);
//! #[derive(Message)]
//! enum Label { Add(Add) }
//! struct Add(i32);
//!
//! #[session]
//! type Client = Send<S, Add, End>;
//! #[session]
//! type Server = Receive<C, Add, End>;
//!
//! let Roles(mut c, mut s) = Roles::default();
//! let (client, server) = futures::executor::block_on(async {
//!     futures::join!(
//!         // The client gives up before sending anything...
//!         try_session(&mut c, |_: Client<'_, C>| async move {
//!             Err::<((), End<'_, C>), _>(Error::other("no numbers today"))
//!         }),
//!         // ...and the server, waiting for its number, is told so instead of hanging.
//!         try_session(&mut s, |s: Server<'_, S>| async move {
//!             let (Add(x), end) = s.receive().await?;
//!             Ok((x, end))
//!         }),
//!     )
//! });
//! assert!(client.is_err());
//! let server = server.unwrap_err();
//! assert!(server.is_disconnected());
//! assert_eq!(server.peer(), Some("C"));
//! ```
//!
//! Deadlines work on any route and any executor ([`deadline`]): `s.receive().until(d)`
//! (also on [`Branch`]) and [`try_session_until`]`(role, d, f)` take any future `d` as the
//! timer (`tokio::time::sleep(..)`, `futures_timer::Delay`, a channel fired by a
//! supervisor). When it completes first, the session is dropped — aborting the role as
//! above — and the error is [`ReceiveErrorKind::TimedOut`] or [`SendErrorKind::TimedOut`],
//! naming the peer and the protocol state it was waiting in.
//!
//! Sends are not flushed one by one: a buffered transport may coalesce them. The role
//! flushes all its routes when it is about to wait on a receive and when the session
//! reaches [`End`] ([`Role::poll_flush`]), so no peer waits for a message sitting in a
//! buffer.
//!
//! # Tracing
//!
//! With the feature `tracing`, every session is a `tracing` span `session` (level INFO,
//! fields `role` and `session`, the session type's short name) and every step an event
//! inside it (level DEBUG, message `send` or `receive`, fields `role`, `peer`, `label`
//! and `state`, the short type name of the state the step was taken in), all with the
//! target `mpst`. Any subscriber shows them; `examples/tracing.rs` uses
//! `tracing-subscriber`. Without the feature no tracing code is compiled in.

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

extern crate self as mpst;

pub mod channel;
pub mod deadline;
mod error;
pub mod future;
pub mod introspect;
#[cfg_attr(docsrs, doc(cfg(feature = "tcp")))]
#[cfg(feature = "tcp")]
pub mod net;
#[cfg(feature = "tracing")]
mod observe;
pub mod offer;
mod payload;
mod primitives;
mod role;
#[cfg_attr(docsrs, doc(cfg(feature = "serialize")))]
#[cfg(feature = "serialize")]
pub mod serialize;
mod session;
mod state_name;
#[cfg_attr(docsrs, doc(cfg(feature = "serialize")))]
#[cfg(feature = "serialize")]
pub mod verify;
#[doc(hidden)]
pub mod wiring;

pub use deadline::try_session_until;
pub use error::{BoxError, Error, ReceiveError, ReceiveErrorKind, SendError, SendErrorKind};
pub use mpst_macros::{Message, Payload, Role, Roles, session};
pub use offer::{Offer, OfferCase, OfferContinuation, Offers, RouteFrom};
pub use payload::Payload;
#[doc(hidden)]
pub use payload::probe;
pub use primitives::{
    Branch, Choice, ChoiceTo, Choices, Choose, Continuation, Receive, Select, Send,
};
pub use role::{Labelled, Message, Role, Route};
pub use session::{End, FromState, IntoSession, State, try_session};

/// The FSM model, subtyping and k-MC (feature `serialize`), re-exported for
/// [`serialize`] and [`verify`] users.
#[cfg_attr(docsrs, doc(cfg(feature = "serialize")))]
#[cfg(feature = "serialize")]
pub use mpst_fsm as fsm;

/// The README's example, compiled and run as a doctest so it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctest;
