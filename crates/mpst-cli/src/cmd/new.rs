//! `mpst new`: writes a crate to start a protocol of one's own — a Scribble file, a
//! `build.rs` that generates the session API from it, one process per role and a test
//! that checks the API against the projections and the whole system by k-MC.

use std::fs;
use std::path::{Path, PathBuf};

use crate::output;
use crate::{Outcome, UsageError};

/// Arguments of `mpst new`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit status: 0 = the crate is written; 2 = bad usage (the name is not a crate \
name, or the directory exists) or a file cannot be written. Then `cd PATH && cargo test` \
builds the session API from the protocol and checks it."
)]
pub struct Args {
    /// The directory to create; its last component is the crate's name.
    pub path: PathBuf,
    /// Depend on the mpst crates of a clone of the repository in DIR (by path) instead of
    /// crates.io: the way to start before the crates are published.
    #[arg(long, value_name = "DIR")]
    pub path_deps: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: Args) -> Result<Outcome, UsageError> {
    let name = crate_name(&args.path)?;
    if args.path.exists() {
        return Err(UsageError::Plain(format!(
            "{}: already exists; choose a new directory",
            args.path.display()
        )));
    }
    let files = files(&name, args.path_deps.as_deref())?;
    for (relative, contents) in &files {
        let path = args.path.join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| {
                UsageError::Plain(format!("{}: cannot create: {e}", parent.display()))
            })?;
        }
        fs::write(&path, contents)
            .map_err(|e| UsageError::Plain(format!("{}: cannot write: {e}", path.display())))?;
    }
    output::out(&format!(
        "Created crate `{name}` in {}: protocol {}.scr; next: cd {} && cargo test\n",
        args.path.display(),
        snake(&name),
        args.path.display()
    ))?;
    Ok(Outcome::Holds)
}

/// The crate name: the last component of `path`, checked as Cargo would.
fn crate_name(path: &Path) -> Result<String, UsageError> {
    let name = path.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
        UsageError::Plain(format!("{}: no crate name in this path", path.display()))
    })?;
    let mut chars = name.chars();
    let starts_with_letter = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !starts_with_letter || !rest_ok {
        return Err(UsageError::Plain(format!(
            "`{name}` is not a crate name: expected an ASCII letter followed by letters, \
             digits, `-` or `_`"
        )));
    }
    if RESERVED.contains(&snake(name).as_str()) {
        return Err(UsageError::Plain(format!(
            "`{name}` is not a crate name: it is reserved (a Rust keyword or a crate every \
             program has)"
        )));
    }
    Ok(name.to_string())
}

/// Names a library crate cannot take: keywords and the crates every program sees.
const RESERVED: &[&str] = &[
    "std",
    "core",
    "alloc",
    "proc_macro",
    "test",
    "mpst",
    "futures",
    "self",
    "super",
    "crate",
    "fn",
    "mod",
    "use",
    "type",
    "struct",
    "enum",
    "impl",
    "trait",
    "async",
    "await",
    "let",
    "match",
    "loop",
    "while",
    "for",
    "if",
    "else",
    "return",
    "pub",
    "where",
    "dyn",
    "ref",
];

/// `my-protocol` -> `my_protocol` (the library's import name and the `.scr` stem).
fn snake(name: &str) -> String {
    name.replace('-', "_")
}

/// `my-protocol` -> `MyProtocol` (the global protocol's name).
fn camel(name: &str) -> String {
    name.split(['-', '_'])
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// A TOML basic string holding `text`.
fn toml_string(text: &str) -> String {
    let mut out = String::from('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The dependencies on the runtime and the generator: crates.io versions, or the
/// checkout in `dir`.
fn dependencies(path_deps: Option<&Path>) -> Result<(String, String), UsageError> {
    let version = env!("CARGO_PKG_VERSION");
    let Some(dir) = path_deps else {
        return Ok((
            format!("package = \"mpst-session\", version = \"{version}\""),
            format!("version = \"{version}\""),
        ));
    };
    let dir = dir
        .canonicalize()
        .map_err(|e| UsageError::Plain(format!("{}: {e}", dir.display())))?;
    let path = |krate: &str| -> Result<String, UsageError> {
        let path = dir.join("crates").join(krate);
        let text = path.to_str().ok_or_else(|| {
            UsageError::Plain(format!("{}: the path is not valid UTF-8", path.display()))
        })?;
        Ok(toml_string(text))
    };
    Ok((
        format!("package = \"mpst-session\", path = {}", path("mpst")?),
        format!("path = {}", path("mpst-codegen")?),
    ))
}

/// Every file of the new crate: (path relative to its directory, contents).
fn files(name: &str, path_deps: Option<&Path>) -> Result<Vec<(String, String)>, UsageError> {
    let (runtime, codegen) = dependencies(path_deps)?;
    let fill = |template: &str| {
        template
            .replace("{name}", name)
            .replace("{snake}", &snake(name))
            .replace("{Camel}", &camel(name))
            .replace("{runtime}", &runtime)
            .replace("{codegen}", &codegen)
    };
    Ok(vec![
        ("Cargo.toml".into(), fill(CARGO_TOML)),
        (".gitignore".into(), "/target\n".into()),
        (format!("{}.scr", snake(name)), fill(PROTOCOL)),
        ("build.rs".into(), fill(BUILD_RS)),
        ("src/lib.rs".into(), fill(LIB_RS)),
        ("src/main.rs".into(), fill(MAIN_RS)),
        ("tests/verify.rs".into(), fill(VERIFY_RS)),
    ])
}

const CARGO_TOML: &str = r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
# The session runtime: the package is `mpst-session`, imported as `mpst`.
mpst = { {runtime} }
futures = "0.3"

[dev-dependencies]
# `scribble`: tests/verify.rs checks the session types against the projections of the .scr.
mpst = { {runtime}, features = ["scribble"] }

[build-dependencies]
# build.rs generates the session API from {snake}.scr.
mpst-codegen = { {codegen} }
"#;

const PROTOCOL: &str = r"// {Camel}: C sends two numbers to S, which tells L their sum and answers C with it.
// Edit the protocol, then the processes in src/lib.rs; `cargo test` regenerates the API,
// and `mpst check {snake}.scr` explains any mistake in the protocol.
global protocol {Camel}(role C, role S, role L) {
  add(i32) from C to S;
  add(i32) from C to S;
  log(i32) from S to L;
  sum(i32) from S to C;
}
";

const BUILD_RS: &str = r#"//! Generates the session API of {snake}.scr into $OUT_DIR/{snake}.rs (src/lib.rs includes
//! it), so nothing generated is committed and editing the protocol regenerates it.

use mpst_codegen::build::{Build, BuildError};

fn main() -> Result<(), BuildError> {
    // A failure fails the build with the whole diagnostic (file:line:col, the line,
    // carets). To add an optimised role beside the projections, once subtyping proves
    // it safe (as `COptimised`, next to `CSession`):
    // `.optimised("C", "c_optimised.dot")` before `.generate()`.
    Build::scribble("{snake}.scr").generate()?;
    Ok(())
}
"#;

const LIB_RS: &str = r#"//! The processes of the protocol {Camel} ({snake}.scr): one async function per role,
//! written against the session API that build.rs generates from the protocol. Sending the
//! wrong message, in the wrong order, or forgetting one does not compile.

use mpst::{try_session, Error};

/// The session API generated from {snake}.scr: roles `C`, `S`, `L`, their `Roles`, the
/// messages (`Add`, `Log`, `Sum`) and one session type per role (`CSession`, ...).
#[allow(missing_docs)]
pub mod api {
    include!(concat!(env!("OUT_DIR"), "/{snake}.rs"));
}

use api::*;

/// `C`: sends `x` and `y` to `S`; returns the sum `S` answers.
pub async fn client(role: &mut C, x: i32, y: i32) -> Result<i32, Error> {
    try_session(role, |s: CSession<'_, C>| async move {
        let s = s.send(Add(x)).await?.send(Add(y)).await?;
        let (Sum(sum), end) = s.receive().await?;
        Ok((sum, end))
    })
    .await
}

/// `S`: adds the two numbers, tells `L` the sum, then answers `C`.
pub async fn server(role: &mut S) -> Result<(), Error> {
    try_session(role, |s: SSession<'_, S>| async move {
        let (Add(x), s) = s.receive().await?;
        let (Add(y), s) = s.receive().await?;
        let sum = x.wrapping_add(y);
        let end = s.send(Log(sum)).await?.send(Sum(sum)).await?;
        Ok(((), end))
    })
    .await
}

/// `L`: returns the sum it was told.
pub async fn logger(role: &mut L) -> Result<i32, Error> {
    try_session(role, |s: LSession<'_, L>| async move {
        let (Log(sum), end) = s.receive().await?;
        Ok((sum, end))
    })
    .await
}

/// Runs one session with every role in this process: (what `C` got, what `L` logged).
pub async fn run(x: i32, y: i32) -> Result<(i32, i32), Error> {
    let Roles {
        mut c,
        mut s,
        mut l,
    } = Roles::default();
    let (sum, (), logged) =
        futures::try_join!(client(&mut c, x, y), server(&mut s), logger(&mut l))?;
    Ok((sum, logged))
}
"#;

const MAIN_RS: &str = r#"//! Runs one session of {Camel} in this process.

use std::process::ExitCode;

fn main() -> ExitCode {
    match futures::executor::block_on({snake}::run(2, 3)) {
        Ok((sum, logged)) => {
            println!("C got {sum}; L logged {logged}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
"#;

const VERIFY_RS: &str = r#"//! The hybrid workflow: each role's session type is its projection of {snake}.scr, the
//! system of all roles is deadlock-free (1-multiparty compatible), and a run adds up.

use {snake}::api::*;

const SCR: &str = include_str!("../{snake}.scr");

#[test]
fn each_session_type_is_its_projection_and_the_system_is_1_mc() {
    mpst::verify::assert_equals_projection::<CSession<'static, C>>(SCR, "C");
    mpst::verify::assert_equals_projection::<SSession<'static, S>>(SCR, "S");
    mpst::verify::assert_equals_projection::<LSession<'static, L>>(SCR, "L");
    let system = [
        mpst::serialize::serialize::<CSession<'static, C>>().unwrap(),
        mpst::serialize::serialize::<SSession<'static, S>>().unwrap(),
        mpst::serialize::serialize::<LSession<'static, L>>().unwrap(),
    ];
    mpst::verify::assert_kmc(&system, 1);
}

#[test]
fn a_session_answers_and_logs_the_sum() {
    let (sum, logged) = futures::executor::block_on({snake}::run(2, 3)).unwrap();
    assert_eq!((sum, logged), (5, 5));
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crate_names_are_checked_like_cargo() {
        assert_eq!(
            crate_name(Path::new("dir/my-protocol")).unwrap(),
            "my-protocol"
        );
        for bad in ["1abc", "a b", "é", "test", "mpst", "-x"] {
            let error = crate_name(Path::new(bad)).unwrap_err();
            assert!(
                error.text().contains("is not a crate name"),
                "{bad}: {}",
                error.text()
            );
        }
    }

    #[test]
    fn names_are_converted_for_the_protocol_and_the_library() {
        assert_eq!(camel("my-first_protocol"), "MyFirstProtocol");
        assert_eq!(snake("my-first_protocol"), "my_first_protocol");
    }

    #[test]
    fn paths_are_quoted_as_toml_strings() {
        assert_eq!(toml_string(r#"C:\a "b""#), r#""C:\\a \"b\"""#);
    }

    #[test]
    fn crates_io_dependencies_by_default() {
        let files = files("p", None).unwrap();
        let manifest = &files[0].1;
        let version = env!("CARGO_PKG_VERSION");
        assert!(manifest.contains(&format!(
            "mpst = {{ package = \"mpst-session\", version = \"{version}\" }}"
        )));
        assert!(manifest.contains(&format!("mpst-codegen = {{ version = \"{version}\" }}")));
        assert!(!manifest.contains("path ="), "{manifest}");
    }
}
