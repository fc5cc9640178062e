//! The subject-name scheme of role certificates: how a certificate names a role of a
//! protocol, injectively, in a form TLS verifiers check.
//!
//! A role certificate carries one DNS subject alternative name built from the role and
//! the protocol, and a readable common name:
//!
//! * **SAN** (checked): `r<hex>.[r<hex>.]…p<hash>.mpst.invalid`, where the `r` labels
//!   hold the role name's UTF-8 bytes in lower-case hex (at most 31 bytes per label, so
//!   a label stays within DNS's 63 characters) and `p<hash>` is the first 16 bytes of the
//!   SHA-256 of the protocol string in hex. Hex makes the name case-insensitive-safe
//!   (DNS names compare without case, so `A` and `a` must not both be `a`), and every
//!   byte of the role is kept, so two roles never share a name; any protocol string
//!   (`ping/1`, spaces, Unicode) hashes to a valid label. The reserved `.invalid` top
//!   level domain (RFC 6761) guarantees the name is never a real host's.
//! * **CN** (for people, never checked): `role <role> of <protocol>`, truncated to 64
//!   characters.
//!
//! Role names are at most [`MAX_ROLE_LENGTH`] bytes and not empty.

use ring::digest::{SHA256, digest};

/// The longest role name a certificate can name, in bytes.
pub const MAX_ROLE_LENGTH: usize = 64;

/// Role bytes per DNS label (two hex characters each, plus the `r`: 63 characters).
const BYTES_PER_LABEL: usize = 31;

/// The domain every role name ends in.
const SUFFIX: &str = "mpst.invalid";

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for &byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 15)]));
    }
    text
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The label naming `protocol`: `p` and 16 bytes of its SHA-256 in hex.
fn protocol_label(protocol: &str) -> String {
    let hash = digest(&SHA256, protocol.as_bytes());
    format!("p{}", hex(&hash.as_ref()[..16]))
}

/// Why a role cannot be named.
pub fn check_role_name(role: &str) -> Result<(), String> {
    if role.is_empty() {
        return Err("a role name cannot be empty".into());
    }
    if role.len() > MAX_ROLE_LENGTH {
        return Err(format!(
            "role name {role:?} is {} bytes long; certificates name roles of at most {MAX_ROLE_LENGTH} bytes",
            role.len()
        ));
    }
    Ok(())
}

/// The DNS name a certificate for `role` of `protocol` carries (see the module docs).
pub fn subject_name(role: &str, protocol: &str) -> Result<String, String> {
    check_role_name(role)?;
    let mut name = String::new();
    for chunk in role.as_bytes().chunks(BYTES_PER_LABEL) {
        name.push('r');
        name.push_str(&hex(chunk));
        name.push('.');
    }
    name.push_str(&protocol_label(protocol));
    name.push('.');
    name.push_str(SUFFIX);
    Ok(name)
}

/// The readable common name of a certificate for `role` of `protocol` (at most 64
/// characters; not checked by anyone).
pub fn common_name(role: &str, protocol: &str) -> String {
    let full = format!("role {role} of {protocol}");
    full.chars().take(64).collect()
}

/// What a subject name says: the role, and whether it is for `protocol`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The role named (decoded from the hex labels; lossy if not UTF-8).
    pub role: String,
    /// Whether the name is for the protocol asked about.
    pub same_protocol: bool,
}

/// Decodes a subject name of this scheme; `None` for any other name.
pub fn decode_subject_name(name: &str, protocol: &str) -> Option<Named> {
    let rest = name.strip_suffix(SUFFIX)?.strip_suffix('.')?;
    let (roles, protocol_part) = rest.rsplit_once('.')?;
    if !protocol_part.starts_with('p') {
        return None;
    }
    let mut bytes = Vec::new();
    for label in roles.split('.') {
        bytes.extend(unhex(label.strip_prefix('r')?)?);
    }
    Some(Named {
        role: String::from_utf8_lossy(&bytes).into_owned(),
        same_protocol: protocol_part == protocol_label(protocol),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_keep_case_apart() {
        let upper = subject_name("A", "ping/1").unwrap();
        let lower = subject_name("a", "ping/1").unwrap();
        assert_ne!(upper.to_ascii_lowercase(), lower.to_ascii_lowercase());
        assert!(upper.starts_with("r41.p"), "{upper}");
        let named = decode_subject_name(&upper, "ping/1").unwrap();
        assert_eq!(named.role, "A");
        assert!(named.same_protocol);
        assert!(!decode_subject_name(&upper, "ping/2").unwrap().same_protocol);
    }

    #[test]
    fn long_and_unicode_roles_split_into_valid_labels() {
        let role = "Ω".repeat(32); // 64 bytes
        let name = subject_name(&role, "a protocol with spaces").unwrap();
        assert!(name.len() <= 253, "{}", name.len());
        assert!(name.split('.').all(|label| label.len() <= 63));
        let parsed = tokio_rustls::rustls::pki_types::ServerName::try_from(name.clone());
        assert!(parsed.is_ok(), "{name}");
        assert_eq!(
            decode_subject_name(&name, "a protocol with spaces")
                .unwrap()
                .role,
            role
        );
        assert!(subject_name(&"x".repeat(65), "p").is_err());
        assert!(subject_name("", "p").is_err());
    }

    #[test]
    fn other_names_are_not_decoded() {
        for name in [
            "localhost",
            "r41.mpst.invalid",
            "x41.p00.mpst.invalid",
            "rzz.p00.mpst.invalid",
        ] {
            assert_eq!(decode_subject_name(name, "p"), None, "{name}");
        }
    }
}
