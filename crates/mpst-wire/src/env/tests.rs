//! Environment variables over TOML files: precedence, every variable, and errors that
//! name the variable or the file's line and column.

use std::path::Path;
use std::time::Duration;

use super::*;
use crate::config::Security;

fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn temp() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "mpst-wire-env-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn variables_alone_configure_a_role() {
    let config = Sources::new()
        .default_protocol("ping/1")
        .var("MPST_ROLE", "A")
        .var("MPST_LISTEN", "0.0.0.0:7000")
        .var("MPST_PEER_B", "b.example:7001")
        .var("MPST_PEER_C", "")
        .var("MPST_CA", "/certs/ca.pem")
        .var("MPST_CERT", "/certs/{role}.pem")
        .var("MPST_KEY", "/certs/{role}.key")
        .var("MPST_CONNECT_TIMEOUT", "3s")
        .var("MPST_HANDSHAKE_TIMEOUT", "250ms")
        .var("MPST_RECEIVE_TIMEOUT", "none")
        .var("MPST_IDLE_TIMEOUT", "2m")
        .var("MPST_MAX_PENDING_HANDSHAKES", "8")
        .var("MPST_MAX_FRAME_LENGTH", "1024")
        .load()
        .unwrap();
    assert_eq!(config.role(), "A");
    assert_eq!(config.protocol(), "ping/1");
    assert_eq!(config.listen_address(), Some("0.0.0.0:7000"));
    assert_eq!(config.peer_address("B"), Some("b.example:7001"));
    assert!(config.has_peer("C") && config.peer_address("C").is_none());
    assert_eq!(config.get_connect_timeout(), Duration::from_secs(3));
    assert_eq!(config.get_handshake_timeout(), Duration::from_millis(250));
    assert_eq!(config.get_receive_timeout(), None);
    assert_eq!(config.get_idle_timeout(), Duration::from_secs(120));
    assert_eq!(config.get_max_pending_handshakes(), 8);
    assert_eq!(config.get_max_frame_length(), 1024);
    // The identity files are this role's.
    let error = config.resolve_security().unwrap_err().to_string();
    assert!(error.contains("/certs/"), "{error}");
}

#[test]
fn variables_override_the_file_and_the_command_line_overrides_both() {
    let dir = temp();
    let path = file(
        &dir,
        "shared.toml",
        "protocol = \"p/1\"\nconnect_timeout = \"10s\"\n[roles]\nA = \"a:7000\"\nB = \"b:7000\"\n\
         [security]\ninsecure_plaintext = true\n",
    );
    let sources = Sources::new()
        .var("MPST_CONFIG", path.to_str().unwrap())
        .var("MPST_ROLE", "A")
        .var("MPST_CONNECT_TIMEOUT", "1s")
        .var("MPST_PEER_B", "b.other:7100");
    let a = sources.load().unwrap();
    assert_eq!(a.role(), "A");
    assert_eq!(a.listen_address(), Some("a:7000"));
    assert_eq!(a.get_connect_timeout(), Duration::from_secs(1));
    assert_eq!(a.peer_address("B"), Some("b.other:7100"));
    assert!(matches!(
        a.resolve_security(),
        Ok(Security::InsecurePlaintext)
    ));
    // `--role B` wins over MPST_ROLE, `--config` over MPST_CONFIG.
    let other = file(
        &dir,
        "other.toml",
        "protocol = \"q/2\"\n[roles]\nA = \"x:1\"\nB = \"y:2\"\n",
    );
    let b = Sources::new()
        .var("MPST_CONFIG", path.to_str().unwrap())
        .var("MPST_ROLE", "A")
        .role("B")
        .file(&other);
    let b = b.load().unwrap();
    assert_eq!((b.role(), b.protocol()), ("B", "q/2"));
    assert_eq!(b.listen_address(), Some("y:2"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_variables_are_errors_naming_the_variable_and_what_was_expected() {
    let base = || {
        Sources::new()
            .default_protocol("p/1")
            .var("MPST_ROLE", "A")
            .var("MPST_INSECURE_PLAINTEXT", "true")
    };
    for (name, value, needles) in [
        (
            "MPST_CONNECT_TIMEOUT",
            "soon",
            &["MPST_CONNECT_TIMEOUT=\"soon\"", "duration"][..],
        ),
        (
            "MPST_RECEIVE_TIMEOUT",
            "5 parsecs",
            &["MPST_RECEIVE_TIMEOUT", "or none"],
        ),
        (
            "MPST_PEER_B",
            "b.example",
            &["MPST_PEER_B=\"b.example\"", "host:port"],
        ),
        (
            "MPST_PEER_B",
            "b:99999",
            &["MPST_PEER_B", "port from 0 to 65535"],
        ),
        ("MPST_LISTEN", ":7000", &["MPST_LISTEN", "no host"]),
        (
            "MPST_MAX_FRAME_LENGTH",
            "big",
            &["MPST_MAX_FRAME_LENGTH", "whole number"],
        ),
        (
            "MPST_INSECURE_PLAINTEXT",
            "yes",
            &["MPST_INSECURE_PLAINTEXT", "true or false"],
        ),
        ("MPST_CA", "/ca.pem", &["MPST_CERT and MPST_KEY missing"]),
        (
            "MPST_CONECT_TIMEOUT",
            "1s",
            &["unknown environment variable MPST_CONECT_TIMEOUT"],
        ),
        ("MPST_PEER_A", "a:1", &["itself"]),
        ("MPST_MAX_PENDING_HANDSHAKES", "0", &["at least 1"]),
    ] {
        let error = base().var(name, value).load().unwrap_err();
        assert_eq!(error.peer, crate::Peer::Local("A".into()), "{name}");
        let text = error.to_string();
        for needle in needles {
            assert!(text.contains(needle), "{name}={value}: {text}");
        }
    }
    let error = Sources::new().default_protocol("p/1").load().unwrap_err();
    assert!(error.to_string().contains("MPST_ROLE"), "{error}");
    let error = Sources::new().var("MPST_ROLE", "A").load().unwrap_err();
    assert!(error.to_string().contains("MPST_PROTOCOL"), "{error}");
}

#[test]
fn bad_files_are_errors_naming_the_file_line_and_column() {
    let dir = temp();
    for (text, needle) in [
        (
            "role = \"K\"\nprotocol = \"p\"\nconnect_timeout = \"soon\"\n",
            ":3:19: connect_timeout: \"soon\" is not a duration",
        ),
        (
            "role = \"K\"\nprotocol = \"p\"\nsurprise = 1\n",
            ":3:1: unknown field `surprise`",
        ),
        ("role = \"K\"\nprotocol = \"p\"\n[peers\n", ":3:"),
        (
            "role = \"K\"\n[security]\ninsecure_plaintext = true\n",
            ": no `protocol = \"..\"` in the file",
        ),
    ] {
        let path = file(&dir, "k.toml", text);
        let error = Sources::new().file(&path).load().unwrap_err().to_string();
        let want = format!("{}{needle}", path.display());
        assert!(
            error.contains(&want),
            "{text}\nwanted {want}\n   got {error}"
        );
    }
    let missing = dir.join("missing.toml");
    let error = Sources::new()
        .file(&missing)
        .load()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("cannot read") && error.contains("missing.toml"),
        "{error}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn without_a_file_line_and_column_are_still_given() {
    let error = WireConfig::from_toml("role = \"K\"\nprotocol = \"p\"\nidle_timeout = \"x\"")
        .unwrap_err()
        .to_string();
    assert!(error.contains("line 3, column 16: idle_timeout"), "{error}");
}

#[test]
fn only_a_role_a_file_or_their_variables_name_a_role() {
    assert!(!Sources::new().var("MPST_LISTEN", "a:1").names_a_role());
    assert!(Sources::new().var("MPST_CONFIG", "f").names_a_role());
    assert!(Sources::new().var("MPST_ROLE", "A").names_a_role());
    assert!(Sources::new().role("A").names_a_role());
}
