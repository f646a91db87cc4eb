//! `resolve`'s TLS settings: `--cacert`, `--cert` and `--key`.

use std::ffi::OsStr;
use ureq::tls::{Certificate, ClientCert, PemItem, PrivateKey, RootCerts, TlsConfig};

/// The TLS settings `--cacert`, `--cert` and `--key` ask for, read once before any
/// request, or `None` without them (the built-in roots, no client certificate).
/// - `--cacert FILE`: its certificates are the only trusted roots (curl's `--cacert`: they
///   replace the built-in ones);
/// - `--cert FILE`: a client certificate for servers that ask for one (mutual TLS), the
///   chain leaf first, with its private key from `--key FILE` or, without `--key`, from the
///   `--cert` file itself.
///
/// Refused (bad input): a file that cannot be read, a PEM block that does not parse, a
/// `--cacert` or `--cert` without a certificate, no private key where one is needed, and
/// `--key` without `--cert`: none may fall back silently to other settings.
pub(crate) fn tls_config(
    cacert: Option<&OsStr>,
    cert: Option<&OsStr>,
    key: Option<&OsStr>,
) -> Result<Option<TlsConfig>, String> {
    if cacert.is_none() && cert.is_none() && key.is_none() {
        return Ok(None);
    }
    let mut builder = TlsConfig::builder();
    if let Some(path) = cacert {
        let (roots, _) = pem_file("--cacert", path)?;
        if roots.is_empty() {
            return Err(no_certificate("--cacert", path));
        }
        builder = builder.root_certs(RootCerts::new_with_certs(&roots));
    }
    match (cert, key) {
        (None, Some(_)) => {
            return Err("--key needs --cert (the certificate the key belongs to)".into())
        }
        (Some(cert), key) => {
            let (chain, key_beside) = pem_file("--cert", cert)?;
            if chain.is_empty() {
                return Err(no_certificate("--cert", cert));
            }
            let key = match key {
                Some(path) => pem_file("--key", path)?.1.ok_or_else(|| {
                    format!(
                        "--key: {} holds no PEM private key",
                        std::path::Path::new(path).display()
                    )
                })?,
                None => key_beside.ok_or_else(|| {
                    format!(
                        "--cert: {} holds no private key; give it with --key FILE",
                        std::path::Path::new(cert).display()
                    )
                })?,
            };
            builder = builder.client_cert(Some(ClientCert::new_with_certs(&chain, key)));
        }
        (None, None) => {}
    }
    Ok(Some(builder.build()))
}

fn no_certificate(flag: &str, path: &OsStr) -> String {
    format!(
        "{flag}: {} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
        std::path::Path::new(path).display()
    )
}

/// The certificates of a PEM file, in order, and its first private key.
fn pem_file(
    flag: &str,
    path: &OsStr,
) -> Result<(Vec<Certificate<'static>>, Option<PrivateKey<'static>>), String> {
    let shown = std::path::Path::new(path).display();
    let pem = std::fs::read(path).map_err(|e| format!("{flag}: cannot read {shown}: {e}"))?;
    let (mut certs, mut key) = (Vec::new(), None);
    for item in ureq::tls::parse_pem(&pem) {
        match item {
            Ok(PemItem::Certificate(cert)) => certs.push(cert),
            Ok(PemItem::PrivateKey(found)) => {
                key.get_or_insert(found);
            }
            Ok(_) => {}
            Err(e) => return Err(format!("{flag}: {shown}: {e}")),
        }
    }
    Ok((certs, key))
}
