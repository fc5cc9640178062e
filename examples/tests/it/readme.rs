//! The README's code that is not compiled as the `mpst` crate's doctest (it needs other
//! crates or a second process) is a copy of tested code: these tests fail when the copy
//! and the original drift apart.

use std::path::Path;

fn repository_file(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

/// The `rust,ignore` blocks of the README, in order.
fn ignored_rust_blocks(readme: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in readme.lines() {
        match (&mut current, line) {
            (None, "```rust,ignore") => current = Some(Vec::new()),
            (Some(block), "```") => {
                blocks.push(block.join("\n"));
                current = None;
            }
            (Some(block), line) => block.push(line),
            (None, _) => {}
        }
    }
    blocks
}

fn readme_block_containing(marker: &str) -> String {
    let readme = repository_file("README.md");
    let blocks = ignored_rust_blocks(&readme);
    blocks
        .into_iter()
        .find(|b| b.contains(marker))
        .unwrap_or_else(|| panic!("no `rust,ignore` block with {marker:?} in README.md"))
}

#[test]
fn the_readme_two_process_example_is_examples_net_ping() {
    let source = repository_file("examples/net_ping/main.rs");
    // The file's first line is its module doc; the README shows the rest.
    let body = source
        .split_once('\n')
        .map_or("", |(_, rest)| rest)
        .trim_end();
    assert_eq!(readme_block_containing("net_ping A|B"), body);
}

/// The first doctest of the module docs (`//!`) of the repository file `path` whose
/// opening fence is `fence` (e.g. "```" or "```no_run"), without its fences.
fn first_module_doctest(path: &str, fence: &str) -> String {
    let source = repository_file(path);
    let doc: Vec<&str> = source
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    let start = doc
        .iter()
        .position(|l| *l == fence)
        .unwrap_or_else(|| panic!("a doctest opened by {fence:?} in {path}"))
        + 1;
    let end = start
        + doc[start..]
            .iter()
            .position(|l| *l == "```")
            .expect("its end");
    doc[start..end].join("\n")
}

#[test]
fn the_readme_figure_2_choreography_is_the_mpst_choreo_doctest() {
    assert_eq!(
        readme_block_containing("ConcurrentSend"),
        first_module_doctest("crates/mpst-choreo/src/lib.rs", "```")
    );
}

#[test]
fn the_readme_build_script_is_the_mpst_codegen_build_doctest() {
    assert_eq!(
        readme_block_containing("Build::scribble"),
        first_module_doctest("crates/mpst-codegen/src/build.rs", "```no_run")
    );
}
