//! MCPB bundles as targets (`--mcpb`, `mcpb = "…"`): the vendored manifest schemas are the
//! published package's, and bundles packed by the official `mcpb` CLI around a real server
//! are checked end to end, one faithful and one drifted.

use crate::common::{crate_root, tool};

/// The `manifest_version`s scout carries a schema for.
const VERSIONS: [&str; 4] = ["0.1", "0.2", "0.3", "0.4"];

#[test]
fn the_vendored_schemas_are_the_published_packages_own() {
    let package = tool("mcpb/node_modules/@anthropic-ai/mcpb");
    let pinned: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(package.join("package.json")).expect("package.json"),
    )
    .expect("package.json is JSON");
    let readme =
        std::fs::read_to_string(crate_root().join("schemas/mcpb/README.md")).expect("README");
    let version = pinned["version"].as_str().expect("a version");
    assert!(
        readme.contains(&format!("version {version}")),
        "schemas/mcpb/README.md does not name the installed @anthropic-ai/mcpb {version}"
    );
    for v in VERSIONS {
        let name = format!("mcpb-manifest-v{v}.schema.json");
        let published = std::fs::read(package.join("dist").join(&name)).expect(&name);
        let vendored = std::fs::read(crate_root().join("schemas/mcpb").join(&name)).expect(&name);
        assert!(
            published == vendored,
            "schemas/mcpb/{name} differs from @anthropic-ai/mcpb {version}'s dist/{name}"
        );
    }
}

/// The demo server's manifest (serverInfo 0.1.0; tools add, echo, remember, forget_all;
/// prompt greet), started from the bundle's `server/` folder; `user_config` has a required
/// key without a default, which the server never reads.
pub(crate) fn demo_manifest() -> serde_json::Value {
    serde_json::json!({
        "manifest_version": "0.3",
        "name": "scout-demo",
        "version": "0.1.0",
        "description": "scout's demo MCP server",
        "author": {"name": "scout"},
        "server": {
            "type": "binary",
            "entry_point": "server/demo-server",
            "mcp_config": {
                "command": "${__dirname}/server/demo-server",
                "args": ["stdio"],
                "env": {"DEMO_API_KEY": "${user_config.api_key}"}
            }
        },
        "tools": [{"name": "add"}, {"name": "echo"}, {"name": "remember"}, {"name": "forget_all"}],
        "prompts": [{"name": "greet", "text": "Greet ${arguments.name}"}],
        "user_config": {
            "api_key": {"type": "string", "title": "API key", "description": "Unused by the demo",
                        "required": true, "sensitive": true}
        }
    })
}

/// A bundle folder: `manifest` and the demo server binary under `server/`.
fn bundle_folder(manifest: &serde_json::Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    fill(dir.path(), manifest);
    dir
}

/// Writes a bundle's files into `dir`.
pub(crate) fn fill(dir: &std::path::Path, manifest: &serde_json::Value) {
    std::fs::create_dir_all(dir.join("server")).expect("server/");
    let demo = &crate::servers::demo_stdio()[0];
    std::fs::copy(demo, dir.join("server/demo-server")).expect("copy the demo server");
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_string_pretty(manifest).expect("JSON"),
    )
    .expect("write manifest.json");
}

/// `scout check` with `target` (the flags naming the bundle) run in `cwd`, temporary files
/// in `tmp`: the exit code, the JSON report and stderr.
fn check(
    cwd: &std::path::Path,
    target: &[&str],
    tmp: &std::path::Path,
) -> (Option<i32>, serde_json::Value, String) {
    let out = cwd.join("report.json");
    let r = crate::common::Scout::new()
        .dir(cwd)
        .env("TMPDIR", &tmp.display().to_string())
        .args(["check"])
        .args(target)
        .args([
            "--only",
            "discovery,handshake,catalog,manifest",
            "--fail-on",
            "major",
            "--json",
            &out.display().to_string(),
        ])
        .run();
    let report = std::fs::read_to_string(&out)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    (r.code, report, r.stderr)
}

/// The `manifest` findings of the report's one server, as (id, status, detail).
fn manifest_findings(report: &serde_json::Value) -> Vec<(String, String, String)> {
    report["servers"][0]["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["phase"] == "manifest")
        .map(|f| {
            (
                f["id"].as_str().unwrap_or_default().to_owned(),
                f["status"].as_str().unwrap_or_default().to_owned(),
                f["detail"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn status_of<'a>(found: &'a [(String, String, String)], id: &str) -> &'a (String, String, String) {
    found
        .iter()
        .find(|f| f.0 == id)
        .unwrap_or_else(|| panic!("no {id} finding: {found:#?}"))
}

#[test]
fn a_bundle_folder_starts_the_server_its_manifest_names() {
    let bundle = bundle_folder(&demo_manifest());
    let tmp = tempfile::tempdir().expect("tempdir");
    let (code, report, err) = check(bundle.path(), &["--mcpb", "."], tmp.path());
    assert_eq!(code, Some(0), "{err}\n{report:#}");
    let found = manifest_findings(&report);
    for id in ["manifest.schema", "manifest.tools", "manifest.prompts"] {
        assert_eq!(status_of(&found, id).1, "pass", "{found:#?}");
    }
    // A bundle's version is reported beside serverInfo.version, never graded.
    assert_eq!(
        status_of(&found, "manifest.version").1,
        "info",
        "{found:#?}"
    );
    assert!(found.iter().all(|f| f.1 != "fail"), "{found:#?}");
    // The required setting without a default was started with a placeholder, named.
    let placeholder = status_of(&found, "manifest.user_config");
    assert_eq!(placeholder.1, "info", "{placeholder:?}");
    assert!(
        placeholder.2.contains("/user_config/api_key")
            && placeholder.2.contains("scout-placeholder-KEY"),
        "{placeholder:?}"
    );
    // The server answered the handshake: it was started with its manifest's command.
    assert_eq!(
        report["servers"][0]["server_info"]["name"], "scout-demo",
        "{report:#}"
    );
}

#[test]
fn mcpb_in_the_config_is_relative_to_the_config_file() {
    let ws = crate::common::workspace(Some(
        "[[default.servers]]\nname = \"demo\"\nmcpb = \"bundle\"\n",
    ));
    fill(&ws.path().join("bundle"), &demo_manifest());
    let tmp = tempfile::tempdir().expect("tempdir");
    let (code, report, err) = check(ws.path(), &[], tmp.path());
    assert_eq!(code, Some(0), "{err}\n{report:#}");
    assert_eq!(report["servers"][0]["name"], "demo", "{report:#}");
    assert_eq!(
        status_of(&manifest_findings(&report), "manifest.version").1,
        "info"
    );
}

#[test]
fn what_is_not_a_bundle_is_refused_in_one_line_with_exit_2() {
    let ws = tempfile::tempdir().expect("tempdir");
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(ws.path().join("notzip.mcpb"), "plain text").expect("write");
    let mut no_command = demo_manifest();
    no_command["server"]["mcp_config"] = serde_json::json!({"args": ["stdio"]});
    let folder = bundle_folder(&no_command);
    let folder = folder.path().display().to_string();
    for (target, names) in [
        ("absent.mcpb", "absent.mcpb"),
        ("notzip.mcpb", "notzip.mcpb"),
        (".", "manifest.json"),
        (folder.as_str(), "/server/mcp_config/command"),
    ] {
        let (code, _, err) = check(ws.path(), &["--mcpb", target], tmp.path());
        assert_eq!(code, Some(2), "{target}: {err}");
        assert!(err.contains(names), "{target}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{target}: {err}");
    }
}

// ------------------------------------------------- bundles packed by the official CLI

/// Packs `manifest` and the demo server with `mcpb pack` (the pinned `@anthropic-ai/mcpb`)
/// into `out/NAME.mcpb`.
fn pack(manifest: &serde_json::Value, out: &std::path::Path, name: &str) -> std::path::PathBuf {
    let src = bundle_folder(manifest);
    let bundle = out.join(format!("{name}.mcpb"));
    let run = crate::common::scrubbed(std::process::Command::new(tool(
        "mcpb/node_modules/.bin/mcpb",
    )))
    .arg("pack")
    .arg(src.path())
    .arg(&bundle)
    .output()
    .expect("run mcpb pack");
    assert!(
        run.status.success() && bundle.is_file(),
        "mcpb pack failed: {}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    bundle
}

/// Nothing left in `tmp`: the bundle's unpacked folder was removed after the run.
fn nothing_left(tmp: &std::path::Path) {
    let left: Vec<_> = std::fs::read_dir(tmp)
        .expect("read tmp")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        left.is_empty(),
        "left behind in the temporary folder: {left:?}"
    );
}

#[test]
fn a_bundle_packed_by_mcpb_pack_is_checked_and_its_folder_removed() {
    let out = tempfile::tempdir().expect("tempdir");
    let bundle = pack(&demo_manifest(), out.path(), "demo");
    let tmp = tempfile::tempdir().expect("tempdir");
    let bundle = bundle.display().to_string();
    let (code, report, err) = check(out.path(), &["--mcpb", &bundle], tmp.path());
    assert_eq!(code, Some(0), "{err}\n{report:#}");
    assert_eq!(report["servers"][0]["name"], "demo", "{report:#}");
    let found = manifest_findings(&report);
    for id in ["manifest.schema", "manifest.tools", "manifest.prompts"] {
        assert_eq!(status_of(&found, id).1, "pass", "{found:#?}");
    }
    // A bundle's version is reported beside serverInfo.version, never graded.
    assert_eq!(
        status_of(&found, "manifest.version").1,
        "info",
        "{found:#?}"
    );
    assert!(found.iter().all(|f| f.1 != "fail"), "{found:#?}");
    nothing_left(tmp.path());
}

#[test]
fn a_drifted_bundle_gets_each_drift_at_its_pointer() {
    let mut drifted = demo_manifest();
    // A stale version; lists `summarise`, which the server no longer has (at /tools/3), and
    // omits `forget_all`, which it has; lists a prompt it lacks.
    drifted["version"] = serde_json::json!("0.0.9");
    drifted["tools"] = serde_json::json!([
        {"name": "add"}, {"name": "echo"}, {"name": "remember"}, {"name": "summarise"}
    ]);
    drifted["prompts"] = serde_json::json!([
        {"name": "greet", "text": "Greet ${arguments.name}"},
        {"name": "farewell", "text": "Bye"}
    ]);
    let out = tempfile::tempdir().expect("tempdir");
    let bundle = pack(&drifted, out.path(), "drifted");
    let tmp = tempfile::tempdir().expect("tempdir");
    let bundle = bundle.display().to_string();
    let (code, report, err) = check(out.path(), &["--mcpb", &bundle], tmp.path());
    // Each drift is a major failure, so the gate fails.
    assert_eq!(code, Some(1), "{err}\n{report:#}");
    let found = manifest_findings(&report);
    let fails: Vec<&(String, String, String)> = found.iter().filter(|f| f.1 == "fail").collect();
    for (id, pointer, names) in [
        ("manifest.tools", "/tools/3", "summarise"),
        ("manifest.tools", "/tools ", "forget_all"),
        ("manifest.prompts", "/prompts/1", "farewell"),
    ] {
        assert!(
            fails
                .iter()
                .any(|f| f.0 == id && f.2.contains(pointer) && f.2.contains(names)),
            "no {id} failure at {pointer} naming {names}: {found:#?}"
        );
    }
    assert_eq!(fails.len(), 3, "{found:#?}");
    // The stale bundle version is an observation: MCPB does not tie it to serverInfo.version.
    let version = status_of(&found, "manifest.version");
    assert_eq!(version.1, "info", "{version:?}");
    assert!(
        version.2.contains("0.0.9") && version.2.contains("0.1.0"),
        "{version:?}"
    );
    assert_eq!(status_of(&found, "manifest.schema").1, "pass", "{found:#?}");
    // Every drift cites the exchange that showed the live value.
    let findings = report["servers"][0]["findings"]
        .as_array()
        .expect("findings");
    for f in findings
        .iter()
        .filter(|f| f["phase"] == "manifest" && f["status"] == "fail")
    {
        assert!(
            f["evidence"].as_array().is_some_and(|e| !e.is_empty()),
            "{f:#}"
        );
    }
    nothing_left(tmp.path());
}

/// The MCPB manifest says only "Semantic version of your extension": a bundle released on
/// its own schedule (2.3.0) around a server that reports 0.1.0 is no drift. Previously
/// manifest.version failed major.
#[test]
fn a_bundle_versioned_apart_from_its_server_is_reported_not_failed() {
    let mut own = demo_manifest();
    own["version"] = serde_json::json!("2.3.0");
    let bundle = bundle_folder(&own);
    let tmp = tempfile::tempdir().expect("tempdir");
    let (code, report, err) = check(bundle.path(), &["--mcpb", "."], tmp.path());
    assert_eq!(code, Some(0), "{err}\n{report:#}");
    let found = manifest_findings(&report);
    let version = status_of(&found, "manifest.version");
    assert_eq!(version.1, "info", "{version:?}");
    for part in ["/version", "\"2.3.0\"", "serverInfo.version \"0.1.0\""] {
        assert!(version.2.contains(part), "{part}: {version:?}");
    }
    assert!(
        found.iter().all(|f| f.1 != "fail" && f.1 != "warn"),
        "{found:#?}"
    );
}

#[test]
fn a_manifest_its_schema_refuses_is_a_failure_at_the_pointer_and_the_server_still_runs() {
    let mut bad = demo_manifest();
    bad["server"]["type"] = serde_json::json!("java");
    let bundle = bundle_folder(&bad);
    let tmp = tempfile::tempdir().expect("tempdir");
    let (code, report, err) = check(bundle.path(), &["--mcpb", "."], tmp.path());
    assert_eq!(code, Some(1), "{err}\n{report:#}");
    let found = manifest_findings(&report);
    let schema = status_of(&found, "manifest.schema");
    assert_eq!(schema.1, "fail", "{schema:?}");
    assert!(schema.2.contains("/server/type"), "{schema:?}");
    assert_eq!(status_of(&found, "manifest.tools").1, "pass", "{found:#?}");
}

/// The real npm `@modelcontextprotocol/server-memory` (pinned in tests/servers: serverInfo
/// 0.6.3, nine tools, no prompts capability) as a `node` bundle folder whose `node_modules`
/// is the installed one.
fn memory_bundle(tools: &[&str]) -> tempfile::TempDir {
    crate::servers::require_setup();
    let dir = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(
        crate::servers::servers_dir().join("node_modules"),
        dir.path().join("node_modules"),
    )
    .expect("link node_modules");
    let tools: Vec<serde_json::Value> = tools
        .iter()
        .map(|t| serde_json::json!({"name": t}))
        .collect();
    let manifest = serde_json::json!({
        "manifest_version": "0.4",
        "name": "memory",
        "version": "0.6.3",
        "description": "Knowledge-graph memory",
        "author": {"name": "Model Context Protocol"},
        "server": {
            "type": "node",
            "entry_point": "node_modules/@modelcontextprotocol/server-memory/dist/index.js",
            "mcp_config": {
                "command": "node",
                "args": ["${__dirname}/node_modules/@modelcontextprotocol/server-memory/dist/index.js"],
                "env": {"MEMORY_FILE_PATH": "${user_config.memory_file}"}
            }
        },
        "tools": tools,
        // The server declares no prompts capability: it lists none.
        "prompts": [],
        "user_config": {
            "memory_file": {"type": "file", "title": "Memory file", "description": "Where the graph is kept",
                            "default": "${HOME}/memory.jsonl"}
        },
        "compatibility": {"platforms": ["darwin", "win32", "linux"], "runtimes": {"node": ">=18"}}
    });
    std::fs::write(dir.path().join("manifest.json"), manifest.to_string()).expect("write");
    dir
}

const MEMORY_TOOLS: [&str; 9] = [
    "create_entities",
    "create_relations",
    "add_observations",
    "delete_entities",
    "delete_observations",
    "delete_relations",
    "read_graph",
    "search_nodes",
    "open_nodes",
];

#[test]
fn a_node_bundle_around_the_real_memory_server_matches_or_drifts_from_its_manifest() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tempfile::tempdir().expect("home");
    let run = |bundle: &tempfile::TempDir| {
        let out = bundle.path().join("report.json");
        let r = crate::common::Scout::new()
            .dir(bundle.path())
            .env("TMPDIR", &tmp.path().display().to_string())
            // `${HOME}` in the setting's default: the graph file lands in a folder of the test's.
            .env("HOME", &home.path().display().to_string())
            .args([
                "check",
                "--mcpb",
                ".",
                "--only",
                "discovery,handshake,catalog,manifest",
                "--fail-on",
                "major",
                "--json",
                &out.display().to_string(),
            ])
            .run();
        let report: serde_json::Value = std::fs::read_to_string(&out)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(serde_json::Value::Null);
        (r.code, report, r.stderr)
    };
    let (code, report, err) = run(&memory_bundle(&MEMORY_TOOLS));
    assert_eq!(code, Some(0), "{err}\n{report:#}");
    let found = manifest_findings(&report);
    for id in ["manifest.schema", "manifest.tools", "manifest.prompts"] {
        assert_eq!(status_of(&found, id).1, "pass", "{found:#?}");
    }
    // A bundle's version is reported beside serverInfo.version, never graded.
    assert_eq!(
        status_of(&found, "manifest.version").1,
        "info",
        "{found:#?}"
    );
    assert!(
        status_of(&found, "manifest.prompts")
            .2
            .contains("handshake"),
        "{found:#?}"
    );

    // The manifest of an older release: `read_graph` gone from it, `summarise` still there.
    let mut stale: Vec<&str> = MEMORY_TOOLS
        .iter()
        .copied()
        .filter(|t| *t != "read_graph")
        .collect();
    stale.push("summarise");
    let (code, report, err) = run(&memory_bundle(&stale));
    assert_eq!(code, Some(1), "{err}\n{report:#}");
    let found = manifest_findings(&report);
    let tools: Vec<_> = found.iter().filter(|f| f.0 == "manifest.tools").collect();
    assert_eq!(tools.len(), 2, "{tools:#?}");
    assert!(
        tools
            .iter()
            .any(|f| f.1 == "fail" && f.2.contains("/tools/8") && f.2.contains("summarise")),
        "{tools:#?}"
    );
    assert!(
        tools
            .iter()
            .any(|f| f.1 == "fail" && f.2.contains("read_graph")),
        "{tools:#?}"
    );
}

/// The `manifest.compatibility` findings of the report's one server, as (subject, status, detail).
fn compatibility_findings(report: &serde_json::Value) -> Vec<(String, String, String)> {
    report["servers"][0]["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["id"] == "manifest.compatibility")
        .map(|f| {
            (
                f["subject"].as_str().unwrap_or_default().to_owned(),
                f["status"].as_str().unwrap_or_default().to_owned(),
                f["detail"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn compatibility_is_compared_with_this_host_and_reported_never_failed() {
    let host = if cfg!(target_os = "macos") {
        "darwin"
    } else if cfg!(windows) {
        "win32"
    } else {
        "linux"
    };
    let other = if host == "win32" { "linux" } else { "win32" };
    // This machine's node, as the check asks it (the test servers need one).
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .expect("node --version");
    let node = String::from_utf8_lossy(&node.stdout)
        .trim()
        .trim_start_matches('v')
        .to_string();
    let major: u64 = node
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .expect("node's major");
    let tmp = tempfile::tempdir().expect("tempdir");
    for (platforms, range, met) in [
        (
            serde_json::json!([host, "win32"]),
            format!(">={major}.0.0"),
            true,
        ),
        (serde_json::json!([other]), format!("<{major}.0.0"), false),
    ] {
        let mut manifest = demo_manifest();
        manifest["compatibility"] = serde_json::json!({
            "claude_desktop": ">=0.10.0",
            "platforms": platforms,
            "runtimes": {"node": range},
        });
        let bundle = bundle_folder(&manifest);
        let (code, report, err) = check(bundle.path(), &["--mcpb", "."], tmp.path());
        let found = compatibility_findings(&report);
        assert!(found.iter().all(|f| f.1 == "info"), "{found:#?}");
        let by = |subject: &str| {
            found
                .iter()
                .find(|f| f.0 == subject)
                .unwrap_or_else(|| panic!("no {subject}: {found:#?}"))
                .2
                .clone()
        };
        let runtime = by("runtimes.node");
        assert!(runtime.contains(&format!("is {node}")), "{runtime}");
        assert!(
            by("clients").contains("claude_desktop >=0.10.0"),
            "{found:#?}"
        );
        // A host outside the requirements is reported, never a failure of the bundle.
        assert_eq!(code, Some(0), "{err}\n{report:#}");
        if met {
            assert!(
                by("platforms").contains(&format!("{host}, is among")),
                "{found:#?}"
            );
            assert!(runtime.ends_with(": met"), "{runtime}");
        } else {
            assert!(by("platforms").contains("is not among"), "{found:#?}");
            assert!(runtime.contains("outside it"), "{runtime}");
        }
    }
}
