//! `mpst generate` run as a user runs it: the built binary, its output and exit status.

use crate::support;

use std::path::{Path, PathBuf};

use support::{example, exits_with, mpst, scratch_file, text};

fn double_buffering() -> String {
    example("double_buffering")
}

fn temp(name: &str, contents: &str) -> PathBuf {
    scratch_file("cli_generate", name, contents)
}

#[test]
fn generates_the_projected_api() {
    let out = mpst(&["generate", &double_buffering()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let code = text(&out.stdout);
    assert!(
        code.contains("pub struct KSession(pub Send<S, Ready, KAfterReady>);"),
        "{code}"
    );
    assert!(
        code.contains("pub type KAfterReady = Receive<S, Value, KAfterValue>;"),
        "{code}"
    );
}

#[test]
fn generates_an_optimised_role_that_is_a_subtype_beside_the_projections() {
    // The kernel of Listing 3: two readies up front, then the loop.
    let kernel = temp(
        "kernel.dot",
        r#"digraph K {
  0; 1; 2; 3; 4;
  0 -> 1 [label="S!ready()", ];
  1 -> 2 [label="S!ready()", ];
  2 -> 3 [label="S?value(i32)", ];
  3 -> 4 [label="T?ready()", ];
  4 -> 1 [label="T!value(i32)", ];
}"#,
    );
    let output = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_generate/db.rs");
    let spec = format!("K={}", kernel.display());
    let out = mpst(&[
        "generate",
        &double_buffering(),
        "--optimised",
        &spec,
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let code = std::fs::read_to_string(&output).unwrap();
    assert!(
        code.contains("pub type KOptimised = Send<S, Ready, KOptimisedAfterReady>;"),
        "{code}"
    );
    assert!(
        code.contains(
            "pub struct KOptimisedAfterReady(pub Send<S, Ready, KOptimisedAfterReady2>);"
        ),
        "{code}"
    );
    // One module: the projections (roles, labels and every role's session type) are
    // those generated without the optimised role, which comes after them.
    let plain = mpst(&["generate", &double_buffering()]);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stderr));
    let plain = text(&plain.stdout);
    assert!(code.starts_with(plain.trim_end()), "{code}");
    assert!(code.contains("pub struct KSession(pub Send<S, Ready, KAfterReady>);"));
}

#[test]
fn refuses_an_optimised_role_that_is_not_a_subtype() {
    // Receiving the value before asking for it deadlocks.
    let kernel = temp(
        "bad_kernel.dot",
        r#"digraph K {
  0 -> 1 [label="S?value(i32)", ];
  1 -> 2 [label="S!ready()", ];
  2 -> 3 [label="T?ready()", ];
  3 -> 0 [label="T!value(i32)", ];
}"#,
    );
    let spec = format!("K={}", kernel.display());
    let out = mpst(&["generate", &double_buffering(), "--optimised", &spec]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("is not an asynchronous subtype of its projection"),
        "{err}"
    );
    assert!(err.contains("deadlock"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn an_optimised_role_neither_proved_nor_refuted_exits_3_and_bounds_are_checked() {
    // Three readies ahead need more than one visit: with one the answer is unknown.
    let kernel = temp(
        "eager_kernel.dot",
        r#"digraph K {
  0 -> 1 [label="S!ready()", ];
  1 -> 2 [label="S!ready()", ];
  2 -> 3 [label="S!ready()", ];
  3 -> 4 [label="S?value(i32)", ];
  4 -> 5 [label="T?ready()", ];
  5 -> 6 [label="T!value(i32)", ];
  6 -> 3 [label="S!ready()", ];
}"#,
    );
    let spec = format!("K={}", kernel.display());
    let out = mpst(&[
        "generate",
        &double_buffering(),
        "--optimised",
        &spec,
        "--visits",
        "1",
    ]);
    let err = exits_with(&out, 3, "nor refuted");
    assert!(err.contains("the bound was reached"), "{err}");
    assert!(out.stdout.is_empty());
    let out = mpst(&["generate", &double_buffering(), "--optimised", &spec]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for bad in ["0", "18446744073709551615"] {
        let out = mpst(&["generate", &double_buffering(), "--visits", bad]);
        exits_with(&out, 2, "a bound must be at");
    }
}

#[test]
fn bad_input_exits_2() {
    let broken = temp(
        "broken.scr",
        "global protocol P(role A, role B) { x() from A B; }",
    );
    let out = mpst(&["generate", broken.to_str().unwrap()]);
    exits_with(&out, 2, "broken.scr:1:");

    let out = mpst(&["generate", &double_buffering(), "--optimised", "K"]);
    exits_with(&out, 2, "ROLE=FSM.dot");

    let kernel = temp("other.dot", "digraph Z { 0 -> 1 [label=\"S!ready()\"]; }");
    let spec = format!("Z={}", kernel.display());
    let out = mpst(&["generate", &double_buffering(), "--optimised", &spec]);
    exits_with(&out, 2, "protocol `DoubleBuffering` has no role `Z`");
    // Located at the digraph, with the roles the protocol has.
    let err = text(&out.stderr);
    assert!(err.contains(&format!("{}:1:9", kernel.display())), "{err}");
    assert!(
        err.contains("the roles of `DoubleBuffering` are: S, K, T"),
        "{err}"
    );
}

#[test]
fn a_protocol_without_rust_api_exits_1() {
    // Label `b` and role `B` would both be the Rust type `B`.
    let clash = temp(
        "clash.scr",
        "global protocol P(role A, role B) { b() from A to B; }",
    );
    let out = mpst(&["generate", clash.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("label `b`") && err.contains("role `B`"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn an_invalid_protocol_exits_1_with_its_diagnostics() {
    let reflexive = temp(
        "reflexive.scr",
        "global protocol P(role A, role B) {\n  x() from A to A;\n}\n",
    );
    let out = mpst(&["generate", reflexive.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("reflexive.scr:2:"), "{err}");
    assert!(err.contains("reflexive.scr: invalid (1 error)"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn serde_derives_the_labels_on_request() {
    let plain = mpst(&["generate", &double_buffering()]);
    let serde = mpst(&["generate", "--serde", &double_buffering()]);
    assert_eq!(serde.status.code(), Some(0), "{}", text(&serde.stderr));
    let (plain, serde) = (text(&plain.stdout), text(&serde.stdout));
    assert!(
        serde
            .contains("#[derive(Message, serde::Serialize, serde::Deserialize)]\npub enum Label {"),
        "{serde}"
    );
    assert!(
        serde.contains(
            "#[derive(Debug, Clone, PartialEq, Payload, serde::Serialize, serde::Deserialize)]\npub struct Ready;"
        ),
        "{serde}"
    );
    // Nothing else changes.
    assert_eq!(
        serde.replace(", serde::Serialize, serde::Deserialize", ""),
        plain
    );
}

#[test]
fn the_channel_type_is_an_option() {
    let out = mpst(&[
        "generate",
        "--channel",
        "mpst::net::AnyRoute<Label>",
        &double_buffering(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("pub type Channel = mpst::net::AnyRoute<Label>;"));
}

/// Issue 15: `mpst subtype` read nuscr's `int` as `i32` while projection kept `int`, so
/// `subtype` accepted an optimised machine that `generate --optimised` refused. One sort
/// rule now serves both: they agree, whichever spelling each file uses.
#[test]
fn subtype_and_generate_optimised_agree_on_int_vs_i32() {
    let scr = temp(
        "int_vs_i32.scr",
        "global protocol P(role K, role S) {\n  \
         rec L { ready() from K to S; value(int) from S to K; continue L; }\n}\n",
    );
    // The projection as nuscr prints it (`int`), and as `mpst project` prints it.
    let proj_int = temp(
        "k_proj_int.dot",
        "digraph K {\n  0 -> 1 [label=\"S!ready()\", ];\n  1 -> 0 [label=\"S?value(int)\", ];\n}\n",
    );
    let projected = mpst(&["project", scr.to_str().unwrap(), "--role", "K"]);
    assert_eq!(projected.status.code(), Some(0));
    assert!(text(&projected.stdout).contains("S?value(i32)"));
    let proj_i32 = temp("k_proj_i32.dot", &text(&projected.stdout));
    // One ready sent ahead, in either spelling; and a payload of another sort.
    let ahead = |sort: &str| {
        format!(
            "digraph K {{\n  0 -> 1 [label=\"S!ready()\"];\n  1 -> 2 [label=\"S!ready()\"];\n  \
             2 -> 1 [label=\"S?value({sort})\"];\n}}\n"
        )
    };
    let cases = [
        ("k_opt_int.dot", ahead("int"), 0),
        ("k_opt_i32.dot", ahead("i32"), 0),
        ("k_opt_u8.dot", ahead("u8"), 1),
    ];
    for (name, dot, expected) in cases {
        let opt = temp(name, &dot);
        let opt = opt.to_str().unwrap();
        for proj in [&proj_int, &proj_i32] {
            let subtype = mpst(&["subtype", opt, proj.to_str().unwrap()]);
            assert_eq!(
                subtype.status.code(),
                Some(expected),
                "subtype {name} {}: {}",
                proj.display(),
                text(&subtype.stdout)
            );
        }
        let generate = mpst(&[
            "generate",
            scr.to_str().unwrap(),
            "--optimised",
            &format!("K={opt}"),
        ]);
        assert_eq!(
            generate.status.code(),
            Some(expected),
            "generate --optimised K={name}: {}",
            text(&generate.stderr)
        );
    }
}
