//! The security checks against the real servers of `tests/servers/` (lab/README documents
//! what each does on the wire): every verdict must be true — server-everything and rmcp's
//! default configuration serve a foreign Origin, the Python and TypeScript SDKs refuse it —
//! and real catalogues pin reproducibly.

use scout::report::finding::{Era, Phase, Status};
use scout::report::model::ServerReport;
use scout::spec::TargetSpec;

use crate::common::{Scout, workspace};
use crate::phase_fixtures::{all, expect, run};
use crate::security::{
    CHECK_PHASES, config_file, entropy_sessions, findings, report, requests, s, security_only,
};

fn http_spec(url: &str) -> scout::spec::ServerSpec {
    let mut spec = scout::spec::ServerSpec::new(
        "real",
        TargetSpec::Http {
            url: url.to_string(),
            headers: vec![],
            auth: Default::default(),
            start: None,
        },
    );
    spec.timeout = std::time::Duration::from_secs(10);
    spec.deadline = std::time::Duration::from_secs(90);
    security_only(spec)
}

/// `id [era] status: detail` of every security finding that is neither a pass nor a skip.
fn judged_security(r: &ServerReport) -> Vec<String> {
    r.findings
        .iter()
        .filter(|f| f.phase == Phase::Security && !matches!(f.status, Status::Pass | Status::Skip))
        .map(|f| format!("{} [{:?}] {:?}: {}", f.id, f.era, f.status, f.detail))
        .collect()
}

/// The sampled sessions were each closed with a 2xx DELETE.
fn assert_sessions_closed(r: &ServerReport) {
    let minted = entropy_sessions(r);
    assert_eq!(minted.len(), 5, "{minted:?}");
    let deleted = requests(r, "DELETE");
    for id in &minted {
        assert!(
            deleted
                .iter()
                .any(|(sid, status)| sid.as_deref() == Some(id.as_str())
                    && status.is_some_and(|s| (200..300).contains(&s))),
            "session {id} was not closed: {deleted:?}"
        );
    }
}

#[tokio::test]
async fn server_everything_has_no_rebinding_protection_a_true_positive() {
    let http = crate::servers::everything_http();
    let r = run(http_spec(&http.url)).await;
    let f = expect(&r, "security.origin", None, Status::Fail);
    assert_eq!(f.era, Some(Era::Legacy));
    assert!(
        f.detail
            .contains("Origin: http://evil.example was served (HTTP 200)"),
        "{}",
        f.detail
    );
    assert!(
        f.detail.contains("was served too"),
        "Host is not checked either: {}",
        f.detail
    );
    let f = expect(&r, "security.session_entropy", None, Status::Pass);
    assert!(f.detail.contains("version 4"), "{}", f.detail);
    assert_sessions_closed(&r);
    let judged = judged_security(&r);
    assert_eq!(judged.len(), 1, "only the origin failure: {judged:#?}");

    // The legacy HTTP+SSE transport of the same package: no protection there either.
    let sse = crate::servers::everything_sse();
    let r = run(http_spec(&sse.url)).await;
    let f = expect(&r, "security.origin", None, Status::Fail);
    assert!(f.detail.contains("was served (HTTP 202)"), "{}", f.detail);
    let skip = expect(&r, "security.session_entropy", None, Status::Skip);
    assert!(skip.detail.contains("endpoint URL"), "{}", skip.detail);
}

#[tokio::test]
async fn the_python_and_typescript_sdks_refuse_foreign_origins_and_hosts() {
    let py = crate::servers::py_http();
    let r = run(http_spec(&py.url)).await;
    for era in [Era::Legacy, Era::Modern] {
        let f = all(&r, "security.origin")
            .into_iter()
            .find(|f| f.era == Some(era))
            .unwrap_or_else(|| panic!("python: no origin finding on {era:?}"));
        assert_eq!(f.status, Status::Pass, "python {era:?}: {}", f.detail);
        // The Python SDK answers a foreign Host with 421 Misdirected Request.
        assert!(
            f.detail.contains("refused (HTTP 403)") && f.detail.contains("(HTTP 421)"),
            "{}",
            f.detail
        );
    }
    let f = expect(&r, "security.session_entropy", None, Status::Pass);
    assert!(f.detail.contains("version 4"), "{}", f.detail);
    assert_sessions_closed(&r);
    assert!(judged_security(&r).is_empty(), "{:#?}", judged_security(&r));

    let ts = crate::servers::ts_http();
    let r = run(http_spec(&ts.url)).await;
    for era in [Era::Legacy, Era::Modern] {
        let f = all(&r, "security.origin")
            .into_iter()
            .find(|f| f.era == Some(era))
            .unwrap_or_else(|| panic!("typescript: no origin finding on {era:?}"));
        assert_eq!(f.status, Status::Pass, "typescript {era:?}: {}", f.detail);
        assert!(f.detail.contains("refused (HTTP 403)"), "{}", f.detail);
    }
    // Its 2025 fallback is stateless: no session ids to judge.
    let skip = expect(&r, "security.session_entropy", None, Status::Skip);
    assert!(skip.detail.contains("no Mcp-Session-Id"), "{}", skip.detail);
    assert!(judged_security(&r).is_empty(), "{:#?}", judged_security(&r));
}

/// rmcp's StreamableHttpService checks Host (403) but, in its default configuration,
/// not Origin ("Defaults to an empty list, which disables Origin validation" in rmcp
/// 3.11): the demo server serves a foreign Origin, which the transports forbid.
#[tokio::test]
async fn rmcp_with_its_default_config_checks_host_but_not_origin() {
    let demo = crate::servers::demo_http();
    let r = run(http_spec(&demo.url)).await;
    let origin = all(&r, "security.origin");
    assert!(!origin.is_empty());
    for f in origin {
        assert_eq!(f.status, Status::Fail, "{:?}: {}", f.era, f.detail);
        assert!(
            f.detail.contains("Origin: http://evil.example was served"),
            "{}",
            f.detail
        );
        assert!(
            f.detail.contains("was refused (HTTP 403)"),
            "Host is checked: {}",
            f.detail
        );
    }
    let f = expect(&r, "security.session_entropy", None, Status::Pass);
    assert!(f.detail.contains("version 4"), "{}", f.detail);
    assert_sessions_closed(&r);
    let judged: Vec<String> = judged_security(&r)
        .into_iter()
        .filter(|j| !j.starts_with("security.origin "))
        .collect();
    assert!(judged.is_empty(), "{judged:#?}");
}

/// `scout pin` then `scout check` on real, unchanged servers: the lock is byte-identical
/// across pins and the check passes `security.catalog_pinning` (server-everything over
/// stdio, the Python SDK over HTTP, pinned on its 2026-07-28 wire).
#[test]
fn real_servers_pin_reproducibly_and_pass_their_own_lock() {
    let py = crate::servers::py_http();
    let everything = crate::servers::everything_stdio();
    let dir = workspace(None);
    let argv = |v: &[String]| {
        v.iter()
            .map(|a| format!("{a:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let config = config_file(
        dir.path(),
        &format!(
            "[[default.servers]]\nname = \"everything\"\ncommand = [{}]\n\n[[default.servers]]\nname = \"python\"\nurl = \"{}\"\n",
            argv(&everything),
            py.url
        ),
    );
    let lock = dir.path().join("scout.lock");
    let pin = || Scout::new().args(["pin", "--config", &s(&config)]).run();
    let first = pin();
    assert_eq!(first.code, Some(0), "{}\n{}", first.stdout, first.stderr);
    let bytes = std::fs::read(&lock).expect("lock written");
    let text = String::from_utf8_lossy(&bytes).to_string();
    assert!(
        text.contains("name = \"get-sum\""),
        "server-everything's tools are pinned"
    );
    assert!(
        text.contains("name = \"delete_note\""),
        "the Python server's tools are pinned"
    );
    let second = pin();
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    assert!(
        second.stdout.contains("everything: unchanged"),
        "{}",
        second.stdout
    );
    assert_eq!(std::fs::read(&lock).expect("lock"), bytes, "byte-identical");

    let json = dir.path().join("report.json");
    let r = Scout::new()
        .args(["check", "--config", &s(&config), "--only", CHECK_PHASES])
        .args(["--json", &s(&json)])
        .run();
    let doc = report(&json);
    for server in ["everything", "python"] {
        let f = findings(&doc, server, "security.catalog_pinning");
        assert_eq!(f.len(), 1, "{server}: {f:#?}");
        assert_eq!(f[0]["status"], "pass", "{server}: {f:#?}");
    }
    assert!(
        !r.stderr.contains("scout.lock"),
        "no pinning reason in the gate: {}",
        r.stderr
    );
}
