//! Processes for every role of a generated API, written from the API itself: the
//! generated Rust is read back with `syn` (its session types, choice enums, label structs
//! and roles), and each role gets an `async fn` that follows its session type to `End`,
//! sending every label of the protocol, choosing a branch by a seeded choice shared by
//! the run, and logging each step in the order it happens (`R0!R1:Label` after a send,
//! `R1?R0:Label` after a receive), in one task for all roles or on a thread per role. A
//! role's states are the API's named types, so loops are a `loop` over an enum of them
//! and nothing is unfolded.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use syn::{GenericArgument, Item, PathArguments, Type};

/// A named session type of the API.
enum Named {
    /// `pub type N = T;`
    Alias(Type),
    /// `pub struct N(pub T);`: a loop head, entered with `into_session()`.
    Head(Type),
}

/// One variant of a choice enum: the peer it names (`#[to]`/`#[from]`, for `Choose` and
/// `Offer`), its name, its label type and its continuation.
struct Variant {
    peer: Option<String>,
    name: String,
    label: String,
    next: Type,
}

/// What the processes need of a generated API.
struct Api {
    named: BTreeMap<String, Named>,
    enums: BTreeMap<String, Vec<Variant>>,
    /// Each label struct and the expression that builds one.
    labels: BTreeMap<String, String>,
    /// Each role's identifier and its field in `Roles`.
    roles: Vec<(String, String)>,
}

/// The last segment of a path type and its generic type arguments (`mpst::Offer<E>` is
/// `("Offer", [E])`).
fn split(ty: &Type) -> (String, Vec<Type>) {
    let Type::Path(path) = ty else {
        panic!("not a path type: {ty:?}");
    };
    let last = path.path.segments.last().expect("a path has a segment");
    let args = match &last.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    (last.ident.to_string(), args)
}

fn ident_of(ty: &Type) -> String {
    split(ty).0
}

/// The peer named by `#[to(P)]` or `#[from(P)]`, if any.
fn peer_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs
        .iter()
        .find(|a| a.path().is_ident("to") || a.path().is_ident("from"))
        .map(|a| {
            a.parse_args::<syn::Ident>()
                .expect("#[to(Peer)]")
                .to_string()
        })
}

fn parse(code: &str) -> Api {
    let file = syn::parse_file(code).expect("the generated API parses");
    let mut api = Api {
        named: BTreeMap::new(),
        enums: BTreeMap::new(),
        labels: BTreeMap::new(),
        roles: Vec::new(),
    };
    let session = |attrs: &[syn::Attribute]| attrs.iter().any(|a| a.path().is_ident("session"));
    let payload = |attrs: &[syn::Attribute]| {
        attrs
            .iter()
            .any(|a| a.path().is_ident("derive") && quote_text(a).contains("Payload"))
    };
    for item in file.items {
        match item {
            Item::Type(t) if session(&t.attrs) => {
                api.named.insert(t.ident.to_string(), Named::Alias(*t.ty));
            }
            Item::Struct(s) if session(&s.attrs) => {
                let field = s.fields.iter().next().expect("a loop head wraps its body");
                api.named
                    .insert(s.ident.to_string(), Named::Head(field.ty.clone()));
            }
            Item::Struct(s) if payload(&s.attrs) => {
                let name = s.ident.to_string();
                let build = if s.fields.is_empty() {
                    name.clone()
                } else {
                    let values: Vec<&str> = s.fields.iter().map(|_| "7").collect();
                    format!("{name}({})", values.join(", "))
                };
                api.labels.insert(name, build);
            }
            Item::Struct(s) if s.ident == "Roles" => {
                for f in &s.fields {
                    let field = f.ident.as_ref().expect("named fields").to_string();
                    api.roles.push((ident_of(&f.ty), field));
                }
            }
            Item::Enum(e) if session(&e.attrs) => {
                let variants = e
                    .variants
                    .iter()
                    .map(|v| {
                        let mut fields = v.fields.iter();
                        let label = ident_of(&fields.next().expect("a label").ty);
                        let next = fields.next().expect("a continuation").ty.clone();
                        Variant {
                            peer: peer_attribute(&v.attrs),
                            name: v.ident.to_string(),
                            label,
                            next,
                        }
                    })
                    .collect();
                api.enums.insert(e.ident.to_string(), variants);
            }
            _ => {}
        }
    }
    api
}

/// An attribute's tokens as text.
fn quote_text(attr: &syn::Attribute) -> String {
    match &attr.meta {
        syn::Meta::List(list) => list.tokens.to_string(),
        _ => String::new(),
    }
}

/// The steps from a type to `End`, the fewest over the branches (for choosing the way
/// out of loops once a run is long): a fixpoint over the named types.
struct Distance<'a> {
    api: &'a Api,
    named: BTreeMap<String, u32>,
}

impl<'a> Distance<'a> {
    fn new(api: &'a Api) -> Self {
        let mut d = Distance {
            api,
            named: BTreeMap::new(),
        };
        loop {
            let mut changed = false;
            for (name, def) in &api.named {
                let ty = match def {
                    Named::Alias(t) | Named::Head(t) => t,
                };
                let new = d.of(ty);
                if new < d.named.get(name).copied().unwrap_or(u32::MAX) {
                    d.named.insert(name.clone(), new);
                    changed = true;
                }
            }
            if !changed {
                return d;
            }
        }
    }

    fn of(&self, ty: &Type) -> u32 {
        let (head, args) = split(ty);
        let step = |t: &Type| self.of(t).saturating_add(1);
        match head.as_str() {
            "End" => 0,
            "Send" | "Receive" => step(&args[2]),
            "Select" | "Branch" => self.choice(&ident_of(&args[1])),
            "Choose" | "Offer" => self.choice(&ident_of(&args[0])),
            name => self.named.get(name).copied().unwrap_or(u32::MAX),
        }
    }

    fn choice(&self, e: &str) -> u32 {
        self.api.enums[e]
            .iter()
            .map(|v| self.of(&v.next).saturating_add(1))
            .min()
            .unwrap_or(u32::MAX)
    }
}

/// Writes the code that runs the session value `var` of type `ty` for role `me` one
/// named state on: it evaluates to the next `St` value.
fn expand(api: &Api, d: &Distance, me: &str, ty: &Type, var: &str, out: &mut String) {
    let (head, args) = split(ty);
    let log = |dir: &str, peer: &str, label: &str| {
        format!("log.borrow_mut().push(\"{me}{dir}{peer}:{label}\".to_string());")
    };
    match head.as_str() {
        "End" => {
            let _ = write!(out, "St::Done({var})");
        }
        "Send" => {
            let (peer, label) = (ident_of(&args[0]), ident_of(&args[1]));
            let _ = write!(
                out,
                "{{ let s = {var}.send(api::{}).await?; {} ",
                api.labels[&label],
                log("!", &peer, &label)
            );
            expand(api, d, me, &args[2], "s", out);
            out.push_str(" }");
        }
        "Receive" => {
            let (peer, label) = (ident_of(&args[0]), ident_of(&args[1]));
            let _ = write!(
                out,
                "{{ let (_, s) = {var}.receive().await?; {} ",
                log("?", &peer, &label)
            );
            expand(api, d, me, &args[2], "s", out);
            out.push_str(" }");
        }
        "Select" | "Choose" => {
            let (peer, e) = if head == "Select" {
                (Some(ident_of(&args[0])), ident_of(&args[1]))
            } else {
                (None, ident_of(&args[0]))
            };
            let variants = &api.enums[&e];
            let distances: Vec<String> =
                variants.iter().map(|v| d.of(&v.next).to_string()).collect();
            let _ = write!(out, "match rng.pick(&[{}]) {{ ", distances.join(", "));
            let method = if head == "Select" { "select" } else { "choose" };
            for (i, v) in variants.iter().enumerate() {
                let to = peer.clone().or_else(|| v.peer.clone()).expect("a peer");
                let _ = write!(
                    out,
                    "{i} => {{ let s = {var}.{method}(api::{}).await?; {} ",
                    api.labels[&v.label],
                    log("!", &to, &v.label)
                );
                expand(api, d, me, &v.next, "s", out);
                out.push_str(" } ");
            }
            out.push_str("_ => unreachable!(\"a choice among the variants\") }");
        }
        "Branch" | "Offer" => {
            let (peer, e, method) = if head == "Branch" {
                (Some(ident_of(&args[0])), ident_of(&args[1]), "branch")
            } else {
                (None, ident_of(&args[0]), "offer")
            };
            let _ = write!(out, "match {var}.{method}().await? {{ ");
            for v in &api.enums[&e] {
                let from = peer.clone().or_else(|| v.peer.clone()).expect("a peer");
                let _ = write!(
                    out,
                    "api::{e}::{}(_, s) => {{ {} ",
                    v.name,
                    log("?", &from, &v.label)
                );
                expand(api, d, me, &v.next, "s", out);
                out.push_str(" } ");
            }
            out.push('}');
        }
        name => {
            let _ = write!(out, "St::{name}({var})");
        }
    }
}

/// The named types a role's session reaches from `start`.
fn reached(api: &Api, start: &str) -> BTreeSet<String> {
    fn walk(api: &Api, ty: &Type, seen: &mut BTreeSet<String>) {
        let (head, args) = split(ty);
        match head.as_str() {
            "End" => {}
            "Send" | "Receive" => walk(api, &args[2], seen),
            "Select" | "Branch" | "Choose" | "Offer" => {
                let e = ident_of(args.last().expect("an enum"));
                for v in &api.enums[&e] {
                    walk(api, &v.next, seen);
                }
            }
            name => {
                if seen.insert(name.to_string()) {
                    let (Named::Alias(t) | Named::Head(t)) = &api.named[name];
                    walk(api, t, seen);
                }
            }
        }
    }
    let mut seen = BTreeSet::from([start.to_string()]);
    let (Named::Alias(t) | Named::Head(t)) = &api.named[start];
    walk(api, t, &mut seen);
    seen
}

/// A module `name` holding the generated API in `api_path` as `mod api` and
/// `run(seed) -> Result<Vec<String>, String>`: one session of every role, the roles'
/// processes joined on one executor, returning the log of steps or the first error; and
/// `run_threads(seed)`: each role on a thread of its own with its own choices, returning
/// each role's log (in the order of `Roles`' fields) or the first error.
pub fn module(name: &str, code: &str, api_path: &std::path::Path) -> String {
    let api = parse(code);
    let d = Distance::new(&api);
    let mut out = format!(
        "mod {name} {{\n    use std::cell::RefCell;\n    use super::Choices;\n\n    \
         mod api {{\n        include!({api_path:?});\n    }}\n\n"
    );
    for (role, _) in &api.roles {
        let start = format!("{role}Session");
        let states = reached(&api, &start);
        let _ = writeln!(out, "    mod {} {{", role.to_lowercase());
        out.push_str("        use super::{api, Choices, RefCell};\n");
        out.push_str("        enum St<'r> {\n");
        for s in &states {
            let _ = writeln!(out, "            {s}(api::{s}<'r, api::{role}>),");
        }
        let _ = writeln!(
            out,
            "            Done(mpst::End<'r, api::{role}>),\n        }}"
        );
        let _ = writeln!(
            out,
            "        pub async fn body<'r>(s: api::{start}<'r, api::{role}>, log: &RefCell<Vec<String>>, rng: &Choices) \
             -> Result<((), mpst::End<'r, api::{role}>), mpst::Error> {{\n            \
             let mut st = St::{start}(s);\n            loop {{\n                st = match st {{"
        );
        for s in &states {
            let (var, ty) = match &api.named[s] {
                Named::Alias(t) => ("s", t),
                Named::Head(t) => ("s.into_session()", t),
            };
            let mut body = String::new();
            expand(&api, &d, role, ty, var, &mut body);
            let _ = writeln!(out, "                    St::{s}(s) => {body},");
        }
        out.push_str(
            "                    St::Done(end) => return Ok(((), end)),\n                };\n                \
             rng.step()?;\n            }\n        }\n    }\n\n",
        );
    }
    let fields: Vec<&str> = api.roles.iter().map(|(_, f)| f.as_str()).collect();
    let _ = writeln!(
        out,
        "    pub fn run(seed: u64) -> Result<Vec<String>, String> {{\n        \
         let mut roles = api::Roles::default();\n        \
         let api::Roles {{ {} }} = &mut roles;\n        \
         let log = RefCell::new(Vec::new());\n        let rng = Choices::new(seed);\n        \
         let (log, rng) = (&log, &rng);\n        \
         futures::executor::block_on(async {{\n            futures::try_join!(",
        fields.join(", ")
    );
    for (role, field) in &api.roles {
        let _ = writeln!(
            out,
            "                mpst::try_session({field}, |s| {}::body(s, log, rng)),",
            role.to_lowercase()
        );
    }
    out.push_str(
        "            )\n        })\n        .map_err(|e| e.to_string())?;\n        \
         Ok(log.take())\n    }\n\n",
    );
    // Each role on a thread of its own, with its own log and choices.
    let _ = writeln!(
        out,
        "    pub fn run_threads(seed: u64) -> Result<Vec<Vec<String>>, String> {{\n        \
         let mut roles = api::Roles::default();\n        \
         let api::Roles {{ {} }} = &mut roles;\n        \
         std::thread::scope(|scope| {{\n            let handles = [",
        fields.join(", ")
    );
    for (i, (role, field)) in api.roles.iter().enumerate() {
        let _ = writeln!(
            out,
            "                scope.spawn(move || {{\n                    \
             let (log, rng) = (RefCell::new(Vec::new()), Choices::new(seed.wrapping_mul(31).wrapping_add({i})));\n                    \
             futures::executor::block_on(mpst::try_session({field}, |s| {}::body(s, &log, &rng)))\n                        \
             .map(|()| log.take())\n                        .map_err(|e| e.to_string())\n                }}),",
            role.to_lowercase()
        );
    }
    out.push_str(
        "            ];\n            handles\n                .into_iter()\n                \
         .map(|h| h.join().map_err(|_| \"a role panicked\".to_string())?)\n                \
         .collect()\n        })\n    }\n}\n\n",
    );
    out
}

/// The program's shared part: the seeded choices (a SplitMix64 sequence; once a run is
/// long, the branch nearest `End`) and a bound on the steps of a run.
pub const CHOICES: &str = r#"/// The branches a run takes: seeded, and once the run has taken `LONG` steps, the
/// branch with the fewest steps to `End`, so loops end; a run of `MAX` steps fails.
pub struct Choices {
    state: std::cell::Cell<u64>,
    steps: std::cell::Cell<u32>,
}

const LONG: u32 = 60;
const MAX: u32 = 20_000;

impl Choices {
    pub fn new(seed: u64) -> Self {
        Choices { state: std::cell::Cell::new(seed), steps: std::cell::Cell::new(0) }
    }

    /// The index of the branch to take among branches `distances[i]` steps from `End`.
    pub fn pick(&self, distances: &[u32]) -> usize {
        if self.steps.get() >= LONG {
            let least = distances.iter().min().copied().unwrap_or(0);
            return distances.iter().position(|d| *d == least).unwrap_or(0);
        }
        let mut z = self.state.get().wrapping_add(0x9e37_79b9_7f4a_7c15);
        self.state.set(z);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % distances.len() as u64) as usize
    }

    /// Counts one named state passed; too long a run is an error.
    pub fn step(&self) -> Result<(), mpst::Error> {
        self.steps.set(self.steps.get() + 1);
        if self.steps.get() > MAX {
            return Err(mpst::Error::other("the run does not end"));
        }
        Ok(())
    }
}

"#;
