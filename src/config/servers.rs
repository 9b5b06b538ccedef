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
        planned.push(plan_one(entry, anchor, merged, settings, flags, base)?);
    }
    Ok(planned)
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
        only: settings.only.clone(),
        skip: settings.skip.clone(),
        compat: settings.compat.clone(),
        max_body_bytes: settings.max_body,
        context_warn_tokens: settings.context_warn_tokens,
        anchor: Some(anchor.unwrap_or_else(|| fallback_anchor(&name))),
        // `load` attaches what the lock says.
        pin: crate::spec::PinSpec::NoLock,
    };
    Ok(Planned {
        spec,
        gate: settings.gate.clone(),
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
