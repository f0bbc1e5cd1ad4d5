//! TLS to the shared store, with libpq's `sslmode` meanings.
//!
//! The client library knows only `disable`, `prefer` and `require`, and
//! verifies nothing itself: the connector decides. So the two settings
//! that say how much to trust the server (`sslmode`, `sslrootcert`) are
//! taken out of the connection string here, before the client parses it,
//! and turned into a rustls configuration:
//!
//! | sslmode       | encrypted            | certificate checked          |
//! |---------------|----------------------|------------------------------|
//! | `disable`     | never                | –                            |
//! | `allow`, `prefer` (default) | when the server offers it | no     |
//! | `require`     | always               | no                           |
//! | `verify-ca`   | always               | chain to a trusted root      |
//! | `verify-full` | always               | chain, and the host name     |
//!
//! Roots for the verifying modes: `sslrootcert` (or `PGSSLROOTCERT`),
//! else `~/.postgresql/root.crt` when it exists, else the system's
//! certificate store; `sslrootcert=system` asks for the system's store.

use std::path::PathBuf;
use std::sync::Arc;

use rustls::DigitallySignedStruct;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, RootCertStore, SignatureScheme};

use crate::store::StoreError;

/// How much the connection trusts the server (libpq's `sslmode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlsMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl TlsMode {
    fn parse(value: &str) -> Result<TlsMode, StoreError> {
        Ok(match value {
            "disable" => TlsMode::Disable,
            "allow" | "prefer" => TlsMode::Prefer,
            "require" => TlsMode::Require,
            "verify-ca" => TlsMode::VerifyCa,
            "verify-full" => TlsMode::VerifyFull,
            other => {
                return Err(StoreError::Unavailable(format!(
                    "sslmode={other} is not one of disable, allow, prefer, require, verify-ca, verify-full"
                )));
            }
        })
    }

    /// What the client library is told: it only decides whether to ask
    /// the server for TLS and whether to go on without it.
    pub fn client_mode(self) -> postgres::config::SslMode {
        use postgres::config::SslMode;
        match self {
            TlsMode::Disable => SslMode::Disable,
            TlsMode::Prefer => SslMode::Prefer,
            TlsMode::Require | TlsMode::VerifyCa | TlsMode::VerifyFull => SslMode::Require,
        }
    }
}

/// The TLS settings of one connection string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsSettings {
    pub mode: TlsMode,
    /// `sslrootcert`: a PEM file, or `system`.
    pub root_cert: Option<String>,
}

/// Takes `sslmode` and `sslrootcert` out of a URL's query string or a
/// `key=value` connection string; the rest goes to the client unchanged.
/// Absent settings come from `PGSSLMODE` / `PGSSLROOTCERT`, as in libpq.
pub fn split(
    conninfo: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(String, TlsSettings), StoreError> {
    let mut mode = None;
    let mut root_cert = None;
    let rest = if conninfo.contains("://") {
        // The query begins where the client's parser says: after the
        // credentials, which may hold a `?` of their own.
        let query = super::conninfo::cut(conninfo).query;
        match query.map(|q| (&conninfo[..q.start - 1], &conninfo[q])) {
            None => conninfo.to_string(),
            Some((base, query)) => {
                let mut kept = Vec::new();
                for pair in query.split('&').filter(|p| !p.is_empty()) {
                    let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                    match k {
                        "sslmode" => mode = Some(v.to_string()),
                        "sslrootcert" => root_cert = Some(v.to_string()),
                        _ => kept.push(pair),
                    }
                }
                if kept.is_empty() {
                    base.to_string()
                } else {
                    format!("{base}?{}", kept.join("&"))
                }
            }
        }
    } else {
        let mut kept = Vec::new();
        for word in conninfo.split_whitespace() {
            match word.split_once('=') {
                Some(("sslmode", v)) => mode = Some(v.to_string()),
                Some(("sslrootcert", v)) => root_cert = Some(v.to_string()),
                _ => kept.push(word),
            }
        }
        kept.join(" ")
    };
    let mode = match mode.or_else(|| env("PGSSLMODE")) {
        Some(m) => TlsMode::parse(&m)?,
        None => TlsMode::Prefer,
    };
    let root_cert = root_cert.or_else(|| env("PGSSLROOTCERT"));
    Ok((rest, TlsSettings { mode, root_cert }))
}

/// The connector for `settings` (`None`: plain text only).
pub fn connector(
    settings: &TlsSettings,
) -> Result<Option<tokio_postgres_rustls::MakeRustlsConnect>, StoreError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier: Arc<dyn ServerCertVerifier> = match settings.mode {
        TlsMode::Disable => return Ok(None),
        TlsMode::Prefer | TlsMode::Require => Arc::new(Unverified(provider.clone())),
        TlsMode::VerifyCa | TlsMode::VerifyFull => {
            let (roots, listed) = roots(settings.root_cert.as_deref())?;
            let webpki =
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
                    .build()
                    .map_err(|e| StoreError::Unavailable(format!("TLS roots: {e}")))?;
            let chain: Arc<dyn ServerCertVerifier> = if settings.mode == TlsMode::VerifyCa {
                Arc::new(ChainOnly(webpki))
            } else {
                webpki
            };
            Arc::new(Pinned {
                listed,
                check_name: settings.mode == TlsMode::VerifyFull,
                chain,
            })
        }
    };
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| StoreError::Unavailable(format!("TLS: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(Some(tokio_postgres_rustls::MakeRustlsConnect::new(config)))
}

/// The certificates a verifying mode trusts, and those the root file
/// lists (for `Pinned`; none from the system's store).
fn roots(
    root_cert: Option<&str>,
) -> Result<(RootCertStore, Vec<CertificateDer<'static>>), StoreError> {
    let file = match root_cert {
        Some("system") => None,
        Some(path) => Some(PathBuf::from(path)),
        None => dirs::home_dir()
            .map(|h| h.join(".postgresql/root.crt"))
            .filter(|p| p.is_file()),
    };
    let mut store = RootCertStore::empty();
    let mut listed = Vec::new();
    match file {
        Some(path) => {
            let certs = CertificateDer::pem_file_iter(&path)
                .and_then(|it| it.collect::<Result<Vec<_>, _>>())
                .map_err(|e| {
                    StoreError::Unavailable(format!("sslrootcert {}: {e}", path.display()))
                })?;
            listed.clone_from(&certs);
            let (added, _) = store.add_parsable_certificates(certs);
            if added == 0 {
                return Err(StoreError::Unavailable(format!(
                    "sslrootcert {} holds no certificate",
                    path.display()
                )));
            }
        }
        None => {
            let found = rustls_native_certs::load_native_certs();
            store.add_parsable_certificates(found.certs);
            if store.is_empty() {
                return Err(StoreError::Unavailable(
                    "no trusted certificates on this system: give sslrootcert".into(),
                ));
            }
        }
    }
    Ok((store, listed))
}

/// `prefer` and `require`: encrypted, the server's identity unchecked
/// (libpq's meaning). The handshake's signatures are still verified, so
/// the session is bound to the certificate the server showed.
#[derive(Debug)]
struct Unverified(Arc<CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// A server certificate the root file lists itself is trusted, as libpq
/// (OpenSSL) trusts it: a small deployment's server often presents a
/// self-signed certificate, and its operators hand that very certificate
/// out as `sslrootcert`. A chain verifier never accepts it (webpki answers
/// `CaUsedAsEndEntity`, or `UnknownIssuer` without the CA flag), so the
/// presented certificate is compared byte for byte with each listed one
/// first; the handshake's signatures, still checked, prove the server holds
/// its key. `verify-full` checks the name in it too. Any other certificate
/// goes through the chain verifier. The pinned certificate's validity
/// period is not checked (webpki has no check of it apart from a chain).
#[derive(Debug)]
struct Pinned {
    listed: Vec<CertificateDer<'static>>,
    check_name: bool,
    chain: Arc<dyn ServerCertVerifier>,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if !self
            .listed
            .iter()
            .any(|c| c.as_ref() == end_entity.as_ref())
        {
            return self.chain.verify_server_cert(
                end_entity,
                intermediates,
                server_name,
                ocsp_response,
                now,
            );
        }
        if self.check_name {
            let parsed = rustls::server::ParsedCertificate::try_from(end_entity)?;
            rustls::client::verify_server_name(&parsed, server_name)?;
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.chain.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.chain.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.chain.supported_verify_schemes()
    }
}

/// `verify-ca`: the chain must lead to a trusted root; the name in the
/// certificate is not compared with the host.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn tls_settings_leave_the_connection_string() {
        let (rest, s) = split(
            "postgres://a@db/ctx?sslmode=verify-full&application_name=x&sslrootcert=/r.crt",
            &none,
        )
        .unwrap();
        assert_eq!(rest, "postgres://a@db/ctx?application_name=x");
        assert_eq!(s.mode, TlsMode::VerifyFull);
        assert_eq!(s.root_cert.as_deref(), Some("/r.crt"));

        let (rest, s) = split("host=db sslmode=verify-ca user=a", &none).unwrap();
        assert_eq!(rest, "host=db user=a");
        assert_eq!(s.mode, TlsMode::VerifyCa);

        let (rest, s) = split("postgres://db/ctx?sslmode=require", &none).unwrap();
        assert_eq!(rest, "postgres://db/ctx");
        assert_eq!(s.mode, TlsMode::Require);

        // A `?` in the password is not the query's.
        let (rest, s) = split("postgres://a:p?w@db/ctx?sslmode=verify-ca", &none).unwrap();
        assert_eq!(rest, "postgres://a:p?w@db/ctx");
        assert_eq!(s.mode, TlsMode::VerifyCa);
    }

    #[test]
    fn the_environment_fills_what_the_string_leaves_out() {
        let env = |k: &str| match k {
            "PGSSLMODE" => Some("verify-full".to_string()),
            "PGSSLROOTCERT" => Some("/etc/ca.pem".to_string()),
            _ => None,
        };
        let (_, s) = split("postgres://db/ctx", &env).unwrap();
        assert_eq!(s.mode, TlsMode::VerifyFull);
        assert_eq!(s.root_cert.as_deref(), Some("/etc/ca.pem"));
        // The string wins over the environment.
        let (_, s) = split("postgres://db/ctx?sslmode=disable", &env).unwrap();
        assert_eq!(s.mode, TlsMode::Disable);
        // libpq's default.
        let (_, s) = split("postgres://db/ctx", &none).unwrap();
        assert_eq!(s.mode, TlsMode::Prefer);
    }

    #[test]
    fn an_unknown_mode_is_an_error_not_plain_text() {
        let err = split("postgres://db/ctx?sslmode=verify", &none).unwrap_err();
        assert!(err.to_string().contains("sslmode=verify"), "{err}");
    }

    #[test]
    fn a_root_file_without_certificates_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty.pem");
        std::fs::write(&path, "not a certificate\n").unwrap();
        let settings = TlsSettings {
            mode: TlsMode::VerifyFull,
            root_cert: Some(path.display().to_string()),
        };
        let err = connector(&settings).err().expect("refused");
        assert!(err.to_string().contains("no certificate"), "{err}");
    }
}
