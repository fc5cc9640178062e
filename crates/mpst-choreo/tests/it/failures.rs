//! Failures are typed values, never panics or hangs: a reused key names its sites, a
//! dropped message is a timeout naming key and peer, duplicates are refused, a closed
//! transport fails pending receives at once, and so does a runtime without timers.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use mpst_choreo::transport::{Chaos, ChaosConfig, InMemory, Inbox};
use mpst_choreo::{
    ChoreoError, Choreography, Endpoint, EndpointConfig, Envelope, EventKind, Located, Op,
    Recorder, Result, RoleName, RoleSet, Runner, Transport, TransportError, roles,
};

roles! {
    pub struct A;
    pub struct B;
}

type AB = RoleSet![A, B];

fn err_at<X>(outputs: &[(RoleName, Result<X>)], role: &str) -> String {
    match outputs.iter().find(|(r, _)| r.as_str() == role) {
        Some((_, Err(e))) => e.to_string(),
        Some((_, Ok(_))) => panic!("{role} succeeded"),
        None => panic!("{role} missing"),
    }
}

// Without #[track_caller], both calls of this helper have the same site.
fn send_without_track_caller<'a>(
    op: &'a Op<AB>,
    v: &Located<u32, A>,
) -> impl Future<Output = Result<Located<u32, B>>> + 'a {
    op.comm(A, B, v)
}

#[derive(Clone)]
struct HelperTwice;

impl Choreography<(Located<u32, B>, Located<u32, B>)> for HelperTwice {
    type Roles = AB;

    async fn run(self, op: &Op<AB>) -> Result<(Located<u32, B>, Located<u32, B>)> {
        let one = op.locally(A, |_| 1);
        let two = op.locally(A, |_| 2);
        let first = send_without_track_caller(op, &one).await?;
        let second = send_without_track_caller(op, &two).await?;
        Ok((first, second))
    }
}

#[tokio::test(start_paused = true)]
async fn a_key_used_twice_is_an_error_naming_both_sites_at_both_roles() {
    let out = Runner::new(Arc::new(InMemory::new(AB::names())))
        .run(HelperTwice)
        .await;
    for role in ["A", "B"] {
        let msg = err_at(&out, role);
        assert!(msg.contains("used twice"), "{msg}");
        assert_eq!(
            msg.matches("failures.rs:").count(),
            3,
            "key, first and second site: {msg}"
        );
    }
    for (_, result) in &out {
        assert!(matches!(result, Err(ChoreoError::KeyReused { .. })));
    }
}

#[derive(Clone)]
struct ForwardTwice;

fn fcomm_without_track_caller(op: &Op<AB>, v: &Located<u32, A>) {
    let at_b = op.fcomm(A, B, v);
    op.detach(B, op.then(B, at_b, |_| ()));
}

impl Choreography for ForwardTwice {
    type Roles = AB;

    async fn run(self, op: &Op<AB>) -> Result<()> {
        let v = op.locally(A, |_| 7);
        fcomm_without_track_caller(op, &v);
        fcomm_without_track_caller(op, &v);
        Ok(())
    }
}

#[tokio::test(start_paused = true)]
async fn a_non_blocking_key_reuse_fails_the_run_even_if_nobody_awaits_it() {
    let out = Runner::new(Arc::new(InMemory::new(AB::names())))
        .run(ForwardTwice)
        .await;
    for (role, result) in &out {
        assert!(
            matches!(result, Err(ChoreoError::KeyReused { .. })),
            "{role}: {result:?}"
        );
    }
}

#[derive(Clone)]
struct Once;

impl Choreography<Located<u32, B>> for Once {
    type Roles = AB;

    async fn run(self, op: &Op<AB>) -> Result<Located<u32, B>> {
        let v = op.locally(A, |_| 42);
        op.comm(A, B, &v).await
    }
}

#[tokio::test(start_paused = true)]
async fn a_dropped_message_is_a_timeout_naming_the_key_and_the_peer() {
    let cfg = ChaosConfig::reorder(1).with_drop(1.0);
    let net = Arc::new(Chaos::new(InMemory::new(AB::names()), cfg));
    let config = EndpointConfig {
        recv_timeout: Duration::from_secs(5),
        ..EndpointConfig::default()
    };
    let started = tokio::time::Instant::now();
    let out = Runner::new(net.clone()).config(config).run(Once).await;
    assert_eq!(
        started.elapsed(),
        Duration::from_secs(5),
        "fails at the timeout, not later"
    );
    assert!(out[0].1.is_ok(), "the sender's send succeeded");
    match &out[1].1 {
        Err(ChoreoError::Timeout(timeout)) => {
            assert_eq!((timeout.role.as_str(), timeout.from.as_str()), ("B", "A"));
            assert_eq!(timeout.after, Duration::from_secs(5));
            let key = &timeout.key;
            assert!(key.to_string().contains("failures.rs:"), "{key}");
            // Lost on the way, not dropped by B's bounds: no hint about them.
            assert_eq!(timeout.unclaimed_dropped, 0);
            assert!(!timeout.to_string().contains("unclaimed"), "{timeout}");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert_eq!(net.stats().dropped, 1);
}

/// Regression: a sender that ran more sessions ahead than the receiver's
/// `unclaimed_limit` had its oldest envelopes dropped, and the receiver's session then
/// failed with a bare time-out that did not say why.
#[tokio::test(start_paused = true)]
async fn a_receive_whose_envelope_was_dropped_unclaimed_says_so_in_its_timeout() {
    let net: Arc<dyn Transport> = Arc::new(InMemory::new(AB::names()));
    let config = EndpointConfig {
        unclaimed_limit: 2,
        recv_timeout: Duration::from_secs(5),
        ..EndpointConfig::default()
    };
    let a = Endpoint::with_config(net.clone(), "A".into(), config, None).unwrap();
    let b = Endpoint::with_config(net.clone(), "B".into(), config, None).unwrap();
    // A runs five sessions before B starts any: B holds the last two, drops three.
    for n in 0..5 {
        a.run_session(n, Once).await.unwrap();
    }
    assert_eq!(b.stats().unclaimed_dropped, 3);
    let started = tokio::time::Instant::now();
    match b.run_session(0, Once).await {
        Err(ChoreoError::Timeout(timeout)) => {
            assert_eq!(started.elapsed(), Duration::from_secs(5));
            assert_eq!(timeout.unclaimed_dropped, 3);
            let text = timeout.to_string();
            assert!(
                text.contains("dropped 3 envelopes that no receive had claimed")
                    && text.contains("unclaimed_limit"),
                "{text}"
            );
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    // A session whose envelope was kept still completes.
    let got = b.run_session(4, Once).await.unwrap();
    assert_eq!(got.into_local(), Some(42));
}

#[tokio::test(start_paused = true)]
async fn duplicated_deliveries_are_refused_and_reported() {
    let cfg = ChaosConfig {
        duplicate: 1.0,
        ..ChaosConfig::reorder(3)
    };
    let net = Arc::new(Chaos::new(InMemory::new(AB::names()), cfg));
    let recorder = Arc::new(Recorder::new());
    let observer = Some(recorder.clone() as Arc<dyn mpst_choreo::Observer>);
    let endpoint = |role: &'static str| {
        Endpoint::with_config(
            net.clone(),
            role.into(),
            EndpointConfig::default(),
            observer.clone(),
        )
    };
    let (a, b) = (endpoint("A").unwrap(), endpoint("B").unwrap());
    let (at_a, at_b) = tokio::join!(a.run(Once), b.run(Once));
    assert!(at_a.is_ok());
    assert_eq!(at_b.ok().and_then(Located::into_local), Some(42));
    tokio::time::sleep(Duration::from_secs(1)).await; // let the late copy arrive
    let stats = b.stats();
    assert_eq!(
        stats.duplicates_refused + stats.late_refused,
        1,
        "{stats:?}"
    );
    let kinds: Vec<EventKind> = recorder.events().iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == EventKind::Received).count(),
        1
    );
    assert_eq!(
        kinds
            .iter()
            .filter(|k| **k == EventKind::DuplicateRefused)
            .count(),
        1
    );
    assert_eq!(net.stats().duplicated, 1);
}

/// A transport whose incoming streams end at once.
struct Closed;

impl Transport for Closed {
    fn send(&self, _: Envelope) -> BoxFuture<'static, Result<(), TransportError>> {
        Box::pin(async { Ok(()) })
    }

    fn attach(&self, _: &RoleName, inbox: Inbox) -> Result<(), TransportError> {
        drop(inbox);
        Ok(())
    }
}

#[tokio::test(start_paused = true)]
async fn a_closed_transport_fails_pending_receives_at_once() {
    let started = tokio::time::Instant::now();
    let out = Runner::new(Arc::new(Closed)).run(Once).await;
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "no wait for the timeout"
    );
    assert!(
        matches!(&out[1].1, Err(ChoreoError::Closed { .. })),
        "{:?}",
        out[1].1
    );
}

#[tokio::test]
async fn a_role_outside_the_transport_is_an_error() {
    let out = Runner::new(Arc::new(InMemory::new([RoleName::from("A")])))
        .run(Once)
        .await;
    assert!(err_at(&out, "B").contains("B"), "names the role");
}

#[test]
fn an_endpoint_outside_a_runtime_is_an_error_not_a_panic() {
    let net = Arc::new(InMemory::new(AB::names()));
    let endpoint = Endpoint::new(net, "A".into());
    assert!(matches!(endpoint, Err(ChoreoError::NoRuntime)));
}

/// Runs `test` on a thread of its own and returns what it returns, failing the test if
/// it takes more than a minute: for receives that used to wait for ever, on runtimes a
/// `#[tokio::test]` cannot build.
fn within_a_minute<T: Send + 'static>(test: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, outcome) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(test());
    });
    outcome
        .recv_timeout(Duration::from_secs(60))
        .expect("the receives end within 60 s instead of waiting for ever")
}

/// Regression: on a runtime built without timers, the endpoint's task that times
/// receives out panicked on its first sleep, unseen, and a receive whose sender never
/// came then waited for ever. Now it fails with an error that says what to change, and so
/// does every later receive that would wait.
#[test]
fn a_receive_on_a_runtime_without_timers_fails_instead_of_waiting_for_ever() {
    let errors = within_a_minute(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime without timers");
        runtime.block_on(async {
            let net = Arc::new(InMemory::new(AB::names()));
            // A never runs: only the time-out could end B's receive.
            let b = Endpoint::new(net, "B".into()).expect("inside a runtime");
            let first = b.run(Once).await.map(drop);
            let second = b.run(Once).await.map(drop);
            [first, second]
        })
    });
    for (session, error) in errors.into_iter().enumerate() {
        match error {
            Err(ChoreoError::NoTimer(e)) => {
                assert_eq!(e.role.as_str(), "B");
                assert!(e.key.to_string().contains("failures.rs:"), "{}", e.key);
                let text = e.to_string();
                assert!(text.contains("enable_all()"), "says what to change: {text}");
            }
            other => panic!("session {session}: expected NoTimer, got {other:?}"),
        }
    }
}

/// Regression: an endpoint whose runtime shut down lost the task that times receives
/// out, and a receive run on another runtime then waited for ever. Now it fails as
/// closed, whether that task had never run or had gone to sleep.
#[test]
fn a_receive_after_the_endpoints_runtime_shut_down_fails_as_closed() {
    let errors = within_a_minute(|| {
        let mut errors = Vec::new();
        for task_ran in [false, true] {
            let first = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            let b = first.block_on(async {
                let net = Arc::new(InMemory::new(AB::names()));
                let b = Endpoint::new(net, "B".into()).expect("inside a runtime");
                if task_ran {
                    // The endpoint's task runs here and goes to sleep.
                    tokio::task::yield_now().await;
                }
                b
            });
            drop(first);
            let second = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            errors.push(second.block_on(b.run(Once)).map(drop));
        }
        errors
    });
    for (task_ran, error) in [false, true].into_iter().zip(errors) {
        assert!(
            matches!(&error, Err(ChoreoError::Closed(e)) if e.role.as_str() == "B"),
            "task ran: {task_ran}: {error:?}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_finished_session_forgets_its_keys_refuses_late_messages_and_cannot_rerun() {
    // Every envelope is delivered twice, the copy up to 50 ms later.
    let cfg = ChaosConfig {
        duplicate: 1.0,
        ..ChaosConfig::reorder(5)
    };
    let net = Arc::new(Chaos::new(InMemory::new(AB::names()), cfg));
    let (a, b) = (
        Endpoint::new(net.clone(), "A".into()).unwrap(),
        Endpoint::new(net, "B".into()).unwrap(),
    );
    for n in 0..3 {
        let (at_a, at_b) = tokio::join!(a.run_session(n, Once), b.run_session(n, Once));
        assert!(at_a.is_ok());
        assert_eq!(at_b.ok().and_then(Located::into_local), Some(42));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let stats = b.stats();
    assert_eq!(stats.keys_held, 0, "{stats:?}");
    assert_eq!(
        stats.duplicates_refused + stats.late_refused,
        3,
        "{stats:?}"
    );
    assert!(
        stats.late_refused > 0,
        "some copies came after their session: {stats:?}"
    );
    assert_eq!(a.stats().keys_held, 0);
    let again = b.run_session(1, Once).await;
    assert!(
        matches!(&again, Err(ChoreoError::SessionReused(reused)) if reused.session == 1),
        "{again:?}"
    );
}

/// A transport that rewrites every envelope on its way.
struct Tamper {
    inner: InMemory,
    rewrite: fn(Envelope) -> Envelope,
}

impl Transport for Tamper {
    fn send(&self, envelope: Envelope) -> BoxFuture<'static, Result<(), TransportError>> {
        self.inner.send((self.rewrite)(envelope))
    }

    fn attach(&self, role: &RoleName, inbox: Inbox) -> Result<(), TransportError> {
        self.inner.attach(role, inbox)
    }
}

async fn tampered(rewrite: fn(Envelope) -> Envelope) -> Result<Located<u32, B>> {
    let net = Tamper {
        inner: InMemory::new(AB::names()),
        rewrite,
    };
    let mut out = Runner::new(Arc::new(net)).run(Once).await;
    out.pop().map_or(
        Err(ChoreoError::UnknownRole(Box::new("B".into()))),
        |(_, r)| r,
    )
}

#[tokio::test(start_paused = true)]
async fn a_message_from_the_wrong_sender_is_never_bound_and_the_receive_waits_for_the_real_one() {
    // Every envelope claims to come from Mallory: B binds none of them, and its receive
    // from A waits (here until its time-out, as A's real message never comes).
    let got = tampered(|env| Envelope {
        from: "Mallory".into(),
        ..env
    })
    .await;
    match got {
        Err(ChoreoError::Timeout(timeout)) => assert_eq!(timeout.from.as_str(), "A"),
        other => panic!("expected a time-out waiting for A, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn an_undecodable_payload_is_a_decode_error_naming_the_type() {
    let got = tampered(|env| Envelope {
        payload: vec![0xff],
        ..env
    })
    .await;
    match got {
        Err(ChoreoError::Decode(decode)) => {
            assert_eq!((decode.ty, decode.from.as_str()), ("u32", "A"));
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
}
