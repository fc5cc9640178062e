//! Reading FSMs from DOT files for `mpst subtype`, `mpst kmc`, `generate --optimised` and
//! `report`: files read by the one reader, digraphs by the presentation layer's one DOT
//! loader ([`mpst_diagnostics::dot`]: sorts normalised by the rule projection applies,
//! so nuscr's `int` is `i32`); malformed input, a role twice, an unknown peer and a state
//! that is no session type reported with `file:line:col`, the source line and a caret.

use std::path::{Path, PathBuf};

use mpst_diagnostics::dot::{self, Machine};
use mpst_diagnostics::optimised::{self, Optimised, ReadFailure};
use mpst_diagnostics::{Report, Source};
use mpst_fsm::{Fsm, subtype};

use crate::UsageError;

/// Every digraph of the file at `path`, one [`Fsm`] per digraph (its role is the
/// digraph name), each a local session type (no state both sends and receives), as
/// subtyping needs.
///
/// # Errors
/// A file that cannot be read; malformed DOT, two digraphs of one role, a mixed state:
/// each a located report.
pub fn read_session_types(path: &Path) -> Result<Vec<Fsm>, UsageError> {
    let (sources, machines) = load(&[path], true, false, super::MAX_INPUT_BYTES, "")?;
    dot::session_types(&machines).map_err(|d| UsageError::Report(Report::new(sources, vec![d])))?;
    Ok(fsms(machines))
}

/// Every digraph of every file in `paths`, in order, accepting non-deterministic
/// machines, for k-MC: the system is closed,
/// so an action whose peer no digraph is named after is an error at its label. Each
/// file may hold at most `max_bytes` bytes (`mpst kmc --max-input-size`; the default is
/// [`MAX_INPUT_BYTES`](super::MAX_INPUT_BYTES)).
pub fn read_nondeterministic_fsms<P: AsRef<Path>>(
    paths: &[P],
    max_bytes: u64,
) -> Result<Vec<Fsm>, UsageError> {
    let hint = "; raise it with --max-input-size BYTES";
    let (_, machines) = load(paths, false, true, max_bytes, hint)?;
    Ok(fsms(machines))
}

/// `--optimised ROLE=FSM.dot` and `--visits N`, the same in `mpst generate` and `mpst
/// report` (flattened into their arguments).
#[derive(Debug, Clone, clap::Args)]
pub struct OptimisedArgs {
    /// An optimised FSM for ROLE, the digraph named ROLE in FSM.dot, checked by
    /// subtyping against the role's projection: `generate` writes it as `<ROLE>Optimised`
    /// beside `<ROLE>Session` only when it is proved (the other roles' code unchanged)
    /// and, when a state of the system with it in place receives from several peers (an
    /// `Offer`), k-MC proves that system as the runtime runs it; `report` shows the
    /// verdict and runs k-MC with it in place. Repeatable.
    #[arg(long = "optimised", value_name = "ROLE=FSM.dot", value_parser = optimised::parse_spec)]
    pub specs: Vec<(String, PathBuf)>,
    /// Bound on visits per state pair when checking optimised FSMs.
    #[arg(long, value_name = "N", default_value_t = subtype::DEFAULT_VISITS, value_parser = crate::bounds::parse_bound)]
    pub visits: usize,
}

impl OptimisedArgs {
    /// The digraph of each optimised role, read by the presentation layer's one reader
    /// of optimised roles (the build helper's): a file without the role's digraph points
    /// at the digraphs it has.
    pub fn read(&self) -> Result<Vec<Optimised>, UsageError> {
        let read = |path: &Path| super::read_source(path, super::MAX_INPUT_BYTES, "");
        optimised::read(&self.specs, read).map_err(|failure| match failure {
            ReadFailure::Read(error) => error,
            ReadFailure::Twice(message) => UsageError::Plain(message),
            ReadFailure::Dot(report) => UsageError::Report(report),
        })
    }

    /// The bounds of the subtyping check.
    pub fn subtyping(&self) -> subtype::Options {
        subtype::Options::new(self.visits)
    }
}

fn fsms(machines: Vec<Machine>) -> Vec<Fsm> {
    machines.into_iter().map(|m| m.located.fsm).collect()
}

fn load<P: AsRef<Path>>(
    paths: &[P],
    deterministic: bool,
    closed: bool,
    max_bytes: u64,
    hint: &str,
) -> Result<(Vec<Source>, Vec<Machine>), UsageError> {
    let sources = paths
        .iter()
        .map(|path| super::read_source(path.as_ref(), max_bytes, hint))
        .collect::<Result<Vec<_>, _>>()?;
    let machines = dot::load(&sources, deterministic, closed).map_err(UsageError::Report)?;
    Ok((sources, machines))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_fsms(paths: &[&PathBuf]) -> Result<Vec<Fsm>, UsageError> {
        let (_, machines) = load(paths, true, false, crate::load::MAX_INPUT_BYTES, "")?;
        Ok(fsms(machines))
    }

    #[test]
    fn reads_files_and_rejects_duplicate_roles_and_mixed_states() {
        let dir = std::env::temp_dir().join(format!("mpst-dotfiles-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a.dot");
        let b = dir.join("b.dot");
        std::fs::write(&a, "digraph A { 0 -> 1 [label=\"B!m()\", ]; }").unwrap();
        std::fs::write(&b, "digraph \"B\" { 0 -> 1 [label=\"A?m\"]; }").unwrap();
        let fsms = read_fsms(&[&a, &b]).unwrap();
        let roles: Vec<&str> = fsms.iter().map(Fsm::role).collect();
        assert_eq!(roles, ["A", "B"]);
        let Err(error @ UsageError::Report(_)) = read_fsms(&[&a, &a]) else {
            panic!("a duplicate role was accepted");
        };
        let message = error.text();
        assert!(
            message.contains("a second digraph for role `A`"),
            "{message}"
        );
        // Both places are shown, with their files.
        let at = format!("{}:1:9", a.display());
        assert_eq!(message.matches(&at).count(), 2, "{message}");
        let missing = dir.join("missing.dot");
        let Err(error) = read_fsms(&[&missing]) else {
            panic!("a missing file was read");
        };
        assert!(error.text().contains("missing.dot"), "{}", error.text());
        let mixed = dir.join("mixed.dot");
        std::fs::write(
            &mixed,
            "digraph A {\n 0 -> 1 [label=\"B!m()\"];\n 0 -> 2 [label=\"B?n()\"];\n}",
        )
        .unwrap();
        let message = read_session_types(&mixed).unwrap_err().text();
        assert!(message.contains("both sends and receives"), "{message}");
        assert!(
            message.contains(&format!("{}:2:2", mixed.display())),
            "{message}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
