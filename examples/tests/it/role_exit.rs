//! The role programs as an operator starts them (issue 23 item 5): configured only by a
//! TOML file or `MPST_*` variables, each exit status saying what happened (the table of
//! `mpst_wire::RoleExit`), checked from outside the process.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use mpst_wire::RoleExit;

fn double_buffering() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_double_buffering_net"))
}

fn net_ping() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_net_ping"))
}

/// `exe` with only the given `MPST_*` variables (none inherited) and `args`.
fn run(exe: &Path, vars: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = Command::new(exe);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("MPST_") {
            command.env_remove(name);
        }
    }
    command
        .envs(vars.iter().copied())
        .args(args)
        .env("RUST_LOG", "warn");
    command.output().expect("the role program runs")
}

fn exit(output: &Output) -> Option<RoleExit> {
    output.status.code().and_then(RoleExit::from_code)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A fresh temporary directory for one test.
fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mpst-role-exit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn bad_variables_exit_2_naming_the_variable() {
    let output = run(
        double_buffering(),
        &[("MPST_ROLE", "K"), ("MPST_CONNECT_TIMEOUT", "soon")],
        &[],
    );
    assert_eq!(exit(&output), Some(RoleExit::Usage), "{output:?}");
    let out = stdout(&output);
    assert!(
        out.contains("MPST_CONNECT_TIMEOUT=\"soon\": expected a duration"),
        "{out}"
    );
    // A misspelt variable is not ignored.
    let output = run(
        double_buffering(),
        &[("MPST_ROLE", "K"), ("MPST_LISTNE", "x:1")],
        &[],
    );
    assert_eq!(exit(&output), Some(RoleExit::Usage), "{output:?}");
    assert!(stdout(&output).contains("unknown environment variable MPST_LISTNE"));
    // A role the program does not have.
    let output = run(
        double_buffering(),
        &[("MPST_ROLE", "Q"), ("MPST_INSECURE_PLAINTEXT", "true")],
        &[],
    );
    assert_eq!(exit(&output), Some(RoleExit::Usage), "{output:?}");
    assert!(stdout(&output).contains("no role Q"), "{output:?}");
}

#[test]
fn a_bad_file_exits_2_naming_the_file_line_and_column() {
    let dir = temp("file");
    let file = dir.join("k.toml");
    std::fs::write(&file, "role = \"K\"\nconnect_timeout = 5\n").unwrap();
    let output = run(
        double_buffering(),
        &[],
        &["--config", file.to_str().unwrap()],
    );
    assert_eq!(exit(&output), Some(RoleExit::Usage), "{output:?}");
    let want = format!("{}:2:19: invalid type", file.display());
    assert!(stdout(&output).contains(&want), "{output:?}");
    // The same file through MPST_CONFIG; missing identity files are usage errors too.
    std::fs::write(
        &file,
        "role = \"K\"\n[security]\nca = \"ca.pem\"\ncert = \"k.pem\"\nkey = \"k.key\"\n",
    )
    .unwrap();
    let output = run(
        double_buffering(),
        &[("MPST_CONFIG", file.to_str().unwrap())],
        &[],
    );
    assert_eq!(exit(&output), Some(RoleExit::Usage), "{output:?}");
    assert!(stdout(&output).contains("ca.pem"), "{output:?}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_peer_that_never_comes_exits_3_within_the_connect_timeout() {
    // A port with nobody behind it: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let peer = format!("127.0.0.1:{port}");
    let started = Instant::now();
    let output = run(
        net_ping(),
        &[
            ("MPST_ROLE", "A"),
            ("MPST_PEER_B", &peer),
            ("MPST_INSECURE_PLAINTEXT", "true"),
            ("MPST_CONNECT_TIMEOUT", "1s"),
        ],
        &[],
    );
    let took = started.elapsed();
    assert_eq!(exit(&output), Some(RoleExit::Unreachable), "{output:?}");
    assert!(
        stdout(&output).contains("not connected before the deadline"),
        "{output:?}"
    );
    // It retried until its time-out (it gives up once the next attempt would start
    // past it), not forever (a bound generous for a busy machine).
    assert!(stdout(&output).contains(" attempts; last: "), "{output:?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[test]
fn two_roles_configured_only_by_variables_complete_and_exit_0() {
    let dir = temp("vars");
    let certs = run(net_ping(), &[], &["certs", dir.to_str().unwrap()]);
    assert!(certs.status.success(), "{certs:?}");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let address = format!("127.0.0.1:{port}");
    let identity = |role: &str| {
        [
            ("MPST_CA", dir.join("ca.pem")),
            ("MPST_CERT", dir.join(format!("{role}.pem"))),
            ("MPST_KEY", dir.join(format!("{role}.key"))),
        ]
    };
    let spawn = |role: &str, vars: &[(&str, &str)]| {
        let mut command = Command::new(net_ping());
        command.env("MPST_ROLE", role).env("RUST_LOG", "warn");
        for (name, path) in identity(role) {
            command.env(name, path);
        }
        command.envs(vars.iter().copied());
        command.stdout(std::process::Stdio::piped());
        command.spawn().expect("a role starts")
    };
    let b = spawn("B", &[("MPST_LISTEN", &address), ("MPST_PEER_A", "")]);
    let a = spawn(
        "A",
        &[("MPST_PEER_B", &address), ("MPST_CONNECT_TIMEOUT", "10s")],
    );
    let a = a.wait_with_output().unwrap();
    let b = b.wait_with_output().unwrap();
    let _ = std::fs::remove_dir_all(dir);
    assert_eq!(exit(&a), Some(RoleExit::Completed), "{a:?}");
    assert_eq!(exit(&b), Some(RoleExit::Completed), "{b:?}");
    assert_eq!(stdout(&a), "pong 42\n");
}

/// A peer of `net_ping`'s B that speaks the handshake and then sends bytes that are no
/// message of the protocol.
mod garbage {
    use mpst::net::TcpRoute;
    use mpst::{Message, Role};

    #[derive(Role)]
    #[message(Label)]
    pub struct A(#[route(B)] pub TcpRoute<Label>);
    #[derive(Role)]
    #[message(Label)]
    pub struct B(#[route(A)] pub TcpRoute<Label>);
    #[derive(Message, serde::Serialize, serde::Deserialize)]
    pub enum Label {
        Num(u32),
    }
}

#[test]
fn a_message_that_does_not_decode_exits_5() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let address = format!("127.0.0.1:{port}");
    let mut b = Command::new(net_ping());
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("MPST_") {
            b.env_remove(name);
        }
    }
    let b = b
        .envs([
            ("MPST_ROLE", "B"),
            ("MPST_LISTEN", address.as_str()),
            ("MPST_PEER_A", ""),
            ("MPST_INSECURE_PLAINTEXT", "true"),
            ("RUST_LOG", "warn"),
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("B starts");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let a = mpst::net::NetConfig::new("ping/1", "A")
            .insecure_plaintext()
            .peer("B", address.as_str())
            .connect()
            .await
            .expect("A connects to B");
        let garbage::A(route) = a.into_role().expect("A's route");
        let mut raw = mpst::net::TcpRoute::into_inner(route).expect("the raw stream");
        // A frame of two bytes that are no label of ping/1.
        tokio::io::AsyncWriteExt::write_all(&mut raw, &[0, 0, 0, 2, 7, 7])
            .await
            .unwrap();
        let b = tokio::task::spawn_blocking(move || b.wait_with_output());
        let b = tokio::time::timeout(Duration::from_secs(30), b)
            .await
            .expect("B exits")
            .unwrap()
            .unwrap();
        assert_eq!(exit(&b), Some(RoleExit::Protocol), "{b:?}");
        assert!(stdout(&b).contains("ERR "), "{b:?}");
    });
}
