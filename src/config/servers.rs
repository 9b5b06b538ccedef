//! Turns server entries (from the config file or the command line) into the
//! [`ServerSpec`]s the probes run, applying per-server overrides. Precedence for a per-server
//! setting: a flag given on the command line > the server's own entry > the merged profile:
//! the entry's keys are one more layer, laid between the profile and the flags, and the
//! result is validated like the top level.

use std::collections::BTreeSet;

use crate::auth::{AuthSpec, SecretSource};
use crate::config::layer::{Layer, ServerEntry};
use crate::config::{ConfigError, Settings};
use crate::report::Anchor;
use crate::runner::Planned;
use crate::spec::{PolicySpec, ServerSpec, TargetSpec, ToolArgs, ValueSource};
use crate::transport::process::ProcessConfig;

/// Validates the entries and builds one planned run per server.
pub fn plan(
    entries: Vec<(ServerEntry, Option<Anchor>)>,
    merged: &Layer,
    settings: &Settings,
    flags: &Layer,
    base: &std::path::Path,
) -> Result<Vec<Planned>, ConfigError> {
    let mut names = BTreeSet::new();
    let mut planned = Vec::new();
    for (entry, anchor) in entries {
        if entry.name.trim().is_empty() {
            return Err(ConfigError::new(
                "a server entry has an empty `name`; give every [[servers]] entry a unique name",
            ));
        }
        if !names.insert(entry.name.clone()) {
            return Err(ConfigError::new(format!(
                "two servers are named `{}`; server names must be unique",
                entry.name
            )));
        }
        if entry.mcpb.is_some() {
            planned.push(plan_mcpb(entry, anchor, merged, settings, flags, base)?);
            continue;
        }
        if entry.server_json.is_some() {
            planned.extend(plan_manifest(entry, anchor, merged, settings, flags, base)?);
            continue;
        }
        planned.push(plan_one(entry, anchor, merged, settings, flags, base)?);
    }
    Ok(planned)
}

/// One planned server per target of the entry's `server_json`, each carrying the claims of
/// the manifest entry it came from. The entry's other keys (timeouts, policy) apply to all.
fn plan_manifest(
    entry: ServerEntry,
    anchor: Option<Anchor>,
    merged: &Layer,
    settings: &Settings,
    flags: &Layer,
    base: &std::path::Path,
) -> Result<Vec<Planned>, ConfigError> {
    use crate::config::server_json;
    let name = entry.name.clone();
    let err = |what: String| ConfigError::new(format!("server `{name}`: {what}"));
    if entry.url.is_some() {
        return Err(err(
            "`server_json` names its own targets; give it without `url`".into(),
        ));
    }
    // `command` beside `server_json` starts every package with a command of the user's (an
    // installed build, a test's binary) instead of fetching it through npx, uvx or docker.
    let own_command = entry.command.clone();
    // `package_commands` does the same per package identifier, for a manifest whose
    // packages are different servers.
    let package_commands = entry.package_commands.clone().unwrap_or_default();
    let path = entry.server_json.clone().unwrap_or_default();
    let path = if path.is_absolute() {
        path
    } else {
        base.join(path)
    };
    let doc = server_json::read(&path).map_err(err)?;
    // Set by scout's container images: what a package needs may not be there.
    let image = std::env::var(server_json::IMAGE_VAR)
        .ok()
        .filter(|v| !v.is_empty());
    let source = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| "server.json".into());
    let derived = server_json::derive(
        &doc,
        &source,
        server_json::schema_problems(&doc),
        |var| std::env::var(var).ok(),
        // A command of the user's is taken whole: the package's arguments are the host's.
        |kind: &str, id: &str, version: &str, env: &[String], args: &[String]| match (
            package_commands.get(id),
            &own_command,
        ) {
            (Some(c), _) | (None, Some(c)) => Ok(c.clone()),
            (None, None) => {
                if let Some(why) = server_json::image_refusal(kind, image.as_deref()) {
                    return Err(why);
                }
                server_json::default_command(kind, id, version, env, args)
                    .ok_or_else(|| "scout cannot start a package of this registry type".to_string())
            }
        },
    )
    .map_err(err)?;
    let mut out = Vec::new();
    for d in derived {
        let suffix = d.name.rsplitn(3, '/').take(2).collect::<Vec<_>>();
        let mut e = ServerEntry {
            name: format!("{name}/{}/{}", suffix[1], suffix[0]),
            server_json: None,
            package_commands: None,
            ..entry.clone()
        };
        match &d.target {
            TargetSpec::Http { url, .. } => {
                e.url = Some(url.clone());
                e.command = None;
            }
            TargetSpec::Stdio(p) => {
                e.command = Some(p.command.clone());
                // The entry's headers and credentials (`headers`, `token_env`, …) are for
                // its remotes.
                e.headers = None;
                e = without_credentials(&e).map_err(err)?;
                let mut fwd = e.stdio_env.clone().unwrap_or_default();
                fwd.extend(p.env_forward.iter().cloned());
                e.stdio_env = Some(fwd);
            }
        }
        let mut p = plan_one(e, anchor.clone(), merged, settings, flags, base)?;
        let mut claims = d.claims;
        if let (
            TargetSpec::Http { headers, auth, .. },
            TargetSpec::Http {
                headers: declared, ..
            },
        ) = (&mut p.spec.target, &d.target)
        {
            let bearer = auth.grant() != crate::auth::Grant::None;
            with_declared_headers(headers, declared, bearer, &mut claims);
        }
        p.spec.manifest = Some(claims);
        out.push(p);
    }
    Ok(out)
}

/// `e` without its credential keys (`token_env`, `client_id`, …): a manifest's stdio
/// package gets none of what its entry gives its remotes.
fn without_credentials(e: &ServerEntry) -> Result<ServerEntry, String> {
    let mut v = serde_json::to_value(e).map_err(|e| e.to_string())?;
    if let Some(m) = v.as_object_mut() {
        m.retain(|k, _| !crate::config::layer::CREDENTIAL_KEYS.contains(&k.as_str()));
    }
    serde_json::from_value(v).map_err(|e| e.to_string())
}

/// A remote's headers: those the user gave (`headers`, `--header`), then those the manifest
/// declares that the user did not give (a header name is case-insensitive). A required header
/// the user gave is filled, whatever the manifest's variables had. A token the user gave
/// (`token_env`, `token_file`, or a grant scout runs) is sent as `Authorization: Bearer`, so
/// it fills a declared `Authorization` header: scout sends the user's, not a second one.
fn with_declared_headers(
    given: &mut Vec<(String, ValueSource)>,
    declared: &[(String, ValueSource)],
    bearer: bool,
    claims: &mut crate::spec::ManifestClaims,
) {
    let is_given = |name: &str, given: &[(String, ValueSource)]| {
        (bearer && name.eq_ignore_ascii_case("authorization"))
            || given.iter().any(|(g, _)| g.eq_ignore_ascii_case(name))
    };
    for (name, value) in declared {
        if !is_given(name, given) {
            given.push((name.clone(), value.clone()));
        }
    }
    claims
        .unfilled_headers
        .retain(|h| !is_given(&h.name, given));
}

/// The server of the entry's `mcpb` bundle: unpacked (a `.mcpb`) into a temporary folder
/// the planned run holds, started as the manifest's `server.mcp_config` says, carrying the
/// manifest's claims. The entry's `stdio_env` and `stdio_set` add to the manifest's `env`.
fn plan_mcpb(
    entry: ServerEntry,
    anchor: Option<Anchor>,
    merged: &Layer,
    settings: &Settings,
    flags: &Layer,
    base: &std::path::Path,
) -> Result<Planned, ConfigError> {
    use crate::config::mcpb;
    let name = entry.name.clone();
    let err = |what: String| ConfigError::new(format!("server `{name}`: {what}"));
    for (given, key) in [
        (entry.url.is_some(), "url"),
        (entry.command.is_some(), "command"),
        (entry.server_json.is_some(), "server_json"),
        (entry.stdio_dir.is_some(), "stdio_dir"),
    ] {
        if given {
            return Err(err(format!(
                "`mcpb` names its own command and folder; give it without `{key}`"
            )));
        }
    }
    let path = entry.mcpb.clone().unwrap_or_default();
    let path = if path.is_absolute() {
        path
    } else {
        base.join(path)
    };
    // `${__dirname}` is absolute, as in a host: the server runs in the bundle's folder, so a
    // path relative to where scout runs would point elsewhere there.
    let path =
        std::path::absolute(&path).map_err(|e| err(format!("mcpb {}: {e}", path.display())))?;
    let bundle = mcpb::open(&path).map_err(err)?;
    let launch = mcpb::launch(&bundle.manifest, &bundle.root, &mcpb::Host::this())
        .map_err(|e| err(format!("{}: {e}", bundle.source)))?;
    let claims = mcpb::claims(
        &bundle.manifest,
        &bundle.source,
        mcpb::schema_problems(&bundle.manifest),
        &launch,
    );
    // The entry's own values win over the manifest's for a variable both set.
    let mut set: std::collections::BTreeMap<String, String> = launch.env.into_iter().collect();
    set.extend(entry.stdio_set.clone().unwrap_or_default());
    let e = ServerEntry {
        command: Some(launch.command),
        stdio_set: (!set.is_empty()).then_some(set),
        // A host starts the server in the bundle's folder.
        stdio_dir: Some(bundle.root.clone()),
        mcpb: None,
        ..entry
    };
    let mut p = plan_one(e, anchor, merged, settings, flags, base)?;
    p.spec.manifest = Some(claims);
    p.workdir = bundle.unpacked.map(std::sync::Arc::new);
    Ok(p)
}

fn plan_one(
    e: ServerEntry,
    anchor: Option<Anchor>,
    merged: &Layer,
    settings: &Settings,
    flags: &Layer,
    base: &std::path::Path,
) -> Result<Planned, ConfigError> {
    let name = e.name.clone();
    let err = |what: String| ConfigError::new(format!("server `{name}`: {what}"));
    let target = match (&e.url, &e.command) {
        (Some(_), Some(_)) => {
            return Err(err(
                "has both `url` and `command`; give exactly one (url for HTTP, command for stdio)"
                    .into(),
            ));
        }
        (None, None) => {
            return Err(err(
                "has neither `url` nor `command`; give exactly one (url for HTTP, command for stdio)"
                    .into(),
            ));
        }
        (Some(url), None) => {
            if e.stdio_env.is_some() || e.stdio_set.is_some() || e.stdio_dir.is_some() {
                return Err(err(
                    "`stdio_env`, `stdio_set` and `stdio_dir` apply to stdio servers (`command`), not to a `url`".into(),
                ));
            }
            let parsed = url::Url::parse(url).map_err(|x| {
                err(format!(
                    "`url` `{url}` is not a URL ({x}); expected e.g. http://127.0.0.1:3001/mcp"
                ))
            })?;
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err(err(format!(
                    "`url` must be http:// or https://, got `{url}`"
                )));
            }
            if let Some(start) = &e.start
                && start.is_empty()
            {
                return Err(err(
                    "`start` is an empty array; give the program and its arguments".into(),
                ));
            }
            TargetSpec::Http {
                url: url.clone(),
                headers: e
                    .headers
                    .clone()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k, ValueSource::parse(&v)))
                    .collect(),
                auth: auth_spec(&e, settings).map_err(err)?,
                start: e.start.clone(),
            }
        }
        (None, Some(command)) => {
            if command.is_empty() || command[0].trim().is_empty() {
                return Err(err(
                    "`command` is empty; give the program and its arguments as an array".into(),
                ));
            }
            if e.headers.is_some() || !e.credentials().is_empty() {
                return Err(err(
                    "`headers` and the credential keys (token_env, client_id, …) are for HTTP servers; a stdio server gets what it needs through `stdio_env` or `stdio_set`".into(),
                ));
            }
            if e.start.is_some() {
                return Err(err("`start` applies to HTTP servers (`url`); a stdio `command` is started by scout itself".into()));
            }
            TargetSpec::Stdio(ProcessConfig {
                command: command.clone(),
                env_forward: e.stdio_env.clone().unwrap_or_default(),
                env_set: e
                    .stdio_set
                    .clone()
                    .unwrap_or_default()
                    .into_iter()
                    .collect(),
                dir: e.stdio_dir.clone(),
            })
        }
    };

    let own = e.overrides();
    let overridden;
    let settings = if own.is_empty() {
        settings
    } else {
        let layer = merged
            .under(&own)
            .and_then(|l| l.under(flags))
            .map_err(|x| err(format!("invalid setting: {x}")))?;
        overridden = super::validate(&layer).map_err(|x| err(x.0))?;
        &overridden
    };
    let expect =
        super::expect::validate(e.expect.as_deref().unwrap_or_default(), base).map_err(err)?;
    let spec = ServerSpec {
        name: name.clone(),
        expect,
        snapshots: settings.snapshots.clone(),
        target,
        timeout: settings.timeout,
        deadline: settings.deadline,
        policy: PolicySpec {
            allow_tools: e.allow_tools.clone().unwrap_or_default(),
            deny_tools: e.deny_tools.clone().unwrap_or_default(),
            ..settings.policy.clone()
        },
        tools: e
            .tools
            .clone()
            .unwrap_or_default()
            .into_iter()
            .map(|t| ToolArgs {
                name: t.name,
                arguments: t.arguments,
            })
            .collect(),
        // Whether the rate applies is the limiter's decision (`ServerSpec::is_remote`).
        rps: Some(settings.rps),
        treat_as_remote: settings.treat_as_remote,
        concurrency: settings.concurrency,
        skip_era_check: settings.skip_era_check,
        revisions: settings.revisions.clone(),
        only: settings.only.clone(),
        skip: settings.skip.clone(),
        compat: settings.compat.clone(),
        max_body_bytes: settings.max_body,
        context_warn_tokens: settings.context_warn_tokens,
        anchor: Some(anchor.unwrap_or_else(|| fallback_anchor(&name))),
        // `load` attaches what the lock says.
        pin: crate::spec::PinSpec::NoLock,
        manifest: None,
        client: settings.client.clone(),
        list_trigger: settings.list_trigger.clone(),
    };
    Ok(Planned {
        spec,
        gate: settings.gate.clone(),
        workdir: None,
    })
}

/// The credential settings of an HTTP server: its own keys, or (when it sets none) the
/// top-level ones. One way to a token, each secret from one place.
fn auth_spec(e: &ServerEntry, settings: &Settings) -> Result<AuthSpec, String> {
    let own = e.credentials();
    let k = if own.is_empty() {
        settings.credentials.clone()
    } else {
        own
    };
    let one = |env: &Option<String>, file: &Option<std::path::PathBuf>, key: &str| match (env, file)
    {
        (Some(_), Some(_)) => Err(format!(
            "sets both `{key}_env` and `{key}_file`; read the secret from one place"
        )),
        (Some(v), None) => Ok(Some(SecretSource::Env(v.clone()))),
        (None, Some(p)) => Ok(Some(SecretSource::File(p.clone()))),
        (None, None) => Ok(None),
    };
    let spec = AuthSpec {
        token: one(&k.token_env, &k.token_file, "token")?,
        client_id: k.client_id.clone(),
        client_secret: one(&k.client_secret_env, &k.client_secret_file, "client_secret")?,
        refresh_token: one(&k.refresh_token_env, &k.refresh_token_file, "refresh_token")?,
        scope: k.scope.clone(),
        limited_scope: k.limited_scope.clone(),
        issuer: k.issuer.clone(),
        client_key: k
            .client_key_file
            .clone()
            .map(|p| Box::new(SecretSource::File(p))),
        allow_refresh_rotation: k.allow_refresh_rotation.unwrap_or(false),
    };
    spec.validate()?;
    Ok(spec)
}

/// The anchor of a server with no config line: the workflow file that ran scout
/// (`GITHUB_WORKFLOW_REF` = `owner/repo/.github/workflows/x.yml@ref`), else `mcp/<server>`.
pub fn fallback_anchor(name: &str) -> Anchor {
    let from_ci = std::env::var("GITHUB_WORKFLOW_REF").ok();
    from_ci
        .as_deref()
        .and_then(crate::emit::common::workflow_anchor)
        .unwrap_or(Anchor {
            path: format!("mcp/{name}"),
            line: 1,
        })
}

/// A name for a server given on the command line: the URL's host (and port), or the
/// program (for interpreters like `python3 x.py`, the script's stem).
pub fn name_from_target(url: Option<&str>, command: &[String]) -> String {
    if let Some(u) = url {
        return url::Url::parse(u)
            .ok()
            .and_then(|p| {
                p.host_str().map(|h| match p.port() {
                    Some(port) => format!("{h}:{port}"),
                    None => h.to_string(),
                })
            })
            .unwrap_or_else(|| "server".to_string());
    }
    let stem = |s: &str| {
        std::path::Path::new(s)
            .file_stem()
            .map(|x| x.to_string_lossy().to_string())
            .unwrap_or_else(|| s.to_string())
    };
    let Some(program) = command.first() else {
        return "server".to_string();
    };
    let prog = stem(program);
    const RUNNERS: &[&str] = &[
        "python", "python3", "node", "npx", "uvx", "uv", "deno", "bun", "pnpm", "bunx",
    ];
    if RUNNERS.contains(&prog.as_str())
        && let Some(arg) = command[1..]
            .iter()
            .find(|a| !a.starts_with('-') && *a != "run")
    {
        // `npx -y @scope/server-x` → `server-x`; `python3 srv.py` → `srv`.
        return stem(arg.rsplit('/').next().unwrap_or(arg));
    }
    prog
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn names_from_targets() {
        assert_eq!(
            name_from_target(Some("http://127.0.0.1:3001/mcp"), &[]),
            "127.0.0.1:3001"
        );
        assert_eq!(
            name_from_target(Some("https://mcp.example.com/mcp"), &[]),
            "mcp.example.com"
        );
        assert_eq!(
            name_from_target(None, &v(&["python3", "tests/fixtures/minimal_server.py"])),
            "minimal_server"
        );
        assert_eq!(
            name_from_target(
                None,
                &v(&["npx", "-y", "@modelcontextprotocol/server-everything"])
            ),
            "server-everything"
        );
        assert_eq!(
            name_from_target(None, &v(&["/usr/bin/my-server", "--flag"])),
            "my-server"
        );
    }
}
