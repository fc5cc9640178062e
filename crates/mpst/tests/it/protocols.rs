//! Recursion, choice, infinite loops, named-field roles, non-route fields and bounded
//! channels, on every supported executor.

use mpst::{Branch, End, Message, Receive, Role, Roles, Select, Send, session, try_session};

// ---- double buffering (Listings 2 and 3 of the paper) --------------------------------

type Channel = mpst::channel::Bounded<Label, 1>;

#[derive(Roles)]
struct DoubleBuffering {
    s: S,
    k: K,
    t: T,
}

#[derive(Role)]
#[message(Label)]
struct S {
    #[route(K)]
    k: Channel,
}

#[derive(Role)]
#[message(Label)]
struct K {
    #[route(S)]
    s: Channel,
    #[route(T)]
    t: Channel,
    /// Not a route: `derive(Roles)` fills it with `Default::default()`.
    forwarded: u64,
}

#[derive(Role)]
#[message(Label)]
struct T {
    #[route(K)]
    k: Channel,
}

#[derive(Message)]
enum Label {
    Ready(Ready),
    Value(Value),
    Stop(Stop),
}

struct Ready;
struct Value(u64);
struct Stop;

/// The optimised kernel: two `Ready`s up front, then the loop.
#[session]
type Kernel = Send<S, Ready, KernelLoop>;

#[session]
struct KernelLoop(Send<S, Ready, Receive<S, Value, Receive<T, Ready, Send<T, Value, Self>>>>);

#[session]
struct Source(Receive<K, Ready, Send<K, Value, Self>>);

#[session]
struct Sink(Send<K, Ready, Receive<K, Value, Self>>);

/// Runs forever: `loop` has type `!`, which stands in for the `End` the closure owes.
async fn kernel(role: &mut K) -> Result<(), mpst::Error> {
    try_session(role, |s: Kernel<'_, K>| async move {
        let mut t = s.send(Ready).await?;
        loop {
            let s = t.into_session().send(Ready).await?;
            let (Value(value), s) = s.receive().await?;
            let (Ready, s) = s.receive().await?;
            t = s.send(Value(value * 10)).await?;
        }
    })
    .await
}

async fn source(role: &mut S) -> Result<(), mpst::Error> {
    try_session(role, |mut s: Source<'_, S>| async move {
        let mut value = 0;
        loop {
            let (Ready, next) = s.into_session().receive().await?;
            s = next.send(Value(value)).await?;
            value += 1;
        }
    })
    .await
}

/// Takes `rounds` values, then leaves the infinite protocol with `Error::other`.
async fn sink(role: &mut T, rounds: usize, seen: &mut Vec<u64>) -> Result<(), mpst::Error> {
    try_session(role, |mut s: Sink<'_, T>| async move {
        loop {
            let (Value(v), next) = s.into_session().send(Ready).await?.receive().await?;
            seen.push(v);
            if seen.len() == rounds {
                return Err(mpst::Error::other("enough values"));
            }
            s = next;
        }
    })
    .await
}

/// Runs the three roles until the sink has `rounds` values; dropping each role as its
/// process ends makes the others stop with `Disconnected`.
async fn double_buffering(rounds: usize) -> (Vec<u64>, [mpst::Error; 3]) {
    let DoubleBuffering { s, k, t } = DoubleBuffering::default();
    assert_eq!(k.forwarded, 0);
    let mut seen = Vec::new();
    let (ks, ss, ts) = futures::join!(
        async move {
            let mut k = k;
            kernel(&mut k).await
        },
        async move {
            let mut s = s;
            source(&mut s).await
        },
        async {
            let mut t = t;
            sink(&mut t, rounds, &mut seen).await
        },
    );
    (seen, [ks.unwrap_err(), ss.unwrap_err(), ts.unwrap_err()])
}

fn check_double_buffering(seen: Vec<u64>, errors: [mpst::Error; 3]) {
    assert_eq!(seen, (0..20).map(|v| v * 10).collect::<Vec<_>>());
    let [kernel, source, sink] = errors;
    assert!(kernel.is_disconnected(), "{kernel}");
    assert_eq!(kernel.peer(), Some("T"));
    assert!(source.is_disconnected(), "{source}");
    assert_eq!(source.peer(), Some("K"));
    assert!(matches!(sink, mpst::Error::Other(_)), "{sink}");
}

#[test]
fn double_buffering_on_futures_executor() {
    let (seen, errors) = futures::executor::block_on(double_buffering(20));
    check_double_buffering(seen, errors);
}

#[test]
fn double_buffering_on_tokio_current_thread() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (seen, errors) = runtime.block_on(double_buffering(20));
    check_double_buffering(seen, errors);
}

#[test]
fn double_buffering_on_tokio_multi_thread() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let (seen, errors) =
        runtime.block_on(async { tokio::spawn(double_buffering(20)).await.unwrap() });
    check_double_buffering(seen, errors);
}

// ---- a ring with choice, three roles on their own threads -------------------------------

mod ring {
    use super::*;

    type Channel = mpst::channel::Unbounded<Msg>;

    #[derive(Roles)]
    pub struct Ring(pub A, pub B, pub C);

    #[derive(Role)]
    #[message(Msg)]
    pub struct A(#[route(B)] Channel, #[route(C)] Channel);

    #[derive(Role)]
    #[message(Msg)]
    pub struct B(#[route(A)] Channel, #[route(C)] Channel);

    #[derive(Role)]
    #[message(Msg)]
    pub struct C(#[route(B)] Channel, #[route(A)] Channel);

    #[derive(Message)]
    pub enum Msg {
        Token(Token),
        Stop(Stop),
    }

    pub struct Token(pub u64);
    pub struct Stop;

    #[session]
    pub struct RingA(Select<B, RingAChoice>);

    #[session]
    pub enum RingAChoice {
        Token(Token, Receive<C, Token, RingA>),
        Stop(Stop, Receive<C, Stop, End>),
    }

    #[session]
    pub struct RingB(Branch<A, RingBChoice>);

    #[session]
    pub enum RingBChoice {
        Token(Token, Send<C, Token, RingB>),
        Stop(Stop, Send<C, Stop, End>),
    }

    #[session]
    pub struct RingC(Branch<B, RingCChoice>);

    #[session]
    pub enum RingCChoice {
        Token(Token, Send<A, Token, RingC>),
        Stop(Stop, Send<A, Stop, End>),
    }

    pub async fn a(role: &mut A, laps: u64) -> Result<u64, mpst::Error> {
        try_session(role, |mut s: RingA<'_, A>| async move {
            let mut token = 0;
            for _ in 0..laps {
                let next = s.into_session().select(Token(token)).await?;
                let (Token(t), next) = next.receive().await?;
                token = t;
                s = next;
            }
            let (Stop, end) = s.into_session().select(Stop).await?.receive().await?;
            Ok((token, end))
        })
        .await
    }

    pub async fn b(role: &mut B) -> Result<(), mpst::Error> {
        try_session(role, |mut s: RingB<'_, B>| async move {
            loop {
                match s.into_session().branch().await? {
                    RingBChoice::Token(Token(t), next) => s = next.send(Token(t + 1)).await?,
                    RingBChoice::Stop(Stop, next) => return Ok(((), next.send(Stop).await?)),
                }
            }
        })
        .await
    }

    pub async fn c(role: &mut C) -> Result<(), mpst::Error> {
        try_session(role, |mut s: RingC<'_, C>| async move {
            loop {
                match s.into_session().branch().await? {
                    RingCChoice::Token(Token(t), next) => s = next.send(Token(t * 2)).await?,
                    RingCChoice::Stop(Stop, next) => return Ok(((), next.send(Stop).await?)),
                }
            }
        })
        .await
    }
}

fn expected_token(laps: u64) -> u64 {
    (0..laps).fold(0, |t, _| (t + 1) * 2)
}

#[test]
fn ring_with_choice_on_threads_reuses_roles() {
    let ring::Ring(mut a, mut b, mut c) = ring::Ring::default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    for laps in [0, 1, 5, 10] {
        let (ra, rb, rc) = runtime.block_on(async {
            let tb = tokio::spawn(async move {
                let r = ring::b(&mut b).await;
                (b, r)
            });
            let tc = tokio::spawn(async move {
                let r = ring::c(&mut c).await;
                (c, r)
            });
            let ra = ring::a(&mut a, laps).await;
            (ra, tb.await.unwrap(), tc.await.unwrap())
        });
        assert_eq!(ra.unwrap(), expected_token(laps));
        rb.1.unwrap();
        rc.1.unwrap();
        b = rb.0;
        c = rc.0;
    }
}

#[test]
fn ring_on_futures_thread_pool() {
    let pool = futures::executor::ThreadPool::builder()
        .pool_size(2)
        .create()
        .unwrap();
    let ring::Ring(mut a, mut b, mut c) = ring::Ring::default();
    let (tx, rx) = futures::channel::oneshot::channel();
    pool.spawn_ok(async move {
        let r = futures::join!(ring::b(&mut b), ring::c(&mut c));
        let _ = tx.send(r);
    });
    let ra = futures::executor::block_on(ring::a(&mut a, 7));
    assert_eq!(ra.unwrap(), expected_token(7));
    let (rb, rc) = futures::executor::block_on(rx).unwrap();
    rb.unwrap();
    rc.unwrap();
}

#[test]
fn role_names_and_label_names_are_introspectable() {
    use mpst::{Choices, Labelled};
    assert_eq!(<ring::A as Role>::NAME, "A");
    assert_eq!(<K as Role>::NAME, "K");
    assert_eq!(<Label as mpst::Message<Value>>::NAME, "Value");
    assert_eq!(<Label as Labelled>::LABELS, &["Ready", "Value", "Stop"]);
    assert_eq!(Label::from(Stop).label(), "Stop");
    assert!(Value::try_from(Label::from(Ready)).is_err());
    assert_eq!(
        Value::try_from(Label::Value(Value(3))).ok().map(|v| v.0),
        Some(3)
    );
    assert_eq!(
        <ring::RingBChoice<'static, ring::B> as Choices<'static>>::LABELS,
        &["Token", "Stop"]
    );
}

// ---- generic aliases and named session types inside other types ------------------------

mod generic {
    use super::*;

    type Channel = mpst::channel::Unbounded<Msg>;

    #[derive(Roles)]
    pub struct Pair(pub A, pub B);

    #[derive(Role)]
    #[message(Msg)]
    pub struct A(#[route(B)] Channel);

    #[derive(Role)]
    #[message(Msg)]
    pub struct B(#[route(A)] Channel);

    #[derive(Message)]
    pub enum Msg {
        Num(Num),
        Text(Text),
    }

    pub struct Num(pub i64);
    pub struct Text(pub String);

    /// A generic alias: `Twice<'r, R, To, L, Next>`.
    #[session]
    pub type Twice<To, L, Next> = Send<To, L, Send<To, L, Next>>;

    #[session]
    pub type Sender = Twice<B, Num, Send<B, Text, End>>;

    #[session]
    pub type Receiver = Receive<A, Num, Receive<A, Num, Receive<A, Text, End>>>;

    /// `Self` as an argument of a generic alias is the continuation too.
    #[session]
    pub struct Pairs(Twice<B, Num, Self>);

    #[session]
    pub struct TakePairs(Receive<A, Num, Receive<A, Num, Self>>);
}

#[test]
fn generic_aliases_compose() {
    use generic::*;
    let Pair(mut a, mut b) = Pair::default();
    let (sent, got) = futures::executor::block_on(async {
        futures::join!(
            try_session(&mut a, |s: Sender<'_, A>| async move {
                let s = s.send(Num(20)).await?.send(Num(22)).await?;
                Ok(((), s.send(Text("sum".into())).await?))
            }),
            try_session(&mut b, |s: Receiver<'_, B>| async move {
                let (Num(x), s) = s.receive().await?;
                let (Num(y), s) = s.receive().await?;
                let (Text(t), s) = s.receive().await?;
                Ok((format!("{t}={}", x + y), s))
            })
        )
    });
    sent.unwrap();
    assert_eq!(got.unwrap(), "sum=42");
}

#[test]
fn self_as_argument_of_a_generic_alias() {
    use generic::*;
    let Pair(a, mut b) = Pair::default();
    let mut sums = Vec::new();
    let seen = &mut sums;
    let (sent, received) = futures::executor::block_on(async {
        futures::join!(
            async move {
                // A's role is dropped when its process ends, which ends B's loop.
                let mut a = a;
                try_session(&mut a, |mut s: Pairs<'_, A>| async move {
                    for i in 0..3 {
                        s = s
                            .into_session()
                            .send(Num(i))
                            .await?
                            .send(Num(10 * i))
                            .await?;
                    }
                    Err::<((), _), _>(mpst::Error::other("three pairs sent"))
                })
                .await
            },
            try_session(&mut b, |mut s: TakePairs<'_, B>| async move {
                loop {
                    let (Num(x), next) = s.into_session().receive().await?;
                    let (Num(y), next) = next.receive().await?;
                    seen.push(x + y);
                    s = next;
                }
            })
        )
    });
    assert_eq!(
        sent.unwrap_err().to_string(),
        "session aborted: three pairs sent"
    );
    let received: Result<(), _> = received;
    assert!(received.unwrap_err().is_disconnected());
    assert_eq!(sums, vec![0, 11, 22]);
}
