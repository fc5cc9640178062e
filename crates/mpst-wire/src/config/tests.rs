//! TOML configurations: per role and shared, identity paths, durations, and errors that
//! name the role and the field.

use super::*;

#[test]
fn a_role_file_reads_every_field() {
    let text = r#"
        role = "A"
        protocol = "ping/1"
        listen = "127.0.0.1:0"
        connect_timeout = "3s"
        handshake_timeout = "250ms"
        receive_timeout = "none"
        idle_timeout = "2m"
        max_pending_handshakes = 8
        max_frame_length = 1024
        [peers]
        B = "localhost:7001"
        [security]
        insecure_plaintext = true
    "#;
    let config = WireConfig::from_toml(text).unwrap();
    assert_eq!(config.role(), "A");
    assert_eq!(config.protocol(), "ping/1");
    assert_eq!(config.listen_address(), Some("127.0.0.1:0"));
    assert_eq!(config.peer_address("B"), Some("localhost:7001"));
    assert_eq!(config.get_connect_timeout(), Duration::from_secs(3));
    assert_eq!(config.get_handshake_timeout(), Duration::from_millis(250));
    assert_eq!(config.get_receive_timeout(), None);
    assert_eq!(config.get_idle_timeout(), Duration::from_secs(120));
    assert_eq!(config.get_max_pending_handshakes(), 8);
    assert_eq!(config.get_max_frame_length(), 1024);
    assert!(matches!(
        config.resolve_security(),
        Ok(Security::InsecurePlaintext)
    ));
}

#[test]
fn a_shared_file_gives_each_role_its_peers_and_identity_paths() {
    let text = r#"
        protocol = "ping/1"
        [roles]
        A = "127.0.0.1:7000"
        B = "b.example:7001"
        C = "127.0.0.1:7002"
        [security]
        ca = "certs/ca.pem"
        cert = "certs/{role}.pem"
        key = "certs/{role}.key"
    "#;
    let b = WireConfig::from_toml_for(text, "B").unwrap();
    assert_eq!(b.listen_address(), Some("b.example:7001"));
    assert_eq!(b.peers().collect::<Vec<_>>(), ["A", "C"]);
    let error = b.resolve_security().unwrap_err();
    assert!(error.to_string().contains("certs/ca.pem"), "{error}");
    match &b.security {
        SecuritySource::Files { cert, key, .. } => {
            assert_eq!(cert, Path::new("certs/B.pem"));
            assert_eq!(key, Path::new("certs/B.key"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        WireConfig::new("p", "A").get_receive_timeout(),
        Some(DEFAULT_RECEIVE_TIMEOUT)
    );
}

#[test]
fn bad_files_are_errors_naming_the_role_and_the_field() {
    for (text, needle) in [
        ("protocol = 1", "invalid type"),
        ("role = \"K\"\nprotocol = \"p\"\nsurprise = 1", "surprise"),
        (
            "protocol = \"p\"\n[roles]\nA = \"127.0.0.1:1\"",
            "role K is not in [roles]",
        ),
        (
            "role = \"K\"\nprotocol = \"p\"\nconnect_timeout = \"soon\"",
            "connect_timeout",
        ),
        (
            "role = \"K\"\nprotocol = \"p\"\n[security]\nca = \"a\"",
            "needs all of ca, cert and key",
        ),
        (
            "role = \"K\"\nprotocol = \"p\"\n[security]\ninsecure_plaintext = true\nca = \"a\"",
            "choose one",
        ),
        ("role = \"J\"\nprotocol = \"p\"", "configures role J, not K"),
        (
            "role = \"K\"\nprotocol = \"p\"\nmax_pending_handshakes = 0",
            "at least 1",
        ),
        (
            "role = \"K\"\nprotocol = \"p\"\n[peers]\nK = \"x:1\"",
            "itself",
        ),
    ] {
        let error = WireConfig::from_toml_for(text, "K").unwrap_err();
        assert_eq!(error.peer, crate::Peer::Local("K".into()), "{text}");
        assert!(error.to_string().contains(needle), "{text}: {error}");
    }
}

#[test]
fn no_security_mode_is_refused_rather_than_defaulting_to_plaintext() {
    let error = WireConfig::new("p", "A").resolve_security().unwrap_err();
    assert!(error.to_string().contains("insecure_plaintext"), "{error}");
}
