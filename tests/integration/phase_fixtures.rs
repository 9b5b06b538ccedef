//! Running scout's phases (through the library) against the fixture servers in
//! `tests/fixtures/`, and reading the findings back.

#![allow(dead_code)] // each test area uses a different part of this

use scout::report::finding::{Era, Finding, Phase, Status};
use scout::report::model::ServerReport;
use scout::spec::{PolicySpec, ServerSpec, TargetSpec};
use scout::transport::process::ProcessConfig;

/// A stdio spec for `tests/fixtures/<file>` (run with python3), with `env` set in the child
/// and only the phases that connect, list and call selected.
pub(crate) fn fixture(file: &str, env: &[(&str, String)]) -> ServerSpec {
    let path = format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
    let mut spec = ServerSpec::new(
        file.trim_end_matches(".py"),
        TargetSpec::Stdio(ProcessConfig {
            command: vec!["python3".into(), path],
            env_forward: Vec::new(),
            env_set: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            dir: None,
        }),
    );
    spec.only = vec![
        Phase::Discovery,
        Phase::Handshake,
        Phase::Catalog,
        Phase::Execution,
    ];
    spec.timeout = std::time::Duration::from_secs(5);
    spec.deadline = std::time::Duration::from_secs(60);
    spec
}

/// The same with a policy.
pub(crate) fn with_policy(mut spec: ServerSpec, policy: PolicySpec) -> ServerSpec {
    spec.policy = policy;
    spec
}

/// Runs the selected phases against the fixture.
pub(crate) async fn run(spec: ServerSpec) -> ServerReport {
    let (_tx, rx) = tokio::sync::watch::channel(false);
    scout::probe::run_server(spec, rx).await
}

/// Every finding with `id`.
pub(crate) fn all<'a>(r: &'a ServerReport, id: &str) -> Vec<&'a Finding> {
    r.findings.iter().filter(|f| f.id == id).collect()
}

/// Asserts that the findings with `id` (and `subject`, when given) have `status` on EVERY
/// era they were reported for: the fixtures speak both eras, so "some finding passed" would
/// hold while the other wire failed. Each such finding must cite evidence that is in the
/// report (unless it is a skip or info). Returns the first. Use [`expect_era`] for a defect
/// that shows on one wire only.
pub(crate) fn expect<'a>(
    r: &'a ServerReport,
    id: &str,
    subject: Option<&str>,
    status: Status,
) -> &'a Finding {
    let matching: Vec<&Finding> = all(r, id)
        .into_iter()
        .filter(|f| subject.is_none() || f.subject.as_deref() == subject)
        .collect();
    let mut eras: Vec<Option<Era>> = Vec::new();
    for f in &matching {
        if !eras.contains(&f.era) {
            eras.push(f.era);
        }
    }
    let mut first = None;
    for era in eras {
        let Some(f) = matching
            .iter()
            .copied()
            .find(|f| f.era == era && f.status == status)
        else {
            panic!(
                "no {status:?} finding {id} (subject {subject:?}) on the {era:?} wire; findings with that id: {:#?}",
                all(r, id)
            );
        };
        check_evidence(r, f);
        first.get_or_insert(f);
    }
    first.unwrap_or_else(|| {
        panic!(
            "no finding {id} (subject {subject:?}) at all; the report has {} findings",
            r.findings.len()
        )
    })
}

/// A pass, warn or fail cites evidence, and every cited exchange is in the report.
fn check_evidence(r: &ServerReport, f: &Finding) {
    if matches!(f.status, Status::Pass | Status::Warn | Status::Fail) {
        assert!(!f.evidence.is_empty(), "{} cites no evidence", f.id);
        let seqs: Vec<u64> = r.exchanges.iter().map(|e| e.seq).collect();
        for seq in &f.evidence {
            assert!(
                seqs.contains(seq),
                "{} cites #{seq}, which is not in the report",
                f.id
            );
        }
    }
}

/// Asserts that no finding whose id starts with `prefix` failed (a correct fixture).
pub(crate) fn no_fails(r: &ServerReport, prefix: &str) {
    let fails: Vec<String> = r
        .findings
        .iter()
        .filter(|f| f.id.starts_with(prefix) && f.status == Status::Fail)
        .map(|f| format!("{} {:?} {:?}: {}", f.id, f.era, f.subject, f.detail))
        .collect();
    assert!(fails.is_empty(), "a correct fixture failed: {fails:#?}");
}

/// Like [`expect`], on the wire of one era (`None`: findings without an era).
pub(crate) fn expect_era<'a>(
    r: &'a ServerReport,
    id: &str,
    subject: Option<&str>,
    era: Option<Era>,
    status: Status,
) -> &'a Finding {
    let found = all(r, id).into_iter().find(|f| {
        f.status == status && f.era == era && (subject.is_none() || f.subject.as_deref() == subject)
    });
    let Some(f) = found else {
        panic!(
            "no {status:?} finding {id} (subject {subject:?}, era {era:?}); findings with that id: {:#?}",
            all(r, id)
        );
    };
    check_evidence(r, f);
    f
}

/// Asserts that no finding with `id` has `status`.
pub(crate) fn never(r: &ServerReport, id: &str, status: Status) {
    let bad: Vec<_> = all(r, id)
        .into_iter()
        .filter(|f| f.status == status)
        .collect();
    assert!(bad.is_empty(), "unexpected {status:?} for {id}: {bad:#?}");
}

/// `spec` running only `phases`.
pub(crate) fn only(mut spec: ServerSpec, phases: &[Phase]) -> ServerSpec {
    spec.only = phases.to_vec();
    spec
}

/// An HTTP server at `url` that scout does not start (nothing may listen there).
pub(crate) fn url_spec(name: &str, url: impl Into<String>) -> ServerSpec {
    ServerSpec::new(
        name,
        TargetSpec::Http {
            url: url.into(),
            headers: Vec::new(),
            auth: Default::default(),
            start: None,
        },
    )
}

/// The same fixture served over Streamable HTTP on a free loopback port (scout starts it).
pub(crate) fn fixture_http(file: &str) -> ServerSpec {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let path = format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
    let mut spec = fixture(file, &[]);
    spec.target = TargetSpec::Http {
        url: format!("http://127.0.0.1:{port}/mcp"),
        headers: Vec::new(),
        auth: Default::default(),
        start: Some(vec![
            "python3".into(),
            path,
            "http".into(),
            "--port".into(),
            port.to_string(),
        ]),
    };
    spec
}

/// [`fixture_http`] with `env` set in the server process (through `env NAME=VALUE …`).
pub(crate) fn fixture_http_env(file: &str, env: &[(&str, &str)]) -> ServerSpec {
    let mut spec = fixture_http(file);
    if let TargetSpec::Http {
        start: Some(cmd), ..
    } = &mut spec.target
    {
        let mut with = vec!["env".to_string()];
        with.extend(env.iter().map(|(k, v)| format!("{k}={v}")));
        with.append(cmd);
        *cmd = with;
    }
    spec
}
