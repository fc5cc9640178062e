//! From a Scribble source to generated Rust: parse, check, project, swap in optimised
//! FSMs after checking them by asynchronous subtyping, generate.

use std::fmt;

use mpst_fsm::subtype::{check, Options, Refutation, Unknown, Verdict};
use mpst_fsm::Fsm;
use mpst_scribble::{Diagnostic, GlobalProtocol};

use crate::{generate, CodegenError};

/// The default bound on visits per state pair used to check optimised FSMs: the same
/// as `mpst subtype`'s.
pub use mpst_fsm::subtype::DEFAULT_VISITS;

/// Why a protocol could not be turned into Rust.
#[derive(Debug)]
pub enum GenerateError {
    /// The source does not parse, or a protocol in it is ill-formed or cannot be
    /// projected; render the diagnostics against the source.
    Protocol(Vec<Diagnostic>),
    /// The source has no protocol of that name (or several and none was named).
    NoSuchProtocol {
        /// The name asked for, if any.
        wanted: Option<String>,
        /// The protocols the source defines.
        available: Vec<String>,
    },
    /// An optimised FSM is for a role the protocol does not have.
    UnknownRole {
        /// The role of the optimised FSM.
        role: String,
        /// The roles of the protocol.
        available: Vec<String>,
    },
    /// An optimised FSM is not an asynchronous subtype of the projection: beside the
    /// projection's dual it has a run that goes wrong.
    NotSubtype {
        /// The role.
        role: String,
        /// The run, and where the rules stopped.
        refutation: Box<Refutation>,
    },
    /// An optimised FSM is neither shown to be an asynchronous subtype of the
    /// projection nor refuted (a bound or budget was reached, or the rules cannot
    /// decide): it is not swapped in.
    Unknown {
        /// The role.
        role: String,
        /// Why, and where the rules stopped.
        unknown: Box<Unknown>,
    },
    /// The FSMs have no Rust API.
    Codegen(CodegenError),
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenerateError::Protocol(diagnostics) => {
                let lines: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
                f.write_str(&lines.join("\n"))
            }
            GenerateError::NoSuchProtocol {
                wanted: Some(name),
                available,
            } => {
                write!(
                    f,
                    "no protocol `{name}`; the file defines: {}",
                    available.join(", ")
                )
            }
            GenerateError::NoSuchProtocol {
                wanted: None,
                available,
            } => write!(
                f,
                "the file defines {} protocols ({}); choose one with --protocol",
                available.len(),
                available.join(", ")
            ),
            GenerateError::UnknownRole { role, available } => write!(
                f,
                "the optimised FSM is for role `{role}`, but the protocol's roles are: {}",
                available.join(", ")
            ),
            GenerateError::NotSubtype { role, refutation } => write!(
                f,
                "the optimised FSM of role `{role}` is not an asynchronous subtype of its \
                 projection:\n{refutation}"
            ),
            GenerateError::Unknown { role, unknown } => write!(
                f,
                "the optimised FSM of role `{role}` is not shown to be an asynchronous subtype \
                 of its projection, nor refuted:\n{unknown}"
            ),
            GenerateError::Codegen(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for GenerateError {}

/// Picks the protocol named `wanted`, or the only one.
pub fn select_protocol<'a>(
    protocols: &'a [GlobalProtocol],
    wanted: Option<&str>,
) -> Result<&'a GlobalProtocol, GenerateError> {
    let found = match wanted {
        Some(name) => protocols.iter().find(|p| p.name.text == name),
        None if protocols.len() == 1 => protocols.first(),
        None => None,
    };
    found.ok_or_else(|| GenerateError::NoSuchProtocol {
        wanted: wanted.map(str::to_string),
        available: protocols.iter().map(|p| p.name.text.clone()).collect(),
    })
}

/// The FSM of every role of `protocol`, with each role that has an FSM in `optimised`
/// replaced by it once it is shown to be an asynchronous subtype of the projection
/// ([`mpst_fsm::subtype::check`], bounded by `visits` and the default budgets: an
/// optimised FSM is refused both when it is refuted and when the answer is unknown).
pub fn role_fsms(
    protocol: &GlobalProtocol,
    optimised: &[Fsm],
    visits: usize,
) -> Result<Vec<Fsm>, GenerateError> {
    let mut diagnostics = mpst_scribble::wf::check(protocol);
    if !diagnostics.is_empty() {
        diagnostics.dedup();
        return Err(GenerateError::Protocol(diagnostics));
    }
    let projections =
        mpst_scribble::project::project_all(protocol).map_err(GenerateError::Protocol)?;
    let mut fsms: Vec<Fsm> = projections.into_iter().map(|p| p.fsm).collect();
    for better in optimised {
        let Some(slot) = fsms.iter_mut().find(|f| f.role() == better.role()) else {
            return Err(GenerateError::UnknownRole {
                role: better.role().to_string(),
                available: protocol.roles.iter().map(|r| r.text.clone()).collect(),
            });
        };
        let role = better.role().to_string();
        match check(better, slot, &Options::new(visits)) {
            Verdict::Subtype(_) => {}
            Verdict::NotSubtype(refutation) => {
                return Err(GenerateError::NotSubtype { role, refutation })
            }
            Verdict::Unknown(unknown) => return Err(GenerateError::Unknown { role, unknown }),
        }
        *slot = better.clone();
    }
    Ok(fsms)
}

/// Generates the Rust API of protocol `wanted` (or the only one) of a Scribble `source`,
/// with the given optimised FSMs checked and swapped in.
pub fn generate_scribble(
    source: &str,
    wanted: Option<&str>,
    optimised: &[Fsm],
    visits: usize,
) -> Result<String, GenerateError> {
    let protocols = mpst_scribble::parse(source).map_err(GenerateError::Protocol)?;
    let protocol = select_protocol(&protocols, wanted)?;
    let fsms = role_fsms(protocol, optimised, visits)?;
    generate(&protocol.name.text, &fsms).map_err(GenerateError::Codegen)
}
