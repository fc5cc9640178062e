//! `mpst certs` as a user runs it: identities for the roles of a Scribble protocol or of
//! `--role`s, loadable by `mpst_wire::Identity`, each certificate naming its role; and
//! clear errors for bad usage, unusable role names and existing files.

use crate::support;

use std::path::{Path, PathBuf};

use support::{code, example, exits_with, mpst, stderr, stdout};

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-certs-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn identity(dir: &Path, role: &str) -> mpst_wire::Identity {
    mpst_wire::Identity::load(
        &dir.join("ca.pem"),
        &dir.join(format!("{role}.pem")),
        &dir.join(format!("{role}.key")),
    )
    .unwrap()
}

#[test]
fn certs_for_the_roles_of_a_scribble_protocol_name_each_role() {
    let dir = out_dir("scr");
    let out = mpst(&[
        "certs",
        &example("double_buffering"),
        "--name",
        "double_buffering/1",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("ca.key"), "{}", stdout(&out));
    for role in ["S", "K", "T"] {
        let id = identity(&dir, role);
        assert!(
            id.names(role, "double_buffering/1"),
            "{role}: {:?}",
            id.dns_names()
        );
        assert!(!id.names(role, "double_buffering/2"));
        for other in ["S", "K", "T"].iter().filter(|r| **r != role) {
            assert!(!id.names(other, "double_buffering/1"));
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("K.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "keys are private: {mode:o}");
    }
    // Again into the same directory: nothing is overwritten.
    let again = mpst(&[
        "certs",
        &example("double_buffering"),
        "--out",
        dir.to_str().unwrap(),
    ]);
    exits_with(&again, 2, "exists already");
}

#[test]
fn certs_for_roles_given_by_name_default_to_the_scribble_name_otherwise() {
    let dir = out_dir("roles");
    let out = mpst(&[
        "certs",
        "--role",
        "C",
        "--role",
        "KS",
        "--role",
        "S",
        "--name",
        "concurrent_send",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(identity(&dir, "KS").names("KS", "concurrent_send"));
    let dir = out_dir("default-name");
    let out = mpst(&[
        "certs",
        &example("double_buffering"),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let scr = std::fs::read_to_string(example("double_buffering")).unwrap();
    let name = scr
        .split("global protocol ")
        .nth(1)
        .and_then(|rest| rest.split(['(', ' ']).next())
        .unwrap();
    assert!(identity(&dir, "S").names("S", name), "{name}");
}

#[test]
fn bad_usage_is_an_error_that_says_what_is_expected() {
    let dir = out_dir("bad");
    let d = dir.to_str().unwrap();
    let scr = example("double_buffering");
    for (args, needle) in [
        (vec!["certs", "--out", d], "no roles"),
        (vec!["certs", &scr, "--role", "X", "--out", d], "not both"),
        (
            vec!["certs", "--role", "A", "--out", d],
            "--name STRING is needed",
        ),
        (
            vec!["certs", "--role", "a/b", "--name", "p", "--out", d],
            "cannot name a file",
        ),
        (
            vec![
                "certs", "--role", "A", "--role", "a", "--name", "p", "--out", d,
            ],
            "differ only in case",
        ),
        (
            vec![
                "certs", "--role", "A", "--role", "A", "--name", "p", "--out", d,
            ],
            "twice",
        ),
        (
            vec!["certs", "no-such-file.scr", "--out", d],
            "no-such-file.scr",
        ),
    ] {
        let out = mpst(&args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
    assert!(!dir.join("ca.pem").exists(), "nothing written on bad usage");
}
