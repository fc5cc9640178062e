//! The `--optimised` check of code generation has three answers: an optimised role is
//! swapped in when proved, refused with a run that goes wrong when refuted (beside the
//! projection's dual), refused as unknown otherwise.

use mpst_codegen::{generate_scribble, GenerateError};
use mpst_fsm::kmc::ViolationKind;
use mpst_fsm::{Fsm, LocalType};

const DOUBLE_BUFFERING: &str =
    include_str!("../../../examples/double_buffering/double_buffering.scr");

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
