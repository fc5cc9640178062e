//! The build-script helper as a build script calls it, without spawning Cargo: an
//! optimised role proved by subtyping is generated beside the projections; a refuted one,
//! an unknown answer and bad inputs fail with the rendered diagnostic (file:line:col, the
//! line, carets, notes).

use std::path::{Path, PathBuf};

use mpst_codegen::build::{Build, BuildError, BuildErrorKind};
use mpst_fsm::subtype;

/// The double-buffering example: its protocol and the optimised kernel of PPoPP 2022.
fn example(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/double_buffering")
        .join(file)
}

/// A fresh directory for this test's outputs and inputs.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("build-{name}"));
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The double-buffering protocol with role K taken from `dot`, written into `out`.
fn with_kernel(dot: &Path, out: &Path) -> Build {
    Build::scribble(example("double_buffering.scr"))
        .optimised("K", dot)
        .out_dir(out)
        .out_file("db.rs")
}

/// A kernel that waits for a value before saying it is ready: the source waits too.
const WAITS_FIRST: &str = "digraph K {
  0 -> 1 [label=\"S?value(i32)\"];
  1 -> 2 [label=\"S!ready()\"];
  2 -> 3 [label=\"T?ready()\"];
  3 -> 0 [label=\"T!value(i32)\"];
}
";

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn failure(build: &Build) -> BuildError {
    match build.generate() {
        Ok(path) => panic!("the build succeeded, writing {}", path.display()),
        Err(error) => error,
    }
}

#[test]
fn a_proved_optimised_role_is_generated_beside_its_projection() {
    let out = scratch("proved");
    let dot = example("kernel_optimised.dot");
    let written = with_kernel(&dot, &out).generate().unwrap();
    assert_eq!(written, out.join("db.rs"));
    let code = std::fs::read_to_string(&written).unwrap();

    // The same as generating from the FSMs directly: every role's projection, and the
    // DOT's machine for K as `KOptimised`.
    let scr = std::fs::read_to_string(example("double_buffering.scr")).unwrap();
    let kernel = mpst_fsm::parse_dot(&std::fs::read_to_string(&dot).unwrap()).unwrap();
    let direct = mpst_codegen::generate_scribble(
        "db.scr",
        &scr,
        None,
        &kernel,
        mpst_codegen::DEFAULT_VISITS,
    )
    .unwrap();
    assert_eq!(code, direct);
    let plain = Build::scribble(example("double_buffering.scr"))
        .out_dir(&out)
        .code()
        .unwrap();
    // The module without the optimised role, then the optimised role's types: the other
    // roles' processes compile unchanged beside it.
    let (same, added) = code.split_at(plain.len());
    assert_eq!(same, plain);
    assert!(
        added.starts_with(
            "\n/// Role `K` (optimised) at the start.\n#[session]\n\
             pub type KOptimised = Send<S, Ready, KOptimisedAfterReady>;\n"
        ),
        "{added}"
    );
    // Cargo reruns the script when the protocol or the DOT file changes.
    let build = with_kernel(&dot, &out);
    let inputs: Vec<&Path> = build.inputs().collect();
    assert_eq!(
        inputs,
        [example("double_buffering.scr").as_path(), dot.as_path()]
    );
    // The default output name is the file's stem.
    let default = Build::scribble(example("double_buffering.scr"))
        .out_dir(&out)
        .generate()
        .unwrap();
    assert_eq!(default, out.join("double_buffering.rs"));
}

#[test]
fn a_refuted_optimised_role_fails_with_the_located_diagnostic_and_the_run() {
    let out = scratch("refuted");
    let dot = write(&out, "k.dot", WAITS_FIRST);
    let error = failure(&with_kernel(&dot, &out));
    assert_eq!(error.kind(), BuildErrorKind::NotSubtype);
    assert!(!out.join("db.rs").exists(), "nothing is written");
    let shown = error.to_string();
    assert!(
        shown.starts_with(
            "the optimised FSM of role `K` is not an asynchronous subtype of its projection \
             in protocol `DoubleBuffering`\n"
        ),
        "{shown}"
    );
    // Located at the action where the rules stop, quoted with carets under it.
    let at = format!("{}:2:17", dot.display());
    assert!(shown.contains(&format!("┌─ {at}")), "{shown}");
    let lines: Vec<&str> = shown.lines().collect();
    let quoted = lines
        .iter()
        .position(|l| l.ends_with("0 -> 1 [label=\"S?value(i32)\"];"))
        .expect("the line is quoted");
    let label = lines[quoted].find("\"S?value").unwrap();
    assert_eq!(lines[quoted + 1].find('^'), Some(label), "{shown}");
    assert!(
        lines[quoted + 1].contains("the rules stop after this action"),
        "{shown}"
    );
    // The run that goes wrong, as a note.
    assert!(
        shown.contains("= not a subtype: beside the dual"),
        "{shown}"
    );
    assert!(shown.contains("deadlock"), "{shown}");
    assert!(error.headline().starts_with(&at), "{}", error.headline());
    // `Debug`, used by `.unwrap()` and `main() -> Result`, renders the same.
    assert_eq!(format!("{error:?}"), shown);
    let source = std::error::Error::source(&error).expect("the subtyping error");
    assert!(source.to_string().contains("not an asynchronous subtype"));
}

#[test]
fn an_unknown_answer_fails_too_and_says_how_to_raise_the_bounds() {
    let out = scratch("unknown");
    let starved = subtype::Options {
        max_steps: 1,
        trees: subtype::TreeBudget {
            max_nodes: 1,
            max_work: 1,
            max_tree: 1,
        },
        ..subtype::Options::new(1)
    };
    let build = with_kernel(&example("kernel_optimised.dot"), &out).subtyping(starved);
    let error = failure(&build);
    assert_eq!(error.kind(), BuildErrorKind::Unknown, "{error}");
    let shown = error.to_string();
    assert!(
        shown
            .starts_with("subtyping neither proves nor refutes that the optimised FSM of role `K`"),
        "{shown}"
    );
    crate::support::assert_contains_all(
        &shown,
        &[
            "kernel_optimised.dot:",
            "= unknown: neither proved nor refuted",
            "1 visit per pair of states and 1 configuration:",
            "`.visits(N)`",
        ],
    );
    // With the default bounds the same kernel is proved.
    with_kernel(&example("kernel_optimised.dot"), &out)
        .generate()
        .unwrap();
}

#[test]
fn bad_inputs_fail_with_located_diagnostics() {
    let out = scratch("inputs");
    let scr = example("double_buffering.scr");

    // A role the protocol does not have: located at the digraph.
    let x = write(
        &out,
        "x.dot",
        "digraph X {\n  0 -> 1 [label=\"K!m()\"];\n}\n",
    );
    let error = failure(&Build::scribble(&scr).optimised("X", &x).out_dir(&out));
    assert_eq!(error.kind(), BuildErrorKind::Role);
    let shown = error.to_string();
    assert!(shown.starts_with("protocol `DoubleBuffering` has no role `X`"));
    assert!(shown.contains(&format!("{}:1:9", x.display())), "{shown}");
    assert!(
        shown.contains("= the roles of `DoubleBuffering` are: S, K, T"),
        "{shown}"
    );

    // A DOT file without a digraph for the role.
    let error = failure(&Build::scribble(&scr).optimised("K", &x).out_dir(&out));
    assert_eq!(error.kind(), BuildErrorKind::Dot);
    assert!(
        error.to_string().contains("has no digraph for role `K`"),
        "{error}"
    );
    assert!(
        error.to_string().contains("the digraph of role `X`"),
        "{error}"
    );

    // Malformed DOT: the line and a caret.
    let bad = write(
        &out,
        "bad.dot",
        "digraph K {\n  0 -> 1 [label=\"S#m()\"];\n}\n",
    );
    let error = failure(&Build::scribble(&scr).optimised("K", &bad).out_dir(&out));
    assert_eq!(error.kind(), BuildErrorKind::Dot);
    assert!(error.to_string().starts_with("malformed DOT: "), "{error}");
    assert!(
        error
            .headline()
            .starts_with(&format!("{}:2:19", bad.display()))
    );

    // One role optimised twice.
    let dot = example("kernel_optimised.dot");
    let twice = Build::scribble(&scr)
        .optimised("K", &dot)
        .optimised("K", &dot);
    assert_eq!(failure(&twice.out_dir(&out)).kind(), BuildErrorKind::Role);

    // An invalid protocol: the front end's diagnostic with its line and notes.
    let invalid = write(
        &out,
        "p.scr",
        "global protocol P(role A, role B) {\n  m() from A to C;\n}\n",
    );
    let error = failure(&Build::scribble(&invalid).out_dir(&out));
    assert_eq!(error.kind(), BuildErrorKind::Scribble);
    let shown = error.to_string();
    assert!(shown.starts_with("unbound role: "), "{shown}");
    assert!(
        shown.contains(&format!("┌─ {}:2:", invalid.display())),
        "{shown}"
    );
    assert!(shown.contains("m() from A to C;"), "{shown}");
    assert!(!format!("{error:?}").contains("Span"));

    // A missing file names the file.
    let missing = out.join("missing.scr");
    let error = failure(&Build::scribble(&missing).out_dir(&out));
    assert_eq!(error.kind(), BuildErrorKind::Io);
    assert!(error.to_string().contains("missing.scr"), "{error}");
}

/// `?` turns it into `anyhow::Error` or `Box<dyn Error + Send + Sync>`.
#[test]
fn build_errors_cross_threads() {
    fn error_type<E: std::error::Error + Send + Sync + 'static>(_: &E) {}
    let error = Build::scribble("missing.scr")
        .out_dir(".")
        .code()
        .unwrap_err();
    error_type(&error);
    assert_eq!(error.kind(), BuildErrorKind::Io);
}

#[test]
fn outside_a_build_script_the_output_directory_must_be_given() {
    // Integration tests of a crate without a build script have no OUT_DIR.
    assert!(std::env::var_os("OUT_DIR").is_none());
    let error = mpst_codegen::build::scribble(example("double_buffering.scr")).unwrap_err();
    assert_eq!(error.kind(), BuildErrorKind::NoOutDir);
    assert!(error.to_string().contains("OUT_DIR is not set"), "{error}");
}
