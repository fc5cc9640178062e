//! Generates the session APIs of the classic protocols from their Scribble files at build
//! time (the top-down workflow of PPoPP 2022 §2.1 without a CLI step): each
//! `<name>/<name>.scr` becomes `$OUT_DIR/<name>.rs`, which the example `include!`s inside a
//! module. Nothing generated is committed; editing a `.scr` regenerates its API.

use std::process::ExitCode;

/// The classics generated here: (Scribble file, protocol when the file has several).
const CLASSICS: &[(&str, Option<&str>)] = &[
    ("travel_agency/travel_agency.scr", None),
    ("oauth/oauth.scr", None),
    ("ring_max/ring_max.scr", None),
    ("map_reduce/map_reduce.scr", None),
    ("plus_minus/plus_minus.scr", None),
    ("simple_auth/simple_auth.scr", Some("SimpleAuth")),
    ("supplier_info/supplier_info.scr", None),
    ("auction/auction.scr", None),
    // A `continue`-led branch inside a choice (nuscr's `ChoiceRec`), unfolded by the
    // front end.
    ("retry/retry.scr", None),
];

/// Generated with serde derives and routes that run in memory or over TCP
/// (`mpst generate --serde --channel mpst::net::AnyRoute<Label>`), for their multi-process
/// runs (`<name>/net.rs`).
const NETWORKED: &[&str] = &["three_buyers/three_buyers.scr"];

/// Generated with the optimised kernel of PPoPP 2022 Listing 3 beside the projections
/// (`KOptimised` beside `KSession`), once subtyping proves it safe (the optimised top-down
/// workflow), with serde derives and routes that run in memory or over TCP: one module for
/// every double-buffering example (`double_buffering/protocol.rs`), whose source and sink
/// run unchanged beside any kernel. A refuted or unproved kernel fails the build with its
/// diagnostic.
fn double_buffering() -> Result<std::path::PathBuf, mpst_codegen::build::BuildError> {
    mpst_codegen::build::Build::scribble("double_buffering/double_buffering.scr")
        .optimised("K", "double_buffering/kernel_optimised.dot")
        .options(networked())
        .generate()
}

/// Serde derives on the labels and routes that run in memory or over TCP
/// (`mpst generate --serde --channel mpst::net::AnyRoute<Label>`).
fn networked() -> mpst_codegen::Options {
    mpst_codegen::Options::default()
        .serde(true)
        .channel("mpst::net::AnyRoute<Label>")
}

/// A desk that learns a choice from whichever of two peers speaks first (`Offer` in its
/// projection), and a desk gathering parts whose optimised machine receives from two
/// peers in one state (`DOptimised`, generated once subtyping proves it).
fn learn_either() -> Result<(), mpst_codegen::build::BuildError> {
    mpst_codegen::build::Build::scribble("learn_either/dispatch.scr").generate()?;
    mpst_codegen::build::Build::scribble("learn_either/gather.scr")
        .optimised("D", "learn_either/gather_optimised.dot")
        .generate()?;
    Ok(())
}

fn main() -> ExitCode {
    let mut failed = false;
    if let Err(error) = double_buffering() {
        eprintln!("error: {error}");
        failed = true;
    }
    if let Err(error) = learn_either() {
        eprintln!("error: {error}");
        failed = true;
    }
    for scr in NETWORKED {
        if let Err(error) = mpst_codegen::build::scribble_with(scr, None, &networked()) {
            eprintln!("error: {error}");
            failed = true;
        }
    }
    for &(scr, protocol) in CLASSICS {
        if let Err(error) = mpst_codegen::build::scribble_protocol(scr, protocol) {
            // Cargo shows a build script's stderr when it fails.
            eprintln!("error: {error}");
            failed = true;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
