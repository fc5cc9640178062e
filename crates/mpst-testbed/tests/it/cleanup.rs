//! A bed leaves nothing behind: its namespaces, their files and their processes go when
//! it is dropped, also while a failing test unwinds; namespaces of crashed runs are
//! removed, and nothing that is not provably ours is touched.

use crate::common;

use std::os::unix::process::ExitStatusExt;
use std::path::Path;

use common::{PROCESS_TIMEOUT, echo_server};
use mpst_testbed::{Error, Impairment, TestBed, list_namespaces};

fn bed(test: &str) -> Option<TestBed> {
    TestBed::builder()
        .host("alice")
        .host("bob")
        .full_mesh(Impairment::none())
        .tcp_port(7000)
        .build_or_skip(test)
}

fn assert_gone(names: &[String]) {
    let now = list_namespaces().unwrap();
    for name in names {
        assert!(!now.contains(name), "{name} is still there: {now:?}");
        let etc = Path::new("/etc/netns").join(name);
        assert!(!etc.exists(), "{} is still there", etc.display());
    }
}

#[test]
fn dropping_a_bed_removes_its_namespaces_files_and_processes() {
    let Some(bed) = bed("dropping_a_bed_removes_its_namespaces_files_and_processes") else {
        return;
    };
    let names = bed.namespaces();
    let dir = bed.dir().to_path_buf();
    assert_eq!(names.len(), 3, "a router and two hosts: {names:?}");
    let listed = list_namespaces().unwrap();
    assert!(names.iter().all(|n| listed.contains(n)), "{listed:?}");
    // A role that would wait 20 s for a connection nobody makes.
    let mut server = echo_server(&bed, "bob", 7000, 1);
    drop(bed);
    assert_gone(&names);
    assert!(!dir.exists(), "{} is still there", dir.display());
    let status = server.wait_timeout(PROCESS_TIMEOUT).unwrap();
    assert_eq!(status.signal(), Some(9), "killed by SIGKILL: {status:?}");
}

#[test]
fn a_panicking_test_still_removes_its_namespaces() {
    let mut names = Vec::new();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let Some(bed) = bed("a_panicking_test_still_removes_its_namespaces") else {
            return;
        };
        names = bed.namespaces();
        panic!("a test fails with its bed in scope");
    }));
    if names.is_empty() {
        return; // skipped
    }
    assert!(outcome.is_err());
    assert_gone(&names);
}

#[test]
fn only_namespaces_of_dead_runs_are_removed_as_stale() {
    let Some(live) = bed("only_namespaces_of_dead_runs_are_removed_as_stale") else {
        return;
    };
    let pid = std::process::id();
    // Ours by name and marker, but the marker's start time is not this process's: the
    // run that made it is gone (its pid reused).
    let stale = format!("mpst-tb-{pid}-stale-router");
    // Our prefix without our marker: not provably ours, so left alone.
    let foreign = format!("mpst-tb-{pid}-foreign");
    for (name, marker) in [
        (&stale, Some(format!("# mpst-testbed pid={pid} start=1\n"))),
        (&foreign, None),
    ] {
        let dir = Path::new("/etc/netns").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        if let Some(marker) = marker {
            std::fs::write(dir.join("hosts"), marker).unwrap();
        }
        let added = std::process::Command::new("ip")
            .args(["netns", "add", name])
            .status()
            .unwrap();
        assert!(added.success());
    }
    // A bed directory of the same dead run.
    let stale_dir = std::env::temp_dir().join(format!("mpst-tb-{pid}-stale-dir"));
    std::fs::create_dir_all(&stale_dir).unwrap();
    std::fs::write(
        stale_dir.join(".mpst-testbed"),
        format!("# mpst-testbed pid={pid} start=1\n"),
    )
    .unwrap();
    let removed = mpst_testbed::remove_stale_namespaces().unwrap();
    assert!(!stale_dir.exists(), "a stale bed directory was left");
    let foreign_kept = list_namespaces().unwrap().contains(&foreign);
    // Clean up the foreign one by hand before asserting.
    let _ = std::process::Command::new("ip")
        .args(["netns", "delete", &foreign])
        .status();
    let _ = std::fs::remove_dir_all(Path::new("/etc/netns").join(&foreign));
    assert!(removed.contains(&stale), "{removed:?}");
    assert_gone(&[stale]);
    assert!(foreign_kept, "a namespace without our marker was removed");
    assert!(
        live.dir().join(".mpst-testbed").exists(),
        "a live bed's directory went"
    );
    let listed = list_namespaces().unwrap();
    for name in live.namespaces() {
        assert!(!removed.contains(&name), "a live bed's {name} was removed");
        assert!(listed.contains(&name));
    }
}

#[test]
fn bad_descriptions_are_refused_with_the_reason() {
    let refused = |b: mpst_testbed::Builder| match b.build() {
        Err(Error::Config(msg)) => msg,
        other => panic!("expected a configuration error, got {other:?}"),
    };
    let msg = refused(TestBed::builder().host("alice").host("alice"));
    assert!(msg.contains("\"alice\" is declared twice"), "{msg}");
    let msg = refused(TestBed::builder().host("Alice_1"));
    assert!(
        msg.contains("\"Alice_1\"") && msg.contains("DNS label"),
        "{msg}"
    );
    let msg = refused(
        TestBed::builder()
            .host("a")
            .link("a", "b", Impairment::none()),
    );
    assert!(msg.contains("no host named \"b\""), "{msg}");
    let msg = refused(
        TestBed::builder()
            .host("a")
            .link("a", "a", Impairment::none()),
    );
    assert!(msg.contains("joins a host to itself"), "{msg}");
    let msg = refused(TestBed::builder().host("a").tcp_port(0));
    assert!(msg.contains("port 0"), "{msg}");
    let msg = refused(TestBed::builder());
    assert!(msg.contains("1 to 200 hosts"), "{msg}");
}
