//! Data-driven tests of the generated code of every protocol in the repository:
//! snapshots, stability, rustfmt-cleanliness, compilation without warnings, and the round
//! trip `.scr` -> generate -> compile -> serialise -> FSM equal to the projection.

use crate::support;

use std::io::Write;
use std::process::{Command, Stdio};

/// Protocols whose API cannot be generated, and why (none today: a label carried with
/// different payloads, like `correct()` and `correct(i32)` in `plus_minus.scr`, gets one
/// type per payload list, see `overloaded_labels_get_one_type_per_payload_list`).
const REFUSED: &[(&str, &str)] = &[];

/// One protocol's generated API and what the tests need to check it.
#[derive(Debug, PartialEq)]
struct Generated {
    /// The test name: file path and protocol.
    name: String,
    /// The generated Rust source.
    code: String,
    /// The foreign payload types the code needs in scope.
    foreign: Vec<String>,
    /// Each role's Scribble name and its projection, as DOT.
    projections: Vec<(String, String)>,
}

/// The generated API of every protocol of the repository (see [`REFUSED`]).
fn generated() -> Vec<Generated> {
    let mut out = Vec::new();
    let mut refused = Vec::new();
    for path in support::protocols() {
        let source = std::fs::read_to_string(&path).unwrap();
        let protocols =
            mpst_scribble::parse(&source).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        for protocol in &protocols {
            let name = format!("{}__{}", support::name(&path), protocol.name.text);
            let file = path.display().to_string();
            let wanted = Some(protocol.name.text.as_str());
            match mpst_codegen::generate_scribble(&file, &source, wanted, &[], 10) {
                Ok(code) => {
                    let loaded = mpst_scribble::load(&file, &source, wanted).unwrap();
                    let fsms = mpst_codegen::role_fsms(&loaded, &[], 10).unwrap();
                    let foreign = mpst_codegen::foreign_sorts(&fsms).into_iter().collect();
                    let projections = fsms
                        .iter()
                        .map(|fsm| (fsm.role().to_string(), mpst_fsm::write_dot(fsm)))
                        .collect();
                    out.push(Generated {
                        name,
                        code,
                        foreign,
                        projections,
                    });
                }
                Err(mpst_codegen::GenerateError::Codegen(e)) => refused.push((name, e.to_string())),
                Err(e) => panic!("{name}: {e}"),
            }
        }
    }
    assert_eq!(refused.len(), REFUSED.len(), "refused: {refused:?}");
    for ((name, reason), (expected_name, expected_reason)) in refused.iter().zip(REFUSED) {
        assert_eq!(name, expected_name);
        assert!(reason.contains(expected_reason), "{name}: {reason}");
    }
    assert!(
        out.len() >= 10,
        "expected the examples' protocols, found {}",
        out.len()
    );
    out
}

#[test]
fn snapshots_of_every_protocol() {
    for Generated { name, code, .. } in generated() {
        insta::assert_snapshot!(name, code);
    }
}

#[test]
fn overloaded_labels_get_one_type_per_payload_list() {
    let plus_minus = generated()
        .into_iter()
        .find(|g| g.name.ends_with("plus_minus__PlusMinus"))
        .expect("plus_minus.scr is generated");
    let code = &plus_minus.code;
    assert!(
        code.contains("/// Label `correct()`.\n    Correct(Correct),")
            && code.contains("    #[message(label = \"Correct\")]\n    CorrectI32(CorrectI32),")
            && code.contains("pub struct CorrectI32(pub i32);")
            && code.contains("pub struct Correct;"),
        "{code}"
    );
}

#[test]
fn generation_is_stable() {
    let first = generated();
    let second = generated();
    assert_eq!(first, second);
}

#[test]
fn generated_code_is_rustfmt_clean() {
    for Generated { name, code, .. } in generated() {
        rustfmt_clean(&name, &code);
    }
}

/// Asserts that rustfmt leaves `code` as it is, in the style of an edition-2024 crate
/// (style edition 2024, what `cargo fmt` applies to a new crate), whatever rustfmt
/// configuration the repository or the developer has: the settings are read from
/// `generated.rustfmt.toml` beside this file only.
fn rustfmt_clean(name: &str, code: &str) {
    let config = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/it/generated.rustfmt.toml"
    );
    let mut child = Command::new("rustfmt")
        .args(["--config-path", config, "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("rustfmt must be installed (rustup component add rustfmt)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(code.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{name}: rustfmt failed");
    let formatted = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        formatted, code,
        "{name}: generated code is not rustfmt-clean"
    );
}

/// Names the generator must turn into Rust (snake case roles and labels, a keyword, a
/// digit), so the round trip also checks that `mpst::verify::rust_name` agrees with the
/// generator where the repository's protocols do not go.
const TRICKY: &str = "global protocol TrickyNames(role buyer_one, role seller) {
    get_price(int) from buyer_one to seller;
    choice at seller {
        ok_2(x: int) from seller to buyer_one;
    } or {
        self() from seller to buyer_one;
        accept_Offer() from buyer_one to seller;
    }
}";

/// The generated API of [`TRICKY`].
fn tricky_names() -> Generated {
    let loaded = mpst_scribble::load("tricky.scr", TRICKY, None).unwrap();
    let fsms = mpst_codegen::role_fsms(&loaded, &[], 10).unwrap();
    let code = mpst_codegen::generate("TrickyNames", &fsms).unwrap();
    for ident in [
        "BuyerOne",
        "GetPrice",
        "Ok2",
        "Self_",
        "AcceptOffer",
        "BuyerOneSession",
    ] {
        assert!(code.contains(ident), "{ident} in {code}");
    }
    Generated {
        name: "tricky_names".to_string(),
        code,
        foreign: Vec::new(),
        projections: fsms
            .iter()
            .map(|fsm| (fsm.role().to_string(), mpst_fsm::write_dot(fsm)))
            .collect(),
    }
}

/// Words the Scribble lexer reserves, which cannot be names in a protocol.
const SCRIBBLE_KEYWORDS: &[&str] = &[
    "module",
    "import",
    "type",
    "sig",
    "as",
    "protocol",
    "global",
    "nested",
    "explicit",
    "aux",
    "role",
    "from",
    "to",
    "choice",
    "at",
    "or",
    "rec",
    "continue",
    "do",
    "calls",
    "new",
    "connect",
    "disconnect",
    "and",
    "wrap",
];

/// `kw` with its first letter in upper case.
fn capital(kw: &str) -> String {
    let mut c = kw.chars();
    c.next()
        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

/// The generated API of a protocol from its source.
fn generated_from(name: &str, protocol: &str, source: &str) -> Generated {
    let loaded = mpst_scribble::frontend::parse_source(name, source)
        .and_then(|parsed| {
            let first = parsed.protocols().first().map(|p| p.name.text.clone());
            mpst_scribble::load(name, source, first.as_deref())
        })
        .unwrap_or_else(|e| panic!("{source}\n{e}"));
    let fsms = mpst_codegen::role_fsms(&loaded, &[], 10).unwrap();
    let code = mpst_codegen::generate(protocol, &fsms).unwrap();
    Generated {
        name: name.to_string(),
        code,
        foreign: Vec::new(),
        projections: fsms
            .iter()
            .map(|fsm| (fsm.role().to_string(), mpst_fsm::write_dot(fsm)))
            .collect(),
    }
}

/// Two protocols: one whose roles are every strict and reserved Rust keyword,
/// capitalised (`Match`, `Crate`, `Self`, ...: their field names are the keywords),
/// passing a message along a chain; one whose labels are every keyword as written
/// (`match`, `gen`, ...; capitalised where Scribble reserves the word, like `type`).
fn rust_keywords_as_names() -> [Generated; 2] {
    let mut roles: Vec<String> = mpst_fsm::ident::KEYWORDS
        .iter()
        .map(|kw| capital(kw))
        .collect();
    roles.sort();
    roles.dedup();
    let mut source = format!(
        "global protocol KeywordRoles({}) {{\n",
        roles
            .iter()
            .map(|r| format!("role {r}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for (i, pair) in roles.windows(2).enumerate() {
        source.push_str(&format!("  m{i}(int) from {} to {};\n", pair[0], pair[1]));
    }
    source.push('}');
    let by_roles = generated_from("rust_keywords_as_roles", "KeywordRoles", &source);

    let mut source = String::from("global protocol KeywordLabels(role A, role B) {\n");
    // `Self` and `self` would both be `Self_`: a name clash the generator reports.
    let words = mpst_fsm::ident::KEYWORDS.iter().filter(|kw| **kw != "Self");
    for (i, kw) in words.enumerate() {
        let label = if SCRIBBLE_KEYWORDS.contains(kw) {
            capital(kw)
        } else {
            kw.to_string()
        };
        let (from, to) = if i % 2 == 0 { ("A", "B") } else { ("B", "A") };
        source.push_str(&format!("  {label}(int) from {from} to {to};\n"));
    }
    source.push('}');
    let by_labels = generated_from("rust_keywords_as_labels", "KeywordLabels", &source);
    [by_roles, by_labels]
}

#[test]
fn rust_keywords_as_role_and_label_names_generate_rustfmt_clean_code() {
    let [roles, labels] = rust_keywords_as_names();
    for field in [
        "r_match", "r_crate", "r_type", "r_async", "r_gen", "r_self_",
    ] {
        assert!(roles.code.contains(field), "{field} in {}", roles.code);
    }
    assert!(!roles.code.contains(" match:"), "{}", roles.code);
    for ident in ["Match", "Gen", "Self_", "Type", "Async"] {
        assert!(labels.code.contains(ident), "{ident} in {}", labels.code);
    }
    for Generated { name, code, .. } in [roles, labels] {
        rustfmt_clean(&name, &code);
    }
}

/// Every generated API is compiled, with warnings denied, in one program that wires each
/// API's roles, then serialises each role's session type and compares it with the role's
/// projection (see `support::round_trip`); the program is built and run once (one build
/// and link instead of one per protocol, for CI's time) as a scratch crate that a warm
/// `cargo test` finds fresh (`support::scratch`), and a mismatch makes it exit with
/// status 1, naming the APIs that differ.
#[test]
fn generated_code_compiles_without_warnings_and_serialises_to_its_projections() {
    let dir = support::scratch::dir("generated_apis");
    let mut modules = Vec::new();
    for Generated {
        name,
        code,
        foreign,
        projections,
    } in generated()
        .into_iter()
        .chain([tricky_names()])
        .chain(rust_keywords_as_names())
    {
        // Foreign payload sorts stand for user types: a unit struct is enough here.
        let foreign: String = foreign
            .iter()
            .map(|ty| format!("        #[derive(Debug)]\n        pub struct {ty};\n"))
            .collect();
        let api = dir.join(format!("{name}_api.rs"));
        support::scratch::write_if_changed(&api, &code);
        // A module name: snake case (no lint), prefixed so that no keyword is one.
        let words: Vec<String> = name
            .split('_')
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let module = format!("p_{}", words.join("_"));
        let text = support::round_trip::module(&module, &foreign, &api, &projections);
        modules.push((module, text));
    }
    let names: std::collections::BTreeSet<&str> = modules.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.len(), modules.len(), "module names are distinct");
    let run = support::scratch::run("generated_apis", &support::round_trip::program(&modules));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "every generated API compiles without warnings and serialises to its projections:\n{stderr}"
    );
}
