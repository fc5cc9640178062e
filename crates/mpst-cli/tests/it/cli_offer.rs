//! Branches across peers through the CLI: `mpst generate` accepts a protocol whose role
//! learns a choice from whichever of two peers speaks first, and an optimised machine
//! whose state receives from two peers (both become an `Offer`); `mpst check` refuses a
//! race between senders that k-MC refutes, with the run.

use crate::support;

use support::{assert_contains_all, example_file, exits_with, mpst, repo, text};

#[test]
fn generates_an_offer_for_a_role_told_by_either_of_two_peers() {
    let out = mpst(&["generate", &example_file("learn_either/dispatch.scr")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let code = text(&out.stdout);
    assert_contains_all(
        &code,
        &[
            "pub type DSession = Offer<DSessionChoice>;",
            "#[from(B)]\n    Order(Order, DOrder),",
            "#[from(P)]\n    Bid(Bid, DBid),",
        ],
    );
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

#[test]
fn refuses_an_optimised_role_whose_offer_can_meet_an_early_message_with_the_run() {
    // Subtyping proves the desk (its queues keep B's `part` until it wants it), but the
    // generated `Offer` can meet that `part` first: exit 1, located, with the run.
    let dir = repo().join("crates/mpst-codegen/tests/offer");
    let dot = dir.join("early_d.dot");
    let scr = dir.join("early.scr");
    let spec = format!("D={}", dot.display());
    let out = mpst(&[
        "generate",
        scr.to_str().unwrap(),
        "--optimised",
        &spec,
        "--color",
        "never",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty(), "nothing is generated");
    assert!(
        err.contains("can fail at run time (`UnexpectedLabel`)"),
        "{err}"
    );
    assert!(err.contains(&format!("┌─ {}:4:3", dot.display())), "{err}");
    assert!(err.contains("D cannot receive part(i32) from B"), "{err}");
    assert!(err.contains("B: D!part(i32)"), "{err}");
}

#[test]
fn kmc_with_offer_checks_dot_systems_as_the_generated_code_runs_them() {
    // The early desk beside the projections of B and P: k-MC holds for CFSMs (the early
    // `part` waits in its queue) and fails under --offer, with the run.
    let dir = repo().join("crates/mpst-codegen/tests/offer");
    let scr = dir.join("early.scr");
    let mut files = Vec::new();
    for role in ["B", "P"] {
        let out = mpst(&["project", "--role", role, scr.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        files.push(support::scratch_file(
            "offer-kmc",
            &format!("{role}.dot"),
            &out.stdout,
        ));
    }
    files.push(dir.join("early_d.dot"));
    let mut args: Vec<&str> = vec!["kmc", "-k", "2"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    let plain = mpst(&args);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stdout));
    args.push("--offer");
    let offer = mpst(&args);
    let shown = text(&offer.stdout);
    assert_eq!(offer.status.code(), Some(1), "{shown}");
    assert!(
        shown.contains("D cannot receive part(i32) from B"),
        "{shown}"
    );
    assert!(shown.contains("B: D!part(i32)"), "{shown}");
}

#[test]
fn project_one_role_does_not_skip_the_race_check() {
    // `offer_race.scr`'s race is C's; projecting A alone refuses it all the same.
    let file = repo().join("crates/mpst-scribble/tests/protocols/invalid/offer_race.scr");
    let out = mpst(&["project", "--role", "A", file.to_str().unwrap()]);
    exits_with(&out, 1, "does not prove the projections safe");
    assert!(out.stdout.is_empty(), "nothing is printed");
}

#[test]
fn report_runs_k_mc_as_the_offer_runs_the_optimised_desk() {
    // Subtyping proves the early desk, but k-MC with it in place, as the runtime's
    // `Offer` runs it, fails with the run: the report fails.
    let dir = repo().join("crates/mpst-codegen/tests/offer");
    let spec = format!("D={}", dir.join("early_d.dot").display());
    let page = support::scratch_file("offer-report", "early.html", "");
    let out = mpst(&[
        "report",
        dir.join("early.scr").to_str().unwrap(),
        "--optimised",
        &spec,
        "-o",
        page.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("k-MC (with the optimised machines, as the generated Offer runs them)"),
        "{html}"
    );
    assert!(
        html.contains("D cannot receive part(i32) from B"),
        "the run's failure is shown"
    );
}

#[test]
fn a_too_small_offer_budget_is_not_proved_never_refuted_and_the_default_proves() {
    let spec = format!("D={}", example_file("learn_either/gather_optimised.dot"));
    let file = example_file("learn_either/gather.scr");
    let generate = |extra: &[&str]| {
        let mut args = vec!["generate", &file, "--optimised", &spec, "--color", "never"];
        args.extend_from_slice(extra);
        mpst(&args)
    };
    let out = generate(&["--offer-configurations", "1"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "not proved: {err}");
    assert!(out.stdout.is_empty(), "nothing is generated");
    assert!(err.contains("not proved"), "{err}");
    assert!(
        !err.contains("refuted"),
        "a budget reached refutes nothing: {err}"
    );
    assert!(err.contains("gather_optimised.dot:"), "located: {err}");
    assert!(
        err.contains("--offer-configurations N"),
        "how to raise it: {err}"
    );
    let out = generate(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("pub type DOptimised"));
}
