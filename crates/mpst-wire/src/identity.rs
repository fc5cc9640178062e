//! A role's identity for mutual TLS: the deployment CA it trusts, its certificate chain
//! and key, and the rustls configurations built from them (ring provider). The TLS layer
//! checks each peer's chain against the CA; [`Identity::check_peer`] then checks that the
//! certificate names exactly the role the peer claims (see [`crate::names`]).

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use tokio_rustls::rustls;
use tokio_rustls::rustls::RootCertStore;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio_rustls::rustls::server::WebPkiClientVerifier;

use crate::error::Refusal;
use crate::names::{decode_subject_name, subject_name};

/// Why an identity could not be loaded or used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct IdentityError(pub String);

/// A role's TLS identity: the CA certificates it trusts, its own certificate chain (leaf
/// first) and private key, with the rustls client and server configurations made from
/// them. Cheap to clone.
#[derive(Clone)]
pub struct Identity {
    chain: Arc<Vec<CertificateDer<'static>>>,
    client: Arc<rustls::ClientConfig>,
    server: Arc<rustls::ServerConfig>,
}

impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Identity")
            .field("names", &self.dns_names())
            .finish_non_exhaustive()
    }
}

/// The crypto provider of every configuration: ring, as `mpst::net` and quinn use. Only
/// TLS 1.3 is offered: both ends are ours, QUIC needs it, and it encrypts the
/// certificates (which name roles).
pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn certificates(pem: &[u8], what: &str) -> Result<Vec<CertificateDer<'static>>, IdentityError> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| IdentityError(format!("{what}: not PEM certificates: {e}")))?;
    if certs.is_empty() {
        return Err(IdentityError(format!("{what}: no certificate found")));
    }
    Ok(certs)
}

fn read(path: &Path, what: &str) -> Result<Vec<u8>, IdentityError> {
    std::fs::read(path)
        .map_err(|e| IdentityError(format!("cannot read the {what} {}: {e}", path.display())))
}

impl Identity {
    /// An identity from PEM text: the CA certificate(s) to trust, this role's
    /// certificate chain (leaf first) and its private key (PKCS#8, PKCS#1 or SEC1).
    pub fn from_pem(ca: &str, cert: &str, key: &str) -> Result<Self, IdentityError> {
        let ca = certificates(ca.as_bytes(), "CA")?;
        let chain = certificates(cert.as_bytes(), "certificate")?;
        let key = PrivateKeyDer::from_pem_slice(key.as_bytes())
            .map_err(|e| IdentityError(format!("key: not a PEM private key: {e}")))?;
        Self::new(ca, chain, key)
    }

    /// An identity from PEM files (as `mpst certs` writes them), errors naming the file.
    pub fn load(ca: &Path, cert: &Path, key: &Path) -> Result<Self, IdentityError> {
        let in_file =
            |path: &Path, e: IdentityError| IdentityError(format!("{}: {e}", path.display()));
        let ca_certs =
            certificates(&read(ca, "CA certificate")?, "CA").map_err(|e| in_file(ca, e))?;
        let chain = certificates(&read(cert, "certificate")?, "certificate")
            .map_err(|e| in_file(cert, e))?;
        let key_der = PrivateKeyDer::from_pem_slice(&read(key, "private key")?)
            .map_err(|e| IdentityError(format!("{}: not a PEM private key: {e}", key.display())))?;
        Self::new(ca_certs, chain, key_der)
    }

    /// An identity from DER: trusted CA certificates, this role's chain (leaf first) and
    /// key. Builds both rustls configurations, so a key that does not match the
    /// certificate is refused here.
    pub fn new(
        ca: Vec<CertificateDer<'static>>,
        chain: Vec<CertificateDer<'static>>,
        key: PrivateKeyDer<'static>,
    ) -> Result<Self, IdentityError> {
        let mut roots = RootCertStore::empty();
        for cert in ca {
            roots
                .add(cert)
                .map_err(|e| IdentityError(format!("CA certificate not usable: {e}")))?;
        }
        let roots = Arc::new(roots);
        let verifier = WebPkiClientVerifier::builder_with_provider(roots.clone(), provider())
            .build()
            .map_err(|e| IdentityError(format!("cannot verify clients with this CA: {e}")))?;
        let server = rustls::ServerConfig::builder_with_provider(provider())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| IdentityError(e.to_string()))?
            .with_client_cert_verifier(verifier)
            .with_single_cert(chain.clone(), key.clone_key())
            .map_err(|e| IdentityError(format!("certificate and key do not fit: {e}")))?;
        let mut client = rustls::ClientConfig::builder_with_provider(provider())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| IdentityError(e.to_string()))?
            .with_root_certificates(roots)
            .with_client_auth_cert(chain.clone(), key)
            .map_err(|e| IdentityError(format!("certificate and key do not fit: {e}")))?;
        // The server name names a role; nobody routes on it, so it is not sent in clear.
        client.enable_sni = false;
        Ok(Self {
            chain: Arc::new(chain),
            client: Arc::new(client),
            server: Arc::new(server),
        })
    }

    /// The rustls client configuration (this role's certificate for client
    /// authentication, the CA as the only root). Connect with
    /// [`Identity::server_name`] of the peer's role, so rustls checks that the peer's
    /// certificate names that role. Usable by quinn as well.
    pub fn client_config(&self) -> Arc<rustls::ClientConfig> {
        self.client.clone()
    }

    /// The rustls server configuration: client certificates are required and verified
    /// against the CA. Which role a client's certificate names is checked after its
    /// hello, with [`Identity::check_peer`]. Usable by quinn as well.
    pub fn server_config(&self) -> Arc<rustls::ServerConfig> {
        self.server.clone()
    }

    /// The server name under which the certificate of `role` of `protocol` is valid: what
    /// a dialler passes to rustls (or as quinn's server name).
    pub fn server_name(role: &str, protocol: &str) -> Result<ServerName<'static>, IdentityError> {
        let name = subject_name(role, protocol).map_err(IdentityError)?;
        ServerName::try_from(name).map_err(|e| IdentityError(format!("role {role:?}: {e}")))
    }

    /// The DNS names of this identity's own certificate.
    pub fn dns_names(&self) -> Vec<String> {
        self.chain
            .first()
            .map(|leaf| dns_names(leaf))
            .unwrap_or_default()
    }

    /// Whether this identity's certificate names `role` of `protocol`.
    pub fn names(&self, role: &str, protocol: &str) -> bool {
        self.chain
            .first()
            .is_some_and(|leaf| names_role(leaf, role, protocol))
    }

    /// Checks that a peer's certificate (leaf first, already verified against the CA by
    /// the TLS layer) names exactly `claimed` of `protocol`; the refusal says what the
    /// certificate names instead.
    pub fn check_peer(
        certs: &[CertificateDer<'_>],
        claimed: &str,
        protocol: &str,
    ) -> Result<(), Refusal> {
        let Some(leaf) = certs.first() else {
            return Err(Refusal::Certificate {
                claimed: claimed.to_owned(),
                certified: "no certificate".into(),
            });
        };
        if names_role(leaf, claimed, protocol) {
            return Ok(());
        }
        Err(Refusal::Certificate {
            claimed: claimed.to_owned(),
            certified: describe(leaf, protocol),
        })
    }
}

/// Whether `leaf` is valid for the subject name of `role` of `protocol`.
fn names_role(leaf: &CertificateDer<'_>, role: &str, protocol: &str) -> bool {
    let Ok(name) = Identity::server_name(role, protocol) else {
        return false;
    };
    webpki::EndEntityCert::try_from(leaf)
        .is_ok_and(|cert| cert.verify_is_valid_for_subject_name(&name).is_ok())
}

fn dns_names(leaf: &CertificateDer<'_>) -> Vec<String> {
    match webpki::EndEntityCert::try_from(leaf) {
        Ok(cert) => cert.valid_dns_names().map(str::to_owned).collect(),
        Err(_) => Vec::new(),
    }
}

/// What a certificate names, for a refusal: its roles (and whether for another
/// protocol), or its other names.
fn describe(leaf: &CertificateDer<'_>, protocol: &str) -> String {
    let names = dns_names(leaf);
    let mut parts = Vec::new();
    for name in &names {
        match decode_subject_name(name, protocol) {
            Some(named) if named.same_protocol => parts.push(format!("role {}", named.role)),
            Some(named) => parts.push(format!("role {} of another protocol", named.role)),
            None => parts.push(format!("{name:?}")),
        }
    }
    if parts.is_empty() {
        "no role".into()
    } else {
        parts.join(", ")
    }
}
