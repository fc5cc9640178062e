//! `mpst new` run as a user runs it, then `cargo test` in the crate it wrote: offline,
//! against this checkout's crates (`--path-deps`, as the README's "start your own
//! protocol" does) and this workspace's lock file and target directory, so nothing is
//! downloaded and the dependencies are built once.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{exits_with, mpst, repo, text};

fn workspace() -> PathBuf {
    repo()
}

/// A fresh directory outside this workspace (a crate inside it would be taken for a
/// member that the workspace does not list).
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mpst-cli-new-{}-{name}", std::process::id()));
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_new_crate_builds_its_api_from_the_protocol_and_passes_its_tests() {
    let dir = scratch("builds");
    let krate = dir.join("hello-protocol");
    let out = mpst(&[
        "new",
        krate.to_str().unwrap(),
        "--path-deps",
        workspace().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Created crate `hello-protocol`"));
    for file in [
        "Cargo.toml",
        "hello_protocol.scr",
        "build.rs",
        "src/lib.rs",
        "src/main.rs",
        "tests/verify.rs",
    ] {
        assert!(krate.join(file).is_file(), "{file} is written");
    }
    // The crate is on the edition this workspace and its generated code are written for.
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("edition = \"2024\""), "{manifest}");
    let scr = std::fs::read_to_string(krate.join("hello_protocol.scr")).unwrap();
    assert!(scr.contains("global protocol HelloProtocol(role C, role S, role L)"));
    // The build script uses the builder the README and mpst-codegen's docs show.
    let build = std::fs::read_to_string(krate.join("build.rs")).unwrap();
    assert!(
        build.contains("Build::scribble(\"hello_protocol.scr\").generate()?;"),
        "{build}"
    );

    // The workspace's lock file pins the same versions as the workspace's build, and its
    // target directory already holds them: offline, nothing is fetched.
    std::fs::copy(workspace().join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    let test = Command::new(env!("CARGO"))
        .args(["test", "--offline", "--quiet"])
        // The workspace's dev profile (Cargo.toml), so that the dependencies the
        // workspace's own tests built are used again: under cargo's default profile
        // (full debug info) a cold run compiled 31 crates for this test, now 15.
        .args(["--config", "profile.dev.debug=\"line-tables-only\""])
        .args(["--config", "profile.dev.package.\"*\".debug=false"])
        .current_dir(&krate)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("cargo runs");
    let (stdout, stderr) = (text(&test.stdout), text(&test.stderr));
    assert!(test.status.success(), "{stdout}\n{stderr}");
    // Both tests of tests/verify.rs ran (libtest prints a dot per passing test with --quiet).
    assert!(
        stdout.contains("2 passed"),
        "the verification tests ran: {stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_existing_directory_is_refused() {
    let dir = scratch("exists");
    let out = mpst(&["new", dir.to_str().unwrap()]);
    exits_with(&out, 2, "already exists");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "nothing written"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_name_that_is_not_a_crate_name_is_refused() {
    let dir = scratch("bad-name");
    let out = mpst(&["new", dir.join("2fast").to_str().unwrap()]);
    exits_with(
        &out,
        2,
        "`2fast` is not a crate name: expected an ASCII letter",
    );
    assert!(!dir.join("2fast").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
