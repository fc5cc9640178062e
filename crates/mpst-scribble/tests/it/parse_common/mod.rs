//! Helpers shared by the parser tests: a compact rendering of global types and of
//! diagnostics, so expectations read like the protocols they describe.

#![allow(dead_code)]

use mpst_scribble::{Global, GlobalProtocol, parse};

/// `A->B:l(x: int); ...; end`, `choice at A {...} or {...}`, `rec X {...}`, `continue X`.
pub fn show(global: &Global) -> String {
    let mut out = String::new();
    write(global, &mut out);
    out
}

fn write(global: &Global, out: &mut String) {
    let mut current = global;
    loop {
        match current {
            Global::End => {
                out.push_str("end");
                return;
            }
            Global::Message {
                from,
                to,
                message,
                cont,
                ..
            } => {
                out.push_str(&format!("{}->{}:{message}; ", from.text, to.text));
                current = cont;
            }
            Global::Choice { at, branches, .. } => {
                out.push_str(&format!("choice at {}", at.text));
                for (i, branch) in branches.iter().enumerate() {
                    out.push_str(if i == 0 { " { " } else { " or { " });
                    write(branch, out);
                    out.push_str(" }");
                }
                return;
            }
            Global::Rec { var, body } => {
                out.push_str(&format!("rec {} {{ ", var.text));
                write(body, out);
                out.push_str(" }");
                return;
            }
            Global::Continue(var) => {
                out.push_str(&format!("continue {}", var.text));
                return;
            }
        }
    }
}

/// Parses `source`, failing the test with the located diagnostics if it is rejected.
pub fn parse_ok(source: &str) -> Vec<GlobalProtocol> {
    match parse(source) {
        Ok(protocols) => protocols,
        Err(diagnostics) => panic!("rejected:\n{}", located(source, &diagnostics)),
    }
}

/// The single protocol named `name` of `source`, rendered with [`show`].
pub fn shown(source: &str, name: &str) -> String {
    let protocols = parse_ok(source);
    let protocol = protocols
        .iter()
        .find(|p| p.name.text == name)
        .unwrap_or_else(|| panic!("no protocol {name}"));
    show(&protocol.body)
}

/// The diagnostics of `source`, one `line:column: kind: message` per line.
pub fn located(source: &str, diagnostics: &[mpst_scribble::Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|d| d.located(source))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The diagnostics `parse` reports for `source`, one per line; empty if it is accepted.
pub fn errors(source: &str) -> String {
    match parse(source) {
        Ok(_) => String::new(),
        Err(diagnostics) => located(source, &diagnostics),
    }
}

/// Asserts that the projection of `protocol` onto each role of `expected` prints as the
/// local type beside it.
pub fn assert_projections(protocol: &GlobalProtocol, expected: &[(&str, &str)]) {
    for (role, local) in expected {
        let projected = mpst_scribble::project(protocol, role)
            .unwrap_or_else(|e| panic!("role {role} does not project: {e:?}"));
        assert_eq!(projected.to_string(), *local, "the projection onto {role}");
    }
}
