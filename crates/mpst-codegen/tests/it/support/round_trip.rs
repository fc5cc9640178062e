//! The round trip `.scr` -> generate -> compile -> serialise -> FSM = projection, as one
//! program holding every generated API, built and run as a scratch crate (`scratch.rs`).

use std::fmt::Write as _;
use std::path::Path;

/// The helpers every check uses: `same_as_projection(dot)` tells whether the serialised
/// session type `S` behaves as the projection written in `dot`; as a control, the comparison
/// must also *reject* the projection with one label changed (or one send added).
const HELPERS: &str = r#"/// Whether the serialised session type `S` behaves as the projection written in `dot`.
fn same_as_projection<'r, S>(dot: &str) -> bool
where
    S: mpst::introspect::SessionType + mpst::FromState<'r>,
    <<S as mpst::FromState<'r>>::Role as mpst::Role>::Message: mpst::Labelled,
{
    let projected = match mpst::fsm::parse_dot(dot) {
        Ok(fsms) if fsms.len() == 1 => fsms.into_iter().next(),
        Ok(fsms) => {
            eprintln!("expected one projection, found {}", fsms.len());
            None
        }
        Err(e) => {
            eprintln!("unreadable projection: {e}");
            None
        }
    };
    let Some(projected) = projected else {
        return false;
    };
    let projected = match mpst::verify::normalise(&projected) {
        Ok(fsm) => fsm,
        Err(e) => {
            eprintln!("projection of {} has no Rust names: {e}", projected.role());
            return false;
        }
    };
    let serialised = match mpst::serialize::serialize::<S>() {
        Ok(fsm) => fsm,
        Err(e) => {
            eprintln!("{e}");
            return false;
        }
    };
    if mpst::verify::compare(&mutated(&projected), &serialised).is_ok() {
        eprintln!("a mutated projection of {} was not told apart", projected.role());
        return false;
    }
    match mpst::verify::compare(&projected, &serialised) {
        Ok(()) => true,
        Err(mismatch) => {
            eprintln!("{mismatch}\nprojection: {projected}serialised: {serialised}");
            false
        }
    }
}

/// `fsm` with the label of its first transition changed, or with a send added if it has
/// no transition.
fn mutated(fsm: &mpst::fsm::Fsm) -> mpst::fsm::Fsm {
    use mpst::fsm::{Action, Fsm, Message};
    let mut out = Fsm::new(fsm.role());
    for _ in 1..fsm.state_count() {
        out.add_state();
    }
    out.set_initial(fsm.initial()).expect("the same states");
    let mut first = true;
    for (from, t) in fsm.all_transitions() {
        let mut action = t.action.clone();
        if std::mem::take(&mut first) {
            action.message.label.push_str("Mutated");
        }
        out.add_transition(from, action, t.target).expect("a copy of a valid FSM");
    }
    if first {
        let to = out.add_state();
        let action = Action::send(format!("{}Peer", fsm.role()), Message::new("Mutated"));
        out.add_transition(fsm.initial(), action, to).expect("a fresh state");
    }
    out
}

"#;

/// A module `name` holding one generated API as `mod api` (after the `foreign`
/// declarations it needs), and `check()`: for each `(scribble role, projection as DOT)`,
/// it serialises the generated session type `api::{Role}Session<'static, api::{Role}>`
/// with `mpst::serialize` and compares it with the projection through
/// `mpst::verify::{normalise, compare}`, printing every problem.
pub fn module(name: &str, foreign: &str, api: &Path, roles: &[(String, String)]) -> String {
    let mut checks = String::new();
    for (role, dot) in roles {
        let ident = mpst::verify::rust_name(role, "R");
        let _ = writeln!(
            checks,
            "        same &= super::same_as_projection::<api::{}Session<'static, api::{ident}>>({dot:?});",
            ident.trim_end_matches('_')
        );
    }
    format!(
        "mod {name} {{\n    mod api {{\n{foreign}        include!({api:?});\n    }}\n\n    \
         pub fn check() -> bool {{\n        let _roles = <api::Roles as Default>::default();\n        \
         let mut same = true;\n{checks}        same\n    }}\n}}\n\n"
    )
}

/// One program of every `(name, module)` (from [`module`]): its `main` runs every check,
/// names the APIs that differ from their projections and exits with status 1 if there is
/// one, so the test fails. One program, so it is built and linked once.
pub fn program(modules: &[(String, String)]) -> String {
    let mut out = String::from("#![deny(warnings)]\n#![allow(dead_code)]\n\n");
    let mut main = String::from("fn main() {\n    let mut differ = Vec::new();\n");
    for (name, module) in modules {
        out.push_str(module);
        let _ = writeln!(
            main,
            "    if !{name}::check() {{\n        differ.push({name:?});\n    }}"
        );
    }
    main.push_str(
        "    if !differ.is_empty() {\n        \
         eprintln!(\"generated APIs unlike their projections: {differ:?}\");\n        \
         std::process::exit(1);\n    }\n}\n",
    );
    out.push_str(HELPERS);
    out.push_str(&main);
    out
}
