//! The `--optimised` check of code generation has three answers: an optimised role is
//! generated (beside the projections, under its own name) when proved, refused with a run
//! that goes wrong when refuted (beside the projection's dual), refused as unknown
//! otherwise; and the module it is generated into.

use mpst_codegen::{CodegenError, GenerateError, Options, generate_optimised, generate_scribble};
use mpst_fsm::kmc::ViolationKind;
use mpst_fsm::{Fsm, LocalType};

const DOUBLE_BUFFERING: &str =
    include_str!("../../../../examples/double_buffering/double_buffering.scr");

fn fsm(role: &str, text: &str) -> Fsm {
    LocalType::parse(text).unwrap().to_fsm(role).unwrap()
}

const KERNEL: &str = "rec x. S!ready(). S?value(i32). T?ready(). T!value(i32). x";

#[test]
fn proved_refuted_and_unknown_optimisations() {
    let ahead = fsm("K", &format!("S!ready(). {KERNEL}"));
    assert!(
        generate_scribble("double_buffering.scr", DOUBLE_BUFFERING, None, &[ahead], 10).is_ok()
    );

    let early = fsm(
        "K",
        "rec x. S?value(i32). S!ready(). T?ready(). T!value(i32). x",
    );
    let err = generate_scribble("double_buffering.scr", DOUBLE_BUFFERING, None, &[early], 10)
        .unwrap_err();
    let GenerateError::NotSubtype { role, refutation } = &err else {
        panic!("{err}")
    };
    assert_eq!(role, "K");
    assert!(
        matches!(refutation.run.kind, ViolationKind::Deadlock { .. }),
        "{err}"
    );

    let three = fsm("K", &format!("S!ready(). S!ready(). S!ready(). {KERNEL}"));
    let err =
        generate_scribble("double_buffering.scr", DOUBLE_BUFFERING, None, &[three], 1).unwrap_err();
    assert!(matches!(err, GenerateError::Unknown { .. }), "{err}");
    assert!(err.to_string().contains("nor refuted"), "{err}");
}

/// The projections of double buffering, as FSMs.
fn projections() -> Vec<Fsm> {
    let loaded = mpst_scribble::load("double_buffering.scr", DOUBLE_BUFFERING, None).unwrap();
    loaded.projections.into_iter().map(|p| p.fsm).collect()
}

#[test]
fn an_optimised_role_is_generated_under_its_own_name_after_the_unchanged_projections() {
    let options = Options::default();
    let plain = generate_optimised("DoubleBuffering", &projections(), &[], &options).unwrap();
    let ahead = fsm("K", &format!("S!ready(). {KERNEL}"));
    let shared = generate_optimised("DoubleBuffering", &projections(), &[ahead], &options).unwrap();
    // Roles, labels and every projection's types come first and are those of the module
    // without the optimised role: the peers' code sees the same module.
    let (same, added) = shared.split_at(plain.len());
    assert_eq!(same, plain);
    for declared in [
        "pub type KOptimised = Send<S, Ready, KOptimisedAfterReady>;",
        "pub struct KOptimisedAfterReady(pub Send<S, Ready, KOptimisedAfterReady2>);",
    ] {
        assert!(added.contains(declared), "{declared} in {added}");
    }
    assert!(!added.contains("pub struct K "), "{added}");
    assert!(!added.contains("enum Label"), "{added}");
}

#[test]
fn optimised_machines_for_unknown_or_repeated_roles_are_refused() {
    let options = Options::default();
    let stranger = fsm("X", "S!ready(). end");
    let err =
        generate_optimised("DoubleBuffering", &projections(), &[stranger], &options).unwrap_err();
    assert!(
        matches!(&err, CodegenError::OptimisedUnknownRole { role, available }
            if role == "X" && available == &["K", "S", "T"]),
        "{err}"
    );
    let twice = [fsm("K", KERNEL), fsm("K", KERNEL)];
    let err = generate_optimised("DoubleBuffering", &projections(), &twice, &options).unwrap_err();
    assert_eq!(err, CodegenError::DuplicateRole("K".into()));
}

#[test]
fn an_optimised_choice_names_its_types_after_the_optimised_role() {
    let projections = [
        fsm("K", "S!{a(). S!c(). end, b(). end}"),
        fsm("S", "K?{a(). K?c(). end, b(). end}"),
    ];
    let optimised = fsm("K", "S!{a(). S!c(). end, b(). end}");
    let code = generate_optimised("P", &projections, &[optimised], &Options::default()).unwrap();
    for declared in [
        "pub type KSession = Select<S, KSessionChoice>;",
        "pub type KOptimised = Select<S, KOptimisedChoice>;",
        "pub enum KOptimisedChoice {",
        "A(A, KOptimisedA),",
        "pub type KOptimisedA = Send<S, C, End>;",
    ] {
        assert!(code.contains(declared), "{declared} in {code}");
    }
}
