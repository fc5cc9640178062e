//! Our naming rule (`mpst_fsm::ident::rust_name`) against `heck`'s upper camel case, over
//! every role, label and protocol name of the repository's Scribble protocols: where the
//! two agree, and exactly where and why they differ (the reason we keep our rule).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use heck::ToUpperCamelCase;
use mpst_fsm::ident::rust_name;
use mpst_scribble::frontend::parse_source;

/// The `.scr` files of the examples, the Scribble test protocols and the choreography
/// examples.
fn corpus() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in [
        "examples",
        "crates/mpst-scribble/tests/protocols",
        "crates/mpst-choreo/examples",
    ] {
        let mut stack = vec![root.join(dir)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "scr") {
                    files.push(path);
                }
            }
        }
    }
    files.sort();
    files
}

/// Every protocol, role and label name of the well-formed, projectable protocols.
fn names() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for file in corpus() {
        let text = std::fs::read_to_string(&file).unwrap();
        let Ok(parsed) = parse_source(&file.display().to_string(), &text) else {
            continue;
        };
        for protocol in parsed.protocols() {
            let Ok(projections) = parsed.project(protocol) else {
                continue;
            };
            names.insert(protocol.name.text.clone());
            for projection in projections {
                names.insert(projection.role.clone());
                for state in 0..projection.fsm.state_count() {
                    for t in projection.fsm.transitions(state) {
                        names.insert(t.action.peer.clone());
                        names.insert(t.action.message.label.clone());
                    }
                }
            }
        }
    }
    names
}

#[test]
fn heck_agrees_with_our_rule_except_on_capitals_and_leading_digits() {
    let names = names();
    assert!(
        names.len() > 100,
        "only {} names: is the corpus there?",
        names.len()
    );
    let differ: Vec<(&str, String, String)> = names
        .iter()
        .filter_map(|name| {
            let ours = rust_name(name, "L");
            let heck = name.to_upper_camel_case();
            (ours != heck).then_some((name.as_str(), ours, heck))
        })
        .collect();
    // Two kinds of names differ (in the corpus: labels `1`, `2`; roles `CS`, `KS`):
    // - a leading digit: heck keeps `1`, which is no identifier; ours is `L1`;
    // - capitals after a word's first letter: heck splits `CS` or `getHTTP` into words
    //   and lowers all but each word's first letter (`Cs`, `GetHttp`); ours only raises
    //   first letters and keeps the rest as written, so a name that already is a Rust
    //   type name (`CS`, `HTTPRequest`) is left alone: the generated type is the one
    //   the protocol spells, and hand-written session types keep their names.
    let (mut digits, mut capitals) = (0, 0);
    for (name, ours, heck) in &differ {
        if name.starts_with(|c: char| c.is_ascii_digit()) {
            assert_eq!(ours, &format!("L{heck}"), "{name}");
            digits += 1;
        } else {
            assert_eq!(ours.to_lowercase(), heck.to_lowercase(), "{name}");
            assert!(
                ours.chars().skip(1).any(char::is_uppercase),
                "{name}: {ours}"
            );
            capitals += 1;
        }
    }
    assert!(digits > 0 && capitals > 0, "{differ:?}");
    assert!(differ.len() * 20 < names.len(), "{differ:?}");
}

#[test]
fn heck_differs_on_names_that_are_not_identifiers() {
    // Outside the corpus, heck does not make an identifier where ours does: a prime,
    // a leading digit, a keyword, an empty name.
    for (name, ours, heck) in [
        ("x'", "XPrime", "X"),
        ("1", "L1", "1"),
        ("2pc", "L2pc", "2pc"),
        ("self", "Self_", "Self"),
        ("", "L", ""),
        ("HTTPRequest", "HTTPRequest", "HttpRequest"),
    ] {
        assert_eq!(rust_name(name, "L"), ours, "{name}");
        assert_eq!(name.to_upper_camel_case(), heck, "{name}");
    }
}
