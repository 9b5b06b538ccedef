//! The certificates scout trusts beside the web PKI roots: the operator's own certificate
//! authority (config key `ca_file`), for servers and authorization servers inside a company
//! network. They are set once, when the configuration is loaded, and every HTTP client scout
//! builds afterwards (the MCP wires, the OAuth client, the connection of its own an abandoned
//! request is written on) trusts them.

use std::path::Path;
use std::sync::RwLock;

use tokio_rustls::rustls::pki_types::CertificateDer;
use tokio_rustls::rustls::pki_types::pem::PemObject;

/// The operator's extra trust anchors (DER), empty unless `ca_file` is set.
static EXTRA: RwLock<Vec<CertificateDer<'static>>> = RwLock::new(Vec::new());

/// Reads the PEM certificates in `path`: at least one, each well-formed.
pub fn read_pem(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let shown = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{shown} is not a PEM certificate file: {e}"))?;
    if certs.is_empty() {
        return Err(format!(
            "{shown} holds no PEM certificate (`-----BEGIN CERTIFICATE-----`)"
        ));
    }
    Ok(certs)
}

/// Trusts `certs` beside the web PKI roots from now on (replacing earlier extra ones).
pub fn trust(certs: Vec<CertificateDer<'static>>) {
    *EXTRA.write().unwrap_or_else(|e| e.into_inner()) = certs;
}

/// The extra trust anchors, DER.
pub fn extra() -> Vec<CertificateDer<'static>> {
    EXTRA.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// `builder` trusting the extra anchors too (the web PKI roots stay).
pub fn with_extra_roots(builder: reqwest::ClientBuilder) -> reqwest::ClientBuilder {
    extra()
        .iter()
        .filter_map(|c| reqwest::Certificate::from_der(c.as_ref()).ok())
        .fold(builder, reqwest::ClientBuilder::add_root_certificate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_without_certificates_is_refused_in_one_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").expect("write");
        let e = read_pem(&empty).expect_err("refused");
        assert!(e.contains("holds no PEM certificate"), "{e}");
        assert!(!e.contains('\n'), "{e}");
        let missing = dir.path().join("missing.pem");
        let e = read_pem(&missing).expect_err("refused");
        assert!(e.starts_with("cannot read "), "{e}");
        let broken = dir.path().join("broken.pem");
        std::fs::write(
            &broken,
            "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n",
        )
        .expect("write");
        assert!(read_pem(&broken).is_err());
    }
}
