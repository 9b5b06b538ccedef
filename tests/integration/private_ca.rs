//! HTTPS to a server whose certificate a company's own certificate authority issued
//! (config key `ca_file`): the fixture serves TLS with a certificate made for this test, and
//! scout trusts it only when told to.

use std::path::Path;

use serde_json::Value;

use crate::common::{HttpFixture, scout};

/// A certificate authority and a certificate for `localhost` it issued, written to `dir`:
/// (`ca.pem`, `server.pem`, `server.key`).
fn issue(dir: &Path) -> (String, String, String) {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};
    let ca_key = KeyPair::generate().expect("CA key");
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "scout test CA");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).expect("CA certificate");
    let key = KeyPair::generate().expect("server key");
    let params = CertificateParams::new(vec!["localhost".to_string()]).expect("server params");
    let cert = params
        .signed_by(&key, &ca, &ca_key)
        .expect("server certificate");
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    };
    (
        write("ca.pem", ca.pem()),
        write("server.pem", cert.pem()),
        write("server.key", key.serialize_pem()),
    )
}

/// The minimal fixture serving HTTPS with a certificate of a CA made for the test, in `dir`:
/// (the CA's PEM file, the running server).
fn tls_server(dir: &Path) -> (String, HttpFixture) {
    let (ca, cert, key) = issue(dir);
    let server = HttpFixture::start_with_env(
        "minimal_server.py",
        &[
            ("SCOUT_TEST_TLS_CERT", cert.as_str()),
            ("SCOUT_TEST_TLS_KEY", key.as_str()),
        ],
    );
    (ca, server)
}

fn check(url: &str, ca_file: Option<&str>, json: &Path) -> (Option<i32>, String) {
    let mut cmd = scout();
    cmd.args(["check", "-q", "--json"]).arg(json).arg(url);
    if let Some(ca) = ca_file {
        cmd.env("SCOUT_CA_FILE", ca);
    }
    let out = cmd.output().expect("scout runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn findings(json: &Path) -> Vec<Value> {
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(json).expect("report written"))
            .expect("JSON");
    report["servers"][0]["findings"]
        .as_array()
        .expect("findings")
        .clone()
}

#[test]
fn a_server_of_a_private_ca_is_checked_over_https_abandoned_request_included() {
    // Previously an abandoned request over https had no connection of its own and never
    // went out (the check was silently skipped anywhere but loopback); and a server behind
    // a company's certificate authority could not be checked at all.
    let dir = tempfile::tempdir().expect("tempdir");
    let (ca, server) = tls_server(dir.path());
    assert!(
        server.url.starts_with("https://localhost:"),
        "{}",
        server.url
    );
    let json = dir.path().join("trusted.json");
    let (code, stderr) = check(&server.url, Some(&ca), &json);
    assert!(matches!(code, Some(0 | 1)), "{code:?}\n{stderr}");
    let fs = findings(&json);
    let recovery: Vec<&Value> = fs
        .iter()
        .filter(|f| f["id"] == "resilience.timeout_recovery")
        .collect();
    assert!(!recovery.is_empty(), "{fs:#?}");
    for f in recovery {
        assert_eq!(f["status"], "pass", "{f:#}");
        assert!(
            f["detail"].as_str().unwrap_or_default().contains("gave up"),
            "{f:#}"
        );
    }
    assert!(
        fs.iter().all(|f| f["status"] != "fail"),
        "a correct server over https gets no fail: {fs:#?}"
    );

    // The twin: the same server without `ca_file` is not trusted, and the run says why.
    let json = dir.path().join("untrusted.json");
    let (code, stderr) = check(&server.url, None, &json);
    assert_ne!(code, Some(0), "{stderr}");
    let said = format!(
        "{stderr}{}",
        std::fs::read_to_string(&json).unwrap_or_default()
    );
    assert!(
        said.contains("set ca_file or SCOUT_CA_FILE"),
        "names the certificate problem and what to do: {said}"
    );
}

#[test]
fn a_ca_file_without_certificates_is_a_config_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("ca.pem");
    std::fs::write(&bad, "not a certificate\n").expect("write");
    let json = dir.path().join("r.json");
    let (code, stderr) = check(
        "http://127.0.0.1:9/mcp",
        Some(&bad.display().to_string()),
        &json,
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("ca_file"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

#[test]
fn auth_login_trusts_a_private_ca_when_told_to() {
    // Previously `scout auth login` read no ca_file at all, so a server behind a company's
    // certificate authority could be checked but never logged in to.
    let dir = tempfile::tempdir().expect("tempdir");
    let (ca, server) = tls_server(dir.path());
    let login = |ca: Option<&str>| {
        let mut cmd = scout();
        cmd.args(["auth", "login", &server.url, "--no-browser", "--wait", "5s"])
            .env_remove("CI")
            .env_remove("SCOUT_CA_FILE")
            .env("XDG_CONFIG_HOME", dir.path())
            .env("HOME", dir.path());
        if let Some(ca) = ca {
            cmd.args(["--ca-file", ca]);
        }
        let out = cmd.output().expect("scout runs");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let untrusted = login(None);
    assert!(untrusted.contains("certificate"), "{untrusted}");
    // The fixture asks for no authorization, so the login still fails, but past TLS.
    let trusted = login(Some(&ca));
    assert!(!trusted.contains("certificate"), "{trusted}");
    assert!(trusted.contains("login failed"), "{trusted}");
}
