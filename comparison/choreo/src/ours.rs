//! The three choreographies with `mpst-choreo`, each in two forms: out of order (Ozone's
//! `fcomm`, `then`, forwarding and `wait`: every message carries its integrity key) and
//! in order (`comm`, the blocking operator: what ChoRus writes). `cond` carries the
//! pipeline's choice, keyed, to the roles of the branch.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mpst_choreo::net::quic::{QuicConfig, QuicTransport};
use mpst_choreo::net::tcp::{TcpConfig, TcpTransport};
use mpst_choreo::transport::InMemory;
use mpst_choreo::{
    Choreography, Endpoint, Located, Op, Result, Role, RoleName, RoleSet, Transport, roles,
};

use crate::{Mode, key_of, mismatch, mode_of, pipeline_of, pong_of, stage, text_of};

roles! {
    /// Ping-pong's initiator.
    pub struct Ping;
    /// Ping-pong's responder.
    pub struct Pong;
    /// Figure 2's key service.
    pub struct KS;
    /// Figure 2's content service.
    pub struct CS;
    /// Figure 2's server.
    pub struct S;
    /// Figure 2's client.
    pub struct C;
    /// The pipeline's source, which chooses the mode.
    pub struct Source;
    /// The pipeline's middle stage.
    pub struct Stage;
    /// The pipeline's sink.
    pub struct Sink;
}

/// Ping sends its number, Pong answers with the next one.
#[derive(Clone, Copy, Debug)]
pub struct PingPong {
    /// The number sent.
    pub ping: u64,
    /// `comm` (blocking, in order) instead of `fcomm`.
    pub in_order: bool,
}

impl Choreography<Located<u64, Ping>> for PingPong {
    type Roles = RoleSet![Ping, Pong];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Located<u64, Ping>> {
        let ping = op.locally(Ping, |_| self.ping);
        if self.in_order {
            let at_pong = op.comm(Ping, Pong, &ping).await?;
            let pong = op.locally(Pong, |un| pong_of(*un.unwrap(&at_pong)));
            return op.comm(Pong, Ping, &pong).await;
        }
        let at_pong = op.fcomm(Ping, Pong, &ping);
        let pong = op.then(Pong, at_pong, pong_of);
        op.wait(Ping, op.fcomm(Pong, Ping, pong)).await
    }
}

/// Figure 2: the services send a key and a text to the server, which forwards both to the
/// client; out of order, each as soon as it arrives.
#[derive(Clone, Copy, Debug)]
pub struct ConcurrentSend {
    /// Which client's key and text.
    pub client: u64,
    /// `comm` (blocking, in order) instead of `fcomm`.
    pub in_order: bool,
}

impl Choreography<Located<(String, String), C>> for ConcurrentSend {
    type Roles = RoleSet![KS, CS, S, C];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Located<(String, String), C>> {
        let key = op.locally(KS, |_| key_of(self.client));
        let txt = op.locally(CS, |_| text_of(self.client));
        if self.in_order {
            let key_s = op.comm(KS, S, &key).await?;
            let txt_s = op.comm(CS, S, &txt).await?;
            let key_c = op.comm(S, C, &key_s).await?;
            let txt_c = op.comm(S, C, &txt_s).await?;
            return Ok(op.locally(C, |un| {
                (un.unwrap(&key_c).clone(), un.unwrap(&txt_c).clone())
            }));
        }
        let key_s = op.fcomm(KS, S, &key);
        let txt_s = op.fcomm(CS, S, &txt);
        let key_c = op.fcomm(S, C, key_s);
        let txt_c = op.fcomm(S, C, txt_s);
        op.wait(C, op.join(C, key_c, txt_c)).await
    }
}

/// The source chooses a mode, which `cond` sends to the stage and the sink; the source
/// sends its input to the stage, which computes by the mode and sends the result on.
#[derive(Clone, Copy, Debug)]
pub struct Pipeline {
    /// The source's input.
    pub input: u64,
    /// `comm` (blocking, in order) instead of `fcomm`.
    pub in_order: bool,
}

/// The branch of the pipeline run once every role knows the mode.
struct Stages {
    mode: Mode,
    input: Located<u64, Source>,
    in_order: bool,
}

impl Choreography<Located<u64, Sink>> for Stages {
    type Roles = RoleSet![Source, Stage, Sink];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Located<u64, Sink>> {
        let mode = self.mode;
        if self.in_order {
            let at_stage = op.comm(Source, Stage, &self.input).await?;
            let result = op.locally(Stage, |un| stage(mode, *un.unwrap(&at_stage)));
            let at_sink = op.comm(Stage, Sink, &result).await?;
            return Ok(op.locally(Sink, |un| un.unwrap(&at_sink) + 10));
        }
        let at_stage = op.fcomm(Source, Stage, &self.input);
        let result = op.then(Stage, at_stage, move |v| stage(mode, v));
        let at_sink = op.fcomm(Stage, Sink, result);
        op.wait(Sink, op.then(Sink, at_sink, |v| v + 10)).await
    }
}

/// `None` only at a role outside the branch's set, which here has every role.
impl Choreography<Option<Located<u64, Sink>>> for Pipeline {
    type Roles = RoleSet![Source, Stage, Sink];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Option<Located<u64, Sink>>> {
        let mode = op.locally(Source, |_| mode_of(self.input));
        let input = op.locally(Source, |_| self.input);
        let in_order = self.in_order;
        op.cond(Source, &mode, move |mode| Stages {
            mode,
            input,
            in_order,
        })
        .await
    }
}

/// Runs `runs` sessions of `make(run)` as every role of the choreography, one endpoint
/// and tokio task per role over `transport`; the role holding the output (`local` of it
/// is `Some`) checks it against `expected(run)`. Returns the time the slowest role took
/// for the sessions from `warmup` on.
async fn sessions<Ch, O, T>(
    transport: impl Fn(&RoleName) -> Arc<dyn Transport>,
    warmup: u64,
    runs: u64,
    make: impl Fn(u64) -> Ch + Send + Copy + 'static,
    local: fn(O) -> Option<T>,
    expected: impl Fn(u64) -> T + Send + Copy + 'static,
) -> std::result::Result<Duration, String>
where
    Ch: Choreography<O> + Send + 'static,
    O: Send + 'static,
    T: PartialEq + std::fmt::Debug + Send + 'static,
{
    let mut tasks = Vec::new();
    for role in Ch::Roles::names() {
        let endpoint = Endpoint::new(transport(&role), role).map_err(|e| e.to_string())?;
        tasks.push(tokio::spawn(async move {
            let mut start = Instant::now();
            for run in 0..warmup + runs {
                if run == warmup {
                    start = Instant::now();
                }
                let out = endpoint.run(make(run)).await.map_err(|e| e.to_string())?;
                if let Some(got) = local(out)
                    && got != expected(run)
                {
                    return Err(mismatch(
                        std::any::type_name::<Ch>(),
                        run,
                        &expected(run),
                        &got,
                    ));
                }
            }
            Ok(start.elapsed())
        }));
    }
    let mut slowest = Duration::ZERO;
    for task in tasks {
        let took = task.await.map_err(|e| e.to_string())??;
        slowest = slowest.max(took);
    }
    Ok(slowest)
}

/// Runs `runs` runs of `choreography` in memory ([`InMemory`]), out of order or in order.
pub async fn in_memory(
    choreography: &str,
    in_order: bool,
    runs: u64,
) -> std::result::Result<(), String> {
    macro_rules! run {
        ($roles:ty, $make:expr, $local:expr, $expected:expr) => {{
            let net: Arc<dyn Transport> = Arc::new(InMemory::new(<$roles>::names()));
            sessions(|_| net.clone(), 0, runs, $make, $local, $expected)
                .await
                .map(drop)
        }};
    }
    match choreography {
        "ping_pong" => run!(
            RoleSet![Ping, Pong],
            move |ping| PingPong { ping, in_order },
            Located::into_local,
            pong_of
        ),
        "concurrent_send" => run!(
            RoleSet![KS, CS, S, C],
            move |client| ConcurrentSend { client, in_order },
            Located::into_local,
            |run| (key_of(run), text_of(run))
        ),
        "pipeline" => run!(
            RoleSet![Source, Stage, Sink],
            move |input| Pipeline { input, in_order },
            |out: Option<Located<u64, Sink>>| out.and_then(Located::into_local),
            pipeline_of
        ),
        other => Err(format!("unknown choreography {other}")),
    }
}

/// The program the loopback ping-pong's certificates and hellos name.
const PROGRAM: &str = "ping-pong";

/// The network transports measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Net {
    /// [`TcpTransport`] over plain TCP ([`TcpConfig::insecure_plaintext`]): like for like
    /// with ChoRus's plain HTTP.
    TcpPlain,
    /// [`TcpTransport`] with mutual TLS ([`TcpConfig::mutual_tls`]), its default and
    /// what a deployment runs; role certificates made in memory for the run.
    TcpTls,
    /// [`QuicTransport`] with its default configuration (QUIC is always TLS) and role
    /// certificates made in memory for the run.
    Quic,
}

/// Runs `warmup + runs` ping-pongs with Ping and Pong each on its own transport over
/// loopback; returns the time of the last `runs` (the slower role's).
pub async fn ping_pong_net(
    net: Net,
    in_order: bool,
    warmup: u64,
    runs: u64,
) -> std::result::Result<Duration, String> {
    let roles = [Ping::name(), Pong::name()];
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let transports: Vec<Arc<dyn Transport>> = match net {
        Net::TcpPlain | Net::TcpTls => {
            let ping = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .map_err(|e| err(&e))?;
            let pong = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .map_err(|e| err(&e))?;
            let addrs: [SocketAddr; 2] = [
                ping.local_addr().map_err(|e| err(&e))?,
                pong.local_addr().map_err(|e| err(&e))?,
            ];
            let configs = match net {
                Net::TcpTls => {
                    let pki = mpst_wire::certs::Deployment::generate(PROGRAM, ["Ping", "Pong"])
                        .map_err(|e| err(&e))?;
                    (
                        TcpConfig::mutual_tls(PROGRAM, pki.identity("Ping")),
                        TcpConfig::mutual_tls(PROGRAM, pki.identity("Pong")),
                    )
                }
                _ => (
                    TcpConfig::insecure_plaintext(),
                    TcpConfig::insecure_plaintext(),
                ),
            };
            let (a, b) = tokio::try_join!(
                TcpTransport::start(
                    roles[0].clone(),
                    ping,
                    [(roles[1].clone(), addrs[1])],
                    configs.0
                ),
                TcpTransport::start(
                    roles[1].clone(),
                    pong,
                    [(roles[0].clone(), addrs[0])],
                    configs.1
                ),
            )
            .map_err(|e| err(&e))?;
            vec![Arc::new(a), Arc::new(b)]
        }
        Net::Quic => {
            let pki = mpst_wire::certs::Deployment::generate(PROGRAM, ["Ping", "Pong"])
                .map_err(|e| err(&e))?;
            let identities = (pki.identity("Ping"), pki.identity("Pong"));
            let ping = UdpSocket::bind("127.0.0.1:0").map_err(|e| err(&e))?;
            let pong = UdpSocket::bind("127.0.0.1:0").map_err(|e| err(&e))?;
            let addrs = [
                ping.local_addr().map_err(|e| err(&e))?,
                pong.local_addr().map_err(|e| err(&e))?,
            ];
            let (a, b) = tokio::try_join!(
                QuicTransport::start(
                    roles[0].clone(),
                    ping,
                    &identities.0,
                    PROGRAM,
                    [(roles[1].clone(), addrs[1])],
                    QuicConfig::default()
                ),
                QuicTransport::start(
                    roles[1].clone(),
                    pong,
                    &identities.1,
                    PROGRAM,
                    [(roles[0].clone(), addrs[0])],
                    QuicConfig::default()
                ),
            )
            .map_err(|e| err(&e))?;
            vec![Arc::new(a), Arc::new(b)]
        }
    };
    let by_role = move |role: &RoleName| -> Arc<dyn Transport> {
        let index = usize::from(role != &Ping::name());
        transports[index].clone()
    };
    let make = move |ping| PingPong { ping, in_order };
    sessions(by_role, warmup, runs, make, Located::into_local, pong_of).await
}
