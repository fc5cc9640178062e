//! The relay's UDP datagram relay: every datagram gets a seeded [`Fate`](crate::Fate)
//! (dropped, delayed with jitter, held back to be overtaken, duplicated); a partition
//! drops everything. Each client address seen at a front socket gets its own upstream
//! socket, bound to the front address by which the target knows the client's host, so
//! replies come back through the relay (this is what a QUIC connection needs).

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use tokio::net::UdpSocket;

use super::{bump, timer::sleep_until, LinkShared};
use crate::impair::{stream_seed, Fates};

/// The largest datagram relayed.
const MAX_DATAGRAM: usize = 65_536;
/// Marks UDP streams' seeds apart from TCP's.
const UDP: u64 = 0x5544_5000;

/// Where a relayed datagram goes.
#[derive(Clone)]
enum Out {
    /// Through a connected upstream socket.
    Connected(Arc<UdpSocket>),
    /// From the front socket back to a client.
    To(Arc<UdpSocket>, SocketAddr),
}

impl Out {
    async fn send(&self, bytes: &[u8]) {
        let _ = match self {
            Out::Connected(s) => s.send(bytes).await,
            Out::To(s, to) => s.send_to(bytes, *to).await,
        };
    }
}

/// Serves one end's front socket: relays its clients' datagrams to `target`.
pub(super) async fn front(
    socket: Arc<UdpSocket>,
    link: Arc<LinkShared>,
    side: usize,
    target: SocketAddr,
    source: Ipv4Addr,
    seed: u64,
) {
    let port = u64::from(target.port());
    let mut fates = link
        .impairment
        .borrow()
        .fates(stream_seed(seed, &[UDP, link.index, side as u64, port]));
    let mut impairment = link.impairment.subscribe();
    let mut sessions: HashMap<SocketAddr, Out> = HashMap::new();
    let mut buf = vec![0u8; MAX_DATAGRAM];
    loop {
        let Ok((n, client)) = socket.recv_from(&mut buf).await else {
            continue;
        };
        let out = match sessions.get(&client) {
            Some(out) => out.clone(),
            None => {
                let Ok(up) = upstream(source, target).await else {
                    continue;
                };
                let up = Arc::new(up);
                let ordinal = sessions.len() as u64 + 1;
                let back_seed =
                    stream_seed(seed, &[UDP, link.index, 1 - side as u64, port, ordinal]);
                tokio::spawn(back(
                    up.clone(),
                    Out::To(socket.clone(), client),
                    link.clone(),
                    1 - side,
                    back_seed,
                ));
                let out = Out::Connected(up);
                sessions.insert(client, out.clone());
                out
            }
        };
        if impairment.has_changed().unwrap_or(false) {
            fates.set(&impairment.borrow_and_update());
        }
        relay(&link, side, &mut fates, &buf[..n], out).await;
    }
}

/// A socket bound to `source` (any port) and connected to `target`.
async fn upstream(source: Ipv4Addr, target: SocketAddr) -> std::io::Result<UdpSocket> {
    let up = UdpSocket::bind(SocketAddr::from((source, 0))).await?;
    up.connect(target).await?;
    Ok(up)
}

/// Relays the replies arriving at an upstream socket back to its client.
async fn back(up: Arc<UdpSocket>, out: Out, link: Arc<LinkShared>, dir: usize, seed: u64) {
    let mut fates = link.impairment.borrow().fates(seed);
    let mut impairment = link.impairment.subscribe();
    let mut buf = vec![0u8; MAX_DATAGRAM];
    loop {
        // ICMP errors (the target not listening yet) surface here: keep serving.
        let Ok(n) = up.recv(&mut buf).await else {
            continue;
        };
        if impairment.has_changed().unwrap_or(false) {
            fates.set(&impairment.borrow_and_update());
        }
        relay(&link, dir, &mut fates, &buf[..n], out.clone()).await;
    }
}

/// Decides one datagram's fate and delivers its copies (at once when undelayed, else
/// from a timer task, so later datagrams may overtake it).
async fn relay(link: &Arc<LinkShared>, dir: usize, fates: &mut Fates, bytes: &[u8], out: Out) {
    let counters = &link.counters.dir[dir];
    bump(&counters.datagrams);
    let fate = fates.next().expect("fates never end");
    if fate.lost || link.is_partitioned() {
        bump(&counters.dropped);
        return;
    }
    let wire = link.serialize(dir, bytes.len());
    let copies = std::iter::once(fate.delay).chain(fate.duplicate);
    for (i, delay) in copies.enumerate() {
        if i > 0 {
            bump(&counters.duplicated);
        }
        let release = wire + delay;
        if release <= tokio::time::Instant::now() {
            out.send(bytes).await;
            bump(&counters.delivered);
        } else {
            let (link, out, bytes) = (link.clone(), out.clone(), bytes.to_vec());
            tokio::spawn(async move {
                sleep_until(release).await;
                // A partition that started while it was in flight loses it too.
                if link.is_partitioned() {
                    bump(&link.counters.dir[dir].dropped);
                } else {
                    out.send(&bytes).await;
                    bump(&link.counters.dir[dir].delivered);
                }
            });
        }
    }
}
