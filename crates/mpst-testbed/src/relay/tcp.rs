//! The relay's TCP proxy: each accepted connection is dialled on to the other host
//! (retried for the bed's dial patience while that host does not listen yet) and
//! its bytes pumped both ways in chunks, each chunk delayed, stalled ("lost") or turned
//! into a reset by its seeded [`Fate`](crate::Fate); a partition holds every chunk (and
//! every new connection's dial) until the link heals.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{ReadHalf, WriteHalf};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::timer::sleep_until;

use super::{LinkShared, bump};
use crate::impair::stream_seed;

/// The largest chunk read at once.
const CHUNK: usize = 16 * 1024;
/// Chunks in flight per direction of a connection (bounds the relay's memory; a full
/// pipe stops reading, so the sender feels back-pressure as over a real link).
const IN_FLIGHT: usize = 64;

/// Where the connections accepted at one front address go.
#[derive(Debug, Clone)]
pub(super) struct Route {
    pub(super) link: Arc<LinkShared>,
    /// The side of the link whose host dials.
    pub(super) side: usize,
    /// The other host's real address and the port.
    pub(super) target: SocketAddr,
    /// The address the dialling host's name has on the other host.
    pub(super) source: Ipv4Addr,
    /// How long a dial to a host that does not listen yet is retried.
    pub(super) patience: Duration,
}

/// Accepts connections at one end's front address and relays each along `route`.
pub(super) async fn accept(listener: TcpListener, route: Route, seed: u64) {
    let mut ordinal = 0u64;
    let port = u64::from(route.target.port());
    loop {
        let client = match listener.accept().await {
            Ok((client, _)) => client,
            Err(_) => {
                // Out of descriptors or memory: wait a little rather than spin.
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        ordinal += 1;
        bump(&route.link.counters.connections);
        let seed = stream_seed(seed, &[route.link.index, route.side as u64, port, ordinal]);
        tokio::spawn(connection(client, route.clone(), seed));
    }
}

/// Why a connection stopped other than by both sides closing.
struct Broken;

/// Relays one connection until both directions end, or resets both ends.
async fn connection(mut client: TcpStream, route: Route, seed: u64) {
    let Route {
        link,
        side,
        target,
        source,
        patience,
    } = route;
    let _ = client.set_nodelay(true);
    // A partition blackholes new connections too: the dial waits for the link.
    link.wait_up().await;
    let Ok(mut upstream) = dial_patiently(source, target, patience).await else {
        // The other host does not listen: reset (the dialler's connect has already
        // succeeded against the relay, so a refusal can only show as a reset).
        let _ = client.set_zero_linger();
        return;
    };
    let _ = upstream.set_nodelay(true);
    let mut resets = link.resets_requested.subscribe();
    resets.borrow_and_update();
    // The connection, for the `stages` probe: the dialling end's port.
    let port = client.peer_addr().map_or(0, |a| a.port());
    let outcome = {
        let (cr, cw) = client.split();
        let (ur, uw) = upstream.split();
        let there = pump(cr, uw, &link, (side, port, true), stream_seed(seed, &[0]));
        let back = pump(
            ur,
            cw,
            &link,
            (1 - side, port, false),
            stream_seed(seed, &[1]),
        );
        tokio::select! {
            r = async { tokio::try_join!(there, back) } => r.map(drop),
            _ = resets.changed() => Err(Broken),
        }
    };
    if outcome.is_err() {
        bump(&link.counters.resets);
        // Closing with a zero linger sends an RST to each end.
        let _ = client.set_zero_linger();
        let _ = upstream.set_zero_linger();
    }
}

/// Dials until the target answers or `patience` has passed, backing off from 5 to 100
/// ms, as the dialling role itself would retry a refused connection.
async fn dial_patiently(
    source: Ipv4Addr,
    target: SocketAddr,
    patience: Duration,
) -> std::io::Result<TcpStream> {
    let deadline = Instant::now() + patience;
    let mut pause = Duration::from_millis(5);
    loop {
        match dial(source, target).await {
            Ok(stream) => return Ok(stream),
            Err(e) if Instant::now() + pause >= deadline => return Err(e),
            Err(_) => {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_millis(100));
            }
        }
    }
}

/// Connects to `target` from the `source` address (the front address by which the
/// target host knows the dialling host).
async fn dial(source: Ipv4Addr, target: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::from((source, 0)))?;
    socket.connect(target).await
}

/// One chunk in flight (when it was read: the `stages` probe's), or the end of the
/// stream.
enum Item {
    Data {
        release: Instant,
        bytes: Vec<u8>,
        #[cfg(feature = "stages")]
        read: std::time::Instant,
    },
    Eof,
    Reset,
}

/// Pumps one direction (`dir` 0 from the link's first host) of the connection from
/// the dialler's `port` (`there`: from the dialler) until end of stream.
async fn pump(
    mut from: ReadHalf<'_>,
    mut to: WriteHalf<'_>,
    link: &LinkShared,
    (dir, port, there): (usize, u16, bool),
    seed: u64,
) -> Result<(), Broken> {
    #[cfg(not(feature = "stages"))]
    let _ = (port, there);
    let (tx, mut rx) = mpsc::channel::<Item>(IN_FLIGHT);
    let mut impairment = link.impairment.subscribe();
    let mut fates = impairment.borrow_and_update().fates(seed);
    let counters = &link.counters.dir[dir];
    let reading = async move {
        let mut buf = vec![0u8; CHUNK];
        loop {
            // A reset is an item like any other, held by a partition.
            let Ok(n) = from.read(&mut buf).await else {
                let _ = tx.send(Item::Reset).await;
                return Ok(());
            };
            #[cfg(feature = "stages")]
            let read = std::time::Instant::now();
            if n == 0 {
                let _ = tx.send(Item::Eof).await;
                return Ok(());
            }
            if impairment.has_changed().unwrap_or(false) {
                fates.set(&impairment.borrow_and_update());
            }
            let fate = fates.next().expect("fates never end");
            if fate.reset {
                let _ = tx.send(Item::Reset).await;
                return Ok(());
            }
            let now = Instant::now().into_std();
            let mut delay = fates.delay_at(&fate, link.index, dir as u64, now);
            if fate.lost {
                bump(&counters.stalled);
                delay += impairment.borrow().stall;
            }
            let release = link.serialize(dir, n) + delay;
            let bytes = buf[..n].to_vec();
            let item = Item::Data {
                release,
                bytes,
                #[cfg(feature = "stages")]
                read,
            };
            tx.send(item).await.map_err(|_| Broken)?;
        }
    };
    let writing = async {
        // A byte stream keeps its order: no chunk leaves before the one ahead of it.
        let mut last = Instant::now();
        while let Some(item) = rx.recv().await {
            match item {
                Item::Data {
                    release,
                    bytes,
                    #[cfg(feature = "stages")]
                    read,
                } => {
                    let release = release.max(last);
                    sleep_until(release).await;
                    link.wait_up().await;
                    to.write_all(&bytes).await.map_err(|_| Broken)?;
                    #[cfg(feature = "stages")]
                    crate::stages::carried(&crate::stages::Chunk {
                        port,
                        from_dialler: there,
                        read,
                        written: std::time::Instant::now(),
                        bytes: bytes.len(),
                    });
                    last = release;
                    bump(&counters.chunks);
                    counters
                        .bytes
                        .fetch_add(bytes.len() as u64, std::sync::atomic::Ordering::Relaxed);
                }
                // The end of a stream, closed or reset, crosses no partition either.
                Item::Eof => {
                    link.wait_up().await;
                    let _ = to.shutdown().await;
                    return Ok(());
                }
                Item::Reset => {
                    link.wait_up().await;
                    return Err(Broken);
                }
            }
        }
        Err(Broken)
    };
    tokio::try_join!(reading, writing).map(drop)
}
