//! The multi-process runs: every role its own OS process over loopback TCP, started by the
//! launcher of `mpst_examples::net`. Each test is bounded in time, and every child is
//! killed when its `Launch` is dropped (on failure too).

use std::path::Path;
use std::time::Duration;

use mpst_examples::net::{Launch, Outcome};
use mpst_wire::RoleExit;

const LIMIT: Duration = Duration::from_secs(60);

fn double_buffering() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_double_buffering_net"))
}

fn three_buyers() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_three_buyers_net"))
}

fn outcome<'a>(outcomes: &'a [Outcome], role: &str) -> &'a Outcome {
    outcomes.iter().find(|o| o.role == role).unwrap()
}

/// What the sink reads: `2 * (i * i - 7) + 1` for the `i`-th value.
fn expected(count: i32) -> String {
    let values: Vec<i32> = (0..count).map(|i| 2 * (i * i - 7) + 1).collect();
    format!("{values:?}")
}

#[tokio::test]
async fn double_buffering_runs_as_three_processes() {
    let args = ["--count", "50"];
    let roles = ["S", "K", "T"];
    let launch = Launch::start(
        double_buffering(),
        &roles,
        "double_buffering/1",
        &args,
        None,
        LIMIT,
    );
    let outcomes = launch.await.unwrap().finish().await.unwrap();
    let sink = outcome(&outcomes, "T");
    assert_eq!(sink.exit(), Some(RoleExit::Completed), "{sink:?}");
    assert_eq!(sink.ok(), Some(expected(50).as_str()));
    // The protocol never ends: once the sink has read enough and left, the kernel fails
    // naming it, and the source fails naming the kernel.
    let kernel = outcome(&outcomes, "K");
    assert_eq!(kernel.exit(), Some(RoleExit::Lost), "{kernel:?}");
    let error = kernel.err().unwrap();
    assert!(error.contains("role K") && error.contains("T"), "{error}");
    let source = outcome(&outcomes, "S");
    assert_eq!(source.exit(), Some(RoleExit::Lost), "{source:?}");
    let error = source.err().unwrap();
    assert!(error.contains("role S") && error.contains("K"), "{error}");
}

#[tokio::test]
async fn three_buyers_runs_as_four_processes() {
    let roles = ["A", "B", "C", "S"];
    for (budget, b, c, s) in [
        (
            "100",
            "BoughtByC(\"\")",
            "BoughtByC(\"Tuesday\")",
            "Some(\"C's address\")",
        ),
        ("20", "Declined", "Declined", "None"),
    ] {
        let args = ["--budget-c", budget];
        let launch = Launch::start(three_buyers(), &roles, "three_buyers/1", &args, None, LIMIT);
        let outcomes = launch.await.unwrap().finish().await.unwrap();
        for o in &outcomes {
            assert_eq!(o.exit(), Some(RoleExit::Completed), "{o:?}");
        }
        let got: Vec<_> = roles.iter().map(|r| outcome(&outcomes, r).ok()).collect();
        assert_eq!(got, [Some("130"), Some(b), Some(c), Some(s)]);
    }
}

#[tokio::test]
async fn a_peer_killed_mid_session_fails_its_peers_naming_it() {
    // `--count 0`: the sink never stops, so the session is under way when K dies.
    let args = ["--count", "0"];
    let roles = ["S", "K", "T"];
    let receive = Some(Duration::from_secs(5));
    let mut launch = Launch::start(
        double_buffering(),
        &roles,
        "double_buffering/1",
        &args,
        receive,
        LIMIT,
    )
    .await
    .unwrap();
    for role in roles {
        launch.connected(role).await.unwrap();
    }
    launch.kill("K").unwrap();
    let outcomes = launch.finish().await.unwrap();
    for survivor in ["S", "T"] {
        let o = outcome(&outcomes, survivor);
        assert_eq!(o.exit(), Some(RoleExit::Lost), "{o:?}");
        let error = o.err().unwrap_or_default();
        assert!(
            error.contains(&format!("role {survivor}")) && error.contains("K"),
            "{o:?}"
        );
    }
}

#[tokio::test]
async fn a_kernel_running_another_session_type_is_refused() {
    let args = ["--count", "5", "--skew"];
    let roles = ["S", "K", "T"];
    let launch = Launch::start(
        double_buffering(),
        &roles,
        "double_buffering/1",
        &args,
        None,
        LIMIT,
    );
    let outcomes = launch.await.unwrap().finish().await.unwrap();
    // Nobody runs the session: every process fails.
    for o in &outcomes {
        assert!(!o.status.success(), "{o:?}");
    }
    // K and T could not connect (a refusal): status 3.
    for role in ["K", "T"] {
        let o = outcome(&outcomes, role);
        assert_eq!(o.exit(), Some(RoleExit::Unreachable), "{o:?}");
    }
    // K dials S and T; each checks K's fingerprint, refuses it saying it is K's session
    // type that differs, and K reads that refusal (never a reset). K proved its role, so
    // T knows no compatible K will come: it fails at once, and says why.
    let kernel = outcome(&outcomes, "K").err().unwrap_or_default();
    assert!(
        kernel.contains("refused by the other side: role K runs another session type"),
        "{kernel}"
    );
    let sink = outcome(&outcomes, "T").err().unwrap_or_default();
    assert!(
        sink.contains("peer K") && sink.contains("role K runs another session type"),
        "{sink}"
    );
}

/// The README's example: `net_ping certs DIR`, `net_ping B <address> DIR` then
/// `net_ping A <address> DIR`: two processes, one session, mutual TLS.
#[tokio::test]
async fn the_readme_two_process_example_runs() {
    use tokio::io::AsyncBufReadExt;
    use tokio::process::Command;
    let exe = env!("CARGO_BIN_EXE_net_ping");
    let dir = std::env::temp_dir().join(format!("mpst-net-ping-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir_arg = dir.to_str().unwrap();
    let run = async {
        let certs = Command::new(exe)
            .args(["certs", dir_arg])
            .output()
            .await
            .unwrap();
        assert!(certs.status.success(), "{certs:?}");
        let mut b = Command::new(exe)
            .args(["B", "127.0.0.1:0", dir_arg])
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdout = b.stdout.take().unwrap();
        let line = tokio::io::BufReader::new(stdout).lines().next_line().await;
        let line = line.unwrap().unwrap();
        let address = line.strip_prefix("listening on ").unwrap().to_owned();
        let a = Command::new(exe)
            .args(["A", address.as_str(), dir_arg])
            .kill_on_drop(true)
            .output()
            .await
            .unwrap();
        (a, b.wait().await.unwrap())
    };
    let (a, b) = tokio::time::timeout(LIMIT, run).await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(a.status.success() && b.success(), "{a:?} {b:?}");
    assert_eq!(String::from_utf8_lossy(&a.stdout), "pong 42\n");
    // Bad usage is an error, not a panic.
    let usage = Command::new(exe).output().await.unwrap();
    assert_eq!(usage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("usage: net_ping"));
}
