//! Transports, handshake and stdio checks against our fixture servers, through the library
//! (`scout::probe::run_server`).

use std::path::PathBuf;
use std::time::Duration;

use scout::probe::spec::{ServerSpec, TargetSpec};
use scout::report::finding::Status;
use scout::report::model::{EraKind, ServerReport};

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn stdio_spec(script: &str) -> ServerSpec {
    let mut spec = ServerSpec::new(
        script.trim_end_matches(".py"),
        TargetSpec::Stdio {
            command: vec!["python3".into(), fixture(script), "stdio".into()],
            env_forward: Vec::new(),
            env_set: Vec::new(),
            dir: None,
        },
    );
    spec.timeout = Duration::from_secs(3);
    spec.deadline = Duration::from_secs(60);
    spec
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn http_spec(script: &str) -> ServerSpec {
    let port = free_port();
    let mut spec = ServerSpec::new(
        script.trim_end_matches(".py"),
        TargetSpec::Http {
            url: format!("http://127.0.0.1:{port}/mcp"),
            headers: Vec::new(),
            token_env: None,
            start: Some(vec![
                "python3".into(),
                fixture(script),
                "http".into(),
                "--port".into(),
                port.to_string(),
            ]),
        },
    );
    spec.timeout = Duration::from_secs(3);
    spec.deadline = Duration::from_secs(60);
    spec
}

async fn run(spec: ServerSpec) -> ServerReport {
    let (_tx, rx) = tokio::sync::watch::channel(false);
    let r = scout::probe::run_server(spec, rx).await;
    // Shown with --nocapture: what the run concluded, one line per finding.
    for f in &r.findings {
        eprintln!(
            "{:<32} {:?} {:?} {}",
            f.id,
            f.status,
            f.evidence,
            f.detail.lines().next().unwrap_or("")
        );
    }
    r
}

fn finding<'a>(r: &'a ServerReport, id: &str) -> &'a scout::report::finding::Finding {
    r.findings
        .iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("no finding {id}: {:#?}", r.findings))
}

fn fails(r: &ServerReport, prefix: &str) -> Vec<String> {
    r.findings
        .iter()
        .filter(|f| f.id.starts_with(prefix) && f.status == Status::Fail)
        .map(|f| format!("{} {}", f.id, f.detail))
        .collect()
}

#[tokio::test]
async fn minimal_server_over_stdio_is_dual_and_clean() {
    let r = run(stdio_spec("minimal_server.py")).await;
    assert_eq!(r.era, EraKind::Dual, "{:#?}", r.findings);
    assert!(
        fails(&r, "handshake.").is_empty(),
        "{:?}",
        fails(&r, "handshake.")
    );
    assert!(fails(&r, "stdio.").is_empty(), "{:?}", fails(&r, "stdio."));
    assert_eq!(finding(&r, "stdio.shutdown").status, Status::Pass);
    assert_eq!(r.protocol_versions.len(), 2, "{:?}", r.protocol_versions);
}

#[tokio::test]
async fn minimal_server_over_http_is_dual_and_clean() {
    let r = run(http_spec("minimal_server.py")).await;
    assert_eq!(r.era, EraKind::Dual, "{:#?}", r.findings);
    assert!(
        fails(&r, "handshake.").is_empty(),
        "{:?}",
        fails(&r, "handshake.")
    );
    assert_eq!(finding(&r, "discovery.reachable").status, Status::Pass);
    assert_eq!(finding(&r, "handshake.session").status, Status::Pass);
}
