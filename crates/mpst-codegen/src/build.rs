//! Generating APIs from build scripts, so generated code never needs to be committed:
//! the top-down workflow, optimised roles included.
//!
//! In `build.rs`:
//! ```no_run
//! use mpst_codegen::build::{Build, BuildError};
//!
//! fn main() -> Result<(), BuildError> {
//!     // Every role's projection (`KSession`, `SSession`, `TSession`), and beside them
//!     // the FSM of kernel.dot for role K as `KOptimised`, once subtyping proves it safe:
//!     // $OUT_DIR/double_buffering.rs
//!     Build::scribble("protocols/double_buffering.scr")
//!         .optimised("K", "protocols/kernel.dot")
//!         .generate()?;
//!     Ok(())
//! }
//! ```
//! and in the crate:
//! ```text
//! mod double_buffering {
//!     include!(concat!(env!("OUT_DIR"), "/double_buffering.rs"));
//! }
//! ```
//!
//! One module holds the projections and the optimised types, with one set of roles and
//! labels: the processes of `S` and `T`, written against `SSession` and `TSession`, run
//! unchanged beside a `K` written against either `KSession` or `KOptimised`.
//!
//! Cargo reruns the script when the Scribble file or a DOT file changes. A failure fails
//! the build with the whole diagnostic, as `mpst` prints it: `file:line:col`, the source
//! line with carets, and notes (for a refuted optimised role, the run that goes wrong;
//! for an unknown answer, why, and how to raise the bound). [`BuildError`] prints it with
//! `Display` and `Debug` alike, so `?` in `main`, `.unwrap()` and
//! `.unwrap_or_else(|e| e.exit())` are all readable; a one-line summary is also printed
//! as a `cargo:warning`, which Cargo shows above the script's output.

mod error;
mod render;

use std::path::{Path, PathBuf};
use std::{env, fs};

use mpst_fsm::kmc::KmcOptions;
use mpst_fsm::subtype;

pub use error::{BuildError, BuildErrorKind};
/// The bounds and budgets of the subtyping check, for [`Build::subtyping`] (re-exported
/// so that a build script needs no other dependency).
pub use mpst_fsm::subtype::Options as SubtypingOptions;

use crate::{DEFAULT_VISITS, GenerateError, Options, generate_optimised, prove_optimised_with};

/// How a build script raises the subtyping bounds, in the note of an unknown answer.
const RAISE: &str = "with `.visits(N)` or `.subtyping(SubtypingOptions { .. })` in build.rs \
                     (`mpst subtype --visits N --max-steps M` tries bounds from the command line)";

/// A build-time generation: a Scribble file, the protocol, optimised roles, the
/// subtyping bounds, the generation [`Options`] and where to write. Made by
/// [`Build::scribble`], run by [`Build::generate`].
#[derive(Debug, Clone)]
#[must_use = "a Build does nothing until `.generate()`"]
pub struct Build {
    scr: PathBuf,
    protocol: Option<String>,
    optimised: Vec<(String, PathBuf)>,
    subtyping: subtype::Options,
    offers: KmcOptions,
    options: Options,
    out_file: Option<String>,
    out_dir: Option<PathBuf>,
}

impl Build {
    /// Generation of the Scribble file at `scr` (relative to the crate's root, where
    /// build scripts run): its only protocol, every role its projection, the default
    /// [`Options`], written to `$OUT_DIR/<file stem>.rs`.
    pub fn scribble(scr: impl Into<PathBuf>) -> Self {
        Build {
            scr: scr.into(),
            protocol: None,
            optimised: Vec::new(),
            subtyping: subtype::Options::new(DEFAULT_VISITS),
            offers: mpst_fsm::kmc::offer_options(),
            options: Options::default(),
            out_file: None,
            out_dir: None,
        }
    }

    /// Generates protocol `name` of the file (needed when it has several). The output is
    /// then `<file stem>_<name in lowercase>.rs` unless [`Build::out_file`] says.
    pub fn protocol(mut self, name: impl Into<String>) -> Self {
        self.protocol = Some(name.into());
        self
    }

    /// Generates the FSM of the digraph named `role` in the DOT file `dot` as
    /// `{role}Optimised` (e.g. `KOptimised`) beside the role's projection (`KSession`),
    /// once [subtyping](mpst_fsm::subtype::check) *proves* it an asynchronous subtype of
    /// the projection. Roles and labels are generated once, so the other roles' processes
    /// compile unchanged beside the optimised one (see
    /// [`generate_optimised`]). A refutation fails the build
    /// with the run that goes wrong; so does an unknown answer, with why and how to raise
    /// the bound. Repeat for several roles.
    pub fn optimised(mut self, role: impl Into<String>, dot: impl Into<PathBuf>) -> Self {
        self.optimised.push((role.into(), dot.into()));
        self
    }

    /// The bound on visits per pair of states of the subtyping check (default
    /// [`DEFAULT_VISITS`], as `mpst subtype`'s): raise it when the answer is unknown
    /// because the bound was reached.
    pub fn visits(mut self, visits: usize) -> Self {
        self.subtyping.visits = visits;
        self
    }

    /// Every bound and budget of the subtyping check (this replaces [`Build::visits`]),
    /// e.g. `SubtypingOptions { max_steps: 10_000_000, ..SubtypingOptions::default() }`.
    pub fn subtyping(mut self, options: SubtypingOptions) -> Self {
        self.subtyping = options;
        self
    }

    /// The budget of configurations of the `Offer` check (default
    /// [`OFFER_MAX_CONFIGURATIONS`](mpst_fsm::kmc::OFFER_MAX_CONFIGURATIONS)): when
    /// optimised roles are swapped in and some state receives from several peers, k-MC
    /// under the runtime's `Offer` semantics must prove the system
    /// ([`check_offers_with`](crate::check_offers_with)). Raise it when the build fails
    /// because the check gave up (an unknown answer, [`BuildErrorKind::Unknown`]); a
    /// smaller budget fails sooner, never with a refutation.
    pub fn offer_configurations(mut self, configurations: usize) -> Self {
        self.offers.max_configurations = configurations;
        self
    }

    /// Generation options: serde derives on the labels, the channel type (e.g.
    /// `mpst::net::AnyRoute<Label>` for `mpst::net`).
    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// The name of the file written in the output directory, e.g. `"api.rs"`.
    pub fn out_file(mut self, name: impl Into<String>) -> Self {
        self.out_file = Some(name.into());
        self
    }

    /// The output directory (default: `$OUT_DIR`, set by Cargo for build scripts).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Generates the API, writes it to the output directory and returns the path written.
    /// Prints `cargo:rerun-if-changed` for the Scribble file and every DOT file, and on
    /// failure a `cargo:warning` with the error's [headline](BuildError::headline).
    ///
    /// # Errors
    /// Whatever [`Build::code`] refuses; `OUT_DIR` unset without [`Build::out_dir`]; the
    /// output not written.
    pub fn generate(&self) -> Result<PathBuf, BuildError> {
        for path in self.inputs() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
        let written = self.output_dir().and_then(|dir| {
            let out = dir.join(self.out_name());
            fs::write(&out, self.code()?).map_err(|error| BuildError::io(&out, error))?;
            Ok(out)
        });
        if let Err(error) = &written {
            // One line: `cargo:warning` cannot span lines; the report goes to stderr.
            let first = error.headline().lines().next().unwrap_or_default();
            println!("cargo:warning={first}");
        }
        written
    }

    /// The files the generation reads: the Scribble file, then each DOT file. Cargo is
    /// asked to rerun the build script when any of them changes.
    pub fn inputs(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(self.scr.as_path()).chain(self.optimised.iter().map(|(_, p)| p.as_path()))
    }

    /// The generated code, without writing it or printing anything.
    ///
    /// # Errors
    /// An input that cannot be read; a Scribble file that does not parse, lacks the
    /// protocol, or whose protocol is invalid; a malformed DOT file or one without a
    /// digraph for its role; an optimised role that the protocol lacks or that is given
    /// twice; one that subtyping refutes or does not prove; FSMs with no Rust API. Each
    /// error carries its rendered diagnostic.
    pub fn code(&self) -> Result<String, BuildError> {
        let scr = render::read(&self.scr)?;
        let loaded = mpst_scribble::load(&scr.name, &scr.text, self.protocol.as_deref())
            .map_err(|error| render::scribble(&scr, error))?;
        let machines = render::optimised(&self.optimised)?;
        let better: Vec<_> = machines.iter().map(|m| m.machine.fsm.clone()).collect();
        let protocol = &loaded.protocol.name.text;
        prove_optimised_with(&loaded, &better, &self.subtyping, &self.offers).map_err(|error| {
            let kind = match &error {
                GenerateError::NotSubtype { .. } => BuildErrorKind::NotSubtype,
                GenerateError::Unknown { .. } | GenerateError::OfferUnproved { .. } => {
                    BuildErrorKind::Unknown
                }
                GenerateError::OfferRefuted { .. } => BuildErrorKind::UnsafeOffer,
                GenerateError::UnknownRole { .. } => BuildErrorKind::Role,
                _ => BuildErrorKind::NoApi,
            };
            match error.located(protocol, &machines, &self.subtyping, RAISE) {
                Some(report) => BuildError::rendered(kind, &report),
                None => BuildError::plain(kind, error.to_string()),
            }
            .with_source(error)
        })?;
        let projections: Vec<_> = loaded.projections.iter().map(|p| p.fsm.clone()).collect();
        generate_optimised(protocol, &projections, &better, &self.options).map_err(|error| {
            BuildError::plain(
                BuildErrorKind::NoApi,
                format!(
                    "{}: protocol `{protocol}` has no Rust API: {error}",
                    scr.name
                ),
            )
            .with_source(error)
        })
    }

    fn output_dir(&self) -> Result<PathBuf, BuildError> {
        match (&self.out_dir, env::var_os("OUT_DIR")) {
            (Some(dir), _) => Ok(dir.clone()),
            (None, Some(dir)) => Ok(dir.into()),
            (None, None) => Err(BuildError::plain(
                BuildErrorKind::NoOutDir,
                "OUT_DIR is not set; call this from a build script or give `.out_dir(..)`".into(),
            )),
        }
    }

    fn out_name(&self) -> String {
        if let Some(name) = &self.out_file {
            return name.clone();
        }
        let stem = self
            .scr
            .file_stem()
            .map_or_else(|| "protocol".into(), |s| s.to_string_lossy().into_owned());
        match &self.protocol {
            Some(p) => format!("{stem}_{}.rs", p.to_lowercase()),
            None => format!("{stem}.rs"),
        }
    }
}

/// Generates the API of the only protocol of the Scribble file `scr` into
/// `$OUT_DIR/<file stem>.rs`: `Build::scribble(scr).generate()` (see [`Build`]).
///
/// # Errors
/// As [`Build::generate`].
pub fn scribble(scr: impl AsRef<Path>) -> Result<PathBuf, BuildError> {
    Build::scribble(scr.as_ref()).generate()
}

/// As [`scribble`], choosing protocol `protocol` of the file (the output is then
/// `$OUT_DIR/<file stem>_<protocol>.rs`, the protocol in lowercase).
///
/// # Errors
/// As [`Build::generate`].
pub fn scribble_protocol(
    scr: impl AsRef<Path>,
    protocol: Option<&str>,
) -> Result<PathBuf, BuildError> {
    scribble_with(scr, protocol, &Options::default())
}

/// As [`scribble_protocol`], with generation [`Options`] (e.g. serde derives on the
/// labels, for `mpst::net`).
///
/// # Errors
/// As [`Build::generate`].
pub fn scribble_with(
    scr: impl AsRef<Path>,
    protocol: Option<&str>,
    options: &Options,
) -> Result<PathBuf, BuildError> {
    let mut build = Build::scribble(scr.as_ref()).options(options.clone());
    if let Some(protocol) = protocol {
        build = build.protocol(protocol);
    }
    build.generate()
}
