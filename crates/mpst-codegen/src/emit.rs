//! The generator proper: one FSM per role to the Rust source of the runtime API.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use mpst_fsm::{Direction, Fsm, StateId, StateKind};

use crate::CodegenError;
use crate::names::is_builtin;
use crate::symbols::{Names, collect_names};

/// The states of `fsm` entered again by a back edge of a depth-first walk from the initial
/// state: recursion must pass through a nominal type there.
fn loop_heads(fsm: &Fsm) -> BTreeSet<StateId> {
    fn walk(
        fsm: &Fsm,
        s: StateId,
        on_stack: &mut Vec<bool>,
        seen: &mut Vec<bool>,
        heads: &mut BTreeSet<StateId>,
    ) {
        seen[s] = true;
        on_stack[s] = true;
        for t in fsm.transitions(s) {
            if on_stack[t.target] {
                heads.insert(t.target);
            } else if !seen[t.target] {
                walk(fsm, t.target, on_stack, seen, heads);
            }
        }
        on_stack[s] = false;
    }
    let mut heads = BTreeSet::new();
    let n = fsm.state_count();
    walk(
        fsm,
        fsm.initial(),
        &mut vec![false; n],
        &mut vec![false; n],
        &mut heads,
    );
    heads
}

/// The runtime's session primitives the generated code names.
const PRIMITIVES: [&str; 7] = [
    "Send", "Receive", "Select", "Choose", "Branch", "Offer", "End",
];

/// Emits the session types of one role: its projection, or with `optimised` an optimised
/// machine whose types are named `{role}Optimised...`.
fn emit_role(
    out: &mut String,
    fsm: &Fsm,
    names: &mut Names,
    used: &mut BTreeSet<&'static str>,
    optimised: bool,
) -> Result<(), CodegenError> {
    let fsm = fsm.canonical();
    let mut role = crate::names::stem(names.role(fsm.role())).to_string();
    let start = if optimised {
        role.push_str("Optimised");
        role.clone()
    } else {
        format!("{role}Session")
    };
    // How the documentation names the machine.
    let who = if optimised {
        format!("`{}` (optimised)", fsm.role())
    } else {
        format!("`{}`", fsm.role())
    };
    let state_names = crate::state_names::state_names(
        &fsm,
        &role,
        &start,
        |m| names.label(m).to_string(),
        |p| crate::names::stem(names.role(p)).to_string(),
    );
    // Every named state but the initial one (claimed with the roles) claims its name and
    // its choice enum's, taking the least free number after it if another type has one.
    let mut claimed: Vec<String> = Vec::with_capacity(fsm.state_count());
    let mut docs: Vec<String> = Vec::with_capacity(fsm.state_count());
    for (s, named) in state_names.into_iter().enumerate() {
        let Some(named) = named else {
            claimed.push(String::new());
            docs.push(String::new());
            continue;
        };
        let choice = fsm.transitions(s).len() > 1;
        let mut unique = named.ident.clone();
        if s != fsm.initial() {
            let free = |n: &str| {
                !names.taken.contains_key(n)
                    && (!choice || !names.taken.contains_key(&format!("{n}Choice")))
            };
            let mut k = 2;
            while !free(&unique) {
                unique = format!("{}{k}", named.ident);
                k += 1;
            }
            names.claim(
                &unique,
                format!("the session type of role {who} {}", named.doc),
            )?;
        }
        if choice {
            names.claim(
                &format!("{unique}Choice"),
                format!("the choice of role {who} {}", named.doc),
            )?;
        }
        claimed.push(unique);
        docs.push(named.doc);
    }
    let state_name = |s: StateId| claimed[s].clone();
    // A primitive whose name a role or label of the protocol took (a label `offer`) is
    // written with its path instead of imported.
    let shadowed: BTreeSet<&'static str> = PRIMITIVES
        .into_iter()
        .filter(|p| names.taken.contains_key(*p))
        .collect();
    let primitive_name = |p: &'static str, used: &mut BTreeSet<&'static str>| {
        if shadowed.contains(p) {
            format!("mpst::{p}")
        } else {
            used.insert(p);
            p.to_string()
        }
    };
    let next = |s: StateId, used: &mut BTreeSet<&'static str>| {
        if fsm.is_final(s) {
            primitive_name("End", used)
        } else {
            state_name(s)
        }
    };
    let heads = loop_heads(&fsm);
    for (s, state_doc) in docs.iter().enumerate() {
        let kind = fsm.kind(s);
        let name = state_name(s);
        let doc = format!("/// Role {who} {state_doc}.\n");
        if kind == StateKind::Mixed {
            return Err(CodegenError::MixedState {
                role: fsm.role().to_string(),
                state: s,
            });
        }
        let ts = fsm.transitions(s);
        if ts.is_empty() {
            if s == 0 {
                let end = primitive_name("End", used);
                let _ = write!(out, "{doc}#[session]\npub type {name} = {end};\n\n");
            }
            continue;
        }
        let peers: BTreeSet<&str> = ts.iter().map(|t| t.action.peer.as_str()).collect();
        let send = ts[0].action.direction == Direction::Send;
        // A choice among several receivers is a `Choose`, a branch from several senders an
        // `Offer`; with one peer, a `Select` or a `Branch`.
        let several = peers.len() > 1;
        let peer = names.role(&ts[0].action.peer).to_string();
        if let [t] = ts {
            let primitive = primitive_name(if send { "Send" } else { "Receive" }, used);
            let body = format!(
                "{primitive}<{peer}, {}, {}>",
                names.label(&t.action.message),
                next(t.target, used)
            );
            if heads.contains(&s) {
                let _ = write!(out, "{doc}#[session]\npub struct {name}(pub {body});\n\n");
            } else {
                let _ = write!(out, "{doc}#[session]\npub type {name} = {body};\n\n");
            }
            continue;
        }
        let (primitive, verb) = match (send, several) {
            (true, true) => ("Choose", "chooses among several peers"),
            (true, false) => ("Select", "chooses"),
            (false, true) => ("Offer", "offers from several peers"),
            (false, false) => ("Branch", "offers"),
        };
        let primitive = primitive_name(primitive, used);
        let choice = format!("{name}Choice");
        if several {
            let _ = write!(
                out,
                "{doc}#[session]\npub type {name} = {primitive}<{choice}>;\n\n"
            );
        } else {
            let _ = write!(
                out,
                "{doc}#[session]\npub type {name} = {primitive}<{peer}, {choice}>;\n\n"
            );
        }
        let _ = writeln!(
            out,
            "/// The choice role {who} {verb} {}: one variant per label.\n#[session]\npub enum {choice} {{",
            state_doc
        );
        for t in ts {
            let label = names.label(&t.action.message).to_string();
            let attribute = if send { "to" } else { "from" };
            let (to, variant) = if several {
                let role = names.role(&t.action.peer);
                // A label that two peers of this state carry names its variant after the
                // peer too, as the state names do (`QuitB`, `QuitC`).
                let shared = ts
                    .iter()
                    .filter(|u| names.label(&u.action.message) == label)
                    .count()
                    > 1;
                let variant = if shared {
                    format!("{label}{}", crate::names::stem(role))
                } else {
                    label.clone()
                };
                (format!("#[{attribute}({role})]\n    "), variant)
            } else {
                (String::new(), label.clone())
            };
            let _ = writeln!(
                out,
                "    /// `{}`.\n    {to}{variant}({label}, {}),",
                t.action,
                next(t.target, used)
            );
        }
        out.push_str("}\n\n");
    }
    Ok(())
}

/// Generates the Rust API of a protocol from one FSM per role.
///
/// The output defines, with `mpst` as its only dependency: `Channel`, one role struct per
/// role (routes to every peer) and `Roles` (wiring them all), the `Label` enum with one
/// type per label, and for each role `R` the session type `RSession` of its initial state,
/// one named type per other state, named after the messages that lead to it (`RAccept`,
/// `RAcceptAfterDate`: the rule and why an edit in one branch leaves the other branches'
/// names alone are in [`state_names`](crate::state_names)), and one `{state}Choice` enum
/// per choice state. Recursion goes through `#[session]` structs at the loop heads (use
/// `into_session()` there) or through the choice enums. A state that
/// sends to several peers is a `Choose` whose variants each name their peer
/// (`#[to(Peer)]`); a state that receives from several peers is an `Offer` whose
/// variants each name their sender (`#[from(Peer)]`): the role takes the label of
/// whichever peer speaks first.
///
/// The text is rustfmt-clean (style edition 2024, `cargo fmt`'s default in an edition-2024
/// crate) and the same input always gives the same output. It has no
/// inner attributes, so it can be `include!`d inside a module.
pub fn generate(protocol: &str, fsms: &[Fsm]) -> Result<String, CodegenError> {
    generate_with(protocol, fsms, &Options::default())
}

/// Choices of [`generate_with`] beyond the FSMs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Derive `serde::Serialize` and `serde::Deserialize` on the `Label` enum and every
    /// label struct, so the labels can travel over `mpst::net` (the generated code then
    /// needs `serde` with its `derive` feature, and foreign payload types must be serde
    /// types too).
    pub serde: bool,
    /// The route type between two roles, a Rust type that may mention `Label` (default:
    /// `mpst::channel::Unbounded<Label>`). It must implement `mpst::channel::Pair` with
    /// itself for `Roles::default()`; `mpst::net::AnyRoute<Label>` runs the same roles in
    /// memory or over TCP.
    pub channel: Option<String>,
}

impl Options {
    /// Sets [`Options::serde`].
    pub fn serde(mut self, serde: bool) -> Self {
        self.serde = serde;
        self
    }

    /// Sets [`Options::channel`].
    pub fn channel(mut self, channel: impl Into<String>) -> Self {
        self.channel = Some(channel.into());
        self
    }
}

/// [`generate`] with [`Options`].
pub fn generate_with(
    protocol: &str,
    fsms: &[Fsm],
    options: &Options,
) -> Result<String, CodegenError> {
    generate_optimised(protocol, fsms, &[], options)
}

/// [`generate_with`], and beside the session types of the `fsms` (one per role, the
/// projections) the session types of `optimised` machines of some of those roles, each
/// under its own name: `{role}Optimised` for the initial state, `{role}Optimised...` for
/// the others (`KOptimised`, `KOptimisedAfterReady`). One module thus holds every role's
/// projection and each optimised role, with the roles and labels generated once: a process
/// written against a projection compiles unchanged beside a process of an optimised role,
/// since both use the same role structs, labels and `Roles`.
///
/// Everything generated for the `fsms` alone is generated here too, with the same names
/// (the optimised types come after them); a label that only an optimised machine carries
/// adds a variant to `Label`. Whether an optimised machine is safe in place of its
/// projection is not checked here: [`generate_scribble`](crate::generate_scribble) and the
/// [build helper](crate::build::Build::optimised) generate it only once asynchronous
/// subtyping proves it.
///
/// # Errors
/// As [`generate_with`]; an optimised machine for a role that no FSM of `fsms` has
/// ([`CodegenError::OptimisedUnknownRole`]), or two for one role
/// ([`CodegenError::DuplicateRole`]).
pub fn generate_optimised(
    protocol: &str,
    fsms: &[Fsm],
    optimised: &[Fsm],
    options: &Options,
) -> Result<String, CodegenError> {
    let serde = if options.serde {
        ", serde::Serialize, serde::Deserialize"
    } else {
        ""
    };
    if fsms.is_empty() {
        return Err(CodegenError::NoRoles);
    }
    let mut names = collect_names(protocol, fsms, optimised)?;
    let mut fsms: Vec<&Fsm> = fsms.iter().collect();
    fsms.sort_by(|a, b| a.role().cmp(b.role()));
    let mut optimised: Vec<&Fsm> = optimised.iter().collect();
    optimised.sort_by(|a, b| a.role().cmp(b.role()));

    let mut used: BTreeSet<&'static str> =
        ["Message", "Payload", "Role", "Roles", "session"].into();
    let mut sessions = String::new();
    for fsm in &fsms {
        emit_role(&mut sessions, fsm, &mut names, &mut used, false)?;
    }
    // After every projection, so that the projections' names are those of a module
    // without optimised roles.
    for fsm in &optimised {
        emit_role(&mut sessions, fsm, &mut names, &mut used, true)?;
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        "// The session API of protocol `{protocol}`, generated by mpst-codegen."
    );
    out.push_str("// Do not edit by hand: change the protocol and generate again.\n\n");
    // The set's order is rustfmt's (style edition 2024, which sorts names as versions):
    // the types, then the lowercase `session` macro.
    let imports: Vec<&str> = used.iter().copied().collect();
    let _ = writeln!(out, "use mpst::{{{}}};\n", imports.join(", "));
    match &options.channel {
        None => {
            let _ = writeln!(
                out,
                "/// The channel between two roles: in-memory, unbounded, carrying [`Label`]s.\npub type Channel = mpst::channel::Unbounded<Label>;\n"
            );
        }
        Some(channel) => {
            let _ = writeln!(
                out,
                "/// The channel between two roles, carrying [`Label`]s.\npub type Channel = {channel};\n"
            );
        }
    }
    let _ = writeln!(
        out,
        "/// Every role of protocol `{protocol}`; `Roles::default()` connects them all.\n#[derive(Roles)]\npub struct Roles {{"
    );
    for (role, ident) in &names.roles {
        let _ = writeln!(
            out,
            "    /// Role `{role}`.\n    pub {}: {ident},",
            field(ident)
        );
    }
    out.push_str("}\n\n");
    for (role, ident) in &names.roles {
        let _ = writeln!(
            out,
            "/// Role `{role}` of protocol `{protocol}`: one route per peer.\n#[derive(Role)]\n#[message(Label)]\npub struct {ident} {{"
        );
        for (peer, peer_ident) in names.roles.iter().filter(|(peer, _)| *peer != role) {
            let _ = writeln!(
                out,
                "    /// The channel to `{peer}`.\n    #[route({peer_ident})]\n    {}: Channel,",
                field(peer_ident)
            );
        }
        out.push_str("}\n\n");
    }
    let _ = writeln!(
        out,
        "/// The messages of protocol `{protocol}`, one variant per label.\n#[derive(Message{serde})]\npub enum Label {{"
    );
    for ((label, _), ty) in &names.labels {
        let label = if ty.overloaded { &ty.written } else { label };
        let attribute = match &ty.renamed {
            Some(name) => format!("    #[message(label = {name:?})]\n"),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "    /// Label `{label}`.\n{attribute}    {}({}),",
            ty.ident, ty.ident
        );
    }
    out.push_str("}\n\n");
    for ty in names.labels.values() {
        let _ = writeln!(out, "/// The message `{}`.", ty.written);
        if ty.payloads.iter().all(|p| is_builtin(p)) {
            let _ = writeln!(out, "#[derive(Debug, Clone, PartialEq, Payload{serde})]");
        } else {
            let _ = writeln!(out, "#[derive(Payload{serde})]");
        }
        if ty.payloads.is_empty() {
            let _ = writeln!(out, "pub struct {};\n", ty.ident);
        } else {
            let fields: Vec<String> = ty.payloads.iter().map(|p| format!("pub {p}")).collect();
            let _ = writeln!(out, "pub struct {}({});\n", ty.ident, fields.join(", "));
        }
    }
    out.push_str(&sessions);
    while out.ends_with("\n\n") {
        out.pop();
    }
    Ok(out)
}

/// The field name of a role inside `Roles` and of a route: the identifier in snake case.
fn field(ident: &str) -> String {
    let mut out = String::new();
    for (i, c) in ident.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    if mpst_fsm::ident::is_keyword(&out) || out == "self_" {
        out.insert_str(0, "r_");
    }
    out
}
