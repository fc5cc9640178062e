//! The operators one by one on the in-memory transport: locally, comm, broadcast, cond
//! with knowledge of choice, calls, fcomm/forward/join/select, and Figure 2 (the paper's
//! definition, `mpst_choreo_paper`).

use crate::common;

use std::sync::Arc;

use mpst_choreo::transport::{Chaos, ChaosConfig, InMemory};
use mpst_choreo::{Choreography, Endpoint, Located, Op, Result, RoleName, RoleSet, Runner, roles};
use mpst_choreo_paper::concurrent_send::{self, ConcurrentSend, Costs};

fn runner<L: RoleSet>() -> Runner {
    Runner::new(Arc::new(InMemory::new(L::names())))
}

fn output<X>(outputs: Vec<(RoleName, Result<X>)>, role: &str) -> X {
    let (_, result) = outputs
        .into_iter()
        .find(|(r, _)| r.as_str() == role)
        .expect("role in outputs");
    result.expect("role succeeded")
}

#[tokio::test]
async fn figure_2_binds_key_and_txt_at_the_client() {
    // Figure 2 / 15 (`mpst_choreo_paper`): ks and cs send key and txt to s, which
    // forwards both to c in whichever order they arrive.
    let choreo = ConcurrentSend {
        client: 3,
        costs: Costs::default(),
    };
    let outputs = runner::<concurrent_send::Roles>().run(choreo).await;
    assert_eq!(outputs.len(), 4);
    for (role, result) in &outputs {
        let here = result.as_ref().expect("every role succeeds").is_here();
        assert_eq!(here, role.as_str() == "C", "{role}");
    }
    let at_c = output(outputs, "C").into_local();
    assert_eq!(at_c, Some(concurrent_send::expected(3)));
}

roles! {
    /// Decides.
    pub struct A;
    /// Must know the decision.
    pub struct B;
    /// Must not be told.
    pub struct Z;
}

type Abz = RoleSet![A, B, Z];

#[derive(Clone)]
struct Broadcast;

impl Choreography<u32> for Broadcast {
    type Roles = Abz;

    async fn run(self, op: &Op<Abz>) -> Result<u32> {
        let v = op.locally(A, |_| 41);
        let all = op.broadcast(A, &v).await?;
        Ok(all + 1)
    }
}

#[tokio::test]
async fn broadcast_gives_every_role_the_value() {
    let outputs = runner::<Abz>().run(Broadcast).await;
    for (role, result) in outputs {
        assert_eq!(result.unwrap(), 42, "{role}");
    }
}

/// The branch: only A and B take part, and B learns the choice.
struct Branch {
    go: bool,
}

impl Choreography<Located<String, B>> for Branch {
    type Roles = RoleSet![A, B];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Located<String, B>> {
        let msg = op.locally(A, |_| if self.go { "go" } else { "stop" }.to_string());
        op.comm(A, B, &msg).await
    }
}

#[derive(Clone)]
struct Decide(bool);

impl Choreography<Option<Located<String, B>>> for Decide {
    type Roles = Abz;

    async fn run(self, op: &Op<Abz>) -> Result<Option<Located<String, B>>> {
        let choice = op.locally(A, |_| self.0);
        op.cond(A, &choice, |go| Branch { go }).await
    }
}

#[tokio::test]
async fn cond_informs_exactly_the_roles_of_the_branch() {
    for go in [true, false] {
        let recorder = Arc::new(mpst_choreo::Recorder::new());
        let outputs = runner::<Abz>()
            .observer(recorder.clone())
            .run(Decide(go))
            .await;
        let b = output(outputs, "B")
            .expect("B is in the branch")
            .into_local();
        assert_eq!(b.as_deref(), Some(if go { "go" } else { "stop" }));
        let outputs = runner::<Abz>().run(Decide(go)).await;
        assert!(output(outputs, "Z").is_none(), "Z skips the branch");
        let events = recorder.events();
        assert!(
            events.iter().all(|e| e.to.as_str() != "Z"),
            "nothing sent to Z"
        );
        let selection = format!("select:{go}");
        let to_b: Vec<_> = events.iter().filter(|e| e.to.as_str() == "B").collect();
        let told = |kind| to_b.iter().any(|e| e.kind == kind && e.label == selection);
        assert!(told(mpst_choreo::EventKind::Sent), "{to_b:?}");
        assert!(told(mpst_choreo::EventKind::Received), "{to_b:?}");
    }
}

#[derive(Clone)]
struct First;

impl Choreography<Located<mpst_choreo::Either<u32, String>, Z>> for First {
    type Roles = Abz;

    async fn run(self, op: &Op<Abz>) -> Result<Located<mpst_choreo::Either<u32, String>, Z>> {
        let n = op.locally(A, |_| 5);
        let s = op.locally(B, |_| "five".to_string());
        let n_z = op.fcomm(A, Z, &n);
        let s_z = op.fcomm(B, Z, &s);
        op.wait(Z, op.select(Z, n_z, s_z)).await
    }
}

/// What `Z` selects when the envelopes sent by `slow` arrive a second after the others.
async fn selected_when_late(slow: &'static str) -> Option<mpst_choreo::Either<u32, String>> {
    let net = common::Slow {
        inner: Arc::new(InMemory::new(Abz::names())),
        slow,
    };
    output(Runner::new(Arc::new(net)).run(First).await, "Z").into_local()
}

#[tokio::test(start_paused = true)]
async fn select_takes_whichever_arrives_first_with_its_own_value() {
    use mpst_choreo::Either::{Left, Right};
    // B's string is late: A's number arrives first and is the one selected, as Left.
    let got = selected_when_late("B").await;
    assert!(matches!(got, Some(Left(5))), "{got:?}");
    // A's number is late: B's string arrives first and is selected, as Right.
    let got = selected_when_late("A").await;
    assert!(matches!(&got, Some(Right(s)) if s == "five"), "{got:?}");
}

/// One iteration of a loop: the same site in every iteration, told apart by the token.
struct Step {
    i: u64,
}

impl Choreography<Located<u64, B>> for Step {
    type Roles = RoleSet![A, B];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Located<u64, B>> {
        let v = op.locally(A, |_| self.i * 100);
        let at_b = op.fcomm(A, B, &v);
        op.wait(B, at_b).await
    }
}

#[derive(Clone)]
struct Loop;

impl Choreography<Vec<Located<u64, B>>> for Loop {
    type Roles = Abz;

    async fn run(self, op: &Op<Abz>) -> Result<Vec<Located<u64, B>>> {
        op.iterate(5, |i| Step { i }).await
    }
}

#[tokio::test(start_paused = true)]
async fn iterations_get_distinct_tokens_under_chaos() {
    for seed in 0..20 {
        let net = Chaos::new(InMemory::new(Abz::names()), ChaosConfig::reorder(seed));
        let out = Runner::new(Arc::new(net)).run(Loop).await;
        let got: Vec<_> = output(out, "B")
            .into_iter()
            .map(|v| v.into_local())
            .collect();
        assert_eq!(
            got,
            (0..5).map(|i| Some(i * 100)).collect::<Vec<_>>(),
            "seed {seed}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn concurrent_sessions_on_one_endpoint_do_not_mix() {
    let net: Arc<dyn mpst_choreo::Transport> = Arc::new(Chaos::new(
        InMemory::new(concurrent_send::Roles::names()),
        ChaosConfig::reorder(11),
    ));
    let sessions = |client: u64| ConcurrentSend {
        client,
        costs: Costs::default(),
    };
    let mut tasks = Vec::new();
    for role in concurrent_send::Roles::names() {
        let endpoint = Endpoint::new(net.clone(), role).unwrap();
        tasks.push(tokio::spawn(async move {
            let runs = (0..3).map(|n| endpoint.run_session(n, sessions(n)));
            futures::future::try_join_all(runs).await
        }));
    }
    let at_c = tasks.pop().unwrap().await.unwrap().unwrap();
    for (n, got) in (0..).zip(at_c) {
        assert_eq!(got.into_local(), Some(concurrent_send::expected(n)));
    }
    for task in tasks {
        assert!(task.await.unwrap().is_ok());
    }
}

#[derive(Clone)]
struct SlowService;

impl Choreography<Located<u64, B>> for SlowService {
    type Roles = RoleSet![A, B];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Located<u64, B>> {
        let x = op.locally(A, |_| 21);
        let at_b = op.fcomm(A, B, &x);
        let doubled = op.then_async(B, at_b, |x| async move {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            x * 2
        });
        op.wait(B, doubled).await
    }
}

#[tokio::test(start_paused = true)]
async fn then_async_runs_an_async_computation_on_arrival() {
    let out = runner::<RoleSet![A, B]>().run(SlowService).await;
    assert_eq!(output(out, "B").into_local(), Some(42));
}

#[derive(Clone)]
struct ReadyForward;

impl Choreography<Located<u64, Z>> for ReadyForward {
    type Roles = Abz;

    async fn run(self, op: &Op<Abz>) -> Result<Located<u64, Z>> {
        let v = op.locally(A, |_| 9);
        let ready = op.ready(A, v);
        let at_b = op.fcomm(A, B, ready);
        let at_z = op.fcomm(B, Z, op.then(B, at_b, |x| x + 1));
        op.wait(Z, at_z).await
    }
}

#[tokio::test]
async fn ready_futures_and_chained_forwards() {
    let got = output(runner::<Abz>().run(ReadyForward).await, "Z").into_local();
    assert_eq!(got, Some(10));
}
