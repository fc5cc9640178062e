//! The generator proper: one FSM per role to the Rust source of the runtime API.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use mpst_fsm::{Direction, Fsm, Message, StateId, StateKind};

use crate::names::{camel, is_builtin, rust_sort};
use crate::CodegenError;

/// A label's Rust type and the Rust types of its payloads.
struct LabelType {
    ident: String,
    payloads: Vec<String>,
    written: String,
    /// Whether the label is carried with several payload lists (one type each).
    overloaded: bool,
    /// For such a type not named after the label, the label it reports:
    /// `#[message(label = "..")]` on its variant.
    renamed: Option<String>,
}

/// Everything the emitter needs about the protocol's names.
struct Names {
    roles: BTreeMap<String, String>,
    /// By (label, label with its payload sorts).
    labels: BTreeMap<(String, String), LabelType>,
    taken: BTreeMap<String, String>,
}

impl Names {
    fn claim(&mut self, ident: &str, what: String) -> Result<(), CodegenError> {
        if let Some(first) = self.taken.get(ident) {
            return Err(CodegenError::NameClash {
                ident: ident.to_string(),
                first: first.clone(),
                second: what,
            });
        }
        self.taken.insert(ident.to_string(), what);
        Ok(())
    }

    fn role<'a>(&'a self, role: &'a str) -> &'a str {
        // Every peer was registered from the FSMs' transitions before emission.
        self.roles.get(role).map(String::as_str).unwrap_or(role)
    }

    fn label<'a>(&'a self, message: &'a Message) -> &'a str {
        self.labels
            .get(&(message.label.clone(), payloads_written(message)))
            .map(|l| l.ident.as_str())
            .unwrap_or(&message.label)
    }
}

fn payloads_written(message: &Message) -> String {
    let sorts: Vec<&str> = message.payloads.iter().map(|p| p.ty.as_str()).collect();
    format!("{}({})", message.label, sorts.join(", "))
}

fn collect_names(protocol: &str, fsms: &[Fsm]) -> Result<Names, CodegenError> {
    let mut names = Names {
        roles: BTreeMap::new(),
        labels: BTreeMap::new(),
        taken: BTreeMap::new(),
    };
    for fixed in ["Label", "Channel", "Roles"] {
        names.claim(
            fixed,
            format!("the generated `{fixed}` type of protocol `{protocol}`"),
        )?;
    }
    let mut roles: BTreeSet<&str> = BTreeSet::new();
    for fsm in fsms {
        if !roles.insert(fsm.role()) {
            return Err(CodegenError::DuplicateRole(fsm.role().to_string()));
        }
    }
    for fsm in fsms {
        roles.extend(fsm.peers());
    }
    for role in roles {
        let ident = camel(role, "R");
        names.claim(&ident, format!("role `{role}`"))?;
        names.claim(
            &format!("{}Session", crate::names::stem(&ident)),
            format!("the session type of role `{role}`"),
        )?;
        names.roles.insert(role.to_string(), ident);
    }
    // Each label with each of its payload lists; a label carried with several lists is
    // overloaded: one type per list, `Correct` for none and `CorrectI32` for `(i32)`.
    let mut messages: BTreeMap<&str, BTreeMap<String, &Message>> = BTreeMap::new();
    for (_, t) in fsms.iter().flat_map(Fsm::all_transitions) {
        let message = &t.action.message;
        messages
            .entry(&message.label)
            .or_default()
            .entry(payloads_written(message))
            .or_insert(message);
    }
    let messages = messages.into_iter().flat_map(|(label, forms)| {
        let overloaded = forms.len() > 1;
        forms
            .into_values()
            .map(move |message| (label, message, overloaded))
    });
    for (label, message, overloaded) in messages {
        let base = camel(label, "L");
        let payloads = message
            .payloads
            .iter()
            .map(|p| {
                rust_sort(&p.ty).ok_or_else(|| CodegenError::BadSort {
                    label: label.to_string(),
                    sort: p.ty.clone(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let written = payloads_written(message);
        let ident = if overloaded {
            let sorts: String = payloads.iter().map(|p| camel(p, "T")).collect();
            format!("{base}{sorts}")
        } else {
            base.clone()
        };
        let what = if overloaded { &written } else { label };
        names.claim(&ident, format!("label `{what}`"))?;
        names.labels.insert(
            (label.to_string(), written.clone()),
            LabelType {
                payloads,
                written,
                overloaded,
                renamed: (ident != base).then_some(base),
                ident,
            },
        );
    }
    Ok(names)
}

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

/// Emits the session types of one role.
fn emit_role(
    out: &mut String,
    fsm: &Fsm,
    names: &mut Names,
    used: &mut BTreeSet<&'static str>,
) -> Result<(), CodegenError> {
    let fsm = fsm.canonical();
    let role = crate::names::stem(names.role(fsm.role())).to_string();
    let state_names = crate::state_names::state_names(
        &fsm,
        &role,
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
                format!("the session type of role `{}` {}", fsm.role(), named.doc),
            )?;
        }
        if choice {
            names.claim(
                &format!("{unique}Choice"),
                format!("the choice of role `{}` {}", fsm.role(), named.doc),
            )?;
        }
        claimed.push(unique);
        docs.push(named.doc);
    }
    let state_name = |s: StateId| claimed[s].clone();
    let next = |s: StateId, used: &mut BTreeSet<&'static str>| {
        if fsm.is_final(s) {
            used.insert("End");
            "End".to_string()
        } else {
            state_name(s)
        }
    };
    let heads = loop_heads(&fsm);
    for (s, state_doc) in docs.iter().enumerate() {
        let kind = fsm.kind(s);
        let name = state_name(s);
        let doc = format!("/// Role `{}` {state_doc}.\n", fsm.role());
        if kind == StateKind::Mixed {
            return Err(CodegenError::MixedState {
                role: fsm.role().to_string(),
                state: s,
            });
        }
        let ts = fsm.transitions(s);
        if ts.is_empty() {
            if s == 0 {
                used.insert("End");
                let _ = write!(out, "{doc}#[session]\npub type {name} = End;\n\n");
            }
            continue;
        }
        let peers: BTreeSet<&str> = ts.iter().map(|t| t.action.peer.as_str()).collect();
        let send = ts[0].action.direction == Direction::Send;
        // A choice among several receivers is a `Choose`; a branch waits on one sender.
        let several = peers.len() > 1;
        if several && !send {
            return Err(CodegenError::SeveralPeers {
                role: fsm.role().to_string(),
                state: s,
                peers: peers.into_iter().map(str::to_string).collect(),
            });
        }
        let peer = names.role(&ts[0].action.peer).to_string();
        if let [t] = ts {
            let primitive = if send { "Send" } else { "Receive" };
            used.insert(primitive);
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
            (false, _) => ("Branch", "offers"),
        };
        used.insert(primitive);
        let choice = format!("{name}Choice");
        if several {
            let _ = write!(
                out,
                "{doc}#[session]\npub type {name} = Choose<{choice}>;\n\n"
            );
        } else {
            let _ = write!(
                out,
                "{doc}#[session]\npub type {name} = {primitive}<{peer}, {choice}>;\n\n"
            );
        }
        let _ = writeln!(
            out,
            "/// The choice role `{}` {verb} {}: one variant per label.\n#[session]\npub enum {choice} {{",
            fsm.role(),
            state_doc
        );
        for t in ts {
            let label = names.label(&t.action.message).to_string();
            let to = if several {
                format!("#[to({})]\n    ", names.role(&t.action.peer))
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "    /// `{}`.\n    {to}{label}({label}, {}),",
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
/// names alone are in [`state_names`](crate::state_names)), and one `{state}Choice` enum per choice state. Recursion goes through `#[session]` structs at
/// the loop heads (use `into_session()` there) or through the choice enums. A state that
/// sends to several peers is a `Choose` whose variants each name their peer
/// (`#[to(Peer)]`); a state that receives from several peers is refused
/// ([`CodegenError::SeveralPeers`]).
///
/// The text is rustfmt-clean and the same input always gives the same output. It has no
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
    let serde = if options.serde {
        ", serde::Serialize, serde::Deserialize"
    } else {
        ""
    };
    if fsms.is_empty() {
        return Err(CodegenError::NoRoles);
    }
    let mut names = collect_names(protocol, fsms)?;
    let mut fsms: Vec<&Fsm> = fsms.iter().collect();
    fsms.sort_by(|a, b| a.role().cmp(b.role()));

    let mut used: BTreeSet<&'static str> =
        ["Message", "Payload", "Role", "Roles", "session"].into();
    let mut sessions = String::new();
    for fsm in &fsms {
        emit_role(&mut sessions, fsm, &mut names, &mut used)?;
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        "// The session API of protocol `{protocol}`, generated by mpst-codegen."
    );
    out.push_str("// Do not edit by hand: change the protocol and generate again.\n\n");
    // rustfmt's order: the lowercase macro first, then the types.
    used.remove("session");
    let imports: Vec<&str> = std::iter::once("session")
        .chain(used.iter().copied())
        .collect();
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
    let _ = writeln!(out, "/// Every role of protocol `{protocol}`; `Roles::default()` connects them all.\n#[derive(Roles)]\npub struct Roles {{");
    for (role, ident) in &names.roles {
        let _ = writeln!(
            out,
            "    /// Role `{role}`.\n    pub {}: {ident},",
            field(ident)
        );
    }
    out.push_str("}\n\n");
    for (role, ident) in &names.roles {
        let _ = writeln!(out, "/// Role `{role}` of protocol `{protocol}`: one route per peer.\n#[derive(Role)]\n#[message(Label)]\npub struct {ident} {{");
        for (peer, peer_ident) in names.roles.iter().filter(|(peer, _)| *peer != role) {
            let _ = writeln!(
                out,
                "    /// The channel to `{peer}`.\n    #[route({peer_ident})]\n    {}: Channel,",
                field(peer_ident)
            );
        }
        out.push_str("}\n\n");
    }
    let _ = writeln!(out, "/// The messages of protocol `{protocol}`, one variant per label.\n#[derive(Message{serde})]\npub enum Label {{");
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
