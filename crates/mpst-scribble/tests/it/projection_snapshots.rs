//! Snapshots of the projections of every protocol in the repository's `examples/` (the
//! classics among them) and in `tests/protocols/`: for each role its local type and its FSM in
//! nuscr's DOT. Data-driven: a new `.scr` file gets its snapshot on the next
//! `INSTA_UPDATE=always cargo test -p mpst-scribble --test it -- projection_snapshots::` (or
//! `cargo insta review`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mpst_fsm::format::write_dot;
use mpst_scribble::{check, parse, project, project_all, project_fsm};

/// Every `.scr` file under `dir`, sorted.
fn scribble_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            // Malformed protocols have their own test (`projection_invalid`).
            if !path.ends_with("invalid") {
                scribble_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "scr") {
            out.push(path);
        }
    }
}

fn corpus() -> Vec<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    scribble_files(&manifest.join("../../examples"), &mut files);
    scribble_files(&manifest.join("tests/protocols"), &mut files);
    files.sort();
    files
}

#[test]
fn corpus_is_complete() {
    let files = corpus();
    let stems: Vec<String> = files
        .iter()
        .filter_map(|f| f.file_stem()?.to_str().map(str::to_owned))
        .collect();
    for classic in [
        "three_buyers",
        "travel_agency",
        "oauth",
        "plus_minus",
        "ring_max",
        "map_reduce",
        "simple_auth",
        "two_adder",
        "streaming",
    ] {
        assert!(stems.iter().any(|s| s == classic), "{classic} is missing");
    }
}

#[test]
fn every_role_of_every_protocol_projects_as_recorded() {
    let mut checked = 0;
    for file in corpus() {
        let source = std::fs::read_to_string(&file).expect("readable");
        let protocols =
            parse(&source).unwrap_or_else(|e| panic!("{} does not parse: {e:?}", file.display()));
        let stem = file.file_stem().and_then(|s| s.to_str()).expect("a name");
        for protocol in &protocols {
            assert_eq!(check(protocol), vec![], "{}", file.display());
            let all = project_all(protocol).expect("every role projects");
            let mut text = String::new();
            for (role, projection) in protocol.roles.iter().zip(&all) {
                let local = project(protocol, &role.text).expect("projects");
                let fsm = project_fsm(protocol, &role.text).expect("projects");
                assert_eq!(local, projection.local);
                assert_eq!(fsm, projection.fsm);
                // The FSM is the local type's, up to state sharing.
                let direct = local.to_fsm(&role.text).expect("an FSM");
                assert_eq!(direct.peers(), fsm.peers());
                assert!(fsm.state_count() <= direct.state_count());
                writeln!(
                    text,
                    "// role {}\n// {local}\n{}",
                    role.text,
                    write_dot(&fsm)
                )
                .expect("a string");
            }
            let name = format!("{stem}__{}", protocol.name.text);
            insta::assert_snapshot!(name, text);
            checked += 1;
        }
    }
    assert!(checked >= 18, "only {checked} protocols");
}
