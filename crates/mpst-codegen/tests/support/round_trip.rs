//! The round trip `.scr` -> generate -> compile -> serialise -> FSM = projection, as the
//! `main` of a program that trybuild builds and runs.

use std::fmt::Write as _;

/// The `main` (and its helpers) of a program that includes a generated API as `mod api`:
/// for each `(scribble role, projection as DOT)`, it serialises the generated session type
/// `api::{Role}Session<'static, api::{Role}>` with `mpst::serialize` and compares it with
/// the projection through `mpst::verify::{normalise, compare}`. As a control, the
/// comparison must also *reject* the projection with one label changed (or one send
/// added). It prints every problem and exits with status 1 if there is one, so trybuild's
/// `pass` fails.
pub fn program_main(roles: &[(String, String)]) -> String {
    let mut checks = String::new();
    for (role, dot) in roles {
        let ident = mpst::verify::rust_name(role, "R");
        let _ = writeln!(
            checks,
            "    same &= same_as_projection::<api::{}Session<'static, api::{ident}>>({dot:?});",
            ident.trim_end_matches('_')
        );
    }
    format!(
        r#"/// Whether the serialised session type `S` behaves as the projection written in `dot`.
fn same_as_projection<'r, S>(dot: &str) -> bool
where
    S: mpst::introspect::SessionType + mpst::FromState<'r>,
    <<S as mpst::FromState<'r>>::Role as mpst::Role>::Message: mpst::Labelled,
{{
    let projected = match mpst::fsm::parse_dot(dot) {{
        Ok(fsms) if fsms.len() == 1 => fsms.into_iter().next(),
        Ok(fsms) => {{
            eprintln!("expected one projection, found {{}}", fsms.len());
            None
        }}
        Err(e) => {{
            eprintln!("unreadable projection: {{e}}");
            None
        }}
    }};
    let Some(projected) = projected else {{
        return false;
    }};
    let projected = match mpst::verify::normalise(&projected) {{
        Ok(fsm) => fsm,
        Err(e) => {{
            eprintln!("projection of {{}} has no Rust names: {{e}}", projected.role());
            return false;
        }}
    }};
    let serialised = match mpst::serialize::serialize::<S>() {{
        Ok(fsm) => fsm,
        Err(e) => {{
            eprintln!("{{e}}");
            return false;
        }}
    }};
    if mpst::verify::compare(&mutated(&projected), &serialised).is_ok() {{
        eprintln!("a mutated projection of {{}} was not told apart", projected.role());
        return false;
    }}
    match mpst::verify::compare(&projected, &serialised) {{
        Ok(()) => true,
        Err(mismatch) => {{
            eprintln!("{{mismatch}}\nprojection: {{projected}}serialised: {{serialised}}");
            false
        }}
    }}
}}

/// `fsm` with the label of its first transition changed, or with a send added if it has
/// no transition.
fn mutated(fsm: &mpst::fsm::Fsm) -> mpst::fsm::Fsm {{
    use mpst::fsm::{{Action, Fsm, Message}};
    let mut out = Fsm::new(fsm.role());
    for _ in 1..fsm.state_count() {{
        out.add_state();
    }}
    out.set_initial(fsm.initial()).expect("the same states");
    let mut first = true;
    for (from, t) in fsm.all_transitions() {{
        let mut action = t.action.clone();
        if std::mem::take(&mut first) {{
            action.message.label.push_str("Mutated");
        }}
        out.add_transition(from, action, t.target).expect("a copy of a valid FSM");
    }}
    if first {{
        let to = out.add_state();
        let action = Action::send(format!("{{}}Peer", fsm.role()), Message::new("Mutated"));
        out.add_transition(fsm.initial(), action, to).expect("a fresh state");
    }}
    out
}}

fn main() {{
    let _roles = <api::Roles as Default>::default();
    let mut same = true;
{checks}    if !same {{
        std::process::exit(1);
    }}
}}
"#
    )
}
