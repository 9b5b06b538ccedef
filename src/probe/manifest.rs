//! Manifest: what a published manifest (the MCP Registry's `server.json`) promises about
//! the target derived from it, compared with what the live server did. Nothing is sent:
//! the handshake already showed the version and the transport, and the runner recorded
//! which declared variables it could not set. Every finding names the manifest's JSON
//! pointer, so the author knows which line to change.
//!
//! The category counts in the overall score: a manifest that drifts from its server is a
//! defect of what the author publishes (hosts install what it says, with the variables it
//! names), not a host's preference.

use crate::probe::handshake;
use crate::probe::session::Session;
use crate::report::exchange::Seq;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::report::model::TransportKind;
use crate::spec::{Compatibility, ManifestClaims, ManifestKind, ServerSpec};

crate::checks! { phase: Manifest;
    SCHEMA = "manifest.schema", Major, "The manifest is valid against its published schema", "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json",
        "A server.json is validated against the registry's published schema (the version its $schema names; scout carries 2025-09-29, and a version it does not carry is a not_assessed skip of the schema saying so, never a failure of the file, while the semantic rules still apply; a missing $schema, or one the registry reads no version from (/schemas/<version>/server.schema.json), is a failure at /$schema, as the registry refuses it) and the registry's semantic rules (a reverse-DNS name with one slash, a description of at most 100 characters, remotes that are https after variable substitution or http to loopback for a local build under test, package registry base URLs the registry knows); an MCPB bundle's manifest.json against the schema of the manifest_version it names, as published in @anthropic-ai/mcpb. Each violation is a failure naming its JSON pointer; the registry, or the MCPB tooling, refuses such a manifest.",
        "Fix the field at the pointer named (the registry's publisher validates the same schema), then publish again.";
    VERSION = "manifest.version", Major, "The manifest's version is the version the server reports", "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json",
        "The top-level version of server.json is the server's version, \"Equivalent of Implementation.version in MCP specification\": it is compared with serverInfo.version of the handshake (a package's own version is the registry package's and may differ); a mismatch fails, citing the handshake exchange and the pointer /version. An MCPB manifest's version is only the \"Semantic version of your extension\", which the format does not tie to serverInfo.version: the two are reported side by side as an observation, never graded.",
        "Publish the manifest from the same build that sets serverInfo.version (derive both from one source), or correct /version.";
    TRANSPORT = "manifest.transport", Major, "The declared transport is the one that answered", "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json",
        "Each package and remote declares its transport (stdio, streamable-http, sse). A host connects the way the manifest says; when the transport that answered scout is another one, the entry fails, citing the handshake exchange and the entry's pointer.",
        "Declare the transport the server speaks at that entry (a remote's type, a package's transport.type).";
    ENV = "manifest.env", Major, "The declared required variables are the ones the server needs", "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json",
        "A package's environmentVariables with isRequired: true are taken from scout's environment by the names the manifest declares (never echoed). A required variable that is not set is named with its pointer: a warning when the server still answered without it (the manifest asks users for something the server does not need), a skip of the live comparison when the server did not start.",
        "Set the variable in CI under the declared name, or mark it isRequired: false when the server runs without it.";
    TOOLS = "manifest.tools", Major, "The manifest's tools are the server's tools", "https://github.com/modelcontextprotocol/mcpb/blob/main/MANIFEST.md#tools-and-prompts",
        "An MCPB manifest's tools array lists the tools the bundle provides; a host shows that list before the server runs. It is compared with the live tools/list: a listed tool the server does not have fails at its pointer (/tools/2), and a live tool the manifest does not list fails at /tools unless tools_generated is true (the server \"generates additional tools beyond those listed\"). Each cites the tools/list exchanges; a manifest without a tools array makes no claim.",
        "List exactly the tools the server's tools/list returns (generate the manifest's list from the server), or set tools_generated when the server makes tools at runtime.";
    PROMPTS = "manifest.prompts", Major, "The manifest's prompts are the server's prompts", "https://github.com/modelcontextprotocol/mcpb/blob/main/MANIFEST.md#tools-and-prompts",
        "An MCPB manifest's prompts array is compared with the live prompts/list as the tools are: a listed prompt the server does not have fails at its pointer (/prompts/0), a live prompt the manifest does not list fails at /prompts unless prompts_generated is true. Each cites the prompts/list exchanges (the handshake when the server declares no prompts capability).",
        "List exactly the prompts the server's prompts/list returns, or set prompts_generated when the server makes prompts at runtime.";
    USER_CONFIG = "manifest.user_config", Minor, "The settings a host would ask for are named", "https://github.com/modelcontextprotocol/mcpb/blob/main/MANIFEST.md#user-configuration",
        "A host asks its user for each user_config setting; scout has no user, so it substitutes each setting's default, and for a required setting without one a placeholder (scout-placeholder-KEY). The settings that got a placeholder are named at their pointers (/user_config/api_key), so a failure of the run can be read against them. Reported, never graded.",
        "Give the setting a default the server can run with in CI, or set the value through stdio_set in the server's entry.";
    COMPATIBILITY = "manifest.compatibility", Minor, "The host meets the bundle's stated requirements", "https://github.com/modelcontextprotocol/mcpb/blob/main/MANIFEST.md#compatibility",
        "An MCPB manifest's compatibility \"specifies all requirements for running the extension\": the platforms it supports (\"If omitted, all platforms are supported\"), the node and python versions it needs, and the client versions it was made for. scout compares the host it runs on with the first two: its platform (linux, darwin, win32) with platforms, and the version the runtime's program answers to --version (the bundle's own command when it is that runtime, else node or python3 on PATH) with each range, node's as an npm semver range, python's as a PEP 440 specifier (an npm-style one is read too). A client constraint (claude_desktop or another client's) is reported, not judged: scout is none of those clients. The format states requirements, not obligations, so each comparison is an observation: a host outside them means the run shows the bundle where its author says it does not run.",
        "Run the check on a host the manifest lists (platform and runtime versions), or widen compatibility when the bundle runs on this one.";
}

/// Compares the claims of the manifest this target came from with the live run.
pub async fn run(s: &mut Session) {
    let mut found = judge(s);
    if let Some(c) = s
        .spec
        .manifest
        .as_ref()
        .map(|m| (m.source.clone(), m.compatibility.clone()))
    {
        // A task of its own: starting and reaping a child is deep in a debug build, and the
        // probe's poll is deep already (a test thread polls many probes in one stack).
        let owned = c.1.clone();
        let versions = tokio::spawn(async move { asked_versions(owned.as_deref()).await })
            .await
            .unwrap_or_default();
        found.extend(judge_compatibility(&c.0, c.1.as_deref(), &versions));
    }
    s.add_all(found);
}

/// Why a target derived from a manifest is not checked at all: a header its manifest declares
/// required that scout could not fill. scout sends nothing rather than judge the server's
/// answer to a request without a credential scout chose not to send; the reason names each
/// header, its pointer and the variable that fills it.
pub fn unfilled_headers(spec: &ServerSpec) -> Option<String> {
    let m = spec.manifest.as_ref()?;
    if m.unfilled_headers.is_empty() {
        return None;
    }
    let named: Vec<String> = m
        .unfilled_headers
        .iter()
        .map(|h| {
            format!(
                "{} ({} {}; set {} in the environment)",
                h.name, m.source, h.pointer, h.env
            )
        })
        .collect();
    Some(format!(
        "not checked: the manifest declares required headers scout has no value for: {}; or give each with --header NAME=env:VAR (a server entry's headers)",
        named.join(", ")
    ))
}

/// How long a runtime may take to say its version.
const VERSION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The version each runtime's program answers to `--version` (`node` prints `v22.3.0`,
/// python `Python 3.12.3`), or why there is none; by runtime name.
async fn asked_versions(c: Option<&Compatibility>) -> Vec<(String, Result<String, String>)> {
    let mut out = Vec::new();
    for r in c.map(|c| c.runtimes.as_slice()).unwrap_or_default() {
        out.push((r.name.clone(), version_of(&r.program).await));
    }
    out
}

async fn version_of(program: &str) -> Result<String, String> {
    let child = tokio::process::Command::new(program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("{program} could not be started ({e})"))?;
    let out = tokio::time::timeout(VERSION_TIMEOUT, child.wait_with_output())
        .await
        .map_err(|_| {
            format!(
                "{program} --version did not answer within {}s",
                VERSION_TIMEOUT.as_secs()
            )
        })?
        .map_err(|e| format!("{program} --version: {e}"))?;
    let text = format!(
        "{} {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    text.split_whitespace()
        .map(|w| w.trim_start_matches('v'))
        .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        .map(str::to_string)
        .ok_or_else(|| format!("{program} --version printed no version"))
}

/// Whether `version` is in `range`: node's an npm range, python's a PEP 440 specifier set
/// (else an npm range). `Err` when the range or the version is not one.
fn in_range(runtime: &str, range: &str, version: &str) -> Result<bool, String> {
    if runtime == "python" {
        use std::str::FromStr;
        if let Ok(specs) = pep440_rs::VersionSpecifiers::from_str(range) {
            let v = pep440_rs::Version::from_str(version)
                .map_err(|_| format!("{version} is not a PEP 440 version"))?;
            return Ok(specs.contains(&v));
        }
    }
    let r = nodejs_semver::Range::parse(range).map_err(|_| {
        if runtime == "python" {
            "neither a PEP 440 specifier nor a semver range".to_string()
        } else {
            "not a semver range".to_string()
        }
    })?;
    let v = nodejs_semver::Version::parse(version)
        .or_else(|_| nodejs_semver::Version::parse(format!("{version}.0")))
        .map_err(|_| format!("{version} is not a semver version"))?;
    Ok(r.satisfies(&v))
}

/// `compatibility`, against the host: the platform and each runtime's version (asked of
/// its program), each an observation; the client constraints reported as stated.
fn judge_compatibility(
    source: &str,
    c: Option<&Compatibility>,
    versions: &[(String, Result<String, String>)],
) -> Vec<FindingBuilder> {
    let Some(c) = c else {
        return vec![COMPATIBILITY.skip(
            SkipReason::NotApplicable,
            format!("{source} states no compatibility requirements (an MCPB manifest's compatibility): a client is encouraged to run it on any system"),
        )];
    };
    let mut out = Vec::new();
    let host = &c.host_platform;
    out.push(match &c.platforms {
        None => COMPATIBILITY.info(format!(
            "{source} lists no platforms (\"If omitted, all platforms are supported\"): {host} is supported"
        )),
        Some(list) if list.iter().any(|p| p == host) => COMPATIBILITY.info(format!(
            "this host's platform, {host}, is among the platforms {source} supports at /compatibility/platforms ({})",
            list.join(", ")
        )),
        Some(list) => COMPATIBILITY.info(format!(
            "this host's platform, {host}, is not among the platforms {source} supports at /compatibility/platforms ({}): the run shows the bundle where its manifest says it does not run",
            list.join(", ")
        )),
    }
    .subject("platforms"));
    for r in &c.runtimes {
        let at = &r.range.pointer;
        let range = &r.range.value;
        let asked = versions
            .iter()
            .find(|(n, _)| *n == r.name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| Err("not asked".into()));
        let detail = match asked {
            Err(why) => format!(
                "{at} asks for {} {range}; this host's version is not known: {why}",
                r.name
            ),
            Ok(v) => match in_range(&r.name, range, &v) {
                Ok(true) => format!(
                    "{at} asks for {} {range}; this host's {} ({}) is {v}: met",
                    r.name, r.name, r.program
                ),
                Ok(false) => format!(
                    "{at} asks for {} {range}; this host's {} ({}) is {v}, outside it: the run shows the bundle on a runtime its manifest says it does not run on",
                    r.name, r.name, r.program
                ),
                Err(why) => format!(
                    "{at} asks for {} {range}, which is {why}: this host's {v} cannot be compared with it",
                    r.name
                ),
            },
        };
        out.push(
            COMPATIBILITY
                .info(detail)
                .subject(format!("runtimes.{}", r.name)),
        );
    }
    if !c.clients.is_empty() {
        let listed: Vec<String> = c
            .clients
            .iter()
            .map(|cl| {
                let key = cl.pointer.trim_start_matches("/compatibility/");
                let syntax = if nodejs_semver::Range::parse(&cl.value).is_ok() {
                    ""
                } else {
                    " (not a semver range, which the format says client constraints are)"
                };
                format!("{key} {} at {}{syntax}", cl.value, cl.pointer)
            })
            .collect();
        out.push(
            COMPATIBILITY
                .info(format!(
                    "{source} names client versions, reported and not judged (scout is none of these clients): {}",
                    listed.join("; ")
                ))
                .subject("clients"),
        );
    }
    out.into_iter()
        .map(FindingBuilder::without_exchange)
        .collect()
}

/// The exchanges that carried the handshake (the server's name, version and transport).
fn handshake_evidence(s: &Session) -> Vec<Seq> {
    s.findings
        .iter()
        .filter(|f| f.id == handshake::SERVER_INFO.id || f.id == handshake::PROTOCOL_ERA.id)
        .flat_map(|f| f.evidence.clone())
        .collect()
}

fn cite(b: FindingBuilder, ev: &[Seq]) -> FindingBuilder {
    if ev.is_empty() {
        b.without_exchange()
    } else {
        b.evidence(ev.iter().copied())
    }
}

fn judge(s: &Session) -> Vec<FindingBuilder> {
    let Some(m) = s.spec.manifest.as_ref() else {
        return CHECKS
            .iter()
            .map(|c| {
                c.skip(
                    SkipReason::NotAssessed,
                    "no manifest was given for this target (--server-json, server_json, --mcpb, mcpb)",
                )
            })
            .collect();
    };
    let ev = handshake_evidence(s);
    let answered = !ev.is_empty() && s.server_info.is_some();
    let mut out = vec![
        judge_schema(m),
        judge_version(m, s.server_info.as_ref(), &ev),
        judge_transport(
            m,
            answered,
            s.connector.as_ref().map(|c| c.default_transport()),
            &ev,
        ),
        judge_env(m, answered, &ev),
    ];
    out.extend(judge_list(
        &TOOLS,
        m,
        Listed {
            feature: "tools",
            claims: m.tools.as_deref(),
            generated: m.tools_generated,
        },
        live_list(s, "tools", &ev),
    ));
    out.extend(judge_list(
        &PROMPTS,
        m,
        Listed {
            feature: "prompts",
            claims: m.prompts.as_deref(),
            generated: m.prompts_generated,
        },
        live_list(s, "prompts", &ev),
    ));
    out.push(judge_user_config(m));
    out
}

/// What the server listed of one feature (`tools`, `prompts`): the names, the exchanges
/// that showed them and what showed them; `Err` with a reason when nothing did.
type Live = Result<(Vec<String>, Vec<Seq>, &'static str), String>;

/// The live list of `feature` from the first wire that listed it. A server that declares
/// no such capability lists nothing, as its handshake showed.
fn live_list(s: &Session, feature: &'static str, handshake: &[Seq]) -> Live {
    let method = if feature == "tools" {
        "tools/list"
    } else {
        "prompts/list"
    };
    for c in &s.catalogs {
        let (items, pages): (&[serde_json::Value], Vec<Seq>) = if feature == "tools" {
            (
                &c.tools,
                c.tool_pages
                    .iter()
                    .flat_map(|(_, ev)| ev.iter().copied())
                    .collect(),
            )
        } else {
            (&c.prompts, c.prompt_pages.clone())
        };
        if !pages.is_empty() {
            let names = items
                .iter()
                .filter_map(|i| i.get("name").and_then(serde_json::Value::as_str))
                .map(str::to_string)
                .collect();
            return Ok((names, pages, method));
        }
    }
    let declared = s
        .wires
        .first()
        .map(|w| crate::probe::catalog::paging::declared(w.capabilities(), feature));
    match declared {
        Some(false) if !s.catalogs.is_empty() && !handshake.is_empty() => Ok((
            Vec::new(),
            handshake.to_vec(),
            "the handshake (no capability declared)",
        )),
        _ => Err(format!(
            "{method} was not judged (the catalog phase did not run, or the list did not answer)"
        )),
    }
}

/// A manifest's list of one feature.
struct Listed<'a> {
    feature: &'static str,
    claims: Option<&'a [crate::spec::Claim]>,
    generated: bool,
}

/// One finding per drift between the manifest's list and the live one, each at its
/// pointer; a pass when they agree.
fn judge_list(
    check: &'static crate::report::check::Check,
    m: &ManifestClaims,
    listed: Listed<'_>,
    live: Live,
) -> Vec<FindingBuilder> {
    let feature = listed.feature;
    let Some(claims) = listed.claims else {
        return vec![check.skip(
            SkipReason::NotAssessed,
            format!("{} lists no {feature} (no /{feature} array)", m.source),
        )];
    };
    let (names, ev, from) = match live {
        Ok(l) => l,
        Err(why) => return vec![check.skip(SkipReason::NotAssessed, why)],
    };
    let mut out = Vec::new();
    for c in claims {
        if !names.contains(&c.value) {
            out.push(cite(
                check
                    .fail(format!(
                        "{} {} lists {:?}, which {from} does not have",
                        m.source, c.pointer, c.value
                    ))
                    .subject(c.value.clone()),
                &ev,
            ));
        }
    }
    if !listed.generated {
        for name in names
            .iter()
            .filter(|n| !claims.iter().any(|c| &c.value == *n))
        {
            out.push(cite(
                check
                    .fail(format!(
                        "{from} has {name:?}, which {} /{feature} does not list (and /{feature}_generated is not true)",
                        m.source
                    ))
                    .subject(name.clone()),
                &ev,
            ));
        }
    }
    if out.is_empty() {
        let extra = if listed.generated {
            format!(" (/{feature}_generated: the server may add more)")
        } else {
            String::new()
        };
        out.push(cite(
            check.pass(format!(
                "{} /{feature} lists the {} {feature} {from} returned{extra}",
                m.source,
                claims.len()
            )),
            &ev,
        ));
    }
    out
}

fn judge_user_config(m: &ManifestClaims) -> FindingBuilder {
    if m.placeholders.is_empty() {
        return USER_CONFIG.skip(
            SkipReason::NotApplicable,
            format!(
                "{} asks for no required setting without a default",
                m.source
            ),
        );
    }
    // The pointers only: a placeholder may reach the server as a variable, and the
    // redactor hides every value scout set, so the pattern is named instead.
    let named: Vec<&str> = m.placeholders.iter().map(|c| c.pointer.as_str()).collect();
    USER_CONFIG
        .info(format!(
            "{} has required settings without a default, each started with the placeholder scout-placeholder-KEY: {}",
            m.source,
            named.join(", ")
        ))
        .without_exchange()
}

fn judge_schema(m: &ManifestClaims) -> FindingBuilder {
    let f = if let (true, Some(why)) = (m.problems.is_empty(), &m.schema_unchecked) {
        // scout's own gap (a schema it does not carry) is no fault of the file.
        SCHEMA.skip(
            SkipReason::NotAssessed,
            format!("{}: {why}; they hold", m.source),
        )
    } else if m.problems.is_empty() {
        SCHEMA.pass(format!(
            "{} is valid against its published schema and rules",
            m.source
        ))
    } else {
        let listed: Vec<String> = m
            .problems
            .iter()
            .map(|p| format!("{}: {}", pointer(&p.pointer), p.value))
            .collect();
        SCHEMA.fail(format!("{}: {}", m.source, listed.join("; ")))
    };
    f.without_exchange()
}

fn pointer(p: &str) -> &str {
    if p.is_empty() { "/ (the document)" } else { p }
}

fn judge_version(
    m: &ManifestClaims,
    info: Option<&serde_json::Value>,
    ev: &[Seq],
) -> FindingBuilder {
    let Some(declared) = m.version.as_ref() else {
        return VERSION.skip(
            SkipReason::NotAssessed,
            format!("{} declares no version", m.source),
        );
    };
    let Some(live) = info
        .and_then(|i| i.get("version"))
        .and_then(serde_json::Value::as_str)
    else {
        return VERSION.skip(
            SkipReason::NotAssessed,
            "the server reported no serverInfo.version to compare with",
        );
    };
    if m.kind == ManifestKind::Mcpb {
        // The MCPB format says only "Semantic version of your extension": a bundle may be
        // versioned apart from the server it carries, so the two are reported, not judged.
        let same = if live == declared.value {
            "the same"
        } else {
            "different; the MCPB format does not tie them"
        };
        return cite(
            VERSION.info(format!(
                "{} {} (the bundle's version) is {:?}; the server reported serverInfo.version {live:?}: {same}",
                m.source, declared.pointer, declared.value
            )),
            ev,
        );
    }
    let f = if live == declared.value {
        VERSION.pass(format!(
            "{} {} = {live}, the serverInfo.version the server reported",
            m.source, declared.pointer
        ))
    } else {
        VERSION.fail(format!(
            "{} {} says {:?}, but the server reported serverInfo.version {live:?}",
            m.source, declared.pointer, declared.value
        ))
    };
    cite(f, ev)
}

/// The manifest's name of a transport scout spoke.
fn declared_name(kind: TransportKind) -> &'static str {
    match kind {
        TransportKind::Stdio => "stdio",
        TransportKind::Http => "streamable-http",
        TransportKind::LegacySse => "sse",
    }
}

fn judge_transport(
    m: &ManifestClaims,
    answered: bool,
    spoken: Option<TransportKind>,
    ev: &[Seq],
) -> FindingBuilder {
    let Some(declared) = m.transport.as_ref() else {
        return TRANSPORT.skip(
            SkipReason::NotAssessed,
            format!("{} declares no transport for this entry", m.source),
        );
    };
    let (true, Some(kind)) = (answered, spoken) else {
        return TRANSPORT.skip(
            SkipReason::NotAssessed,
            "the server did not answer the handshake, so no transport was shown to work",
        );
    };
    let spoke = declared_name(kind);
    let f = if spoke == declared.value {
        TRANSPORT.pass(format!(
            "{} {} declares {spoke}, and the server answered over {spoke}",
            m.source, declared.pointer
        ))
    } else {
        TRANSPORT.fail(format!(
            "{} {} declares {:?}, but the server answered over {spoke}",
            m.source, declared.pointer, declared.value
        ))
    };
    cite(f, ev)
}

fn judge_env(m: &ManifestClaims, answered: bool, ev: &[Seq]) -> FindingBuilder {
    if m.required_env.is_empty() {
        return ENV.skip(
            SkipReason::NotAssessed,
            format!("{} declares no required variable for this entry", m.source),
        );
    }
    let names = |cs: &[crate::spec::Claim]| {
        cs.iter()
            .map(|c| format!("{} ({})", c.value, c.pointer))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if m.missing_env.is_empty() {
        let f = ENV.pass(format!(
            "every required variable {} declares was set: {}",
            m.source,
            names(&m.required_env)
        ));
        return cite(f, ev);
    }
    if !answered {
        return ENV.skip(
            SkipReason::NotAssessed,
            format!(
                "required variables not set in scout's environment: {}; the server did not answer without them",
                names(&m.missing_env)
            ),
        );
    }
    cite(
        ENV.warn(format!(
            "{} declares {} required, yet the server answered the handshake without {}",
            m.source,
            names(&m.missing_env),
            if m.missing_env.len() == 1 {
                "it"
            } else {
                "them"
            }
        )),
        ev,
    )
}

#[cfg(test)]
mod compatibility_tests {
    use super::*;
    use crate::spec::{Claim, Runtime};

    #[test]
    fn ranges_are_read_as_the_format_writes_them() {
        assert_eq!(in_range("node", ">=16.0.0", "22.3.0"), Ok(true));
        assert_eq!(in_range("node", ">1.0.0 <2.0.0", "2.0.0"), Ok(false));
        assert_eq!(in_range("node", "^18", "18.20.1"), Ok(true));
        assert_eq!(in_range("python", ">=3.8,<4.0", "3.12.3"), Ok(true));
        assert_eq!(in_range("python", ">=3.13", "3.12.3"), Ok(false));
        // npm style for python too, and a two-part version
        assert_eq!(in_range("python", "^3.10", "3.11"), Ok(true));
        assert!(in_range("node", "sixteen or so", "22.3.0").is_err());
    }

    fn compat(platforms: &[&str], range: &str) -> Compatibility {
        Compatibility {
            host_platform: "linux".into(),
            platforms: Some(platforms.iter().map(|p| p.to_string()).collect()),
            runtimes: vec![Runtime {
                name: "node".into(),
                range: Claim::new("/compatibility/runtimes/node", range),
                program: "node".into(),
            }],
            clients: vec![Claim::new("/compatibility/claude_desktop", ">=0.10.0")],
        }
    }

    fn details(found: Vec<FindingBuilder>) -> Vec<(String, String, String)> {
        found
            .into_iter()
            .map(|b| {
                let f = b.build(|_| false).expect("a valid finding");
                (
                    f.subject.clone().unwrap_or_default(),
                    f.status.as_str().to_string(),
                    f.detail.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn the_host_is_compared_and_reported_never_failed() {
        let v = vec![("node".to_string(), Ok("22.3.0".to_string()))];
        let met = details(judge_compatibility(
            "manifest.json",
            Some(&compat(&["linux", "darwin"], ">=16")),
            &v,
        ));
        assert_eq!(met.len(), 3, "{met:?}");
        assert!(met.iter().all(|(_, st, _)| st == "info"), "{met:?}");
        assert!(met[0].2.contains("is among"), "{met:?}");
        assert!(met[1].2.contains("is 22.3.0: met"), "{met:?}");
        assert!(
            met[2].2.contains("claude_desktop >=0.10.0") && met[2].2.contains("not judged"),
            "{met:?}"
        );
        let unmet = details(judge_compatibility(
            "manifest.json",
            Some(&compat(&["darwin"], "<18")),
            &v,
        ));
        assert!(unmet.iter().all(|(_, st, _)| st == "info"), "{unmet:?}");
        assert!(unmet[0].2.contains("is not among"), "{unmet:?}");
        assert!(unmet[1].2.contains("outside it"), "{unmet:?}");
        let unknown = vec![(
            "node".to_string(),
            Err("node could not be started".to_string()),
        )];
        let d = details(judge_compatibility(
            "manifest.json",
            Some(&compat(&["linux"], ">=16")),
            &unknown,
        ));
        assert!(
            d[1].2.contains("not known: node could not be started"),
            "{d:?}"
        );
        let none = details(judge_compatibility("server.json", None, &[]));
        assert_eq!(none[0].1, "skip", "{none:?}");
    }
}
