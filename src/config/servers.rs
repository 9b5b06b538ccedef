//! Turns server entries (from the config file or the command line) into the
//! [`ServerSpec`]s the probes run, applying per-server overrides. Precedence for a per-server
//! setting: a flag given on the command line > the server's own entry > the merged profile.

use std::collections::BTreeSet;

use crate::auth::{AuthSpec, SecretSource};
use crate::config::layer::{Layer, ServerEntry};
use crate::config::{ConfigError, Settings, duration};
use crate::report::Anchor;
use crate::runner::Planned;
use crate::spec::{PolicySpec, ServerSpec, TargetSpec, ToolArgs, ValueSource};
use crate::transport::process::ProcessConfig;

/// Validates the entries and builds one planned run per server.
pub fn plan(
    entries: Vec<(ServerEntry, Option<Anchor>)>,
    settings: &Settings,
    flags: &Layer,
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
        planned.push(plan_one(entry, anchor, settings, flags)?);
    }
    Ok(planned)
}

fn plan_one(
    e: ServerEntry,
    anchor: Option<Anchor>,
    settings: &Settings,
    flags: &Layer,
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

    let pick_duration = |flag: &Option<crate::config::layer::DurationText>,
                         own: &Option<crate::config::layer::DurationText>,
                         key: &str,
                         fallback| match flag.as_ref().or(own.as_ref()) {
        Some(d) => duration::parse(&d.text()).map_err(|x| err(format!("invalid `{key}`: {x}"))),
        None => Ok(fallback),
    };
    let timeout = pick_duration(&flags.timeout, &e.timeout, "timeout", settings.timeout)?;
    let deadline = pick_duration(&flags.deadline, &e.deadline, "deadline", settings.deadline)?;
    let rps = flags.rps.or(e.rps).unwrap_or(settings.rps);
    if !(rps.is_finite() && rps > 0.0) {
        return Err(err(format!(
            "invalid `rps`: expected a number above 0, got {rps}"
        )));
    }
    let fail_under = flags
        .fail_under
        .or(e.fail_under)
        .or(settings.gate.fail_under);
    if fail_under.is_some_and(|n| n > 100) {
        return Err(err("invalid `fail_under`: expected 0–100".into()));
    }

    let mut spec = ServerSpec::new(name.clone(), target);
    // Whether the rate applies is the limiter's decision (`ServerSpec::is_remote`).
    spec.rps = Some(rps);
    spec.treat_as_remote = settings.treat_as_remote;
    spec.concurrency = settings.concurrency;
    spec.timeout = timeout;
    spec.deadline = deadline;
    spec.policy = PolicySpec {
        allow_mutations: flags
            .allow_mutations
            .or(e.allow_mutations)
            .unwrap_or(settings.allow_mutations),
        allow_destructive: flags
            .allow_destructive
            .or(e.allow_destructive)
            .unwrap_or(settings.allow_destructive),
        allow_tools: e.allow_tools.clone().unwrap_or_default(),
        deny_tools: e.deny_tools.clone().unwrap_or_default(),
    };
    spec.tools = e
        .tools
        .clone()
        .unwrap_or_default()
        .into_iter()
        .map(|t| ToolArgs {
            name: t.name,
            arguments: t.arguments,
        })
        .collect();
    spec.allow_load = settings.allow_load;
    spec.skip_era_check = settings.skip_era_check;
    spec.only = settings.only.clone();
    spec.skip = settings.skip.clone();
    spec.max_body_bytes = settings.max_body;
    spec.context_warn_tokens = settings.context_warn_tokens;
    spec.treat_as_remote = settings.treat_as_remote;
    spec.anchor = Some(anchor.unwrap_or_else(|| fallback_anchor(&name)));

    let mut gate = settings.gate.clone();
    gate.fail_under = fail_under;
    Ok(Planned { spec, gate })
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
    workflow_anchor(std::env::var("GITHUB_WORKFLOW_REF").ok().as_deref()).unwrap_or(Anchor {
        path: format!("mcp/{name}"),
        line: 1,
    })
}

/// Parses `owner/repo/.github/workflows/x.yml@ref` into `.github/workflows/x.yml`, line 1.
pub fn workflow_anchor(workflow_ref: Option<&str>) -> Option<Anchor> {
    let r = workflow_ref?;
    let path = r.split('@').next()?;
    let start = path.find(".github/")?;
    Some(Anchor {
        path: path[start..].to_string(),
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

    #[test]
    fn workflow_ref_becomes_anchor() {
        let a = workflow_anchor(Some("acme/app/.github/workflows/mcp.yml@refs/heads/main"))
            .expect("anchor");
        assert_eq!(a.path, ".github/workflows/mcp.yml");
        assert_eq!(a.line, 1);
        assert!(workflow_anchor(None).is_none());
        assert!(workflow_anchor(Some("garbage")).is_none());
    }
}
