//! Branches across peers through the CLI: `mpst generate` accepts a protocol whose role
//! learns a choice from whichever of two peers speaks first, and an optimised machine
//! whose state receives from two peers (both become an `Offer`); `mpst check` refuses a
//! race between senders that k-MC refutes, with the run.

mod support;

use support::{example_file, mpst, repo, text};

#[test]
fn generates_an_offer_for_a_role_told_by_either_of_two_peers() {
    let out = mpst(&["generate", &example_file("learn_either/dispatch.scr")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let code = text(&out.stdout);
    assert!(
        code.contains("pub type DSession = Offer<DSessionChoice>;"),
        "{code}"
    );
    assert!(
        code.contains("#[from(B)]\n    Order(Order, DOrder),"),
        "{code}"
    );
    assert!(code.contains("#[from(P)]\n    Bid(Bid, DBid),"), "{code}");
}

#[test]
fn generates_an_optimised_role_receiving_from_two_peers_in_one_state() {
    let spec = format!("D={}", example_file("learn_either/gather_optimised.dot"));
    let out = mpst(&[
        "generate",
        &example_file("learn_either/gather.scr"),
        "--optimised",
        &spec,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let code = text(&out.stdout);
    assert!(
        code.contains("pub type DOptimised = Offer<DOptimisedChoice>;"),
        "{code}"
    );
    // `part` comes from both peers: one variant per sender.
    assert!(code.contains("#[from(B)]\n    PartB(Part, "), "{code}");
    assert!(code.contains("#[from(P)]\n    PartP(Part, "), "{code}");
    // The projection still waits for B first.
    assert!(
        code.contains("pub type DSession = Receive<B, Part, "),
        "{code}"
    );
}

#[test]
fn a_race_between_senders_that_k_mc_refutes_is_invalid() {
    let file = repo().join("crates/mpst-scribble/tests/protocols/invalid/offer_race.scr");
    let out = mpst(&["check", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("does not prove the projections safe"), "{err}");
    assert!(err.contains("never received"), "{err}");
}
