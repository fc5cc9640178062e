//! Issuing identities (rcgen): a deployment CA and one certificate and key per role,
//! each certificate naming its role and protocol (see [`crate::names`]) and valid for
//! both TLS client and server authentication. `mpst certs` writes them to files; tests
//! make them in memory with [`Deployment::generate`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SerialNumber,
};
use time::{Duration, OffsetDateTime};

use crate::identity::{Identity, IdentityError};
use crate::names::{common_name, subject_name};

/// How long issued certificates are valid: 825 days (from a day before issuing).
pub const VALIDITY_DAYS: i64 = 825;

/// A certificate authority: its certificate and its signing key.
pub struct Authority {
    issuer: Issuer<'static, KeyPair>,
    cert_pem: String,
    key_pem: String,
}

impl std::fmt::Debug for Authority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authority").finish_non_exhaustive()
    }
}

/// A role's issued certificate and private key, in PEM.
#[derive(Debug, Clone)]
pub struct Issued {
    /// The role named.
    pub role: String,
    /// The certificate (PEM).
    pub cert_pem: String,
    /// The private key (PKCS#8 PEM). Secret.
    pub key_pem: String,
}

fn error(what: &str, e: impl std::fmt::Display) -> IdentityError {
    IdentityError(format!("{what}: {e}"))
}

fn random_serial() -> SerialNumber {
    let mut bytes = crate::hello::fresh_nonce()[..16].to_vec();
    bytes[0] &= 0x7f; // positive
    SerialNumber::from_slice(&bytes)
}

fn validity(params: &mut CertificateParams) {
    let now = OffsetDateTime::now_utc();
    params.not_before = now - Duration::days(1);
    params.not_after = now + Duration::days(VALIDITY_DAYS);
}

impl Authority {
    /// A new CA (a fresh ECDSA P-256 key) whose certificate is called `name`.
    pub fn generate(name: &str) -> Result<Self, IdentityError> {
        let key = KeyPair::generate().map_err(|e| error("CA key", e))?;
        let mut params = CertificateParams::default();
        params.distinguished_name = rcgen::DistinguishedName::new();
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        params.serial_number = Some(random_serial());
        validity(&mut params);
        let cert = params
            .self_signed(&key)
            .map_err(|e| error("CA certificate", e))?;
        let key_pem = key.serialize_pem();
        Ok(Self {
            cert_pem: cert.pem(),
            key_pem,
            issuer: Issuer::new(params, key),
        })
    }

    /// A CA from its certificate and key (PEM), e.g. to issue a certificate for a role
    /// added later.
    pub fn from_pem(cert_pem: &str, key_pem: &str) -> Result<Self, IdentityError> {
        let key = KeyPair::from_pem(key_pem).map_err(|e| error("CA key", e))?;
        let issuer =
            Issuer::from_ca_cert_pem(cert_pem, key).map_err(|e| error("CA certificate", e))?;
        Ok(Self {
            issuer,
            cert_pem: cert_pem.to_owned(),
            key_pem: key_pem.to_owned(),
        })
    }

    /// The CA certificate (PEM): what every role trusts.
    pub fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    /// The CA's private key (PEM). Secret: whoever has it can issue any role.
    pub fn key_pem(&self) -> &str {
        &self.key_pem
    }

    /// Issues a certificate and key for `role` of `protocol`.
    pub fn issue(&self, role: &str, protocol: &str) -> Result<Issued, IdentityError> {
        let name = subject_name(role, protocol).map_err(IdentityError)?;
        let key = KeyPair::generate().map_err(|e| error("key", e))?;
        let mut params = CertificateParams::new(vec![name]).map_err(|e| error("certificate", e))?;
        params.distinguished_name = rcgen::DistinguishedName::new();
        params
            .distinguished_name
            .push(DnType::CommonName, common_name(role, protocol));
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ];
        params.use_authority_key_identifier_extension = true;
        params.serial_number = Some(random_serial());
        validity(&mut params);
        let cert = params
            .signed_by(&key, &self.issuer)
            .map_err(|e| error("certificate", e))?;
        Ok(Issued {
            role: role.to_owned(),
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        })
    }

    /// Issues an identity for `role` of `protocol`, in memory.
    pub fn identity(&self, role: &str, protocol: &str) -> Result<Identity, IdentityError> {
        let issued = self.issue(role, protocol)?;
        Identity::from_pem(&self.cert_pem, &issued.cert_pem, &issued.key_pem)
    }
}

/// A CA and one identity per role, in memory: what tests use.
#[derive(Debug)]
pub struct Deployment {
    /// The CA.
    pub authority: Authority,
    /// Each role's identity.
    pub identities: BTreeMap<String, Identity>,
}

impl Deployment {
    /// A fresh CA and an identity for each of `roles` of `protocol`.
    pub fn generate<R: AsRef<str>>(
        protocol: &str,
        roles: impl IntoIterator<Item = R>,
    ) -> Result<Self, IdentityError> {
        let authority = Authority::generate(&format!("mpst deployment CA for {protocol}"))?;
        let mut identities = BTreeMap::new();
        for role in roles {
            let role = role.as_ref();
            identities.insert(role.to_owned(), authority.identity(role, protocol)?);
        }
        Ok(Self {
            authority,
            identities,
        })
    }

    /// The identity of `role` (a clone).
    ///
    /// # Panics
    ///
    /// When `role` was not generated — a test's mistake.
    pub fn identity(&self, role: &str) -> Identity {
        match self.identities.get(role) {
            Some(identity) => identity.clone(),
            None => panic!("no identity for role {role} in this deployment"),
        }
    }
}

/// The files [`write_deployment`] writes for a role: `<dir>/<role>.pem` and
/// `<dir>/<role>.key`.
pub fn role_files(dir: &Path, role: &str) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("{role}.pem")),
        dir.join(format!("{role}.key")),
    )
}

/// Checks that `role` can be a file name on every platform, and that no two roles differ
/// only in case (their files would collide on case-insensitive file systems).
fn check_file_names(roles: &[String]) -> Result<(), IdentityError> {
    let mut seen = BTreeMap::new();
    for role in roles {
        let fine = !role.is_empty()
            && role
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-'))
            && role != "ca";
        if !fine {
            return Err(IdentityError(format!(
                "role {role:?} cannot name a file (letters, digits, `_` and `-` only, not `ca`)"
            )));
        }
        if let Some(other) = seen.insert(role.to_lowercase(), role) {
            if other != role {
                return Err(IdentityError(format!(
                    "roles {other:?} and {role:?} differ only in case: their files would collide on case-insensitive file systems"
                )));
            }
        }
    }
    Ok(())
}

/// Writes a new CA (`ca.pem`, `ca.key`) and a certificate and key per role
/// (`<role>.pem`, `<role>.key`) for `protocol` into `dir` (created if missing; existing
/// files are not overwritten). Keys are written readable by the owner only (Unix).
/// Returns the paths written.
pub fn write_deployment(
    dir: &Path,
    protocol: &str,
    roles: &[String],
) -> Result<Vec<PathBuf>, IdentityError> {
    check_file_names(roles)?;
    for role in roles {
        crate::names::check_role_name(role).map_err(IdentityError)?;
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| IdentityError(format!("cannot create {}: {e}", dir.display())))?;
    let mut files = vec![(dir.join("ca.pem"), false), (dir.join("ca.key"), true)];
    for role in roles {
        let (cert, key) = role_files(dir, role);
        files.push((cert, false));
        files.push((key, true));
    }
    if let Some((existing, _)) = files.iter().find(|(path, _)| path.exists()) {
        return Err(IdentityError(format!(
            "{} exists already: not overwriting identities (choose another --out)",
            existing.display()
        )));
    }
    let authority = Authority::generate(&format!("mpst deployment CA for {protocol}"))?;
    let mut contents = vec![
        authority.cert_pem().to_owned(),
        authority.key_pem().to_owned(),
    ];
    for role in roles {
        let issued = authority.issue(role, protocol)?;
        contents.push(issued.cert_pem);
        contents.push(issued.key_pem);
    }
    let mut written = Vec::new();
    for ((path, secret), text) in files.into_iter().zip(contents) {
        write_file(&path, &text, secret)?;
        written.push(path);
    }
    Ok(written)
}

fn write_file(path: &Path, text: &str, secret: bool) -> Result<(), IdentityError> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if secret {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = secret;
    let mut file = options
        .open(path)
        .map_err(|e| IdentityError(format!("cannot write {}: {e}", path.display())))?;
    file.write_all(text.as_bytes())
        .map_err(|e| IdentityError(format!("cannot write {}: {e}", path.display())))
}
