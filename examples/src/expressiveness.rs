//! The expressiveness table (like Table 1 of PPoPP 2022), computed from the examples
//! themselves: every `examples/<name>/<name>.scr` is parsed and projected, the optimised
//! roles recorded beside it (`*_optimised.dot`) are swapped in, and each workflow's check
//! is run. `cargo run -p mpst-examples --bin expressiveness` writes the result to
//! `docs/EXPRESSIVENESS.md`; a test keeps the committed file equal to what this computes.

use std::fmt::{self, Write as _};
use std::fs;
use std::path::{Path, PathBuf};

use mpst::verify::rust_name;
use mpst_codegen::{DEFAULT_VISITS, generate_scribble};
use mpst_fsm::Fsm;
use mpst_fsm::format::parse_dot_with;
use mpst_fsm::kmc::least_k;
use mpst_fsm::subtype::{self, DEFAULT_VISITS as SUBTYPE_VISITS, Options, Reason, check};
use mpst_scribble::sorts::SCRIBBLE;

/// The largest queue bound tried when looking for the least k for which a system is k-MC.
pub const MAX_K: usize = 8;

/// The command that regenerates the table, named in its header.
pub const COMMAND: &str = "cargo run -p mpst-examples --bin expressiveness";

/// Why the table could not be computed: an example that cannot be read.
#[derive(Debug)]
pub struct TableError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for TableError {}

/// The outcome of one workflow's check on one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The workflow verifies the row; the note says how (e.g. `k = 1`).
    Verified(String),
    /// The workflow's check fails; the note says why.
    Rejected(String),
    /// The workflow has nothing to check on this row.
    NotApplicable,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Verified(note) if note.is_empty() => f.write_str("✓"),
            Verdict::Verified(note) => write!(f, "✓ ({note})"),
            Verdict::Rejected(note) => write!(f, "✗ ({note})"),
            Verdict::NotApplicable => f.write_str("—"),
        }
    }
}

/// One row of the table: a protocol, or its optimised variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The protocol's name, prefixed with `Optimised` for the optimised variant.
    pub name: String,
    /// The example's directory under `examples/`.
    pub directory: String,
    /// The number of roles.
    pub roles: usize,
    /// Some role chooses between messages.
    pub choice: bool,
    /// Some role loops.
    pub recursion: bool,
    /// No role ever ends.
    pub infinite: bool,
    /// Some roles are asynchronously reordered (the optimised variant).
    pub amr: bool,
    /// Top-down: the API can be generated from the projections (with the optimised roles
    /// checked by subtyping and swapped in).
    pub top_down: Verdict,
    /// Bottom-up: the system of role machines is k-MC, with the least k.
    pub bottom_up: Verdict,
    /// Hybrid: every optimised role is an asynchronous subtype of its projection.
    pub hybrid: Verdict,
    /// How the example's Rust API is written.
    pub api: &'static str,
}

/// Computes every row, from the example directories under `examples` (sorted by name).
pub fn rows(examples: &Path) -> Result<Vec<Row>, TableError> {
    let error = |path: &Path, message: String| TableError {
        path: path.to_path_buf(),
        message,
    };
    let listing = fs::read_dir(examples).map_err(|e| error(examples, e.to_string()))?;
    let mut directories: Vec<String> = listing
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| examples.join(name).join(format!("{name}.scr")).is_file())
        .collect();
    directories.sort();
    let mut rows = Vec::new();
    for directory in directories {
        rows.extend(example_rows(examples, &directory)?);
    }
    Ok(rows)
}

/// The rows of one example: the protocol, then its optimised variant if it has one.
fn example_rows(examples: &Path, directory: &str) -> Result<Vec<Row>, TableError> {
    let dir = examples.join(directory);
    let scr_path = dir.join(format!("{directory}.scr"));
    let read = |path: &Path| {
        fs::read_to_string(path).map_err(|e| TableError {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    };
    let invalid = |message: String| TableError {
        path: scr_path.clone(),
        message,
    };
    let source = read(&scr_path)?;
    let file = scr_path.display().to_string();
    let parsed = mpst_scribble::frontend::parse_source(&file, &source).map_err(|e| {
        invalid(format!(
            "does not parse: {}",
            e.to_string().replace('\n', "; ")
        ))
    })?;
    // The protocol named like the directory, or the only one.
    let wanted = parsed
        .protocols()
        .iter()
        .find(|p| rust_name(&p.name.text, "P") == rust_name(directory, "P"))
        .map(|p| p.name.text.as_str());
    let protocol = parsed.select(wanted).map_err(|e| invalid(e.to_string()))?;
    let projections: Vec<Fsm> = (parsed.project(protocol))
        .map_err(|e| invalid(e.to_string()))?
        .into_iter()
        .map(|p| p.fsm)
        .collect();
    // The generated API is included by `main.rs` or by the `protocol.rs` it shares.
    let generated = ["main.rs", "protocol.rs"].iter().any(|file| {
        read(&dir.join(file))
            .unwrap_or_default()
            .contains("env!(\"OUT_DIR\")")
    });
    let plain = Row {
        name: protocol.name.text.clone(),
        directory: directory.to_string(),
        roles: protocol.roles.len(),
        choice: projections.iter().any(has_choice),
        recursion: projections.iter().any(has_cycle),
        infinite: projections.iter().all(never_ends),
        amr: false,
        top_down: verdict_of_generation(&source, &protocol.name.text, &[]),
        bottom_up: verdict_of_kmc(&projections),
        hybrid: Verdict::NotApplicable,
        api: if generated {
            "generated at build time"
        } else {
            "hand-written = projection"
        },
    };
    let optimised = optimised_machines(&dir)?;
    if optimised.is_empty() {
        return Ok(vec![plain]);
    }
    let mut system = projections.clone();
    let mut hybrid = Verdict::Verified(String::new());
    for better in &optimised {
        let Some(slot) = system.iter_mut().find(|f| f.role() == better.role()) else {
            return Err(invalid(format!(
                "an optimised machine is for role `{}`, which the protocol does not have",
                better.role()
            )));
        };
        // The bound of `mpst::verify` and `mpst subtype`.
        let failure = match check(better, slot, &Options::new(SUBTYPE_VISITS)) {
            subtype::Verdict::Subtype(_) => None,
            subtype::Verdict::NotSubtype(refutation) => {
                Some(format!("not a subtype: {}", refutation.run.kind.property()))
            }
            subtype::Verdict::Unknown(unknown) => {
                Some(format!("unknown, {}", short(&unknown.not_proved.reason)))
            }
        };
        if let Some(failure) = failure {
            if hybrid == Verdict::Verified(String::new()) {
                hybrid = Verdict::Rejected(format!("`{}`: {failure}", better.role()));
            }
        }
        *slot = better.clone();
    }
    let optimised_row = Row {
        name: format!("Optimised {}", plain.name),
        amr: true,
        choice: system.iter().any(has_choice),
        recursion: system.iter().any(has_cycle),
        infinite: system.iter().all(never_ends),
        top_down: verdict_of_generation(&source, &protocol.name.text, &optimised),
        bottom_up: verdict_of_kmc(&system),
        hybrid,
        api: "hand-written, reordered",
        ..plain.clone()
    };
    Ok(vec![plain, optimised_row])
}

/// The optimised machines recorded in `dir` (`*_optimised.dot`), sorted by file name.
fn optimised_machines(dir: &Path) -> Result<Vec<Fsm>, TableError> {
    let listing = fs::read_dir(dir).map_err(|e| TableError {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut files: Vec<PathBuf> = listing
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with("_optimised.dot"))
        })
        .collect();
    files.sort();
    let mut machines = Vec::new();
    for path in files {
        let text = fs::read_to_string(&path).map_err(|e| TableError {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let parsed = parse_dot_with(&text, &SCRIBBLE).map_err(|e| TableError {
            path: path.clone(),
            message: e.to_string(),
        })?;
        machines.extend(parsed);
    }
    Ok(machines)
}

/// Some state offers more than one transition.
fn has_choice(fsm: &Fsm) -> bool {
    (0..fsm.state_count()).any(|s| fsm.transitions(s).len() > 1)
}

/// Some state can be reached again from itself.
fn has_cycle(fsm: &Fsm) -> bool {
    // Iterative depth-first search with three colours.
    let n = fsm.state_count();
    let mut colour = vec![0u8; n];
    for root in 0..n {
        if colour[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        colour[root] = 1;
        while let Some(&mut (state, ref mut next)) = stack.last_mut() {
            let transitions = fsm.transitions(state);
            if let Some(t) = transitions.get(*next) {
                *next += 1;
                match colour[t.target] {
                    1 => return true,
                    0 => {
                        colour[t.target] = 1;
                        stack.push((t.target, 0));
                    }
                    _ => {}
                }
            } else {
                colour[state] = 2;
                stack.pop();
            }
        }
    }
    false
}

/// The machine has no final state: its role never ends.
fn never_ends(fsm: &Fsm) -> bool {
    (0..fsm.state_count()).all(|s| !fsm.is_final(s))
}

/// The reason a subtyping check failed, in a few words.
fn short(reason: &Reason) -> String {
    match reason {
        Reason::BoundReached { visits } => format!("bound reached, {visits} visits"),
        other => {
            let text = other.to_string();
            text.split(':').next().unwrap_or(&text).to_string()
        }
    }
}

fn verdict_of_generation(source: &str, protocol: &str, optimised: &[Fsm]) -> Verdict {
    match generate_scribble(
        "<scribble>",
        source,
        Some(protocol),
        optimised,
        DEFAULT_VISITS,
    ) {
        Ok(_) => Verdict::Verified(String::new()),
        Err(mpst_codegen::GenerateError::NotSubtype { role, refutation }) => Verdict::Rejected(
            format!("`{role}` not a subtype: {}", refutation.run.kind.property()),
        ),
        Err(mpst_codegen::GenerateError::Unknown { role, unknown }) => Verdict::Rejected(format!(
            "`{role}` unknown: {}",
            short(&unknown.not_proved.reason)
        )),
        Err(error) => Verdict::Rejected(error.to_string().replace('|', "\\|")),
    }
}

fn verdict_of_kmc(system: &[Fsm]) -> Verdict {
    match least_k(system, MAX_K) {
        Ok(report) if report.is_kmc() => Verdict::Verified(format!("k = {}", report.k)),
        Ok(_) => Verdict::Rejected(format!("not k-MC for any k ≤ {MAX_K}")),
        Err(error) => Verdict::Rejected(error.to_string()),
    }
}

/// The table as Markdown, with its header naming [`COMMAND`].
pub fn render(rows: &[Row]) -> String {
    let tick = |b: bool| if b { "✓" } else { "" };
    let mut out = String::new();
    out.push_str("# Expressiveness\n\n");
    let _ = writeln!(
        out,
        "<!-- Generated by `{COMMAND}` from the examples; do not edit by hand. \
         `cargo test -p mpst-examples --test expressiveness` fails when it is stale. -->\n"
    );
    out.push_str(HEADER);
    out.push_str(
        "| Protocol | Example | n | C | R | IR | AMR | Top-down | Bottom-up (k-MC) | Hybrid | API |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let _ = writeln!(
            out,
            "| {} | [`{}`](../examples/{}) | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.name,
            row.directory,
            row.directory,
            row.roles,
            tick(row.choice),
            tick(row.recursion),
            tick(row.infinite),
            tick(row.amr),
            row.top_down,
            row.bottom_up,
            row.hybrid,
            row.api
        );
    }
    out.push_str(LEGEND);
    out
}

/// The text above the table.
const HEADER: &str = "\
Like Table 1 of the PPoPP 2022 paper, for every example of this repository: regenerate \
with `cargo run -p mpst-examples --bin expressiveness` (it writes this file). Each row is \
computed from the example's directory: its `.scr` is parsed and projected, the optimised \
roles recorded beside it (`*_optimised.dot`, which the example's tests check against its \
Rust session types) are swapped in, and each workflow's check is run.\n\n";

/// The text below the table.
const LEGEND: &str = "
**n** roles. **C** choice, **R** recursion, **IR** infinite recursion (no role ever \
ends), **AMR** asynchronous message reordering (the optimised variant), all read off the \
role machines.

- **Top-down**: the Rust API can be generated from the projections (`mpst generate`, \
`mpst_codegen::build`), with the optimised roles checked by asynchronous subtyping and \
generated beside the projections (`--optimised ROLE=FSM.dot`).
- **Bottom-up (k-MC)**: the system of role machines (projections, optimised roles swapped \
in) is k-multiparty compatible; the least k tried from 1 to 8 (`mpst kmc`, \
`mpst::verify::check_kmc` on serialised session types).
- **Hybrid**: every optimised role is an asynchronous subtype of its projection \
(`mpst subtype`, `mpst::verify::assert_subtype_of_projection` on the serialised session \
type); — on rows that reorder nothing.
- **API**: *generated at build time* from the `.scr` (`examples/build.rs`), or written by \
hand; the tests of every example check hand-written unoptimised types equal to their \
projections and optimised ones subtypes of them.

Hospital is the paper's row that no bounded method verifies: its optimisation is safe but \
needs unbounded buffering, so k-MC fails for every k and the bounded rules of subtyping stop \
at their bound; the witness trees of CONCUR 2019, which subtyping tries next, prove it \
(`examples/hospital/optimised.rs` asserts both).
";

#[cfg(test)]
mod tests {
    use super::*;
    use mpst_fsm::{Action, Message};

    fn machine(edges: &[(usize, usize)]) -> Fsm {
        let mut fsm = Fsm::new("A");
        let states = edges.iter().map(|&(a, b)| a.max(b)).max().unwrap_or(0);
        for _ in 0..states {
            fsm.add_state();
        }
        for (i, &(from, to)) in edges.iter().enumerate() {
            let label = Message::new(format!("l{i}"));
            fsm.add_transition(from, Action::send("B", label), to)
                .unwrap();
        }
        fsm
    }

    #[test]
    fn features_are_read_off_the_machines() {
        let line = machine(&[(0, 1), (1, 2)]);
        assert!(!has_cycle(&line) && !has_choice(&line) && !never_ends(&line));
        let looping = machine(&[(0, 1), (1, 0)]);
        assert!(has_cycle(&looping) && !has_choice(&looping) && never_ends(&looping));
        let branching = machine(&[(0, 1), (0, 2), (2, 2)]);
        assert!(has_cycle(&branching) && has_choice(&branching) && !never_ends(&branching));
        // A diamond joins twice but has no cycle.
        let diamond = machine(&[(0, 1), (0, 2), (1, 3), (2, 3)]);
        assert!(!has_cycle(&diamond));
    }

    #[test]
    fn verdicts_render_as_table_cells() {
        assert_eq!(Verdict::Verified(String::new()).to_string(), "✓");
        assert_eq!(Verdict::Verified("k = 2".into()).to_string(), "✓ (k = 2)");
        assert_eq!(Verdict::Rejected("why".into()).to_string(), "✗ (why)");
        assert_eq!(Verdict::NotApplicable.to_string(), "—");
    }

    #[test]
    fn a_missing_directory_is_an_error_that_names_it() {
        let error = rows(Path::new("/no/such/examples")).unwrap_err();
        assert!(
            error.to_string().starts_with("/no/such/examples: "),
            "{error}"
        );
    }
}
