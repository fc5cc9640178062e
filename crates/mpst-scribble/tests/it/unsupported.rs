//! Every construct that `docs/SCRIBBLE.md` lists as not supported gets exactly the error
//! the document says: the examples and errors are read from its table, so the document
//! and the front end cannot drift apart.

use std::path::Path;

use mpst_scribble::{Diagnostic, check, parse};

/// `kind: message` as the CLI prints it, without the backticks a code span cannot hold.
fn printed(d: &Diagnostic) -> String {
    format!("{}: {}", d.kind.name(), d.message).replace('`', "")
}

/// The text of the first code span of a table cell (between its outer backticks).
fn code(cell: &str) -> Option<&str> {
    let start = cell.find('`')?;
    let end = cell.rfind('`')?;
    (end > start).then(|| &cell[start + 1..end])
}

/// The rows `(construct, example, error)` of the "Not supported" table.
fn rows(doc: &str) -> Vec<(String, String, String)> {
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with("Not supported"))
        .expect("a `## Not supported` section");
    section
        .lines()
        .filter(|line| line.starts_with("| ") && !line.starts_with("| construct"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            assert_eq!(cells.len(), 3, "three columns: {line}");
            let example = code(cells[1]).unwrap_or_else(|| panic!("example code: {line}"));
            let error = code(cells[2]).unwrap_or_else(|| panic!("error code: {line}"));
            (
                cells[0].trim().to_string(),
                example.to_string(),
                error.to_string(),
            )
        })
        .collect()
}

#[test]
fn every_unsupported_construct_in_the_docs_gets_the_documented_error() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/SCRIBBLE.md");
    let doc = std::fs::read_to_string(&path).expect("docs/SCRIBBLE.md");
    let rows = rows(&doc);
    assert!(rows.len() >= 14, "only {} rows", rows.len());
    let mut wrong = Vec::new();
    for (construct, example, error) in &rows {
        // The first diagnostic of parsing, else of well-formedness.
        let printed = match parse(example) {
            Ok(protocols) => protocols
                .iter()
                .find_map(|p| check(p).first().map(printed))
                .unwrap_or_else(|| "accepted".to_string()),
            Err(diagnostics) => printed(&diagnostics[0]),
        };
        if printed != *error {
            wrong.push(format!(
                "{construct}:\n  doc:     {error}\n  printed: {printed}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
