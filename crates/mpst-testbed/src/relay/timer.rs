//! A precise sleep for the relay's delays: a Linux `timerfd` per sleep, woken through
//! tokio's reactor, where tokio's own timer rounds every sleep up to its next 1 ms tick
//! (measured: a 5 ms one-way delay gave 12.6 ms round trips with tokio's timer, about
//! 1.3 ms too many per direction).

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::time::Instant;

/// Sleeps until `deadline` (at once when it has passed); falls back to tokio's timer if
/// a timerfd cannot be made.
pub(crate) async fn sleep_until(deadline: Instant) {
    let now = Instant::now();
    if deadline <= now {
        return;
    }
    let Ok(fd) = timerfd(deadline - now) else {
        return tokio::time::sleep_until(deadline).await;
    };
    // SAFETY: the OwnedFd moved into the AsyncFd keeps the descriptor open, unchanged,
    // for the AsyncFd's whole life.
    let Ok(fd) = (unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }) else {
        return tokio::time::sleep_until(deadline).await;
    };
    loop {
        let Ok(mut ready) = fd.readable().await else {
            return tokio::time::sleep_until(deadline).await;
        };
        let mut expirations = [0u8; 8];
        // SAFETY: reads at most 8 bytes into an 8-byte buffer from an open descriptor.
        let n = unsafe { libc::read(fd.as_raw_fd(), expirations.as_mut_ptr().cast(), 8) };
        if n == 8 {
            return;
        }
        // A spurious readiness: the timer has not expired yet.
        ready.clear_ready();
    }
}

/// A non-blocking monotonic timerfd that expires once, after `after`.
fn timerfd(after: std::time::Duration) -> std::io::Result<OwnedFd> {
    // SAFETY: timerfd_create has no memory preconditions; the result is checked.
    let raw = unsafe {
        libc::timerfd_create(
            libc::CLOCK_MONOTONIC,
            libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
        )
    };
    if raw < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `raw` is a new descriptor owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let spec = libc::itimerspec {
        it_interval: libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        },
        it_value: libc::timespec {
            tv_sec: after.as_secs() as libc::time_t,
            // A zero it_value would disarm the timer: at least 1 ns.
            tv_nsec: libc::c_long::from(after.subsec_nanos().max(1)),
        },
    };
    // SAFETY: `spec` is a valid itimerspec and the old value is not asked for.
    if unsafe { libc::timerfd_settime(fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(fd)
}
