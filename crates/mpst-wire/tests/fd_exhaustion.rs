//! Out of file descriptors: `accept()` fails with EMFILE while the listen backlog still
//! holds connections. The acceptor pauses with exponential back-off (no spinning, no
//! queue), and once descriptors are free again the real peer connects. Alone in its test
//! binary, because it lowers the process's descriptor limit.

#![cfg(unix)]

#[path = "it/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use mpst_wire::accept::FIRST_ACCEPT_PAUSE;
use support::*;

fn open_descriptors() -> u64 {
    std::fs::read_dir("/proc/self/fd").map_or(64, |d| d.count() as u64)
}

// `rlim_t` is not `u64` on every platform.
#[allow(clippy::unnecessary_cast)]
fn set_soft_limit(limit: u64) -> u64 {
    let mut current = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct given.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut current), 0);
        let wanted = libc::rlimit {
            rlim_cur: limit as libc::rlim_t,
            rlim_max: current.rlim_max,
        };
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &wanted), 0);
    }
    current.rlim_cur as u64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fd_exhaustion_backs_off_and_the_real_peer_connects_afterwards() {
    let pki = pki();
    let (a, mut acceptor) = pair_with(Mode::Plain, &pki, |c| {
        c.handshake_timeout(Duration::from_secs(1))
    })
    .await;
    let mut stats = acceptor.watch_stats();
    let at = acceptor.local_addr();
    let original = set_soft_limit(open_descriptors() + 24);
    // Take every descriptor but one with placeholders, then connect one stranger: its
    // socket takes the last descriptor before the kernel completes the connection, so it
    // waits in the backlog while the acceptor has no descriptor to accept it with. (Had
    // strangers alone used up the descriptors, the acceptor could take each as it came
    // and leave the backlog empty when the process ran out.)
    let mut placeholders = Vec::new();
    while let Ok(file) = std::fs::File::open("/dev/null") {
        placeholders.push(file);
        assert!(
            placeholders.len() < 4096,
            "the descriptor limit did not hold"
        );
    }
    drop(placeholders.pop());
    let stranger = std::net::TcpStream::connect(at).expect("the last descriptor connects");
    let seen = stats_until(&mut stats, |s| s.accept_errors >= 1)
        .await
        .accept_errors;
    let started = Instant::now();
    let s = stats_until(&mut stats, |s| s.accept_errors >= seen + 2).await;
    let elapsed = started.elapsed();
    // The pause after the first of these two failures (at least twice the first pause,
    // since it follows an earlier one) lies wholly between them: a spinning loop would
    // take microseconds and count millions.
    assert!(elapsed >= FIRST_ACCEPT_PAUSE * 2, "{elapsed:?} for {s:?}");
    assert!(s.accept_errors < 100, "{s:?}");
    drop(stranger);
    drop(placeholders);
    set_soft_limit(original);
    real_peer_connects(&a, &mut acceptor).await;
}
