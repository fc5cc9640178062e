//! Finding the repository's Scribble protocols for data-driven tests.

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Every `.scr` file under `examples/` and the Scribble crate's test protocols, sorted,
/// except those in directories named `invalid` (protocols that must be rejected).
pub fn protocols() -> Vec<PathBuf> {
    let mut found = Vec::new();
    for dir in ["examples", "crates/mpst-scribble/tests/protocols"] {
        collect(&root().join(dir), &mut found);
    }
    found.sort();
    found
}

fn collect(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "invalid") {
                collect(&path, found);
            }
        } else if path.extension().is_some_and(|e| e == "scr") {
            found.push(path);
        }
    }
}

/// A test name for a protocol file: its path under the root, with `/` as `__`.
pub fn name(path: &Path) -> String {
    let rel = path.strip_prefix(root()).unwrap_or(path);
    rel.with_extension("")
        .to_string_lossy()
        .replace(['/', '\\', '-', '.'], "_")
}

/// Asserts that `text` (generated code, an error's message) contains every one of
/// `needles`; the message names the first missing one and shows the whole text.
pub fn assert_contains_all(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "expected {needle:?} in:\n{text}");
    }
}

pub mod processes;
pub mod replay;
pub mod round_trip;
pub mod scratch;
