//! Generating APIs from build scripts, so generated code never needs to be committed.
//!
//! In `build.rs`'s `main`:
//! ```no_run
//! mpst_codegen::build::scribble("protocols/double_buffering.scr").unwrap();
//! ```
//! and in the crate:
//! ```text
//! mod double_buffering {
//!     include!(concat!(env!("OUT_DIR"), "/double_buffering.rs"));
//! }
//! ```

use std::path::{Path, PathBuf};
use std::{env, fmt, fs, io};

use crate::{generate_with, role_fsms, GenerateError, Options, DEFAULT_VISITS};

/// Why a build-time generation failed.
#[derive(Debug)]
pub enum BuildError {
    /// Reading the protocol or writing the output failed.
    Io {
        /// The file.
        path: PathBuf,
        /// What happened.
        error: io::Error,
    },
    /// `OUT_DIR` is not set: not running inside a build script.
    NoOutDir,
    /// The protocol has no API; the message names the file.
    Generate {
        /// The protocol file.
        path: PathBuf,
        /// Why.
        error: GenerateError,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            BuildError::NoOutDir => {
                f.write_str("OUT_DIR is not set; call this from a build script")
            }
            // Front-end errors already name the file.
            BuildError::Generate {
                error: error @ GenerateError::Frontend(_),
                ..
            } => write!(f, "{error}"),
            BuildError::Generate { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for BuildError {}

/// Generates the API of the only protocol of the Scribble file `scr` into
/// `$OUT_DIR/<file stem>.rs` and asks Cargo to rerun when the file changes. Returns the
/// path written.
pub fn scribble(scr: impl AsRef<Path>) -> Result<PathBuf, BuildError> {
    scribble_protocol(scr, None)
}

/// As [`scribble`], choosing protocol `protocol` of the file (the output is then
/// `$OUT_DIR/<file stem>_<protocol>.rs`, the protocol in lowercase).
pub fn scribble_protocol(
    scr: impl AsRef<Path>,
    protocol: Option<&str>,
) -> Result<PathBuf, BuildError> {
    scribble_with(scr, protocol, &Options::default())
}

/// As [`scribble_protocol`], with generation [`Options`] (e.g. serde derives on the
/// labels, for `mpst::net`).
pub fn scribble_with(
    scr: impl AsRef<Path>,
    protocol: Option<&str>,
    options: &Options,
) -> Result<PathBuf, BuildError> {
    let scr = scr.as_ref();
    let out_dir = env::var_os("OUT_DIR").ok_or(BuildError::NoOutDir)?;
    println!("cargo:rerun-if-changed={}", scr.display());
    let source = fs::read_to_string(scr).map_err(|error| BuildError::Io {
        path: scr.to_path_buf(),
        error,
    })?;
    let generated = mpst_scribble::load(&scr.display().to_string(), &source, protocol)
        .map_err(GenerateError::Frontend)
        .and_then(|loaded| {
            let fsms = role_fsms(&loaded, &[], DEFAULT_VISITS)?;
            let name = &loaded.protocol.name.text;
            generate_with(name, &fsms, options).map_err(GenerateError::Codegen)
        });
    let code = generated.map_err(|error| BuildError::Generate {
        path: scr.to_path_buf(),
        error,
    })?;
    let stem = scr
        .file_stem()
        .map_or_else(|| "protocol".into(), |s| s.to_string_lossy().into_owned());
    let name = match protocol {
        Some(p) => format!("{stem}_{}.rs", p.to_lowercase()),
        None => format!("{stem}.rs"),
    };
    let out = Path::new(&out_dir).join(name);
    fs::write(&out, code).map_err(|error| BuildError::Io {
        path: out.clone(),
        error,
    })?;
    Ok(out)
}
