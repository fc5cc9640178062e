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
];

/// Generated with serde derives and routes that run in memory or over TCP
/// (`mpst generate --serde --channel mpst::net::AnyRoute<Label>`), for their multi-process
/// runs (`<name>/net.rs`).
const NETWORKED: &[&str] = &["three_buyers/three_buyers.scr"];

/// Generated with an optimised role swapped in once subtyping proves it safe (the
/// optimised top-down workflow): the kernel of PPoPP 2022 Listing 3, for
/// `double_buffering/built.rs`. A refuted or unproved kernel fails the build with its
/// diagnostic.
fn optimised() -> Result<std::path::PathBuf, mpst_codegen::build::BuildError> {
    mpst_codegen::build::Build::scribble("double_buffering/double_buffering.scr")
        .optimised("K", "double_buffering/kernel_optimised.dot")
        .out_file("double_buffering_optimised.rs")
        .generate()
}

fn main() -> ExitCode {
    let mut failed = false;
    if let Err(error) = optimised() {
        eprintln!("error: {error}");
        failed = true;
    }
    let networked = mpst_codegen::Options::default()
        .serde(true)
        .channel("mpst::net::AnyRoute<Label>");
    for scr in NETWORKED {
        if let Err(error) = mpst_codegen::build::scribble_with(scr, None, &networked) {
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
