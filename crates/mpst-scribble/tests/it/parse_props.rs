//! Property tests of the front end: `parse` never panics (on arbitrary text, on token
//! soup, on mutations of valid protocols), every diagnostic points inside the source,
//! and random well-formed protocols printed as Scribble lower to what they say.

use crate::parse_common;

use mpst_scribble::syntax::lexer::Keyword;
use mpst_scribble::{Diagnostic, parse};
use parse_common::show;
use proptest::prelude::*;

/// Every span lies inside the source on character boundaries, and rendering works.
fn assert_spans_valid(source: &str, diagnostics: &[Diagnostic]) {
    assert!(
        !diagnostics.is_empty(),
        "an error result carries diagnostics"
    );
    for diagnostic in diagnostics {
        let spans =
            std::iter::once(diagnostic.span).chain(diagnostic.labels.iter().map(|l| l.span));
        for span in spans {
            assert!(
                span.start <= span.end && span.end <= source.len(),
                "{span:?}"
            );
            assert!(source.is_char_boundary(span.start) && source.is_char_boundary(span.end));
        }
        assert!(!diagnostic.message.is_empty());
        let _ = diagnostic.located(source);
    }
}

fn check_no_panic(source: &str) {
    match parse(source) {
        Ok(protocols) => {
            for protocol in protocols {
                assert!(!protocol.roles.is_empty());
            }
        }
        Err(diagnostics) => assert_spans_valid(source, &diagnostics),
    }
}

const TOKENS: &[&str] = &[
    "global",
    "protocol",
    "aux",
    "explicit",
    "nested",
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
    "module",
    "type",
    "sig",
    "as",
    "import",
    "par",
    "and",
    "interruptible",
    "with",
    "connect",
    "A",
    "B",
    "C",
    "X",
    "m",
    "1",
    "x'",
    "int",
    "java.lang.String",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    ",",
    ";",
    ":",
    ".",
    "@",
    "\"ann\"",
    "\"",
    "=",
    "+",
    "(*",
    "*)",
    "(*#",
    "#*)",
    "/*",
    "*/",
    "//",
    "(*)",
    "\n",
    "é",
    "\u{0}",
];

const VALID: &[&str] = &[
    "global protocol P(role A, role B) { m(x: int) from A to B; choice at A { l() from A to B; } or { r() from A to B; do P(A, B); } }",
    "(*# RefinementTypes #*)\nglobal protocol Q(role A, role B, role C) @\"h\" { rec X { m(java.lang.String) from A to B, C; @\"a\" choice at B { continue X; } or { stop() from B to A; } } }",
    "global protocol R(role A, role B) { do S(B, A); done() from A to B; }\naux global protocol S(role X, role Y) { ping() from X to Y; }",
];

/// A random edit of `source` at byte positions derived from `positions`.
fn mutate(source: &str, edits: &[(u8, usize, usize, usize)]) -> String {
    let mut text: Vec<char> = source.chars().collect();
    for &(op, a, b, token) in edits {
        let len = text.len().max(1);
        let (i, j) = (a % len, b % len);
        let (lo, hi) = (i.min(j), i.max(j));
        match op % 4 {
            0 if !text.is_empty() => {
                text.drain(lo..hi.min(text.len()));
            }
            1 => {
                let insert: Vec<char> = TOKENS[token % TOKENS.len()].chars().collect();
                let at = lo.min(text.len());
                text.splice(at..at, insert);
            }
            2 if hi <= text.len() => {
                let copy: Vec<char> = text[lo..hi].to_vec();
                text.splice(hi..hi, copy);
            }
            _ => text.truncate(hi),
        }
    }
    text.into_iter().collect()
}

// ----- random well-formed protocols ----------------------------------------------------

const ROLES: &[&str] = &["A", "B", "C"];

#[derive(Debug, Clone)]
struct Msg {
    from: usize,
    to: Vec<usize>,
    label: String,
    payloads: Vec<(Option<String>, String)>,
}

#[derive(Debug, Clone)]
enum Tail {
    End,
    Choice(usize, Vec<Body>),
    Rec(Box<Body>),
    Continue(usize),
}

#[derive(Debug, Clone)]
struct Body {
    messages: Vec<Msg>,
    tail: Tail,
}

fn label() -> impl Strategy<Value = String> {
    "[a-z0-9_][a-z0-9_']{0,5}".prop_filter("not a keyword", |s| Keyword::from_text(s).is_none())
}

fn message() -> impl Strategy<Value = Msg> {
    let payload = (
        proptest::option::of(label()),
        prop::sample::select(vec!["int", "String", "java.lang.String", "i32"]),
    )
        .prop_map(|(n, t)| (n, t.to_string()));
    (
        0..ROLES.len(),
        prop::collection::vec(1..ROLES.len(), 1..3),
        label(),
        prop::collection::vec(payload, 0..3),
    )
        .prop_map(|(from, offsets, label, payloads)| Msg {
            from,
            // Any receiver but the sender: well-formed input.
            to: offsets
                .into_iter()
                .map(|o| (from + o) % ROLES.len())
                .collect(),
            label,
            payloads,
        })
}

fn body() -> impl Strategy<Value = Body> {
    let leaf = (
        prop::collection::vec(message(), 0..4),
        prop_oneof![Just(Tail::End), (0..4usize).prop_map(Tail::Continue)],
    )
        .prop_map(|(messages, tail)| Body { messages, tail });
    leaf.prop_recursive(4, 40, 3, |inner| {
        let tail = prop_oneof![
            (0..ROLES.len(), prop::collection::vec(inner.clone(), 1..4))
                .prop_map(|(at, bs)| Tail::Choice(at, bs)),
            inner.prop_map(|b| Tail::Rec(Box::new(b))),
        ];
        (prop::collection::vec(message(), 0..4), tail)
            .prop_map(|(messages, tail)| Body { messages, tail })
    })
}

/// Prints `body` as Scribble (`sep` between tokens) and as the expected [`show`] text.
fn print(body: &Body, recs: usize, sep: &str, src: &mut String, expected: &mut String) {
    for m in &body.messages {
        let payloads: Vec<String> = m
            .payloads
            .iter()
            .map(|(n, t)| n.as_ref().map_or(t.clone(), |n| format!("{n}: {t}")))
            .collect();
        // Lowering puts sorts in normal form: `int` is `i32`, `java.lang.String` `String`.
        let normal: Vec<String> = m
            .payloads
            .iter()
            .map(|(n, t)| {
                let t = match t.as_str() {
                    "int" => "i32",
                    "java.lang.String" => "String",
                    other => other,
                };
                n.as_ref().map_or(t.to_string(), |n| format!("{n}: {t}"))
            })
            .collect();
        let to: Vec<&str> = m.to.iter().map(|&r| ROLES[r]).collect();
        src.push_str(&format!(
            "{}({}){sep}from {}{sep}to {};{sep}",
            m.label,
            payloads.join(", "),
            ROLES[m.from],
            to.join(", ")
        ));
        for r in &to {
            expected.push_str(&format!(
                "{}->{r}:{}({}); ",
                ROLES[m.from],
                m.label,
                normal.join(", ")
            ));
        }
    }
    match &body.tail {
        Tail::End => expected.push_str("end"),
        Tail::Continue(i) if recs > 0 => {
            let var = format!("X{}", recs - 1 - i % recs);
            src.push_str(&format!("continue {var};{sep}"));
            expected.push_str(&format!("continue {var}"));
        }
        Tail::Continue(_) => expected.push_str("end"),
        Tail::Choice(at, branches) => {
            src.push_str(&format!("choice at {}{sep}", ROLES[*at]));
            expected.push_str(&format!("choice at {}", ROLES[*at]));
            for (i, branch) in branches.iter().enumerate() {
                src.push_str(if i == 0 { "{" } else { "or {" });
                expected.push_str(if i == 0 { " { " } else { " or { " });
                print(branch, recs, sep, src, expected);
                src.push_str(&format!("}}{sep}"));
                expected.push_str(" }");
            }
        }
        Tail::Rec(inner) => {
            src.push_str(&format!("rec X{recs}{sep}{{"));
            expected.push_str(&format!("rec X{recs} {{ "));
            print(inner, recs + 1, sep, src, expected);
            src.push_str(&format!("}}{sep}"));
            expected.push_str(" }");
        }
    }
}

fn protocol_text(body: &Body, sep: &str) -> (String, String) {
    let mut src = format!("global protocol G(role A, role B, role C){sep}{{{sep}");
    let mut expected = String::new();
    print(body, 0, sep, &mut src, &mut expected);
    src.push('}');
    (src, expected)
}

const SEPARATORS: &[&str] = &[
    " ",
    "\n",
    " /* c */ ",
    " (* a (* b *) *) ",
    " // line\n",
    "\t(*) ml line\n",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parse_never_panics_on_arbitrary_text(source in "\\PC{0,200}") {
        check_no_panic(&source);
    }

    #[test]
    fn parse_never_panics_on_token_soup(tokens in prop::collection::vec(0..TOKENS.len(), 0..80)) {
        let source: Vec<&str> = tokens.into_iter().map(|i| TOKENS[i]).collect();
        check_no_panic(&source.join(" "));
    }

    #[test]
    fn parse_never_panics_on_mutated_protocols(
        which in 0..VALID.len(),
        edits in prop::collection::vec((any::<u8>(), any::<usize>(), any::<usize>(), any::<usize>()), 1..4),
    ) {
        check_no_panic(&mutate(VALID[which], &edits));
    }

    #[test]
    fn random_protocols_lower_to_what_they_say(body in body(), sep in 0..SEPARATORS.len()) {
        let (source, expected) = protocol_text(&body, SEPARATORS[sep]);
        // Lowering alone: `parse` also unfolds `continue`-led branches afterwards.
        let (module, diagnostics) = mpst_scribble::syntax::parse_module(&source);
        prop_assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let protocols = mpst_scribble::syntax::lower(&module).map_err(|d| format!("{d:?}\n{source}"));
        let protocols = protocols.map_err(TestCaseError::fail)?;
        prop_assert_eq!(protocols.len(), 1);
        prop_assert_eq!(show(&protocols[0].body), expected);
    }

    #[test]
    fn mutations_of_random_protocols_never_panic(
        body in body(),
        edits in prop::collection::vec((any::<u8>(), any::<usize>(), any::<usize>(), any::<usize>()), 1..4),
    ) {
        let (source, _) = protocol_text(&body, " ");
        check_no_panic(&mutate(&source, &edits));
    }
}

#[test]
fn valid_bases_of_the_mutations_are_accepted() {
    for source in VALID {
        assert!(parse(source).is_ok(), "{source}");
    }
}
