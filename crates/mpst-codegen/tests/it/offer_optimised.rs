//! Optimised roles that wait on several peers at once (generated as an `Offer`, which
//! takes the first message of any of them and fails on one it does not take): beyond
//! subtyping, the system with them swapped in must be proved by k-MC under the `Offer`
//! semantics. A role that subtyping proves but that can meet an early message is refused
//! with the run, by the build helper and by `generate_scribble`; a safe one is generated.

use std::path::{Path, PathBuf};

use mpst_codegen::build::{Build, BuildErrorKind};
use mpst_codegen::{DEFAULT_VISITS, GenerateError, check_offers, prove_optimised};
use mpst_fsm::kmc::ViolationKind;
use mpst_fsm::subtype;

fn here(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/offer")
        .join(file)
}

fn example(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/learn_either")
        .join(file)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// A fresh directory for this test's outputs.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("offer-{name}"));
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn subtyping_proves_the_early_desk_but_the_offer_check_refutes_it_with_the_run() {
    let loaded = mpst_scribble::load("early.scr", &read(&here("early.scr")), None).unwrap();
    let desk = mpst_fsm::parse_dot(&read(&here("early_d.dot"))).unwrap();
    let options = subtype::Options::new(DEFAULT_VISITS);
    let verdicts = mpst_codegen::check_optimised(&loaded, &desk, &options).unwrap();
    assert!(verdicts[0].is_subtype(), "subtyping alone proves it");
    let Err(GenerateError::OfferRefuted { role, violation }) = check_offers(&loaded, &desk) else {
        panic!("the early `part` from B is not caught");
    };
    assert_eq!(role, "D");
    assert!(violation.is_definitive(), "{violation}");
    let ViolationKind::UnspecifiedReception {
        role,
        from,
        message,
        ..
    } = &violation.kind
    else {
        panic!("{violation}");
    };
    assert_eq!((role.as_str(), from.as_str()), ("D", "B"));
    assert_eq!(message.label, "part");
    assert!(
        violation
            .trace
            .iter()
            .any(|s| s.to_string() == "B: D!part(i32)"),
        "{violation}"
    );
    assert!(matches!(
        prove_optimised(&loaded, &desk, &options),
        Err(GenerateError::OfferRefuted { .. })
    ));
    let refused = mpst_codegen::generate_scribble(
        "early.scr",
        &read(&here("early.scr")),
        None,
        &desk,
        DEFAULT_VISITS,
    );
    assert!(matches!(refused, Err(GenerateError::OfferRefuted { .. })));
}

#[test]
fn the_build_helper_refuses_the_early_desk_located_in_its_dot_file() {
    let out = scratch("early");
    let dot = here("early_d.dot");
    let build = Build::scribble(here("early.scr"))
        .optimised("D", &dot)
        .out_dir(&out)
        .out_file("early.rs");
    let error = match build.generate() {
        Ok(path) => panic!("generated {}", path.display()),
        Err(error) => error,
    };
    assert_eq!(error.kind(), BuildErrorKind::UnsafeOffer);
    assert!(!out.join("early.rs").exists(), "nothing is written");
    let shown = error.to_string();
    assert!(
        shown.starts_with(
            "with the optimised FSM of role `D`, protocol `Early` can fail at run time \
             (`UnexpectedLabel`)"
        ),
        "{shown}"
    );
    // Located at state 0 of the DOT file, the state that waits on `P` and `B`.
    assert!(
        shown.contains(&format!("┌─ {}:4:3", dot.display())),
        "{shown}"
    );
    assert!(
        shown.contains(
            "this state waits on several peers and can take a message it does not expect"
        ),
        "{shown}"
    );
    // The run, ending where `part` from `B` heads D's queue.
    crate::support::assert_contains_all(
        &shown,
        &[
            "D cannot receive part(i32) from B",
            "B: D!part(i32)",
            "queues B→D [part(i32)",
        ],
    );
}

#[test]
fn a_safe_optimised_desk_waiting_on_two_peers_is_generated() {
    let out = scratch("gather");
    let written = Build::scribble(example("gather.scr"))
        .optimised("D", example("gather_optimised.dot"))
        .out_dir(&out)
        .out_file("gather.rs")
        .generate()
        .unwrap();
    let code = read(&written);
    assert!(
        code.contains("pub type DOptimised = Offer<DOptimisedChoice>;"),
        "{code}"
    );

    let loaded = mpst_scribble::load("gather.scr", &read(&example("gather.scr")), None).unwrap();
    let desk = mpst_fsm::parse_dot(&read(&example("gather_optimised.dot"))).unwrap();
    assert!(check_offers(&loaded, &desk).is_ok());
}

#[test]
fn an_optimised_sender_that_lets_a_projected_offer_meet_an_early_message_is_refused() {
    // `D`'s projection learns from whichever of `B` and `P` speaks first, and `B`
    // sends `more` in the second branch only once `D` answered `P`: the projections are
    // safe. An optimised `B` that sends `more` before `ok` (subtyping lets a role
    // anticipate its sends) makes `more` reach D's `Offer` before `P`'s `stop`.
    let scr = "global protocol Early(role B, role P, role D) {
      choice at B {
        go() from B to D;
        more() from B to D;
        wait() from B to P;
      } or {
        stop() from B to P;
        stop() from P to D;
        ok() from D to B;
        more() from B to D;
      }
    }";
    let loaded = mpst_scribble::load("early.scr", scr, None).unwrap();
    let b = mpst_fsm::parse_dot(
        "digraph B {
          0 -> 1 [label=\"D!go()\"];
          1 -> 2 [label=\"D!more()\"];
          2 -> 3 [label=\"P!wait()\"];
          0 -> 4 [label=\"P!stop()\"];
          4 -> 5 [label=\"D!more()\"];
          5 -> 3 [label=\"D?ok()\"];
        }",
    )
    .unwrap();
    let options = subtype::Options::new(DEFAULT_VISITS);
    let verdicts = mpst_codegen::check_optimised(&loaded, &b, &options).unwrap();
    assert!(verdicts[0].is_subtype(), "{:?}", verdicts[0]);
    assert!(
        matches!(
            check_offers(&loaded, &b),
            Err(GenerateError::OfferRefuted { .. })
        ),
        "D's Offer meets `late` first"
    );
}

/// The `Offer` check with a budget of one configuration, too small for any system here.
fn one_configuration() -> mpst_fsm::kmc::KmcOptions {
    mpst_fsm::kmc::KmcOptions {
        max_configurations: 1,
        ..mpst_fsm::kmc::offer_options()
    }
}

#[test]
fn a_budget_too_small_for_the_offer_check_is_not_proved_never_refuted() {
    let options = subtype::Options::new(DEFAULT_VISITS);
    // The safe desk and the early one alike: the check gives up before either answer.
    for (scr, dot) in [
        (example("gather.scr"), example("gather_optimised.dot")),
        (here("early.scr"), here("early_d.dot")),
    ] {
        let loaded = mpst_scribble::load("p.scr", &read(&scr), None).unwrap();
        let desk = mpst_fsm::parse_dot(&read(&dot)).unwrap();
        let result = mpst_codegen::check_offers_with(&loaded, &desk, &one_configuration());
        let Err(error @ GenerateError::OfferUnproved { .. }) = result else {
            panic!("{}: expected not proved, got {result:?}", dot.display());
        };
        let GenerateError::OfferUnproved { role, k, why } = &error else {
            unreachable!()
        };
        assert_eq!((role.as_str(), *k), ("D", 2));
        assert!(why.contains("gave up after 1 configuration"), "{why}");
        assert!(
            why.contains("`.offer_configurations(N)` in build.rs"),
            "{why}"
        );
        let shown = error.to_string();
        assert!(shown.contains("nor refute it"), "{shown}");
        assert!(!shown.contains("can fail"), "{shown}");
        assert!(matches!(
            mpst_codegen::prove_optimised_with(&loaded, &desk, &options, &one_configuration()),
            Err(GenerateError::OfferUnproved { .. })
        ));
    }
}

#[test]
fn the_build_helper_reports_a_too_small_offer_budget_as_unknown_with_how_to_raise_it() {
    let out = scratch("gather-budget");
    let build = Build::scribble(example("gather.scr"))
        .optimised("D", example("gather_optimised.dot"))
        .out_dir(&out)
        .out_file("gather.rs");
    let error = match build.clone().offer_configurations(1).generate() {
        Ok(path) => panic!("generated {}", path.display()),
        Err(error) => error,
    };
    assert_eq!(error.kind(), BuildErrorKind::Unknown);
    assert!(!out.join("gather.rs").exists(), "nothing is written");
    let shown = error.to_string();
    crate::support::assert_contains_all(
        &shown,
        &[
            "does not prove the system safe as the runtime runs it, nor refute it",
            "not proved: gave up after 1 configuration",
            ".offer_configurations(N)",
        ],
    );
    assert!(!shown.contains("UnexpectedLabel"), "{shown}");
    // The default budget proves it.
    assert!(build.generate().is_ok());
}
