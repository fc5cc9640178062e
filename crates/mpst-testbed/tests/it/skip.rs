//! The skip rule: without root a bed's test prints a `SKIPPED` line and passes; with `CI`
//! set it fails. Checked by running this file's probe test as the unprivileged user
//! `nobody` (via util-linux's `setpriv`).

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use mpst_testbed::{Impairment, TestBed};

#[test]
fn skip_rule_probe() {
    let Some(bed) = TestBed::builder()
        .host("a")
        .host("b")
        .link("a", "b", Impairment::none())
        .build_or_skip("skip_rule_probe")
    else {
        return;
    };
    assert_eq!(bed.namespaces().len(), 3);
}

#[test]
fn without_root_tests_skip_and_under_ci_they_fail() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        // Already unprivileged: the probe itself shows the rule (it printed SKIPPED).
        mpst_testbed::skip_or_fail(
            "without_root_tests_skip_and_under_ci_they_fail",
            &"needs root to drop to nobody",
        );
        return;
    }
    // A copy of this test binary that `nobody` can run, wherever the checkout lives.
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let exe = dir.path().join("probe");
    // Copied by another process: a file this process held open for writing could leak
    // into a child forked meanwhile by another test's thread, and exec would then fail
    // with "text file busy".
    let copied = Command::new("install")
        .args(["-m", "755"])
        .arg(std::env::current_exe().unwrap())
        .arg(&exe)
        .status()
        .unwrap();
    assert!(copied.success());
    let run = |ci: bool| {
        let mut command = Command::new("setpriv");
        command
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&exe)
            .args(["--exact", "skip::skip_rule_probe", "--test-threads=1"])
            .current_dir(dir.path())
            .env_remove("CI");
        if ci {
            command.env("CI", "true");
        }
        command.output().expect("setpriv runs")
    };
    let skipped = run(false);
    let stderr = String::from_utf8_lossy(&skipped.stderr);
    assert!(skipped.status.success(), "{stderr}");
    assert!(
        stderr.lines().any(
            |l| l.starts_with("SKIPPED skip_rule_probe: ") && l.contains("not running as root")
        ),
        "{stderr}"
    );
    let failed = run(true);
    assert_eq!(
        failed.status.code(),
        Some(101),
        "under CI the probe must fail"
    );
    // The harness reports the captured panic message on stdout.
    let said = String::from_utf8_lossy(&failed.stdout) + String::from_utf8_lossy(&failed.stderr);
    assert!(said.contains("cannot run under CI"), "{said}");
}
