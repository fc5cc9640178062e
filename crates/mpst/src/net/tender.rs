//! The one thread of the process that tends every open session connection every
//! [`ACK_INTERVAL`] while its session looks elsewhere (reads what arrived, acknowledges
//! it, writes out what is buffered, judges the peer's silence): a plain thread, so that
//! routes need no timer of tokio's, and a connection costs no task of its own and no
//! clock read on the path of a label.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, Weak};
use std::thread;

use super::link::{ACK_INTERVAL, Link, Shared, lock};

/// The connections tended (not kept alive by the tender).
static LINKS: Mutex<Vec<Weak<Mutex<Link>>>> = Mutex::new(Vec::new());
/// Signalled when a connection is added, for a tender that waits with none.
static ADDED: Condvar = Condvar::new();
/// Whether the tender's thread runs (started at the first connection).
static STARTED: OnceLock<bool> = OnceLock::new();

fn links() -> MutexGuard<'static, Vec<Weak<Mutex<Link>>>> {
    LINKS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Has `link` tended until it is closed or dropped; `false` if the tender's thread could
/// not be started (then the route acknowledges, and judges its peer, only while polled).
pub(super) fn tend(link: &Shared) -> bool {
    let started = *STARTED.get_or_init(|| {
        thread::Builder::new()
            .name("mpst-net-tender".to_owned())
            .spawn(run)
            .is_ok()
    });
    if started {
        links().push(Arc::downgrade(link));
        ADDED.notify_one();
    }
    started
}

/// The tender's loop: waits while there is nothing to tend, else tends every connection
/// every [`ACK_INTERVAL`] and forgets those closed or dropped.
fn run() {
    let mut round = Vec::new();
    loop {
        {
            let mut tended = links();
            while tended.is_empty() {
                tended = ADDED.wait(tended).unwrap_or_else(|p| p.into_inner());
            }
        }
        thread::sleep(ACK_INTERVAL);
        round.clone_from(&*links());
        let mut done = Vec::new();
        for weak in &round {
            let open = weak.upgrade().is_some_and(|link| lock(&link).tend());
            if !open {
                done.push(weak.clone());
            }
        }
        round.clear();
        if !done.is_empty() {
            links().retain(|weak| !done.iter().any(|gone| gone.ptr_eq(weak)));
        }
    }
}
