//! The MCP Registry's `server.json` as a source of targets: its semantic rules, and one
//! target per `remotes` entry (HTTP) and per `packages` entry (stdio), each carrying the
//! manifest's claims about it for the `manifest` category.
//!
//! Declared environment variables are forwarded from scout's own environment by the names
//! the manifest declares, never read into the spec, so no value can reach a report.

use serde_json::Value;

use crate::spec::{Claim, ManifestClaims, TargetSpec};
use crate::transport::process::ProcessConfig;

/// The registry's published schema (see `schemas/registry/README.md` for its source).
const SCHEMA_2025_09_29: &str = include_str!("../../schemas/registry/server.schema.json");

/// Where the registry publishes each version of its schema: `{PREFIX}<version>{SUFFIX}`.
const SCHEMA_PREFIX: &str = "https://static.modelcontextprotocol.io/schemas/";
const SCHEMA_SUFFIX: &str = "/server.schema.json";

/// Every schema version the registry has published (the dated sections of its server.json
/// changelog), each with the schema scout carries for it. Only 2025-09-29 is carried: no
/// package on crates.io, npm, PyPI or Debian ships the others (see
/// `schemas/registry/README.md`), and scout does not make up a schema it has not got.
const PUBLISHED: &[(&str, Option<&str>)] = &[
    ("2025-07-09", None),
    ("2025-09-16", None),
    ("2025-09-29", Some(SCHEMA_2025_09_29)),
    ("2025-10-11", None),
    ("2025-10-17", None),
    ("2025-12-11", None),
];

/// The `$schema` URI of the schema version scout validates a file without `$schema` against.
pub const SCHEMA_ID: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json";

/// The published version a `$schema` URI names (`2025-12-11`), if it names one.
fn published_version(uri: &str) -> Option<&'static str> {
    let version = uri
        .strip_prefix(SCHEMA_PREFIX)?
        .strip_suffix(SCHEMA_SUFFIX)?;
    PUBLISHED.iter().map(|(v, _)| *v).find(|v| *v == version)
}

/// The version identifier the registry reads from a `$schema` URI: the path segment in
/// `/schemas/<identifier>/server.schema.json`, of `A-Z a-z 0-9 - _ ~ .`. The registry
/// refuses a file whose `$schema` has none ("failed to extract schema version from URL"),
/// so such a `$schema` is the file's defect, not a version scout lacks.
fn schema_identifier(uri: &str) -> Option<&str> {
    let (_, tail) = uri.split_once("/schemas/")?;
    let (id, _) = tail.split_once(SCHEMA_SUFFIX)?;
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '~' | '.');
    (!id.is_empty() && id.chars().all(allowed)).then_some(id)
}

/// What the `$schema` of a file declares, as scout can use it.
enum Declared {
    /// A schema scout carries (2025-09-29 when the file names none).
    Carried(&'static str),
    /// A version scout does not carry (published or newer than scout): scout's gap.
    Uncarried(String),
    /// A `$schema` the registry reads no version from: the file's defect.
    Unreadable(String),
}

/// The schema `doc` is to be validated against: the one its `$schema` names (2025-09-29
/// when it names none), or why scout cannot validate it.
fn declared_schema(doc: &Value) -> Declared {
    let Some(named) = doc.get("$schema").and_then(Value::as_str) else {
        return Declared::Carried(SCHEMA_2025_09_29);
    };
    let carried: Vec<&str> = PUBLISHED
        .iter()
        .filter(|(_, s)| s.is_some())
        .map(|(v, _)| *v)
        .collect();
    let published = || {
        PUBLISHED
            .iter()
            .map(|(v, _)| *v)
            .collect::<Vec<_>>()
            .join(", ")
    };
    match PUBLISHED
        .iter()
        .find(|(v, _)| Some(*v) == published_version(named))
    {
        Some((_, Some(schema))) => Declared::Carried(schema),
        Some((version, None)) => Declared::Uncarried(format!(
            "/$schema names the registry's published schema {version}, which scout does not carry (it carries {}: no package registry ships the others), so the file was not validated against a schema; the registry's rules scout holds on its own (name, description, remote URLs, package registries and versions) were applied",
            carried.join(", ")
        )),
        None => match schema_identifier(named) {
            Some(id) => Declared::Uncarried(format!(
                "/$schema {named:?} names schema version {id:?}, not one scout knows the registry to have published ({}), so the file was not validated against a schema; the registry's rules scout holds on its own were applied",
                published()
            )),
            None => Declared::Unreadable(format!(
                "{named:?} names no server.json schema version (the registry reads one from /schemas/<version>/server.schema.json and refuses a file it cannot read one from); the published versions are {}",
                published()
            )),
        },
    }
}

/// Why `doc` was not validated against a schema, or `None` when it was, or when its
/// `$schema` is itself a problem (see [`schema_problems`]).
pub fn schema_unchecked(doc: &Value) -> Option<String> {
    match declared_schema(doc) {
        Declared::Uncarried(why) => Some(why),
        Declared::Carried(_) | Declared::Unreadable(_) => None,
    }
}

/// Validates `doc` against the schema its `$schema` names; each violation is a claim at the
/// pointer of the value that broke it. A version scout does not carry validates nothing
/// here: [`schema_unchecked`] says why, and the finding is a skip, not a failure of the file.
/// A `$schema` that names no version at all is the file's own problem, at `/$schema`.
pub fn schema_problems(doc: &Value) -> Vec<Claim> {
    let text = match declared_schema(doc) {
        Declared::Carried(text) => text,
        Declared::Uncarried(_) => return Vec::new(),
        Declared::Unreadable(why) => return vec![Claim::new("/$schema", why)],
    };
    let schema: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return vec![Claim::new(
                "",
                format!("the bundled schema does not parse: {e}"),
            )];
        }
    };
    let validator = match crate::policy::schema::compile(&schema) {
        Ok(v) => v,
        Err(e) => {
            return vec![Claim::new(
                "",
                format!("the bundled schema does not compile: {e}"),
            )];
        }
    };
    // The registry refuses a file without `$schema` ("$schema field is required"), whatever
    // else holds; the rest is still validated against 2025-09-29 so every problem is named.
    let missing = doc.get("$schema").is_none().then(|| {
        Claim::new(
            "/$schema",
            format!("missing: the registry refuses a server.json without one (the file was validated against {SCHEMA_ID})"),
        )
    });
    missing
        .into_iter()
        .chain(
            validator
                .iter_errors(doc)
                .take(20)
                .map(|e| Claim::new(e.instance_path().to_string(), e.to_string())),
        )
        .collect()
}

/// Reads and parses a server.json (one line on error, naming the file).
pub fn read(path: &std::path::Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

/// One target derived from a manifest entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    /// `NAME/packages/0`, `NAME/remotes/1`: the manifest's name and the entry's pointer.
    pub name: String,
    pub target: TargetSpec,
    pub claims: ManifestClaims,
}

/// The registry base URL each registry type must name, when it names one.
const REGISTRY_BASES: &[(&str, &[&str])] = &[
    ("npm", &["https://registry.npmjs.org"]),
    ("pypi", &["https://pypi.org"]),
    ("oci", &["https://docker.io"]),
    ("nuget", &["https://api.nuget.org"]),
    ("mcpb", &["https://github.com", "https://gitlab.com"]),
];

/// The registry's rules the schema alone does not hold, each at its pointer.
pub fn semantic_problems(doc: &Value) -> Vec<Claim> {
    let mut out = Vec::new();
    match doc.get("name").and_then(Value::as_str) {
        Some(n) => {
            let (ns, rest) = n.split_once('/').unwrap_or((n, ""));
            if rest.is_empty() || rest.contains('/') || !ns.contains('.') {
                out.push(Claim::new(
                    "/name",
                    format!(
                        "{n:?} is not a reverse-DNS name with exactly one slash (io.github.user/server)"
                    ),
                ));
            }
        }
        None => out.push(Claim::new("/name", "missing or not a string")),
    }
    match doc.get("description").and_then(Value::as_str) {
        Some(d) if d.is_empty() || d.chars().count() > 100 => out.push(Claim::new(
            "/description",
            format!(
                "{} characters; the schema allows 1 to 100",
                d.chars().count()
            ),
        )),
        Some(_) => {}
        None => out.push(Claim::new("/description", "missing or not a string")),
    }
    if doc.get("version").and_then(Value::as_str).is_none() {
        out.push(Claim::new("/version", "missing or not a string"));
    }
    for (i, r) in array(doc, "remotes").iter().enumerate() {
        let url = r.get("url").and_then(Value::as_str).unwrap_or("");
        let judged = substituted(url);
        if !judged.starts_with("https://") && !is_loopback_http(&judged) {
            out.push(Claim::new(
                format!("/remotes/{i}/url"),
                format!("{url:?} is not an https URL after variable substitution"),
            ));
        }
    }
    for (i, p) in array(doc, "packages").iter().enumerate() {
        let kind = p.get("registryType").and_then(Value::as_str).unwrap_or("");
        if let Some(base) = p.get("registryBaseUrl").and_then(Value::as_str) {
            let known = REGISTRY_BASES
                .iter()
                .find(|(k, _)| *k == kind)
                .map(|(_, b)| *b);
            if let Some(allowed) = known
                && !allowed.contains(&base.trim_end_matches('/'))
            {
                out.push(Claim::new(
                    format!("/packages/{i}/registryBaseUrl"),
                    format!(
                        "{base:?} is not the {kind} registry ({})",
                        allowed.join(", ")
                    ),
                ));
            }
        }
        // Since 2025-10-11 an image (its tag is in the identifier) and an MCPB bundle (a
        // download URL) may omit the version; npm, PyPI and NuGet packages name one.
        let versioned = matches!(kind, "npm" | "pypi" | "nuget");
        let Some(v) = p.get("version").and_then(Value::as_str) else {
            if versioned {
                out.push(Claim::new(
                    format!("/packages/{i}/version"),
                    format!("missing: a {kind} package names one specific version"),
                ));
            }
            continue;
        };
        if v.is_empty()
            || v == "latest"
            || v.starts_with(['^', '~', '>', '<', '='])
            || v.contains('*')
            || v.split('.').any(|part| part == "x")
        {
            out.push(Claim::new(
                format!("/packages/{i}/version"),
                format!("{v:?} is not one specific version"),
            ));
        }
    }
    out
}

fn array<'a>(doc: &'a Value, key: &str) -> &'a [Value] {
    doc.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// A URL template with every `{variable}` replaced by a placeholder, so its scheme and host
/// can be judged.
fn substituted(template: &str) -> String {
    let mut out = String::new();
    let mut in_var = false;
    for c in template.chars() {
        match (c, in_var) {
            ('{', _) => in_var = true,
            ('}', true) => {
                in_var = false;
                out.push('0');
            }
            (_, true) => {}
            (c, false) => out.push(c),
        }
    }
    out
}

/// `http://` to this machine: how an author checks a local build of a remote before
/// publishing it; nothing crosses a network in cleartext.
fn is_loopback_http(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| {
        u.scheme() == "http"
            && match u.host() {
                Some(url::Host::Domain(d)) => d == "localhost",
                Some(url::Host::Ipv4(a)) => a.is_loopback(),
                Some(url::Host::Ipv6(a)) => a.is_loopback(),
                None => false,
            }
    })
}

/// A remote's URL with each `{variable}` replaced by the value its `variables` entry
/// gives: scout's environment by the variable's name first, then its `default`. A variable
/// without a value, or a secret one (a URL lands in logs and reports), refuses the remote
/// in one line naming its pointer.
pub fn remote_url(
    remote: &Value,
    pointer: &str,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let template = remote.get("url").and_then(Value::as_str).unwrap_or("");
    let vars = remote.get("variables");
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(len) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..open]);
        let var = &rest[open + 1..open + len];
        rest = &rest[open + len + 1..];
        let decl = vars.and_then(|v| v.get(var));
        let at = format!("{pointer}/variables/{var}");
        if decl
            .and_then(|d| d.get("isSecret"))
            .and_then(Value::as_bool)
            == Some(true)
        {
            return Err(format!(
                "{at}: a secret variable in a URL; scout puts no secret into a URL, so this remote is refused"
            ));
        }
        let value = env(var).or_else(|| {
            decl.and_then(|d| d.get("default"))
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        let Some(value) = value else {
            let what = if decl.is_none() {
                format!(
                    "{pointer}/url: {{{var}}} is neither declared in variables nor set in the environment"
                )
            } else {
                format!(
                    "{at}: no value (set {var} in the environment or give the variable a default)"
                )
            };
            return Err(format!("{what}; this remote is refused"));
        };
        let choices = decl
            .and_then(|d| d.get("choices"))
            .and_then(Value::as_array);
        if let Some(choices) = choices
            && !choices.iter().any(|c| c.as_str() == Some(value.as_str()))
        {
            return Err(format!(
                "{at}: the value is not one of the declared choices; this remote is refused"
            ));
        }
        out.push_str(&value);
    }
    out.push_str(rest);
    Ok(out)
}

/// The environment variable scout reads a manifest header (or a header's variable) from:
/// `SCOUT_HEADER_` and its name upper-cased, each character other than a letter or digit as
/// `_` (`X-API-Key` is `SCOUT_HEADER_X_API_KEY`, `api_key` is `SCOUT_HEADER_API_KEY`). The
/// prefix is there because the manifest chooses both the name and the remote the value is
/// sent to: without it, a header named `Github-Token` would send the operator's own
/// `GITHUB_TOKEN` to whatever host the file names.
pub fn header_env_name(name: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("SCOUT_HEADER_{name}")
}

/// The headers a remote declares, filled as the registry's `KeyValueInput` defines them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RemoteHeaders {
    /// Each header scout can fill, by name. A value from the environment stays a reference
    /// to the variable, read (and registered with the redactor) only when the target is
    /// connected, so no secret is ever part of the spec or a report.
    pub filled: Vec<(String, crate::spec::ValueSource)>,
    /// The required headers scout cannot fill, at their pointers, each with what would fill it.
    pub unfilled: Vec<crate::spec::UnfilledHeader>,
}

/// A remote's `headers`: a header with a `value` takes it, each `{variable}` in it filled
/// from the variable's own `value`, else the environment (see [`header_env_name`]), else its
/// `default` (a `{name}` the header does not declare stays as written, as the schema says);
/// a header without a `value` is read from the environment under its own name, else takes
/// its `default`. A header that cannot be filled is left out, and named when it is required.
pub fn remote_headers(
    remote: &Value,
    pointer: &str,
    env: &impl Fn(&str) -> Option<String>,
) -> RemoteHeaders {
    use crate::spec::ValueSource;
    let mut out = RemoteHeaders::default();
    for (j, h) in array(remote, "headers").iter().enumerate() {
        let Some(name) = h.get("name").and_then(Value::as_str) else {
            continue;
        };
        let at = format!("{pointer}/headers/{j}");
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
        let filled = match text(h, "value") {
            Some(template) => header_template(h, &template, env),
            None => {
                let var = header_env_name(name);
                if env(&var).is_some() {
                    Ok(ValueSource::Env(var))
                } else {
                    text(h, "default").map(ValueSource::Literal).ok_or(var)
                }
            }
        };
        match filled {
            Ok(v) => out.filled.push((name.to_string(), v)),
            Err(var) => {
                if h.get("isRequired").and_then(Value::as_bool) == Some(true) {
                    out.unfilled.push(crate::spec::UnfilledHeader {
                        pointer: at,
                        name: name.to_string(),
                        env: var,
                    });
                }
            }
        }
    }
    out
}

/// A header's `value` template filled; `Err` with the environment variable that would have
/// filled the first variable that has no value.
fn header_template(
    header: &Value,
    template: &str,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<crate::spec::ValueSource, String> {
    use crate::spec::ValueSource;
    let vars = header.get("variables");
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(len) = rest[open..].find('}') else {
            break;
        };
        literal.push_str(&rest[..open]);
        let var = &rest[open + 1..open + len];
        let whole = &rest[open..=open + len];
        rest = &rest[open + len + 1..];
        let Some(decl) = vars.and_then(|v| v.get(var)) else {
            literal.push_str(whole);
            continue;
        };
        let text = |key: &str| decl.get(key).and_then(Value::as_str).map(str::to_string);
        let from_env = header_env_name(var);
        if let Some(fixed) = text("value") {
            literal.push_str(&fixed);
        } else if env(&from_env).is_some() {
            if !literal.is_empty() {
                parts.push(ValueSource::Literal(std::mem::take(&mut literal)));
            }
            parts.push(ValueSource::Env(from_env));
        } else if let Some(default) = text("default") {
            literal.push_str(&default);
        } else {
            return Err(from_env);
        }
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        parts.push(ValueSource::Literal(literal));
    }
    Ok(match parts.len() {
        0 => ValueSource::Literal(String::new()),
        1 => parts.remove(0),
        _ => ValueSource::Joined(parts),
    })
}

/// The manifest's problems that concern the entry at `entry` (`/remotes/0`): those at its
/// pointers and those outside every entry; another entry's are that entry's report's.
fn problems_of(all: &[Claim], entry: &str) -> Vec<Claim> {
    all.iter()
        .filter(|c| {
            let p = c.pointer.as_str();
            let in_entry = |prefix: &str| {
                p.strip_prefix(prefix)
                    .is_some_and(|r| r.is_empty() || r.starts_with('/'))
            };
            !(p.starts_with("/remotes/") || p.starts_with("/packages/")) || in_entry(entry)
        })
        .cloned()
        .collect()
}

/// A package's `packageArguments` as a host passes them: a positional one's value (else its
/// default), a named one as its flag and value, each `{variable}` in it replaced as
/// [`argument_value`] says. An argument without a value is left out (a host would prompt for
/// it; scout has no one to ask). `pointer` is the package's (`/packages/0`).
pub fn package_arguments(
    package: &Value,
    pointer: &str,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for (j, a) in array(package, "packageArguments").iter().enumerate() {
        let value = a
            .get("value")
            .or_else(|| a.get("default"))
            .and_then(Value::as_str);
        let Some(value) = value else { continue };
        let Some(value) =
            argument_value(a, value, &format!("{pointer}/packageArguments/{j}"), env)?
        else {
            continue;
        };
        match a.get("type").and_then(Value::as_str) {
            Some("positional") => out.push(value),
            Some("named") => {
                if let Some(flag) = a.get("name").and_then(Value::as_str) {
                    out.push(flag.to_string());
                    out.push(value);
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// An argument's value with each `{variable}` its `variables` map declares replaced, by the
/// rules of a remote's URL variables: the variable's fixed `value`, else scout's environment
/// variable of the same name, else its `default`, and one of its `choices` when it has them.
/// A secret variable (the command line lands in the report) or a required one without a
/// value refuses the package; an optional one without a value leaves the argument out
/// (`Ok(None)`). A `{name}` the map does not declare stays as written, as the schema says
/// ("the `{curly_braces}` substring should remain unchanged").
fn argument_value(
    argument: &Value,
    template: &str,
    at: &str,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<Option<String>, String> {
    let vars = argument.get("variables");
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(len) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..open]);
        let var = &rest[open + 1..open + len];
        let whole = &rest[open..=open + len];
        rest = &rest[open + len + 1..];
        let Some(decl) = vars.and_then(|v| v.get(var)) else {
            out.push_str(whole);
            continue;
        };
        let at = format!("{at}/variables/{var}");
        let flag = |key: &str| decl.get(key).and_then(Value::as_bool) == Some(true);
        if flag("isSecret") {
            return Err(format!(
                "{at}: a secret variable in a command-line argument; the command line lands in the report, so scout puts no secret there and this package is refused"
            ));
        }
        let text = |key: &str| decl.get(key).and_then(Value::as_str).map(str::to_string);
        let Some(value) = text("value")
            .or_else(|| env(var))
            .or_else(|| text("default"))
        else {
            if flag("isRequired") {
                return Err(format!(
                    "{at}: no value (set {var} in the environment or give the variable a default); this package is refused"
                ));
            }
            return Ok(None);
        };
        let choices = decl.get("choices").and_then(Value::as_array);
        if let Some(choices) = choices
            && !choices.iter().any(|c| c.as_str() == Some(value.as_str()))
        {
            return Err(format!(
                "{at}: the value is not one of the declared choices; this package is refused"
            ));
        }
        out.push_str(&value);
    }
    out.push_str(rest);
    Ok(Some(out))
}

/// The command that starts a package as a host would (`npx`, `uvx`, `docker run`) with its
/// `args` (see `package_arguments`), or `None` for a registry type scout cannot start.
pub fn default_command(
    kind: &str,
    identifier: &str,
    version: &str,
    env: &[String],
    args: &[String],
) -> Option<Vec<String>> {
    let mut c = package_command(kind, identifier, version, env)?;
    c.extend(args.iter().cloned());
    Some(c)
}

/// The variable scout's container images set to their name (`full`, `slim`).
pub const IMAGE_VAR: &str = "SCOUT_CONTAINER_IMAGE";

/// Why a package of `kind` cannot start as a host would in scout's container image `image`
/// (the value of [`IMAGE_VAR`]; `None` outside the images): the images hold no Docker, and
/// the slim one no Node.js or uv. A command of the user's for the package lifts it.
pub fn image_refusal(kind: &str, image: Option<&str>) -> Option<String> {
    let image = image?;
    let own = "give the package's command in the config (`command` or `package_commands`)";
    match (kind, image) {
        ("oci", _) => Some(format!(
            "scout runs in its {image} container image, which has no Docker to start this image with `docker run`; {own}, or run scout on the machine (the host action, scout-mcp/scout/host)"
        )),
        ("npm", "slim") => Some(format!(
            "scout runs in its slim container image, which has no Node.js and no npx to start this package; use the full image (the default target), or {own}"
        )),
        ("pypi", "slim") => Some(format!(
            "scout runs in its slim container image, which has no Python and no uvx to start this package; use the full image (the default target), or {own}"
        )),
        _ => None,
    }
}

fn package_command(
    kind: &str,
    identifier: &str,
    version: &str,
    env: &[String],
) -> Option<Vec<String>> {
    let words = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    match kind {
        "npm" => Some(words(&["npx", "-y", &format!("{identifier}@{version}")])),
        "pypi" => Some(words(&["uvx", &format!("{identifier}=={version}")])),
        "oci" => {
            let mut c = words(&["docker", "run", "-i", "--rm"]);
            // `-e NAME` passes the variable through from scout's environment by name.
            for name in env {
                c.push("-e".into());
                c.push(name.clone());
            }
            let image = if identifier.contains(':') || version.is_empty() {
                identifier.to_string()
            } else {
                format!("{identifier}:{version}")
            };
            c.push(image);
            Some(c)
        }
        _ => None,
    }
}

/// Derives every target of `doc`. `env` reads scout's environment: a package's variables
/// are only asked whether they are set (their values are forwarded by name, never read
/// here); a remote's URL variables are substituted. `command` maps a package to the
/// command that starts it (tests map it to an installed binary), or says in a few words why
/// it cannot be started.
pub fn derive(
    doc: &Value,
    source: &str,
    schema_problems: Vec<Claim>,
    env: impl Fn(&str) -> Option<String>,
    command: impl Fn(&str, &str, &str, &[String], &[String]) -> Result<Vec<String>, String>,
) -> Result<Vec<Derived>, String> {
    let mut problems = schema_problems;
    problems.extend(semantic_problems(doc));
    let name = doc.get("name").and_then(Value::as_str).unwrap_or("server");
    let base = |entry: String, pointer: String, transport: Option<&str>| ManifestClaims {
        source: source.to_string(),
        problems: problems_of(&problems, &entry),
        version: doc
            .get("version")
            .and_then(Value::as_str)
            .map(|v| Claim::new("/version", v)),
        transport: transport.map(|t| Claim::new(pointer, t)),
        schema_unchecked: schema_unchecked(doc),
        ..ManifestClaims::default()
    };
    let mut out = Vec::new();
    for (i, r) in array(doc, "remotes").iter().enumerate() {
        let url =
            remote_url(r, &format!("/remotes/{i}"), &env).map_err(|e| format!("{source}: {e}"))?;
        let headers = remote_headers(r, &format!("/remotes/{i}"), &env);
        let mut claims = base(
            format!("/remotes/{i}"),
            format!("/remotes/{i}/type"),
            r.get("type").and_then(Value::as_str),
        );
        claims.unfilled_headers = headers.unfilled;
        out.push(Derived {
            name: format!("{name}/remotes/{i}"),
            target: TargetSpec::Http {
                url,
                headers: headers.filled,
                auth: Default::default(),
                start: None,
            },
            claims,
        });
    }
    for (i, p) in array(doc, "packages").iter().enumerate() {
        let kind = p.get("registryType").and_then(Value::as_str).unwrap_or("");
        let id = p.get("identifier").and_then(Value::as_str).unwrap_or("");
        let version = p.get("version").and_then(Value::as_str).unwrap_or("");
        let transport = p
            .get("transport")
            .and_then(|t| t.get("type"))
            .and_then(Value::as_str);
        let mut claims = base(
            format!("/packages/{i}"),
            format!("/packages/{i}/transport/type"),
            transport,
        );
        let mut names = Vec::new();
        for (j, e) in array(p, "environmentVariables").iter().enumerate() {
            let Some(var) = e.get("name").and_then(Value::as_str) else {
                continue;
            };
            names.push(var.to_string());
            if e.get("isRequired").and_then(Value::as_bool) == Some(true) {
                let c = Claim::new(format!("/packages/{i}/environmentVariables/{j}"), var);
                if env(var).is_none() {
                    claims.missing_env.push(c.clone());
                }
                claims.required_env.push(c);
            }
        }
        let args = package_arguments(p, &format!("/packages/{i}"), &env)
            .map_err(|e| format!("{source}: {e}"))?;
        let cmd = command(kind, id, version, &names, &args)
            .map_err(|why| format!("{source}: /packages/{i}/registryType {kind:?}: {why}"))?;
        out.push(Derived {
            name: format!("{name}/packages/{i}"),
            target: TargetSpec::Stdio(ProcessConfig {
                command: cmd,
                env_forward: names,
                env_set: Vec::new(),
                dir: None,
            }),
            claims,
        });
    }
    if out.is_empty() {
        return Err(format!(
            "{source}: neither remotes nor packages: no target to check"
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `default_command`, as `derive` takes it.
    fn started(
        kind: &str,
        id: &str,
        version: &str,
        env: &[String],
        args: &[String],
    ) -> Result<Vec<String>, String> {
        default_command(kind, id, version, env, args).ok_or_else(|| "not started".to_string())
    }

    #[test]
    fn the_images_refuse_what_they_cannot_start_and_nothing_else() {
        for kind in ["oci", "npm", "pypi", "nuget"] {
            assert_eq!(image_refusal(kind, None), None, "{kind} outside the images");
        }
        let full = image_refusal("oci", Some("full")).expect("no docker in full");
        assert!(
            full.contains("no Docker") && full.contains("package_commands"),
            "{full}"
        );
        assert!(image_refusal("oci", Some("slim")).is_some());
        assert_eq!(image_refusal("npm", Some("full")), None);
        assert_eq!(image_refusal("pypi", Some("full")), None);
        let npm = image_refusal("npm", Some("slim")).expect("no npx in slim");
        assert!(npm.contains("npx") && npm.contains("full image"), "{npm}");
        let pypi = image_refusal("pypi", Some("slim")).expect("no uvx in slim");
        assert!(pypi.contains("uvx"), "{pypi}");
    }

    fn two_packages_one_remote() -> Value {
        json!({
            "name": "io.github.example/memory",
            "description": "Knowledge-graph memory",
            "version": "0.6.3",
            "remotes": [{"type": "streamable-http", "url": "https://{host}/mcp",
                         "variables": {"host": {"default": "mcp.example.com"}}}],
            "packages": [
                {"registryType": "npm", "registryBaseUrl": "https://registry.npmjs.org",
                 "identifier": "@modelcontextprotocol/server-memory", "version": "2026.8.31",
                 "transport": {"type": "stdio"},
                 "environmentVariables": [{"name": "MEMORY_FILE_PATH", "isRequired": true}]},
                {"registryType": "pypi", "identifier": "mcp-server-time", "version": "2025.9.25",
                 "transport": {"type": "stdio"}}
            ]
        })
    }

    #[test]
    fn every_entry_becomes_a_target_with_its_claims() {
        let d = derive(
            &two_packages_one_remote(),
            "server.json",
            Vec::new(),
            |_| None,
            started,
        )
        .expect("three targets");
        assert_eq!(d.len(), 3);
        assert!(
            matches!(&d[0].target, TargetSpec::Http { url, .. } if url == "https://mcp.example.com/mcp")
        );
        let TargetSpec::Stdio(npm) = &d[1].target else {
            panic!("{:?}", d[1])
        };
        assert_eq!(
            npm.command,
            ["npx", "-y", "@modelcontextprotocol/server-memory@2026.8.31"]
        );
        assert_eq!(npm.env_forward, ["MEMORY_FILE_PATH"]);
        let TargetSpec::Stdio(uvx) = &d[2].target else {
            panic!("{:?}", d[2])
        };
        assert_eq!(uvx.command, ["uvx", "mcp-server-time==2025.9.25"]);
        // The server's version, not the package's.
        assert!(
            d.iter()
                .all(|t| t.claims.version == Some(Claim::new("/version", "0.6.3")))
        );
        assert_eq!(
            d[1].claims.missing_env[0].pointer,
            "/packages/0/environmentVariables/0"
        );
        assert!(d.iter().all(|t| t.claims.problems.is_empty()), "{d:#?}");
    }

    #[test]
    fn the_registrys_rules_name_their_pointers() {
        let mut doc = two_packages_one_remote();
        doc["name"] = json!("memory");
        doc["description"] = json!("x".repeat(101));
        doc["remotes"][0]["url"] = json!("http://{host}/mcp");
        doc["packages"][0]["registryBaseUrl"] = json!("https://npm.evil.example");
        doc["packages"][1]["version"] = json!("^2025.9");
        let pointers: Vec<String> = semantic_problems(&doc)
            .into_iter()
            .map(|c| c.pointer)
            .collect();
        assert_eq!(
            pointers,
            [
                "/name",
                "/description",
                "/remotes/0/url",
                "/packages/0/registryBaseUrl",
                "/packages/1/version"
            ]
        );
    }

    #[test]
    fn the_published_schema_accepts_a_correct_manifest_and_points_at_a_broken_one() {
        let mut doc = two_packages_one_remote();
        doc["$schema"] = json!(SCHEMA_ID);
        assert_eq!(schema_problems(&doc), Vec::<Claim>::new());
        doc["packages"][1]["transport"] = json!({"type": "carrier-pigeon"});
        doc["packages"][0]["version"] = json!("latest");
        let pointers: Vec<String> = schema_problems(&doc)
            .into_iter()
            .map(|c| c.pointer)
            .collect();
        assert!(
            pointers.contains(&"/packages/1/transport".to_string()),
            "{pointers:?}"
        );
        assert!(
            pointers.contains(&"/packages/0/version".to_string()),
            "{pointers:?}"
        );
        assert_eq!(schema_unchecked(&doc), None);
    }

    #[test]
    fn a_published_schema_scout_does_not_carry_is_said_and_fails_nothing() {
        let mut doc = two_packages_one_remote();
        for version in [
            "2025-07-09",
            "2025-09-16",
            "2025-10-11",
            "2025-10-17",
            "2025-12-11",
        ] {
            doc["$schema"] = json!(format!(
                "https://static.modelcontextprotocol.io/schemas/{version}/server.schema.json"
            ));
            assert_eq!(schema_problems(&doc), Vec::<Claim>::new(), "{version}");
            let why = schema_unchecked(&doc).expect("not carried");
            assert!(
                why.contains(version) && why.contains("does not carry"),
                "{why}"
            );
        }
        // A version newer than scout knows is scout's gap too.
        doc["$schema"] =
            json!("https://static.modelcontextprotocol.io/schemas/2027-01-01/server.schema.json");
        assert_eq!(schema_problems(&doc), Vec::<Claim>::new());
        let why = schema_unchecked(&doc).expect("not a version scout knows");
        assert!(why.contains("\"2027-01-01\""), "{why}");
        // A `$schema` the registry reads no version from is the file's problem.
        for named in ["https://example.com/other.json", "garbage", ""] {
            doc["$schema"] = json!(named);
            assert_eq!(schema_unchecked(&doc), None, "{named}");
            let problems = schema_problems(&doc);
            assert_eq!(problems.len(), 1, "{named}: {problems:?}");
            assert_eq!(problems[0].pointer, "/$schema");
            assert!(
                problems[0]
                    .value
                    .contains("names no server.json schema version"),
                "{problems:?}"
            );
        }
        // The registry's own rules still hold whatever the schema.
        doc["description"] = json!("");
        assert_eq!(semantic_problems(&doc)[0].pointer, "/description");
    }

    #[test]
    fn an_image_or_bundle_may_omit_its_version_and_an_npm_package_may_not() {
        let mut doc = two_packages_one_remote();
        doc["packages"][1] = json!({"registryType": "oci", "identifier": "ghcr.io/x/y:1.0.0",
            "transport": {"type": "stdio"}});
        assert!(
            semantic_problems(&doc).is_empty(),
            "{:?}",
            semantic_problems(&doc)
        );
        doc["packages"][0]
            .as_object_mut()
            .expect("object")
            .remove("version");
        let pointers: Vec<String> = semantic_problems(&doc)
            .into_iter()
            .map(|c| c.pointer)
            .collect();
        assert_eq!(pointers, ["/packages/0/version"]);
        assert_eq!(
            default_command("oci", "ghcr.io/x/y:1.0.0", "", &[], &[]).expect("oci"),
            ["docker", "run", "-i", "--rm", "ghcr.io/x/y:1.0.0"]
        );
    }

    #[test]
    fn declared_headers_are_filled_from_the_environment_and_never_hold_its_value() {
        use crate::spec::ValueSource;
        let remote = json!({"type": "streamable-http", "url": "https://api.example.com/mcp",
        "headers": [
            {"name": "X-API-Key", "isRequired": true, "isSecret": true},
            {"name": "Authorization", "value": "Bearer {api_key}", "isRequired": true,
             "variables": {"api_key": {"isSecret": true}}},
            {"name": "X-Region", "value": "{region}",
             "variables": {"region": {"default": "eu"}}},
            {"name": "Accept-Version", "value": "2"},
            {"name": "X-Optional"},
            {"name": "X-Plan", "default": "free"}
        ]});
        let env = |v: &str| {
            matches!(v, "SCOUT_HEADER_X_API_KEY" | "SCOUT_HEADER_API_KEY")
                .then(|| "s3cr3t".to_string())
        };
        let h = remote_headers(&remote, "/remotes/0", &env);
        assert_eq!(
            h.filled,
            [
                (
                    "X-API-Key".to_string(),
                    ValueSource::Env("SCOUT_HEADER_X_API_KEY".into())
                ),
                (
                    "Authorization".to_string(),
                    ValueSource::Joined(vec![
                        ValueSource::Literal("Bearer ".into()),
                        ValueSource::Env("SCOUT_HEADER_API_KEY".into())
                    ])
                ),
                ("X-Region".to_string(), ValueSource::Literal("eu".into())),
                (
                    "Accept-Version".to_string(),
                    ValueSource::Literal("2".into())
                ),
                ("X-Plan".to_string(), ValueSource::Literal("free".into())),
            ]
        );
        assert!(h.unfilled.is_empty(), "{:?}", h.unfilled);
        assert!(!format!("{h:?}").contains("s3cr3t"), "{h:?}");
        // Nothing in the environment: the required ones are named with what fills them,
        // the optional one is left out.
        let h = remote_headers(&remote, "/remotes/0", &|_| None);
        let names: Vec<(&str, &str, &str)> = h
            .unfilled
            .iter()
            .map(|u| (u.pointer.as_str(), u.name.as_str(), u.env.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                (
                    "/remotes/0/headers/0",
                    "X-API-Key",
                    "SCOUT_HEADER_X_API_KEY"
                ),
                (
                    "/remotes/0/headers/1",
                    "Authorization",
                    "SCOUT_HEADER_API_KEY"
                )
            ]
        );
        assert!(h.filled.iter().all(|(n, _)| n != "X-Optional"));
        assert_eq!(header_env_name("x-api.key"), "SCOUT_HEADER_X_API_KEY");
    }

    #[test]
    fn a_remote_takes_its_variables_from_the_environment_then_the_default() {
        let remote = json!({"type": "streamable-http", "url": "https://{tenant}.example.com/{path}",
            "variables": {"tenant": {"default": "acme"}, "path": {"isRequired": true}}});
        let env = |v: &str| (v == "path").then(|| "mcp".to_string());
        assert_eq!(
            remote_url(&remote, "/remotes/0", &env).as_deref(),
            Ok("https://acme.example.com/mcp")
        );
        let env = |v: &str| Some(format!("{v}-from-env"));
        assert_eq!(
            remote_url(&remote, "/remotes/0", &env).as_deref(),
            Ok("https://tenant-from-env.example.com/path-from-env")
        );
        let refused = remote_url(&remote, "/remotes/0", &|_| None).expect_err("no value for path");
        assert!(
            refused.starts_with("/remotes/0/variables/path: "),
            "{refused}"
        );
        assert_eq!(refused.lines().count(), 1);
        let secret = json!({"url": "https://x.example.com/{key}",
            "variables": {"key": {"isSecret": true}}});
        let refused = remote_url(&secret, "/remotes/1", &|_| Some("s3cr3t".into()))
            .expect_err("a secret is not put into a URL");
        assert!(!refused.contains("s3cr3t") && refused.contains("/remotes/1/variables/key"));
        let region = json!({"url": "https://api.example.com/{region}/mcp",
            "variables": {"region": {"choices": ["us-east-1", "eu-west-1"], "default": "us-east-1"}}});
        assert_eq!(
            remote_url(&region, "/remotes/0", &|_| None).as_deref(),
            Ok("https://api.example.com/us-east-1/mcp")
        );
        let refused = remote_url(&region, "/remotes/0", &|_| Some("mars-1".into()))
            .expect_err("not a declared choice");
        assert!(
            refused.starts_with("/remotes/0/variables/region: "),
            "{refused}"
        );
        let undeclared = json!({"url": "https://{host}/mcp"});
        let refused = remote_url(&undeclared, "/remotes/2", &|_| None).expect_err("undeclared");
        assert!(refused.starts_with("/remotes/2/url: "), "{refused}");
    }

    #[test]
    fn each_target_carries_only_its_own_entrys_problems() {
        let mut doc = two_packages_one_remote();
        doc["description"] = json!("");
        doc["packages"][1]["version"] = json!("latest");
        let d = derive(&doc, "server.json", Vec::new(), |_| None, started).expect("derived");
        let pointers = |i: usize| -> Vec<&str> {
            d[i].claims
                .problems
                .iter()
                .map(|c| c.pointer.as_str())
                .collect()
        };
        assert_eq!(pointers(0), ["/description"]);
        assert_eq!(pointers(1), ["/description"]);
        assert_eq!(pointers(2), ["/description", "/packages/1/version"]);
    }

    #[test]
    fn loopback_http_is_a_remote_under_test_and_other_http_is_not() {
        let mut doc = two_packages_one_remote();
        doc["remotes"][0]["url"] = json!("http://127.0.0.1:{port}/mcp");
        assert!(semantic_problems(&doc).is_empty());
        doc["remotes"][0]["url"] = json!("http://mcp.example.com/mcp");
        assert_eq!(semantic_problems(&doc)[0].pointer, "/remotes/0/url");
    }

    #[test]
    fn an_image_gets_its_variables_by_name_only() {
        let c = default_command("oci", "ghcr.io/x/y", "1.2.0", &["TOKEN".into()], &[])
            .expect("oci is started");
        assert_eq!(
            c,
            [
                "docker",
                "run",
                "-i",
                "--rm",
                "-e",
                "TOKEN",
                "ghcr.io/x/y:1.2.0"
            ]
        );
        assert!(default_command("nuget", "x", "1", &[], &[]).is_none());
    }

    #[test]
    fn argument_variables_take_the_environment_then_the_default_and_refuse_secrets() {
        let p = json!({"packageArguments": [
            {"type": "named", "name": "--root", "value": "{home}/data/{tenant}",
             "variables": {"home": {"default": "/srv"}, "tenant": {"isRequired": true}}},
            {"type": "positional", "value": "--mode={mode}",
             "variables": {"mode": {"value": "ro", "choices": ["ro", "rw"]}}},
            {"type": "positional", "value": "{untouched}"},
            {"type": "named", "name": "--region", "value": "{region}",
             "variables": {"region": {}}}
        ]});
        let env = |v: &str| (v == "tenant").then(|| "acme".to_string());
        assert_eq!(
            package_arguments(&p, "/packages/0", &env).expect("arguments"),
            ["--root", "/srv/data/acme", "--mode=ro", "{untouched}"]
        );
        let e = package_arguments(&p, "/packages/0", &|_| None).expect_err("tenant is required");
        assert!(
            e.starts_with("/packages/0/packageArguments/0/variables/tenant: no value"),
            "{e}"
        );
        let mut secret = p.clone();
        secret["packageArguments"][0]["variables"]["home"]["isSecret"] = json!(true);
        let e = package_arguments(&secret, "/packages/0", &env).expect_err("secret");
        assert!(e.contains("/variables/home: a secret variable"), "{e}");
        assert!(!e.contains('\n'), "{e}");
        let mut off = p.clone();
        off["packageArguments"][1]["variables"]["mode"]["value"] = json!("wx");
        let e = package_arguments(&off, "/packages/0", &env).expect_err("not a choice");
        assert!(e.contains("/packageArguments/1/variables/mode"), "{e}");
    }

    #[test]
    fn package_arguments_follow_the_command_as_a_host_passes_them() {
        let p = json!({"packageArguments": [
            {"type": "named", "name": "--local-timezone", "value": "UTC"},
            {"type": "positional", "valueHint": "root", "default": "/data"},
            {"type": "named", "name": "--token", "isRequired": true}
        ]});
        let args = package_arguments(&p, "/packages/0", &|_| None).expect("arguments");
        assert_eq!(args, ["--local-timezone", "UTC", "/data"]);
        assert_eq!(
            default_command("pypi", "mcp-server-time", "2026.10.19", &[], &args).expect("pypi"),
            [
                "uvx",
                "mcp-server-time==2026.10.19",
                "--local-timezone",
                "UTC",
                "/data"
            ]
        );
    }
}
