//! File-descriptor exhaustion at an accepting role (issue 22: `accept()` failing spun,
//! 1.37 million errors in 3 s into an unbounded channel). In its own test binary, so that
//! lowering this process's descriptor limit touches no other test.

#[path = "it/common/mod.rs"]
mod common;

use std::fs::File;
use std::time::Duration;

use common::{Deployment, LIMIT, envelope, next, role};
use mpst_choreo::net::tcp::TcpTransport;
use mpst_choreo::transport::Transport;
use tokio::net::{TcpListener, TcpSocket};
use tokio::time::timeout;

/// Lowers this process's soft limit on open files to `limit`.
fn limit_open_files(limit: u64) {
    let mut rlimit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut rlimit), 0);
        rlimit.rlim_cur = limit.min(rlimit.rlim_max);
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &rlimit), 0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fd_exhaustion_accept_errors_back_off() {
    let names = [role("A"), role("B")];
    let deployment = Deployment::new(&names);
    let la = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let lb = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (aa, ab) = (la.local_addr().unwrap(), lb.local_addr().unwrap());
    let (a, b) = tokio::join!(
        TcpTransport::start(role("A"), la, [(role("B"), ab)], deployment.tcp(&role("A"))),
        TcpTransport::start(role("B"), lb, [(role("A"), aa)], deployment.tcp(&role("B"))),
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    let mut incoming = b.incoming(&role("B")).unwrap();
    // A socket made now, connected once no descriptor is left: B's accept() then fails.
    let client = TcpSocket::new_v4().unwrap();
    limit_open_files(256);
    let mut held = Vec::new();
    while let Ok(file) = File::open("/dev/null") {
        held.push(file);
    }
    let connecting = tokio::spawn(client.connect(ab));
    // For a second, B's acceptor can take nothing: its failures are paced, not a spin.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let errors = b.stats().accept_errors;
    drop(held);
    assert!(
        errors >= 1,
        "accept() never failed: the test did not exhaust descriptors"
    );
    assert!(
        errors <= 20,
        "{errors} failed accept() calls in a second: no back-off"
    );
    // Descriptors are back: B accepts again (the plain connection is a stranger's, and
    // refused), and A's messages still arrive.
    let _stranger = timeout(LIMIT, connecting).await.unwrap().unwrap();
    a.send(envelope("A", "B", 4, 1)).await.unwrap();
    assert_eq!(next(&mut incoming).await, 4);
}
