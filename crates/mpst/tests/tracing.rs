//! The `tracing` feature seen through a subscriber: one span per session with its role,
//! and one event per send and receive inside it with the role, peer, label and state.

use std::fmt::Debug;
use std::sync::{Arc, Mutex};

use mpst::{Branch, End, Message, Receive, Select, Send, session, try_session};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Event, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;

// The `it` binary's helpers: this binary uses only `declare_roles`.
#[allow(dead_code, unused_imports, unused_macros)]
#[path = "it/support.rs"]
mod support;
use support::declare_roles;

declare_roles!(Label over mpst::channel::Unbounded<Label>: A(B), B(A));

#[derive(Message)]
enum Label {
    Add(Add),
    Sum(Sum),
    Quit(Quit),
}

struct Add(i32);
struct Sum(i32);
struct Quit;

#[session]
type AdderA = Send<B, Add, Receive<B, Sum, Select<B, ChoiceA>>>;

#[session]
enum ChoiceA {
    Quit(Quit, End),
}

#[session]
type AdderB = Receive<A, Add, Send<A, Sum, Branch<A, ChoiceB>>>;

#[session]
enum ChoiceB {
    Quit(Quit, End),
}

/// The fields of a span or an event, as text.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Fields(Vec<(String, String)>);

impl Fields {
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_string(), value.to_string()));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0
            .push((field.name().to_string(), format!("{value:?}")));
    }
}

/// What the layer saw: every span opened (name, fields) and every event with the
/// fields of the span it happened in.
#[derive(Default)]
struct Seen {
    spans: Vec<(String, Fields)>,
    events: Vec<(Fields, Option<Fields>)>,
}

/// A layer that records into [`Seen`].
struct Recorder(Arc<Mutex<Seen>>);

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Recorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(fields.clone());
        }
        let name = attrs.metadata().name().to_string();
        self.0.lock().unwrap().spans.push((name, fields));
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let parent = ctx
            .event_span(event)
            .and_then(|span| span.extensions().get::<Fields>().cloned());
        self.0.lock().unwrap().events.push((fields, parent));
    }
}

fn run_adder() -> Seen {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let subscriber = tracing_subscriber::registry().with(Recorder(Arc::clone(&seen)));
    tracing::subscriber::with_default(subscriber, || {
        let Roles(mut a, mut b) = Roles::default();
        let (sum, done) = futures::executor::block_on(async {
            futures::join!(
                try_session(&mut a, |s: AdderA<'_, A>| async move {
                    let s = s.send(Add(2)).await?;
                    let (Sum(sum), s) = s.receive().await?;
                    Ok((sum, s.select(Quit).await?))
                }),
                try_session(&mut b, |s: AdderB<'_, B>| async move {
                    let (Add(x), s) = s.receive().await?;
                    let s = s.send(Sum(x + 1)).await?;
                    match s.branch().await? {
                        ChoiceB::Quit(Quit, end) => Ok(((), end)),
                    }
                }),
            )
        });
        assert_eq!(sum.unwrap(), 3);
        done.unwrap();
    });
    Arc::try_unwrap(seen)
        .ok()
        .expect("the subscriber is gone")
        .into_inner()
        .unwrap()
}

#[test]
fn a_session_is_a_span_and_each_step_an_event_in_it() {
    let seen = run_adder();
    let sessions: Vec<_> = seen
        .spans
        .iter()
        .filter(|(name, _)| name == "session")
        .map(|(_, fields)| fields.get("role").unwrap_or("?").to_string())
        .collect();
    assert_eq!(sessions, ["A", "B"], "one span per session, with its role");
    let a_session = seen.spans[0].1.get("session").unwrap_or_default();
    assert!(
        a_session.starts_with("Send<B, Add, Receive<B, Sum,"),
        "{a_session}"
    );

    let steps: Vec<_> = seen
        .events
        .iter()
        .map(|(event, span)| {
            let field = |name| event.get(name).unwrap_or("?").to_string();
            (
                field("message"),
                field("role"),
                field("peer"),
                field("label"),
                span.as_ref()
                    .and_then(|s| s.get("role"))
                    .map(str::to_string),
            )
        })
        .collect();
    let step = |what: &str, role: &str, peer: &str, label: &str| {
        (
            what.to_string(),
            role.to_string(),
            peer.to_string(),
            label.to_string(),
            Some(role.to_string()),
        )
    };
    let expected = [
        step("send", "A", "B", "Add"),
        step("receive", "B", "A", "Add"),
        step("send", "B", "A", "Sum"),
        step("receive", "A", "B", "Sum"),
        step("send", "A", "B", "Quit"),
        step("receive", "B", "A", "Quit"),
    ];
    // The two roles interleave as the executor polls them; each role's own steps are
    // in protocol order.
    for role in ["A", "B"] {
        let mine = |s: &&(String, String, String, String, Option<String>)| s.1 == role;
        let got: Vec<_> = steps.iter().filter(mine).collect();
        let want: Vec<_> = expected.iter().filter(mine).collect();
        assert_eq!(got, want, "the steps of {role}");
    }

    // The state of each step: the session type still to run, short and readable.
    let states: Vec<&str> = seen
        .events
        .iter()
        .filter(|(event, _)| event.get("role") == Some("B"))
        .map(|(event, _)| event.get("state").unwrap_or("?"))
        .collect();
    assert!(
        states[0].starts_with("Receive<A, Add, Send<A, Sum,"),
        "{states:?}"
    );
    assert!(
        states[1].starts_with("Send<A, Sum, Branch<A, ChoiceB"),
        "{states:?}"
    );
    assert_eq!(states[2], "Branch<A, ChoiceB>", "{states:?}");
}

/// `Offer` seen through the same recorder: a label taken from one of several peers is a
/// `receive` event naming that peer; a label refused (a peer sends one the enum does not
/// take from it) is the session's error and no `receive` event.
mod offer {
    use super::{Recorder, Seen};
    use std::sync::{Arc, Mutex};

    use super::declare_roles;
    use mpst::{End, Message, Offer, Send, session, try_session};
    use tracing_subscriber::layer::SubscriberExt as _;

    declare_roles!(Label over mpst::channel::Unbounded<Label>: B(P, D), P(B, D), D(B, P));

    #[derive(Message)]
    enum Label {
        Left(Left),
        Right(Right),
    }
    struct Left;
    struct Right;

    #[session]
    type BSends = Send<D, Left, End>;
    #[session]
    type BSendsRight = Send<D, Right, End>;
    #[session]
    type Desk = Offer<Either>;
    #[session]
    enum Either {
        #[from(B)]
        Left(Left, End),
        #[from(P)]
        Right(Right, End),
    }

    /// `B` sends `Left` (or, with `wrong`, `Right`, which the desk takes only from `P`),
    /// then the desk offers; returns what the recorder saw and whether the desk ended.
    fn run(wrong: bool) -> (Seen, bool) {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let subscriber = tracing_subscriber::registry().with(Recorder(Arc::clone(&seen)));
        let ended = tracing::subscriber::with_default(subscriber, || {
            let Roles(mut b, _p, mut d) = Roles::default();
            futures::executor::block_on(async {
                let sent = if wrong {
                    try_session(&mut b, |s: BSendsRight<'_, B>| async move {
                        Ok(((), s.send(Right).await?))
                    })
                    .await
                } else {
                    try_session(&mut b, |s: BSends<'_, B>| async move {
                        Ok(((), s.send(Left).await?))
                    })
                    .await
                };
                sent.expect("B sends");
                try_session(&mut d, |s: Desk<'_, D>| async move {
                    match s.offer().await? {
                        Either::Left(Left, end) | Either::Right(Right, end) => Ok(((), end)),
                    }
                })
                .await
                .is_ok()
            })
        });
        let seen = Arc::try_unwrap(seen)
            .ok()
            .expect("the subscriber is gone")
            .into_inner()
            .unwrap();
        (seen, ended)
    }

    /// The desk's `receive` events as (peer, label).
    fn desk_receives(seen: &Seen) -> Vec<(String, String)> {
        seen.events
            .iter()
            .filter(|(e, _)| e.get("message") == Some("receive") && e.get("role") == Some("D"))
            .map(|(e, _)| {
                let field = |n| e.get(n).unwrap_or("?").to_string();
                (field("peer"), field("label"))
            })
            .collect()
    }

    #[test]
    fn a_label_taken_by_an_offer_is_a_receive_event_naming_its_peer() {
        let (seen, ended) = run(false);
        assert!(ended, "the desk takes Left from B");
        assert_eq!(
            desk_receives(&seen),
            [("B".to_string(), "Left".to_string())]
        );
    }

    #[test]
    fn a_label_an_offer_refuses_is_no_receive_event() {
        let (seen, ended) = run(true);
        assert!(!ended, "Right from B is refused");
        assert_eq!(desk_receives(&seen), []);
        // B's send is logged: the recorder saw the run.
        assert!(
            seen.events
                .iter()
                .any(|(e, _)| e.get("message") == Some("send") && e.get("role") == Some("B"))
        );
    }
}
