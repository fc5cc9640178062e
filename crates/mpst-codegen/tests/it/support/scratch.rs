//! A scratch crate kept in the target directory that builds and runs one program against
//! this checkout's runtime: offline, with the workspace's lock file and target directory,
//! and with its files rewritten only when their text changes. A warm `cargo test` then
//! finds it fresh and only runs it, where trybuild cleans and rebuilds its project on
//! every run (a minute of CI time for the round trip of every generated API).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::root;

/// The target directory of this `cargo test`.
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is inside the target directory")
        .to_path_buf()
}

/// The directory of the scratch crate `name` (created if missing).
pub fn dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    dir
}

/// Writes `text` to `path` unless the file already holds exactly it, so that its
/// modification time (what Cargo's freshness check reads) moves only on a real change.
pub fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// The manifest: the runtime with the features the round trip uses, as this crate's
/// dev-dependencies have it, so the target directory's build of it is reused. The empty
/// `[workspace]` keeps Cargo from taking the scratch crate for a member of this workspace
/// (the target directory lies inside it).
fn manifest(name: &str) -> String {
    let runtime = root().join("crates/mpst");
    format!(
        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nmpst = {{ package = \"mpst-session\", path = {runtime:?}, \
         features = [\"serialize\", \"scribble\"] }}\nfutures = \"0.3\"\n\n[workspace]\n"
    )
}

/// Builds and runs the scratch crate `name` whose `src/main.rs` is `main`, and returns
/// what `cargo run` printed and how it exited.
pub fn run(name: &str, main: &str) -> Output {
    let dir = dir(name);
    write_if_changed(&dir.join("Cargo.toml"), &manifest(name));
    write_if_changed(&dir.join("src/main.rs"), main);
    // The workspace's lock file pins the versions its own build used, so nothing is
    // fetched and nothing is built twice. Cargo adds the scratch package to the copy, so
    // it is copied again only when the workspace's is newer.
    let (lock, copy) = (root().join("Cargo.lock"), dir.join("Cargo.lock"));
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if modified(&copy).is_none() || modified(&lock) > modified(&copy) {
        std::fs::copy(&lock, &copy).unwrap();
    }
    Command::new(env!("CARGO"))
        .args(["run", "--offline", "--quiet"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .output()
        .expect("cargo runs")
}
