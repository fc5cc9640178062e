//! The relay's UDP datagram relay: every datagram gets a seeded [`Fate`](crate::Fate)
//! (dropped, delayed with jitter, held back to be overtaken, duplicated); a partition
//! drops everything.
//!
//! Ports are kept, as on a network without NAT: a datagram from host `x`'s port `s` to
//! the address of host `y`'s name, port `d`, reaches `y` from port `s` of the address
//! `x`'s name has on `y`. So a QUIC endpoint that dials and accepts on one port is seen
//! by its peer at exactly the address the peer was configured with (mpst-choreo's QUIC
//! transport identifies peers that way). The relay therefore has one socket per (link
//! side, port): the declared ports bound when the bed is built, a client's other source
//! ports bound when its first datagram passes; every socket both receives its side's
//! datagrams and emits the other side's.

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};

use tokio::net::UdpSocket;

use super::{LinkShared, bump, timer::sleep_until};
use crate::impair::{Fate, Fates, stream_seed};

/// The largest datagram relayed.
const MAX_DATAGRAM: usize = 65_536;
/// Marks UDP streams' seeds apart from TCP's.
const UDP: u64 = 0x5544_5000;

/// The UDP side of one link.
#[derive(Debug)]
pub(super) struct UdpLink {
    link: Arc<LinkShared>,
    /// For each side: the router address at which that side reaches the other.
    front: [Ipv4Addr; 2],
    /// For each side: its host's real address.
    real: [Ipv4Addr; 2],
    /// Each direction's one stream of fates (whatever the ports, so the n-th datagram
    /// in a direction meets the n-th fate: ephemeral ports do not change the schedule).
    fates: [Mutex<Fates>; 2],
    /// The relay's sockets, by (side of the front address, port).
    sockets: Mutex<HashMap<(usize, u16), Arc<UdpSocket>>>,
}

impl UdpLink {
    pub(super) fn new(
        link: Arc<LinkShared>,
        front: [Ipv4Addr; 2],
        real: [Ipv4Addr; 2],
        seed: u64,
    ) -> Arc<Self> {
        let fates = |dir: u64| {
            let seed = stream_seed(seed, &[UDP, link.index, dir]);
            Mutex::new(link.impairment.borrow().fates(seed))
        };
        Arc::new(UdpLink {
            fates: [fates(0), fates(1)],
            link,
            front,
            real,
            sockets: Mutex::new(HashMap::new()),
        })
    }

    /// The socket at `side`'s front address and `port`, bound (and served) if new.
    /// (Synchronous: `serve` calls it, and it spawns `serve`.)
    pub(super) fn socket(
        self: &Arc<Self>,
        side: usize,
        port: u16,
    ) -> std::io::Result<Arc<UdpSocket>> {
        if let Some(socket) = self.lock().get(&(side, port)) {
            return Ok(socket.clone());
        }
        let std = std::net::UdpSocket::bind(SocketAddr::from((self.front[side], port)))?;
        std.set_nonblocking(true)?;
        let socket = Arc::new(UdpSocket::from_std(std)?);
        self.lock().insert((side, port), socket.clone());
        tokio::spawn(serve(self.clone(), side, port, socket.clone()));
        Ok(socket)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(usize, u16), Arc<UdpSocket>>> {
        self.sockets.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Relays what `side`'s host sends to the socket at (`side`'s front address, `port`) on
/// to the other host, from the same source port.
async fn serve(udp: Arc<UdpLink>, side: usize, port: u16, socket: Arc<UdpSocket>) {
    let link = &udp.link;
    let mut impairment = link.impairment.subscribe();
    impairment.borrow_and_update();
    let other = 1 - side;
    let mut buf = vec![0u8; MAX_DATAGRAM];
    loop {
        // ICMP errors (a port not listening yet) surface here: keep serving.
        let Ok((n, from)) = socket.recv_from(&mut buf).await else {
            continue;
        };
        // Only `side`'s host routes to this address; anything else is not relayed.
        if from.ip() != udp.real[side] {
            continue;
        }
        let Ok(out) = udp.socket(other, from.port()) else {
            continue;
        };
        let fate = {
            let mut fates = udp.fates[side].lock().unwrap_or_else(|p| p.into_inner());
            if impairment.has_changed().unwrap_or(false) {
                fates.set(&impairment.borrow_and_update());
            }
            fates.next().expect("fates never end")
        };
        let to = SocketAddr::from((udp.real[other], port));
        relay(link, side, fate, &buf[..n], out, to).await;
    }
}

/// Applies one datagram's fate and delivers its copies (at once when undelayed, else
/// from a timer task, so later datagrams may overtake it).
async fn relay(
    link: &Arc<LinkShared>,
    dir: usize,
    fate: Fate,
    bytes: &[u8],
    out: Arc<UdpSocket>,
    to: SocketAddr,
) {
    let counters = &link.counters.dir[dir];
    bump(&counters.datagrams);
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
            let _ = out.send_to(bytes, to).await;
            bump(&counters.delivered);
        } else {
            let (link, out, bytes) = (link.clone(), out.clone(), bytes.to_vec());
            tokio::spawn(async move {
                sleep_until(release).await;
                // A partition that started while it was in flight loses it too.
                if link.is_partitioned() {
                    bump(&link.counters.dir[dir].dropped);
                } else {
                    let _ = out.send_to(&bytes, to).await;
                    bump(&link.counters.dir[dir].delivered);
                }
            });
        }
    }
}
