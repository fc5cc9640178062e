//! docs/CHOREOGRAPHIES.md covers every public operator of `mpst-choreo`: each `pub fn`
//! of `Op` (in `op.rs` and `nonblocking.rs`) is shown as `op.NAME(` (or `op.NAME::<`).

use std::path::Path;

fn repository_file(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

/// The names of the `pub fn`s inside the `impl .. Op<L>` blocks of `source`.
fn op_methods(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in source.lines() {
        if line.starts_with("impl") {
            inside = line.contains(" Op<L>");
        } else if line.starts_with('}') {
            inside = false;
        } else if inside {
            if let Some(rest) = line.trim_start().strip_prefix("pub fn ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                names.push(name);
            }
        }
    }
    names
}

#[test]
fn every_public_operator_is_in_the_choreographies_doc() {
    let doc = repository_file("docs/CHOREOGRAPHIES.md");
    let mut methods = Vec::new();
    for file in ["op.rs", "nonblocking.rs"] {
        methods.extend(op_methods(&repository_file(&format!(
            "crates/mpst-choreo/src/{file}"
        ))));
    }
    for expected in ["comm", "fcomm", "then_async", "cond", "iterate", "ready"] {
        assert!(
            methods.iter().any(|m| m == expected),
            "{expected} in {methods:?}"
        );
    }
    let missing: Vec<&String> = methods
        .iter()
        .filter(|m| !doc.contains(&format!("op.{m}(")) && !doc.contains(&format!("op.{m}::<")))
        .collect();
    assert!(
        missing.is_empty(),
        "not in docs/CHOREOGRAPHIES.md: {missing:?}"
    );
}
