//! Roles as plain processes, each configured by one TOML file, started in their hosts;
//! their exit statuses say what happened.

use crate::common;

use std::process::Stdio;
use std::time::Duration;

use common::{ECHO, PROCESS_TIMEOUT, assert_exit, echo_server, eventually, ping, ping_command};
use mpst_testbed::{Builder, Error, Impairment, TestBed};

fn bed(test: &str) -> Option<TestBed> {
    builder().build_or_skip(test)
}

fn builder() -> Builder {
    TestBed::builder()
        .host("alice")
        .host("bob")
        .host("carol")
        .link(
            "alice",
            "bob",
            Impairment::none().delay(Duration::from_millis(2)),
        )
        .tcp_port(7000)
}

#[test]
fn two_roles_from_toml_files_exit_successfully() {
    let Some(bed) = bed("two_roles_from_toml_files_exit_successfully") else {
        return;
    };
    let mut server = echo_server(&bed, "bob", 7000, 1);
    let client = ping(&bed, "alice", "bob:7000", 5, 32);
    assert_exit(&client, 0, "the ping role");
    let summary = String::from_utf8_lossy(&client.stdout);
    assert!(summary.contains("summary count=5"), "{summary}");
    // The echo role served its one connection and exits by itself.
    let status = server.wait_timeout(PROCESS_TIMEOUT).unwrap();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn exit_statuses_name_what_went_wrong() {
    let Some(bed) = bed("exit_statuses_name_what_went_wrong") else {
        return;
    };
    let alice = bed.host("alice");
    let run = |config: &str| {
        let mut command = alice.role(ECHO, config).unwrap();
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        alice
            .spawn(&mut command)
            .unwrap()
            .wait_output(PROCESS_TIMEOUT)
            .unwrap()
    };
    // 2: a configuration error, naming the file and the field.
    let bad = run("role = \"ping\"\ncolour = 3\n[peers]\nECHO = \"bob:7000\"\n");
    assert_exit(&bad, 2, "an unknown field");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains(".toml:2:1") && err.contains("colour"), "{err}");
    // 3: carol is not linked to alice, so her name does not resolve there.
    let unresolved = run("role = \"ping\"\n[peers]\nECHO = \"carol:7000\"\n");
    assert_exit(&unresolved, 3, "an unlinked peer");
    assert!(String::from_utf8_lossy(&unresolved.stderr).contains("carol"));
    // 3: nobody connected within the role's own connect time-out.
    let waiting = run("role = \"echo\"\nlisten = \"0.0.0.0:7000\"\nconnect_timeout = \"200ms\"\n");
    assert_exit(&waiting, 3, "an echo nobody connects to");
    let err = String::from_utf8_lossy(&waiting.stderr);
    assert!(err.contains("connect_timeout"), "{err}");
}

/// The one configuration layer: the role from `MPST_*` variables alone, a variable over
/// the file's value, and a misspelt variable refused by name.
#[test]
fn roles_take_their_configuration_from_mpst_variables_too() {
    let Some(bed) = bed("roles_take_their_configuration_from_mpst_variables_too") else {
        return;
    };
    let _server = echo_server(&bed, "bob", 7000, 2);
    let alice = bed.host("alice");
    let run = |command: &mut std::process::Command| {
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        alice
            .spawn(command)
            .unwrap()
            .wait_output(PROCESS_TIMEOUT)
            .unwrap()
    };
    // No file: every setting from the environment.
    let mut command = alice.command(ECHO);
    command
        .env_remove("MPST_CONFIG")
        .env("MPST_ROLE", "ping")
        .env("MPST_PEER_ECHO", "bob:7000")
        .env("MPST_RECEIVE_TIMEOUT", "15s")
        .args(["--count", "2"]);
    let out = run(&mut command);
    assert_exit(&out, 0, "a ping configured by variables");
    assert_eq!(common::rtts(&out).len(), 2);
    // A variable over the file: the file's unlinked peer is replaced by bob.
    let mut command = alice
        .role(ECHO, "role = \"ping\"\n[peers]\nECHO = \"carol:7000\"\n")
        .unwrap();
    command.env("MPST_PEER_ECHO", "bob:7000");
    let out = run(&mut command);
    assert_exit(&out, 0, "a ping whose peer a variable sets over the file's");
    // A misspelt variable: usage, naming it.
    let mut command = alice.command(ECHO);
    command
        .env_remove("MPST_CONFIG")
        .env("MPST_ROLE", "ping")
        .env("MPST_PEER_ECHO", "bob:7000")
        .env("MPST_RECIEVE_TIMEOUT", "1s");
    let out = run(&mut command);
    assert_exit(&out, 2, "a misspelt variable");
    assert!(String::from_utf8_lossy(&out.stderr).contains("MPST_RECIEVE_TIMEOUT"));
}

#[test]
fn a_process_past_its_time_out_is_killed() {
    let Some(bed) = builder()
        .dial_patience(Duration::ZERO)
        .build_or_skip("a_process_past_its_time_out_is_killed")
    else {
        return;
    };
    let mut server = echo_server(&bed, "bob", 7000, 1);
    match server.wait_timeout(Duration::from_millis(100)) {
        Err(Error::TimedOut { after, .. }) => assert_eq!(after, Duration::from_millis(100)),
        other => panic!("expected a time-out, got {other:?}"),
    }
    // Killed: its host no longer listens, so the relay resets a connection to it —
    // while the ping connects (status 3) or just after (status 4).
    let out = ping(&bed, "alice", "bob:7000", 1, 8);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(3 | 4)) && err.contains("reset"),
        "{:?}: {err}",
        out.status
    );
}

#[test]
fn roles_may_start_in_any_order() {
    // Patience well beyond a process start on a loaded machine.
    let Some(bed) = builder()
        .dial_patience(PROCESS_TIMEOUT)
        .build_or_skip("roles_may_start_in_any_order")
    else {
        return;
    };
    // The ping starts first: its connection reaches the relay, which keeps dialling bob.
    let mut client = ping_command(&bed, "alice", "bob:7000", 3, 16);
    let client = bed.host("alice").spawn(&mut client).unwrap();
    let link = bed.link("alice", "bob");
    assert!(eventually(PROCESS_TIMEOUT, || link.stats().connections == 1));
    let _server = echo_server(&bed, "bob", 7000, 1);
    let out = client.wait_output(PROCESS_TIMEOUT).unwrap();
    assert_exit(&out, 0, "a ping started before its echo");
}
