//! The names of a generated module: roles, labels (one type per payload list of an
//! overloaded label) and every claimed Rust identifier, so that two things never get one.

use std::collections::{BTreeMap, BTreeSet};

use mpst_fsm::{Fsm, Message};

use crate::CodegenError;
use crate::names::{camel, rust_sort};

/// A label's Rust type and the Rust types of its payloads.
pub(crate) struct LabelType {
    pub(crate) ident: String,
    pub(crate) payloads: Vec<String>,
    pub(crate) written: String,
    /// Whether the label is carried with several payload lists (one type each).
    pub(crate) overloaded: bool,
    /// For such a type not named after the label, the label it reports:
    /// `#[message(label = "..")]` on its variant.
    pub(crate) renamed: Option<String>,
}

/// Everything the emitter needs about the protocol's names.
pub(crate) struct Names {
    pub(crate) roles: BTreeMap<String, String>,
    /// By (label, label with its payload sorts).
    pub(crate) labels: BTreeMap<(String, String), LabelType>,
    pub(crate) taken: BTreeMap<String, String>,
}

impl Names {
    pub(crate) fn claim(&mut self, ident: &str, what: String) -> Result<(), CodegenError> {
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

    pub(crate) fn role<'a>(&'a self, role: &'a str) -> &'a str {
        // Every peer was registered from the FSMs' transitions before emission.
        self.roles.get(role).map(String::as_str).unwrap_or(role)
    }

    pub(crate) fn label<'a>(&'a self, message: &'a Message) -> &'a str {
        self.labels
            .get(&(message.label.clone(), payloads_written(message)))
            .map(|l| l.ident.as_str())
            .unwrap_or(&message.label)
    }
}

pub(crate) fn payloads_written(message: &Message) -> String {
    let sorts: Vec<&str> = message.payloads.iter().map(|p| p.ty.as_str()).collect();
    format!("{}({})", message.label, sorts.join(", "))
}

/// The names of the roles and labels of the `projections`, and of the labels that only
/// the `optimised` machines carry; each role's `{role}Session` and each optimised role's
/// `{role}Optimised` claimed.
pub(crate) fn collect_names(
    protocol: &str,
    fsms: &[Fsm],
    optimised: &[Fsm],
) -> Result<Names, CodegenError> {
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
    let mut better: BTreeSet<&str> = BTreeSet::new();
    for fsm in optimised {
        if !roles.contains(fsm.role()) {
            return Err(CodegenError::OptimisedUnknownRole {
                role: fsm.role().to_string(),
                available: roles.iter().map(|r| r.to_string()).collect(),
            });
        }
        if !better.insert(fsm.role()) {
            return Err(CodegenError::DuplicateRole(fsm.role().to_string()));
        }
    }
    for fsm in fsms.iter().chain(optimised) {
        roles.extend(fsm.peers());
    }
    for role in roles {
        let ident = camel(role, "R");
        names.claim(&ident, format!("role `{role}`"))?;
        let stem = crate::names::stem(&ident);
        names.claim(
            &format!("{stem}Session"),
            format!("the session type of role `{role}`"),
        )?;
        if better.contains(role) {
            names.claim(
                &format!("{stem}Optimised"),
                format!("the optimised session type of role `{role}`"),
            )?;
        }
        names.roles.insert(role.to_string(), ident);
    }
    // Each label with each of its payload lists; a label carried with several lists is
    // overloaded: one type per list, `Correct` for none and `CorrectI32` for `(i32)`.
    let mut messages: BTreeMap<&str, BTreeMap<String, &Message>> = BTreeMap::new();
    for (_, t) in fsms.iter().chain(optimised).flat_map(Fsm::all_transitions) {
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
