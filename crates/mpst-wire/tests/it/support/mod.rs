//! What the attack tests share: nodes for a small deployment (mutual TLS from an
//! in-memory CA, or insecure plaintext), a captured log, and a recording proxy.

#![allow(dead_code)]

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use mpst_wire::certs::Deployment;
use mpst_wire::{Acceptor, Expected, Node, WireConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub const PROTOCOL: &str = "ping/1";

/// Generous: the machine running the tests may be loaded.
pub const CONNECT: Duration = Duration::from_secs(60);

/// The roles' identities, one CA.
pub fn pki() -> Deployment {
    Deployment::generate(PROTOCOL, ["A", "B", "C"]).expect("identities")
}

/// How a test secures its nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Tls,
    Plain,
}

pub fn config(role: &str, mode: Mode, pki: &Deployment) -> WireConfig {
    let config = WireConfig::new(PROTOCOL, role)
        .listen("127.0.0.1:0")
        .connect_timeout(CONNECT)
        .handshake_timeout(Duration::from_secs(20));
    match mode {
        Mode::Tls => config.mutual_tls(pki.identity(role)),
        Mode::Plain => config.insecure_plaintext(),
    }
}

/// B accepting A (one connection) on 127.0.0.1:0, and A configured to dial it.
pub async fn pair(mode: Mode, pki: &Deployment) -> (Node, Acceptor) {
    pair_with(mode, pki, |c| c).await
}

pub async fn pair_with(
    mode: Mode,
    pki: &Deployment,
    tune: impl Fn(WireConfig) -> WireConfig,
) -> (Node, Acceptor) {
    let b = Node::new(tune(config("B", mode, pki))).expect("B");
    let acceptor = b.bind(Expected::new().peer("A", 1)).await.expect("bind");
    let at = acceptor.local_addr().to_string();
    let a = Node::new(tune(config("A", mode, pki).peer("B", at))).expect("A");
    (a, acceptor)
}

/// A dials B, B accepts: both ends of the real connection, checked to agree.
pub async fn real_peer_connects(a: &Node, acceptor: &mut Acceptor) {
    // A dial that gives up fails the test at once with its error (the acceptor would
    // otherwise wait for it for ever); both sides together are bounded too.
    let dial = async {
        match a.dial("B").await {
            Ok(dialled) => dialled,
            Err(e) => panic!("the real peer A could not connect: {e}"),
        }
    };
    let (dialled, accepted) = tokio::time::timeout(std::time::Duration::from_secs(120), async {
        tokio::join!(dial, acceptor.next())
    })
    .await
    .expect("the real peer A got in within 120 s");
    let accepted = accepted.expect("B accepts A");
    assert_eq!(accepted.peer_role(), "A");
    assert_eq!(dialled.peer_role(), "B");
    assert_eq!(dialled.run_id(), accepted.run_id());
    let tls = matches!(a.security(), mpst_wire::Security::MutualTls(_));
    assert_eq!(accepted.is_authenticated(), tls);
}

/// Reads until the other side closes (or resets); the bytes read.
pub async fn read_to_close(stream: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match tokio::time::timeout(CONNECT, stream.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return got,
            Ok(Ok(n)) => got.extend_from_slice(&buffer[..n]),
            Err(_) => panic!("the acceptor never closed the connection"),
        }
    }
}

/// Whether a socket is still open with nothing to read (the acceptor has not closed it).
pub fn still_open(stream: &TcpStream) -> bool {
    let mut buffer = [0u8; 1];
    matches!(stream.try_read(&mut buffer), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}

/// Everything logged by this test binary (a global subscriber writing to memory).
pub fn logs() -> Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let writer = Capture(buffer.clone());
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::INFO)
            .finish();
        let _ = tracing::subscriber::set_global_default(subscriber);
        buffer
    })
    .clone()
}

pub fn logged(text: &str) -> bool {
    let logs = logs();
    let logs = logs.lock().unwrap();
    String::from_utf8_lossy(&logs).contains(text)
}

#[derive(Clone)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A proxy between a dialler and `target` that records what the dialler sends; one
/// connection. Returns its address and the recording.
pub async fn recording_proxy(target: std::net::SocketAddr) -> (String, Arc<Mutex<Vec<u8>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = listener.local_addr().unwrap().to_string();
    let recorded = Arc::new(Mutex::new(Vec::new()));
    let record = recorded.clone();
    tokio::spawn(async move {
        let (client, _) = listener.accept().await.unwrap();
        let server = TcpStream::connect(target).await.unwrap();
        let (mut client_read, mut client_write) = client.into_split();
        let (mut server_read, mut server_write) = server.into_split();
        let upstream = async move {
            let mut buffer = [0u8; 4096];
            while let Ok(n) = client_read.read(&mut buffer).await {
                if n == 0 {
                    break;
                }
                record.lock().unwrap().extend_from_slice(&buffer[..n]);
                if server_write.write_all(&buffer[..n]).await.is_err() {
                    break;
                }
            }
            let _ = server_write.shutdown().await;
        };
        let downstream = async move {
            let _ = tokio::io::copy(&mut server_read, &mut client_write).await;
            let _ = client_write.shutdown().await;
        };
        tokio::join!(upstream, downstream);
    });
    (at, recorded)
}

/// Waits (at most [`CONNECT`]) until the acceptor's counts satisfy `done`; a copy of them.
pub async fn stats_until(
    stats: &mut tokio::sync::watch::Receiver<mpst_wire::AcceptStats>,
    done: impl FnMut(&mpst_wire::AcceptStats) -> bool,
) -> mpst_wire::AcceptStats {
    let outcome = match tokio::time::timeout(CONNECT, stats.wait_for(done)).await {
        Ok(Ok(stats)) => Some(*stats),
        Ok(Err(_)) => panic!("the acceptor stopped"),
        Err(_) => None,
    };
    outcome.unwrap_or_else(|| panic!("the acceptor never got there: {:?}", *stats.borrow()))
}
