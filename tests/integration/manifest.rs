//! The `manifest` category: the claims of a manifest compared with the live server. The
//! fixture is `minimal_server.py` (serverInfo version 0.1.0, stdio); one set of claims says
//! what it does (no fail, and each check judged), its twin drifts on every claim.

use scout::report::finding::{Finding, Phase, Status};
use scout::report::model::ServerReport;
use scout::spec::{Claim, ManifestClaims};

use crate::phase_fixtures::{fixture, only, run};

/// What a correct `server.json` for `minimal_server.py` says about its stdio package.
pub(crate) fn faithful_claims() -> ManifestClaims {
    ManifestClaims {
        source: "server.json".into(),
        problems: Vec::new(),
        version: Some(Claim::new("/version", "0.1.0")),
        transport: Some(Claim::new("/packages/0/transport/type", "stdio")),
        required_env: vec![Claim::new(
            "/packages/0/environmentVariables/0",
            "MINIMAL_TOKEN",
        )],
        missing_env: Vec::new(),
        tools: Some(vec![
            Claim::new("/tools/0", "echo"),
            Claim::new("/tools/1", "add"),
        ]),
        tools_generated: false,
        prompts: Some(vec![Claim::new("/prompts/0", "greet")]),
        prompts_generated: false,
        // A setting the fixture never reads, as an MCPB bundle's user_config names one.
        placeholders: vec![Claim::new(
            "/user_config/api_key",
            "scout-placeholder-api_key",
        )],
        // The fixture is a Python server: the range this machine's python3 is in.
        compatibility: Some(Box::new(scout::spec::Compatibility {
            host_platform: "linux".into(),
            platforms: None,
            runtimes: vec![scout::spec::Runtime {
                name: "python".into(),
                range: Claim::new("/compatibility/runtimes/python", ">=3.8"),
                program: "python3".into(),
            }],
            clients: Vec::new(),
        })),
        kind: scout::spec::ManifestKind::ServerJson,
        schema_unchecked: None,
        unfilled_headers: Vec::new(),
    }
}

/// The same manifest drifted: a stale version, another transport, a variable it calls
/// required that the server answers without, and a name the registry's schema refuses.
fn drifted_claims() -> ManifestClaims {
    let mut m = faithful_claims();
    m.version = Some(Claim::new("/version", "0.0.9"));
    m.transport = Some(Claim::new("/packages/0/transport/type", "streamable-http"));
    m.missing_env = m.required_env.clone();
    m.problems = vec![Claim::new(
        "/name",
        "\"minimal\" does not match \"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$\"",
    )];
    m
}

async fn check(claims: ManifestClaims) -> ServerReport {
    let mut spec = only(
        fixture("minimal_server.py", &[]),
        &[Phase::Discovery, Phase::Handshake, Phase::Manifest],
    );
    spec.manifest = Some(claims);
    run(spec).await
}

fn finding<'a>(r: &'a ServerReport, id: &str) -> &'a Finding {
    r.findings
        .iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("no {id} finding: {:#?}", r.findings))
}

#[tokio::test]
async fn a_faithful_manifest_passes_every_manifest_check() {
    let r = check(faithful_claims()).await;
    for id in [
        "manifest.schema",
        "manifest.version",
        "manifest.transport",
        "manifest.env",
    ] {
        let f = finding(&r, id);
        assert_eq!(f.status, Status::Pass, "{id}: {}", f.detail);
    }
}

#[tokio::test]
async fn each_drift_is_a_finding_with_its_pointer_and_the_live_exchange() {
    let r = check(drifted_claims()).await;
    let cases = [
        ("manifest.schema", Status::Fail, "/name"),
        ("manifest.version", Status::Fail, "/version"),
        (
            "manifest.transport",
            Status::Fail,
            "/packages/0/transport/type",
        ),
        (
            "manifest.env",
            Status::Warn,
            "/packages/0/environmentVariables/0",
        ),
    ];
    for (id, status, pointer) in cases {
        let f = finding(&r, id);
        assert_eq!(f.status, status, "{id}: {}", f.detail);
        assert!(f.detail.contains(pointer), "{id}: {}", f.detail);
        // The schema is judged from the file alone; every other drift cites the handshake.
        if id != "manifest.schema" {
            assert!(!f.evidence.is_empty(), "{id} cites no exchange");
        }
    }
    assert!(finding(&r, "manifest.version").detail.contains("0.1.0"));
    assert!(
        r.categories
            .iter()
            .any(|c| c.phase == Phase::Manifest && c.score.is_some_and(|s| s < 100))
    );
}

/// The claims checked with the catalog phase, which lists what the comparison needs.
async fn check_lists(claims: ManifestClaims) -> ServerReport {
    let mut spec = only(
        fixture("minimal_server.py", &[]),
        &[
            Phase::Discovery,
            Phase::Handshake,
            Phase::Catalog,
            Phase::Manifest,
        ],
    );
    spec.manifest = Some(claims);
    run(spec).await
}

fn all_of<'a>(r: &'a ServerReport, id: &str) -> Vec<&'a Finding> {
    r.findings.iter().filter(|f| f.id == id).collect()
}

#[tokio::test]
async fn the_listed_tools_and_prompts_are_the_live_ones() {
    let r = check_lists(faithful_claims()).await;
    for id in ["manifest.tools", "manifest.prompts"] {
        let found = all_of(&r, id);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].status, Status::Pass, "{id}: {}", found[0].detail);
        assert!(!found[0].evidence.is_empty(), "{id} cites no exchange");
    }
    let placeholders = finding(&r, "manifest.user_config");
    assert_eq!(placeholders.status, Status::Info);
    assert!(placeholders.detail.contains("/user_config/api_key"));
}

#[tokio::test]
async fn a_listed_tool_the_server_lacks_and_a_live_one_unlisted_are_each_a_finding() {
    let mut m = faithful_claims();
    // Lists `gone` (the server has no such tool), omits `add` (the server has it).
    m.tools = Some(vec![
        Claim::new("/tools/0", "echo"),
        Claim::new("/tools/1", "gone"),
    ]);
    m.prompts = Some(vec![
        Claim::new("/prompts/0", "greet"),
        Claim::new("/prompts/1", "farewell"),
    ]);
    let r = check_lists(m.clone()).await;
    let tools = all_of(&r, "manifest.tools");
    assert_eq!(tools.len(), 2, "{tools:#?}");
    assert!(tools.iter().all(|f| f.status == Status::Fail));
    let listed = tools.iter().find(|f| f.subject.as_deref() == Some("gone"));
    assert!(
        listed.is_some_and(|f| f.detail.contains("/tools/1") && f.detail.contains("tools/list")),
        "{tools:#?}"
    );
    let unlisted = tools.iter().find(|f| f.subject.as_deref() == Some("add"));
    assert!(
        unlisted
            .is_some_and(|f| f.detail.contains("/tools ") && f.detail.contains("tools_generated")),
        "{tools:#?}"
    );
    // Each cites the tools/list exchanges of the run: the request and its answer.
    for f in &tools {
        let cited: Vec<String> = f
            .evidence
            .iter()
            .map(|seq| {
                let x = r
                    .exchanges
                    .iter()
                    .find(|x| x.seq == *seq)
                    .expect("cited exchange");
                serde_json::to_string(x).expect("JSON")
            })
            .collect();
        assert!(
            cited.iter().any(|x| x.contains("\"tools/list\"")),
            "{cited:#?}"
        );
        assert!(cited.iter().all(|x| x.contains("tools")), "{cited:#?}");
    }
    let prompts = all_of(&r, "manifest.prompts");
    assert_eq!(prompts.len(), 1, "{prompts:#?}");
    assert_eq!(prompts[0].status, Status::Fail);
    assert!(
        prompts[0].detail.contains("/prompts/1"),
        "{}",
        prompts[0].detail
    );

    // With tools_generated, a live tool the manifest omits is no drift; a listed one the
    // server lacks still is.
    m.tools_generated = true;
    let r = check_lists(m).await;
    let tools = all_of(&r, "manifest.tools");
    assert_eq!(tools.len(), 1, "{tools:#?}");
    assert_eq!(tools[0].subject.as_deref(), Some("gone"));
}

#[tokio::test]
async fn without_a_manifest_the_category_is_not_assessed() {
    let spec = only(
        fixture("minimal_server.py", &[]),
        &[Phase::Discovery, Phase::Handshake, Phase::Manifest],
    );
    let r = run(spec).await;
    let manifest: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.phase == Phase::Manifest)
        .collect();
    assert_eq!(manifest.len(), scout::probe::manifest::CHECKS.len());
    assert!(manifest.iter().all(|f| f.status == Status::Skip));
}

/// A `server.json` for `minimal_server.py`: one stdio package, as published.
fn server_json(version: &str, transport: &str) -> String {
    serde_json::json!({
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json",
        "name": "io.github.example/minimal",
        "description": "A correct MCP server of scout's test fixtures",
        "version": version,
        "packages": [{
            "registryType": "pypi",
            "registryBaseUrl": "https://pypi.org",
            "identifier": "minimal-server",
            "version": "1.0.0",
            "transport": {"type": transport}
        }]
    })
    .to_string()
}

/// `server_json` in the config, checked end to end by the binary; `command` maps the
/// package to the fixture so nothing is downloaded.
fn check_config(manifest: &str) -> serde_json::Value {
    use crate::common::{Scout, fixture, workspace};
    let s = |p: &std::path::Path| p.display().to_string();
    let config = format!(
        "[[default.servers]]\nname = \"m\"\nserver_json = \"server.json\"\ncommand = [\"python3\", {:?}, \"stdio\"]\n",
        s(&fixture("minimal_server.py"))
    );
    let dir = workspace(Some(&config));
    std::fs::write(dir.path().join("server.json"), manifest).expect("write server.json");
    let out = dir.path().join("report.json");
    let r = Scout::new()
        .dir(dir.path())
        .args([
            "check",
            "--only",
            "discovery,handshake,manifest",
            "--json",
            &s(&out),
        ])
        .run();
    assert!(matches!(r.code, Some(0 | 1)), "{}", r.stderr);
    serde_json::from_str(&std::fs::read_to_string(&out).expect("report")).expect("JSON")
}

fn statuses(report: &serde_json::Value) -> Vec<(String, String, String)> {
    report["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|srv| srv["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| f["phase"] == "manifest")
        .map(|f| {
            (
                f["id"].as_str().unwrap_or("").to_string(),
                f["status"].as_str().unwrap_or("").to_string(),
                f["detail"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn a_server_json_in_the_config_is_checked_end_to_end() {
    let good = check_config(&server_json("0.1.0", "stdio"));
    assert_eq!(good["servers"][0]["name"], "m/packages/0", "{good:#}");
    let found = statuses(&good);
    assert_eq!(
        found.len(),
        scout::probe::manifest::CHECKS.len(),
        "{found:?}"
    );
    assert!(found.iter().all(|(_, st, _)| st != "fail"), "{found:?}");

    let bad = check_config(&server_json("2.0.0", "sse"));
    let found = statuses(&bad);
    for (id, pointer) in [
        ("manifest.version", "/version"),
        ("manifest.transport", "/packages/0/transport/type"),
    ] {
        let f = found.iter().find(|(i, _, _)| i == id).expect(id);
        assert_eq!(f.1, "fail", "{f:?}");
        assert!(f.2.contains(pointer), "{f:?}");
    }
}

#[test]
fn server_json_on_the_command_line_refuses_what_it_cannot_start_in_one_line() {
    use crate::common::{Scout, workspace};
    let dir = workspace(None);
    let mut doc: serde_json::Value =
        serde_json::from_str(&server_json("0.1.0", "stdio")).expect("JSON");
    doc["packages"][0]["registryType"] = serde_json::json!("nuget");
    std::fs::write(dir.path().join("server.json"), doc.to_string()).expect("write");
    let r = Scout::new()
        .dir(dir.path())
        .args(["check", "--server-json", "server.json"])
        .run();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("/packages/0/registryType"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stderr.trim().lines().count(), 1, "{}", r.stderr);
    let r = Scout::new()
        .dir(dir.path())
        .args(["check", "--server-json", "absent.json"])
        .run();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("absent.json"), "{}", r.stderr);
}

// ------------------------------------------------- real servers and their manifests

/// The real npm `@modelcontextprotocol/server-memory` (pinned in tests/servers), over stdio.
fn memory_stdio() -> Vec<String> {
    crate::servers::require_setup();
    let js = crate::servers::servers_dir()
        .join("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    vec!["node".into(), js.display().to_string()]
}

fn toml_list(argv: &[String]) -> String {
    let quoted: Vec<String> = argv.iter().map(|a| format!("{a:?}")).collect();
    format!("[{}]", quoted.join(", "))
}

/// Checks `manifest` (a path) through `server_json` in a config, each package started by
/// the installed binary its identifier maps to (nothing is downloaded); `env` is scout's.
fn check_manifest(
    manifest: &std::path::Path,
    packages: &[(&str, Vec<String>)],
    env: &[(&str, &str)],
) -> (Option<i32>, serde_json::Value, String) {
    use crate::common::{Scout, workspace};
    let mut config = format!(
        "[[default.servers]]\nname = \"m\"\nserver_json = {:?}\n",
        manifest.display().to_string()
    );
    if !packages.is_empty() {
        config.push_str("[default.servers.package_commands]\n");
        for (id, argv) in packages {
            config.push_str(&format!("{id:?} = {}\n", toml_list(argv)));
        }
    }
    let dir = workspace(Some(&config));
    let out = dir.path().join("report.json");
    let mut scout = Scout::new().dir(dir.path()).args([
        "check",
        "--only",
        "discovery,handshake,manifest",
        // The gate: a manifest's drift is a major failure.
        "--fail-on",
        "major",
        "--json",
        &out.display().to_string(),
    ]);
    for (k, v) in env {
        scout = scout.env(k, v);
    }
    let r = scout.run();
    let report = std::fs::read_to_string(&out)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    (r.code, report, r.stderr)
}

fn manifest_file(name: &str) -> std::path::PathBuf {
    crate::common::fixture(&format!("manifests/{name}"))
}

/// The manifest findings of the server named `server`, as (id, status, detail).
fn statuses_of(report: &serde_json::Value, server: &str) -> Vec<(String, String, String)> {
    let one = serde_json::json!({"servers": report["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["name"] == server)
        .cloned()
        .collect::<Vec<_>>()});
    statuses(&one)
}

fn no_fail(found: &[(String, String, String)]) {
    assert_eq!(
        found.len(),
        scout::probe::manifest::CHECKS.len(),
        "{found:?}"
    );
    assert!(found.iter().all(|(_, st, _)| st != "fail"), "{found:?}");
    assert!(
        found
            .iter()
            .any(|(id, st, _)| id == "manifest.version" && st == "pass"),
        "{found:?}"
    );
}

#[test]
fn the_real_memory_and_time_servers_match_their_manifests() {
    let store = tempfile::tempdir().expect("tempdir");
    let graph = store.path().join("memory.jsonl");
    let (code, report, err) = check_manifest(
        &manifest_file("memory.server.json"),
        &[("@modelcontextprotocol/server-memory", memory_stdio())],
        &[("MEMORY_FILE_PATH", &graph.display().to_string())],
    );
    assert_eq!(code, Some(0), "{err}\n{report:#}");
    // The top-level version is the server's (0.6.3), not the npm package's (2026.8.31).
    no_fail(&statuses_of(&report, "m/packages/0"));

    let (code, report, err) = check_manifest(
        &manifest_file("time.server.json"),
        &[("mcp-server-time", crate::servers::time_stdio())],
        &[],
    );
    assert_eq!(code, Some(0), "{err}\n{report:#}");
    no_fail(&statuses_of(&report, "m/packages/0"));
}

#[test]
fn a_drifted_memory_manifest_gets_each_drift_at_its_pointer() {
    let store = tempfile::tempdir().expect("tempdir");
    let graph = store.path().join("memory.jsonl");
    let (code, report, err) = check_manifest(
        &manifest_file("memory-drifted.server.json"),
        &[("@modelcontextprotocol/server-memory", memory_stdio())],
        &[("MEMORY_FILE_PATH", &graph.display().to_string())],
    );
    assert_eq!(code, Some(1), "{err}\n{report:#}");
    let found = statuses_of(&report, "m/packages/0");
    for (id, status, pointer) in [
        ("manifest.version", "fail", "/version"),
        ("manifest.transport", "fail", "/packages/0/transport/type"),
        ("manifest.env", "warn", "/packages/0/environmentVariables/1"),
    ] {
        let f = found.iter().find(|(i, _, _)| i == id).expect(id);
        assert_eq!(f.1, status, "{f:?}");
        assert!(f.2.contains(pointer), "{f:?}");
    }
    let schema = found.iter().find(|(i, _, _)| i == "manifest.schema");
    assert_eq!(schema.map(|f| f.1.as_str()), Some("pass"), "{found:?}");
}

#[test]
fn the_demo_servers_shipped_manifest_matches_it_over_http() {
    let demo = crate::servers::demo_http();
    let port = demo.port.to_string();
    let shipped = crate::common::crate_root().join("examples/demo-server.json");
    // `{port}` in the remote's URL comes from the environment by the variable's name.
    let (code, report, err) = check_manifest(&shipped, &[], &[("port", &port)]);
    assert_eq!(code, Some(0), "{err}\n{report:#}");
    assert_eq!(report["servers"][0]["name"], "m/remotes/0", "{report:#}");
    no_fail(&statuses_of(&report, "m/remotes/0"));
}

/// Two packages (the demo over stdio, as an image and as an npm package) and one remote
/// (the demo over HTTP on `port`); `second` is the second package's transport.
fn three_targets(second: serde_json::Value, port: u16) -> serde_json::Value {
    serde_json::json!({
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json",
        "name": "io.github.scout-mcp/scout-demo",
        "description": "The demo server published three ways",
        "version": "0.1.0",
        "remotes": [{"type": "streamable-http", "url": "http://127.0.0.1:{port}/mcp",
                     "variables": {"port": {"default": port.to_string()}}}],
        "packages": [
            {"registryType": "oci", "identifier": "ghcr.io/scout-mcp/scout-demo", "version": "0.1.0",
             "transport": {"type": "stdio"}},
            {"registryType": "npm", "identifier": "@scout-mcp/demo", "version": "0.1.0",
             "transport": second}
        ]
    })
}

#[test]
fn two_packages_and_a_remote_are_three_servers_each_gated() {
    let demo = crate::servers::demo_http();
    let dir = tempfile::tempdir().expect("tempdir");
    let packages = [
        ("ghcr.io/scout-mcp/scout-demo", crate::servers::demo_stdio()),
        ("@scout-mcp/demo", crate::servers::demo_stdio()),
    ];
    let write = |doc: serde_json::Value| {
        let path = dir.path().join("server.json");
        std::fs::write(&path, doc.to_string()).expect("write server.json");
        path
    };
    let all = ["m/remotes/0", "m/packages/0", "m/packages/1"];
    let good = three_targets(serde_json::json!({"type": "stdio"}), demo.port);
    let (code, report, err) = check_manifest(&write(good), &packages, &[]);
    let mut names: Vec<&str> = report["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["m/packages/0", "m/packages/1", "m/remotes/0"],
        "{err}"
    );
    assert_eq!(code, Some(0), "{err}\n{report:#}");
    for name in all {
        no_fail(&statuses_of(&report, name));
    }

    // A wrong transport on the second package alone: the run fails, and only that
    // server's report says so, at its pointer.
    let drifted = three_targets(
        serde_json::json!({"type": "streamable-http", "url": "http://127.0.0.1:8080/mcp"}),
        demo.port,
    );
    let (code, report, err) = check_manifest(&write(drifted), &packages, &[]);
    assert_eq!(code, Some(1), "{err}");
    let second = statuses_of(&report, "m/packages/1");
    let t = second.iter().find(|(i, _, _)| i == "manifest.transport");
    assert!(
        t.is_some_and(|(_, st, d)| st == "fail" && d.contains("/packages/1/transport/type")),
        "{second:?}"
    );
    for other in ["m/remotes/0", "m/packages/0"] {
        let found = statuses_of(&report, other);
        no_fail(&found);
        let t = found.iter().find(|(i, _, _)| i == "manifest.transport");
        assert!(
            t.is_some_and(|(_, st, d)| st == "pass" && !d.contains("/packages/1")),
            "{other}: {found:?}"
        );
    }
}

#[test]
fn a_remote_without_a_value_for_a_required_variable_is_refused_in_one_line() {
    use crate::common::{Scout, workspace};
    let dir = workspace(None);
    let doc = serde_json::json!({
        "name": "io.github.example/tenant",
        "description": "A remote per tenant",
        "version": "1.0.0",
        "remotes": [{"type": "streamable-http", "url": "https://{tenant}.example.com/mcp",
                     "variables": {"tenant": {"isRequired": true}}}]
    });
    std::fs::write(dir.path().join("server.json"), doc.to_string()).expect("write");
    let r = Scout::new()
        .dir(dir.path())
        .args(["check", "--server-json", "server.json"])
        .run();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("/remotes/0/variables/tenant"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stderr.trim().lines().count(), 1, "{}", r.stderr);
}

#[test]
fn in_scouts_images_a_package_they_cannot_start_is_refused_in_one_line() {
    let demo = crate::servers::demo_http();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("server.json");
    let doc = three_targets(serde_json::json!({"type": "stdio"}), demo.port);
    std::fs::write(&path, doc.to_string()).expect("write server.json");
    let npm = ("@scout-mcp/demo", crate::servers::demo_stdio());
    // The docker package, started by `docker run` as a host would: not in an image.
    for image in ["full", "slim"] {
        let (code, _, err) = check_manifest(
            &path,
            std::slice::from_ref(&npm),
            &[("SCOUT_CONTAINER_IMAGE", image)],
        );
        assert_eq!(code, Some(2), "{image}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{image}: {err}");
        assert!(
            err.contains("/packages/0/registryType \"oci\"")
                && err.contains(&format!("its {image} container image"))
                && err.contains("no Docker"),
            "{image}: {err}"
        );
    }
    // The npm package through npx: refused in slim only (the docker one has a command).
    let oci = ("ghcr.io/scout-mcp/scout-demo", crate::servers::demo_stdio());
    let (code, _, err) = check_manifest(
        &path,
        std::slice::from_ref(&oci),
        &[("SCOUT_CONTAINER_IMAGE", "slim")],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("/packages/1/registryType \"npm\"") && err.contains("no npx"),
        "{err}"
    );
    // With a command of the user's for each package, the image starts both.
    let (code, report, err) =
        check_manifest(&path, &[oci, npm], &[("SCOUT_CONTAINER_IMAGE", "slim")]);
    assert_eq!(code, Some(0), "{err}\n{report:#}");
    assert_eq!(
        report["servers"].as_array().map(Vec::len),
        Some(3),
        "{report:#}"
    );
}

#[test]
fn argument_variables_reach_the_command_line_a_host_would_run() {
    use crate::common::{Scout, workspace};
    use std::os::unix::fs::PermissionsExt;
    let dir = workspace(None);
    // A stand-in for uvx on PATH (the manifest's package is a PyPI one): it records the
    // arguments it was given and runs the demo server, as uvx runs the package it fetched.
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin/");
    let argv = dir.path().join("argv.txt");
    let demo = &crate::servers::demo_stdio()[0];
    let npx = bin.join("uvx");
    std::fs::write(
        &npx,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\nexec '{demo}' stdio\n",
            argv.display()
        ),
    )
    .expect("write uvx");
    std::fs::set_permissions(&npx, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut doc: serde_json::Value =
        serde_json::from_str(&server_json("0.1.0", "stdio")).expect("JSON");
    doc["packages"][0]["packageArguments"] = serde_json::json!([
        {"type": "named", "name": "--root", "value": "{home}/data/{tenant}",
         "variables": {"home": {"default": "/srv"}, "tenant": {"isRequired": true}}},
        {"type": "positional", "value": "{kept}"}
    ]);
    std::fs::write(dir.path().join("server.json"), doc.to_string()).expect("write");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let r = Scout::new()
        .dir(dir.path())
        .env("PATH", &path)
        .env("tenant", "acme")
        .args([
            "check",
            "--server-json",
            "server.json",
            "--only",
            "discovery,handshake",
        ])
        .run();
    assert_eq!(r.code, Some(0), "{}", r.all_output());
    let given = std::fs::read_to_string(&argv).expect("npx was run");
    let given: Vec<&str> = given.lines().collect();
    assert_eq!(
        given[1..],
        ["--root", "/srv/data/acme", "{kept}"],
        "{given:?}"
    );

    // Without the required variable, or with a secret one, the package is refused in one line.
    let r = Scout::new()
        .dir(dir.path())
        .env("PATH", &path)
        .args(["check", "--server-json", "server.json"])
        .run();
    assert_eq!(r.code, Some(2), "{}", r.all_output());
    assert_eq!(r.stderr.trim().lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("/packages/0/packageArguments/0/variables/tenant"),
        "{}",
        r.stderr
    );
    doc["packages"][0]["packageArguments"][0]["variables"]["home"]["isSecret"] =
        serde_json::json!(true);
    std::fs::write(dir.path().join("server.json"), doc.to_string()).expect("write");
    let r = Scout::new()
        .dir(dir.path())
        .env("PATH", &path)
        .env("tenant", "acme")
        .args(["check", "--server-json", "server.json"])
        .run();
    assert_eq!(r.code, Some(2), "{}", r.all_output());
    assert!(
        r.stderr.contains("variables/home: a secret variable"),
        "{}",
        r.stderr
    );
}

// ------------------------------------------------- the registry's schema versions

/// `time.server.json` as the registry's CLI writes it today: `$schema` 2025-12-11.
/// Previously manifest.schema failed major ("not a schema version scout carries").
#[test]
fn a_server_json_on_the_2025_12_11_schema_is_not_failed_for_scouts_gap() {
    let (code, report, err) = check_manifest(
        &manifest_file("time-2025-12-11.server.json"),
        &[("mcp-server-time", crate::servers::time_stdio())],
        &[],
    );
    assert_eq!(code, Some(0), "{err}\n{report:#}");
    let found = statuses_of(&report, "m/packages/0");
    assert!(
        found.iter().all(|(_, st, _)| st != "fail" && st != "warn"),
        "{found:?}"
    );
    let schema = found
        .iter()
        .find(|(id, _, _)| id == "manifest.schema")
        .expect("manifest.schema");
    assert_eq!(schema.1, "skip", "{schema:?}");
    for part in ["2025-12-11", "does not carry", "they hold"] {
        assert!(schema.2.contains(part), "{part}: {schema:?}");
    }
    let version = found.iter().find(|(id, _, _)| id == "manifest.version");
    assert_eq!(version.map(|v| v.1.as_str()), Some("pass"), "{found:?}");
}

/// A schema scout does not carry still leaves the registry's own rules to hold: a name
/// without its namespace fails at /name whatever the `$schema`.
#[test]
fn the_registrys_rules_hold_on_a_schema_scout_does_not_carry() {
    let mut doc: serde_json::Value =
        serde_json::from_str(&server_json("0.1.0", "stdio")).expect("JSON");
    doc["$schema"] = serde_json::json!(
        "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
    );
    let good = check_config(&doc.to_string());
    let found = statuses(&good);
    let schema = found.iter().find(|(i, _, _)| i == "manifest.schema");
    assert_eq!(schema.map(|f| f.1.as_str()), Some("skip"), "{found:?}");
    doc["name"] = serde_json::json!("minimal");
    let bad = check_config(&doc.to_string());
    let found = statuses(&bad);
    let schema = found
        .iter()
        .find(|(i, _, _)| i == "manifest.schema")
        .expect("schema");
    assert_eq!(schema.1, "fail", "{schema:?}");
    assert!(schema.2.contains("/name"), "{schema:?}");
}

/// A `$schema` the registry reads no version from (a URL of another site) and a file with
/// no `$schema` are refused by the registry's publisher: each fails manifest.schema at
/// `/$schema`, not hidden behind the skip for a version scout does not carry. The twin is
/// the same file naming the registry's 2025-09-29 schema.
#[test]
fn a_schema_that_names_no_registry_version_is_the_files_failure() {
    let read = |name: &str| std::fs::read_to_string(manifest_file(name)).expect("fixture");
    let schema_of = |report: &serde_json::Value| {
        statuses(report)
            .into_iter()
            .find(|(i, _, _)| i == "manifest.schema")
            .expect("manifest.schema")
    };
    let twin = schema_of(&check_config(&read("minimal.server.json")));
    assert_eq!(twin.1, "pass", "{twin:?}");
    for name in ["foreign-schema.server.json", "no-schema.server.json"] {
        let found = schema_of(&check_config(&read(name)));
        assert_eq!(found.1, "fail", "{name}: {found:?}");
        assert!(found.2.contains("/$schema"), "{name}: {found:?}");
    }
}

// ------------------------------------------------- a remote's declared headers

/// `api-key-remote.server.json`: `api_key_server.py` published as a remote whose
/// `X-API-Key` header is required and secret; `port` fills its URL.
fn check_api_key_remote(
    env: &[(&str, &str)],
    extra: &[&str],
) -> (Option<i32>, serde_json::Value, String, String) {
    check_remote(
        "api_key_server.py",
        "api-key-remote.server.json",
        env,
        extra,
    )
}

/// `manifest` (whose one remote's URL takes `port`) checked against `fixture` over HTTP.
fn check_remote(
    fixture: &str,
    manifest: &str,
    env: &[(&str, &str)],
    extra: &[&str],
) -> (Option<i32>, serde_json::Value, String, String) {
    use crate::common::{HttpFixture, Scout, workspace};
    let server = HttpFixture::start(fixture);
    let port = server
        .url
        .rsplit(':')
        .next()
        .and_then(|p| p.split('/').next())
        .expect("a port")
        .to_string();
    let dir = workspace(None);
    let out = dir.path().join("report.json");
    let manifest = manifest_file(manifest);
    let mut scout = Scout::new()
        .dir(dir.path())
        .env("port", &port)
        .args(["check", "--server-json"])
        .args([manifest.display().to_string()])
        .args([
            "--only",
            "discovery,auth,handshake,manifest",
            "--json",
            &out.display().to_string(),
        ])
        .args(extra);
    for (k, v) in env {
        scout = scout.env(k, v);
    }
    let r = scout.run();
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let report = serde_json::from_str(&text).unwrap_or(serde_json::Value::Null);
    (r.code, report, text, r.stderr)
}

fn findings_of(report: &serde_json::Value) -> Vec<(String, String, String)> {
    report["servers"][0]["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                f["id"].as_str().unwrap_or("").to_string(),
                f["status"].as_str().unwrap_or("").to_string(),
                f["detail"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The correct twin: the key comes from the environment under the documented name
/// (SCOUT_HEADER_X_API_KEY), reaches the server, and never the report. Previously the header was
/// dropped and the run was blocked by HTTP 401.
#[test]
fn a_declared_header_is_filled_from_the_environment_and_kept_out_of_the_report() {
    let (code, report, text, err) =
        check_api_key_remote(&[("SCOUT_HEADER_X_API_KEY", "fixture-key-51c7")], &[]);
    assert!(matches!(code, Some(0 | 1)), "{err}\n{report:#}");
    assert!(report["servers"][0]["blocked"].is_null(), "{report:#}");
    let found = findings_of(&report);
    let era = found.iter().find(|(i, _, _)| i == "handshake.protocol_era");
    assert_eq!(era.map(|f| f.1.as_str()), Some("pass"), "{found:#?}");
    assert!(
        found
            .iter()
            .all(|(id, st, _)| !(id.starts_with("auth.") && st == "fail")),
        "{found:#?}"
    );
    assert!(!text.contains("fixture-key-51c7"), "the key is redacted");
}

/// The header given on the command line reaches a target derived from a manifest, and the
/// manifest's own declaration does not ask for it again.
#[test]
fn header_reaches_a_remote_derived_from_a_manifest() {
    let (code, report, text, err) = check_api_key_remote(
        &[("FX_KEY", "fixture-key-51c7")],
        &["--header", "X-API-Key=env:FX_KEY"],
    );
    assert!(matches!(code, Some(0 | 1)), "{err}\n{report:#}");
    assert!(report["servers"][0]["blocked"].is_null(), "{report:#}");
    let found = findings_of(&report);
    let era = found.iter().find(|(i, _, _)| i == "handshake.protocol_era");
    assert_eq!(era.map(|f| f.1.as_str()), Some("pass"), "{found:#?}");
    assert!(!text.contains("fixture-key-51c7"), "the key is redacted");
}

/// The defect's case: no key anywhere. Nothing is sent, nothing about auth is judged, and
/// the reason names the header, its pointer and the variable that fills it.
#[test]
fn a_required_header_scout_cannot_fill_is_named_and_nothing_is_failed() {
    let (code, report, _, err) = check_api_key_remote(&[], &[]);
    assert!(matches!(code, Some(1 | 3)), "{err}\n{report:#}");
    let blocked = report["servers"][0]["blocked"].as_str().unwrap_or_default();
    for part in [
        "X-API-Key",
        "/remotes/0/headers/0",
        "SCOUT_HEADER_X_API_KEY",
    ] {
        assert!(blocked.contains(part), "{part}: {blocked}");
    }
    let found = findings_of(&report);
    assert!(!found.is_empty(), "{report:#}");
    assert!(
        found.iter().all(|(_, st, _)| st != "fail" && st != "warn"),
        "{found:#?}"
    );
    assert!(
        report["exchanges"].as_array().is_none_or(|e| e.is_empty())
            && report["servers"][0]["exchanges"]
                .as_array()
                .is_none_or(|e| e.is_empty()),
        "nothing is sent: {report:#}"
    );
}

/// A header that was given and refused: the blocked reason names the headers sent and does
/// not advise the `--header` flag that was given.
#[test]
fn a_refused_header_is_not_advised_again() {
    let (_, report, text, err) = check_api_key_remote(
        &[("FX_KEY", "not-the-key-9f2a")],
        &["--header", "X-API-Key=env:FX_KEY"],
    );
    let blocked = report["servers"][0]["blocked"].as_str().unwrap_or_default();
    assert!(!blocked.is_empty(), "{err}\n{report:#}");
    assert!(!blocked.contains("--header NAME"), "{blocked}");
    assert!(blocked.contains("X-API-Key"), "{blocked}");
    assert!(!text.contains("not-the-key-9f2a"), "the value is redacted");
}

/// `bearer-remote.server.json` declares a required `Authorization: Bearer {token}`; a token
/// given as scout's own bearer (`--token-env`) fills it, as the variable `SCOUT_HEADER_TOKEN` does. It
/// was blocked as a header scout had no value for. With neither, the header is named.
#[test]
fn a_token_given_to_scout_fills_a_declared_authorization_header() {
    let era = |report: &serde_json::Value| {
        findings_of(report)
            .into_iter()
            .find(|(i, _, _)| i == "handshake.protocol_era")
            .map(|f| f.1)
    };
    let (code, report, text, err) = check_remote(
        "requires_token.py",
        "bearer-remote.server.json",
        &[("FX_TOKEN", "fixture-token")],
        &["--token-env", "FX_TOKEN"],
    );
    assert!(matches!(code, Some(0 | 1)), "{err}\n{report:#}");
    assert!(report["servers"][0]["blocked"].is_null(), "{report:#}");
    assert_eq!(era(&report).as_deref(), Some("pass"), "{report:#}");
    assert!(!text.contains("fixture-token"), "the token is redacted");
    let (_, report, _, _) = check_remote(
        "requires_token.py",
        "bearer-remote.server.json",
        &[("SCOUT_HEADER_TOKEN", "fixture-token")],
        &[],
    );
    assert_eq!(era(&report).as_deref(), Some("pass"), "{report:#}");
    // The operator's own `TOKEN` is not read under the name the manifest chose: the file
    // picks the remote too, so only the prefixed variable may fill its header.
    let (_, report, text, err) = check_remote(
        "requires_token.py",
        "bearer-remote.server.json",
        &[("TOKEN", "operator-token")],
        &[],
    );
    let blocked = report["servers"][0]["blocked"].as_str().unwrap_or_default();
    assert!(blocked.contains("Authorization"), "{err}\n{report:#}");
    assert!(blocked.contains("SCOUT_HEADER_TOKEN"), "{err}\n{report:#}");
    assert!(!text.contains("operator-token"), "{text}");
}
