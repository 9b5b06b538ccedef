//! An MCPB bundle (`.mcpb`, a zip with `manifest.json` at its root, or a folder holding one)
//! as a target: its manifest validated against the schema of the `manifest_version` it
//! names, the bundle unpacked into a temporary folder, and `server.mcp_config` turned into
//! the command a host would start, with the host's variables substituted. The manifest's
//! `version`, `tools` and `prompts` travel as claims for the `manifest` category.
//!
//! The substitution follows the MCPB tooling's own (`getMcpConfigForManifest` of
//! `@anthropic-ai/mcpb`): `${__dirname}`, `${HOME}` and the other system folders,
//! `${pathSeparator}` and `${/}`, and `${user_config.KEY}` from each setting's `default`; an
//! argument that is exactly one setting with a list value becomes one argument per item, and
//! a variable without a value is left as written. A required setting without a default,
//! which a host would ask its user for, gets a placeholder named in the report.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::spec::{Claim, Compatibility, ManifestClaims, Runtime};

/// The manifest schemas of `@anthropic-ai/mcpb` (see `schemas/mcpb/README.md`), by the
/// `manifest_version` each one fixes.
const SCHEMAS: &[(&str, &str)] = &[
    (
        "0.1",
        include_str!("../../schemas/mcpb/mcpb-manifest-v0.1.schema.json"),
    ),
    (
        "0.2",
        include_str!("../../schemas/mcpb/mcpb-manifest-v0.2.schema.json"),
    ),
    (
        "0.3",
        include_str!("../../schemas/mcpb/mcpb-manifest-v0.3.schema.json"),
    ),
    (
        "0.4",
        include_str!("../../schemas/mcpb/mcpb-manifest-v0.4.schema.json"),
    ),
];

/// A bundle larger than this unpacked is refused: a zip's sizes are the archive's own
/// claims, and a small file can claim (and inflate to) far more than a disk holds.
const MAX_UNPACKED_BYTES: u128 = 2 << 30;

/// A bundle ready to start: where its files are and what its manifest says.
#[derive(Debug)]
pub struct Bundle {
    /// The folder `manifest.json` is in (`${__dirname}`).
    pub root: PathBuf,
    /// The temporary folder a `.mcpb` was unpacked into, removed when this is dropped;
    /// `None` for a folder given as is.
    pub unpacked: Option<tempfile::TempDir>,
    pub manifest: Value,
    /// The bundle as the user named it (its file name), for messages.
    pub source: String,
}

/// Opens `path`: a folder with `manifest.json`, or a `.mcpb` archive unpacked into a new
/// temporary folder. Every failure is one line naming the file.
pub fn open(path: &Path) -> Result<Bundle, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let name = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    // The file the author edits: the archive, or the folder's manifest.json.
    let source = if meta.is_dir() {
        format!("{name}/manifest.json")
    } else {
        name
    };
    let (root, unpacked) = if meta.is_dir() {
        (path.to_path_buf(), None)
    } else {
        let dir = unpack(path)?;
        (dir.path().to_path_buf(), Some(dir))
    };
    let manifest_path = root.join("manifest.json");
    let text = std::fs::read_to_string(&manifest_path).map_err(|e| {
        format!(
            "{}: no readable manifest.json at the bundle's root ({e})",
            path.display()
        )
    })?;
    let manifest: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: manifest.json is not JSON: {e}", path.display()))?;
    if !manifest.is_object() {
        return Err(format!(
            "{}: manifest.json is not a JSON object",
            path.display()
        ));
    }
    Ok(Bundle {
        root,
        unpacked,
        manifest,
        source,
    })
}

/// Unpacks the zip at `path` into a new temporary folder. The zip crate refuses entries
/// whose names would land outside it (`../`, absolute paths).
fn unpack(path: &Path) -> Result<tempfile::TempDir, String> {
    let file =
        std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(|e| {
        format!(
            "{} is not an MCPB bundle (a zip archive) nor a folder: {e}",
            path.display()
        )
    })?;
    if archive
        .decompressed_size()
        .is_none_or(|n| n > MAX_UNPACKED_BYTES)
    {
        return Err(format!(
            "{}: the archive unpacks to more than {} GiB (or does not say how much); refused",
            path.display(),
            MAX_UNPACKED_BYTES >> 30
        ));
    }
    let dir = tempfile::Builder::new()
        .prefix("scout-mcpb-")
        .tempdir()
        .map_err(|e| format!("cannot make a temporary folder to unpack into: {e}"))?;
    archive
        .extract(dir.path())
        .map_err(|e| format!("{}: cannot unpack: {e}", path.display()))?;
    Ok(dir)
}

/// The `manifest_version` the manifest names (`dxt_version` in bundles made before the
/// rename), at its pointer.
fn manifest_version(doc: &Value) -> Option<(&'static str, &str)> {
    for (pointer, key) in [
        ("/manifest_version", "manifest_version"),
        ("/dxt_version", "dxt_version"),
    ] {
        if let Some(v) = doc.get(key).and_then(Value::as_str) {
            return Some((pointer, v));
        }
    }
    None
}

/// Validates `doc` against the schema of the `manifest_version` it names; each violation is
/// a claim at the pointer of the value that broke it. A version scout carries no schema for,
/// or none named, is itself a problem.
pub fn schema_problems(doc: &Value) -> Vec<Claim> {
    let known = || {
        SCHEMAS
            .iter()
            .map(|(v, _)| *v)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some((pointer, version)) = manifest_version(doc) else {
        return vec![Claim::new(
            "/manifest_version",
            format!(
                "missing: the manifest names no manifest_version ({})",
                known()
            ),
        )];
    };
    let Some((_, text)) = SCHEMAS.iter().find(|(v, _)| *v == version) else {
        return vec![Claim::new(
            pointer,
            format!(
                "{version:?} is not a manifest version scout carries a schema for ({})",
                known()
            ),
        )];
    };
    let validator = match serde_json::from_str::<Value>(text)
        .map_err(|e| e.to_string())
        .and_then(|s| crate::policy::schema::compile(&s).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => {
            return vec![Claim::new(
                "",
                format!("the bundled MCPB {version} schema does not load: {e}"),
            )];
        }
    };
    validator
        .iter_errors(doc)
        .take(20)
        .map(|e| Claim::new(e.instance_path().to_string(), e.to_string()))
        .collect()
}

/// The command, environment and placeholders a host would start the bundle's server with.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub command: Vec<String>,
    pub env: Vec<(String, String)>,
    /// Required settings without a default, each at its pointer with the placeholder used.
    pub placeholders: Vec<Claim>,
}

/// Where the host's own folders are, for `${HOME}`, `${DESKTOP}`, `${DOCUMENTS}` and
/// `${DOWNLOADS}`.
#[derive(Debug, Clone, Default)]
pub struct Host {
    /// `darwin`, `win32` or `linux`: the key of `platform_overrides`.
    pub platform: String,
    pub home: Option<PathBuf>,
}

impl Host {
    /// This machine.
    pub fn this() -> Host {
        let platform = match std::env::consts::OS {
            "macos" => "darwin",
            "windows" => "win32",
            other => other,
        };
        Host {
            platform: platform.to_string(),
            home: std::env::var_os("HOME").map(PathBuf::from),
        }
    }
}

/// RFC 6901: `~` and `/` in a key are escaped in a JSON pointer.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A variable's value: one string, or a list that an argument of its own expands into.
#[derive(Debug, Clone)]
enum Var {
    One(String),
    Many(Vec<String>),
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Replaces every `${name}` in `text` whose variable has one value; a list in a string, or
/// an unknown name, is left as written (as the MCPB tooling does).
fn substitute(text: &str, vars: &[(String, Var)]) -> String {
    let mut out = text.to_string();
    for (name, v) in vars {
        if let Var::One(value) = v {
            out = out.replace(&format!("${{{name}}}"), value);
        }
    }
    out
}

/// Works out how a host starts the server of `doc`, unpacked at `root`, on `host`.
pub fn launch(doc: &Value, root: &Path, host: &Host) -> Result<Launch, String> {
    let Some(config) = doc
        .get("server")
        .and_then(|s| s.get("mcp_config"))
        .filter(|c| c.is_object())
    else {
        return Err("/server/mcp_config: missing; the manifest names no command to start".into());
    };
    let overrides = config
        .get("platform_overrides")
        .and_then(|o| o.get(&host.platform));
    // An override replaces each of command, args and env it gives, as a whole.
    let pick = |key: &str| {
        overrides
            .and_then(|o| o.get(key))
            .or_else(|| config.get(key))
    };
    let Some(command) = pick("command").and_then(Value::as_str) else {
        return Err("/server/mcp_config/command: missing or not a string".into());
    };

    let sep = std::path::MAIN_SEPARATOR.to_string();
    let mut vars: Vec<(String, Var)> = vec![
        (
            "__dirname".into(),
            Var::One(root.to_string_lossy().into_owned()),
        ),
        ("pathSeparator".into(), Var::One(sep.clone())),
        ("/".into(), Var::One(sep)),
    ];
    if let Some(home) = &host.home {
        let under = |sub: &str| Var::One(home.join(sub).to_string_lossy().into_owned());
        vars.push(("HOME".into(), Var::One(home.to_string_lossy().into_owned())));
        vars.push(("DESKTOP".into(), under("Desktop")));
        vars.push(("DOCUMENTS".into(), under("Documents")));
        vars.push(("DOWNLOADS".into(), under("Downloads")));
    }
    let system = vars.clone();
    let mut placeholders = Vec::new();
    if let Some(settings) = doc.get("user_config").and_then(Value::as_object) {
        for (key, option) in settings {
            let name = format!("user_config.{key}");
            let value = match option.get("default") {
                // A default may name the host's folders (`${HOME}/notes`).
                Some(Value::Array(items)) => Some(Var::Many(
                    items
                        .iter()
                        .filter_map(scalar)
                        .map(|s| substitute(&s, &system))
                        .collect(),
                )),
                Some(v) => scalar(v).map(|s| Var::One(substitute(&s, &system))),
                None => None,
            };
            match value {
                Some(v) => vars.push((name, v)),
                None if option.get("required").and_then(Value::as_bool) == Some(true) => {
                    let placeholder = format!("scout-placeholder-{key}");
                    placeholders.push(Claim::new(
                        format!("/user_config/{}", escape(key)),
                        placeholder.clone(),
                    ));
                    vars.push((name, Var::One(placeholder)));
                }
                None => {}
            }
        }
    }

    let mut argv = vec![substitute(command, &vars)];
    for arg in pick("args")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let Some(arg) = arg.as_str() else {
            return Err("/server/mcp_config/args: an argument is not a string".into());
        };
        let whole = arg
            .strip_prefix("${")
            .and_then(|a| a.strip_suffix('}'))
            .filter(|n| n.starts_with("user_config."));
        match whole.and_then(|n| vars.iter().find(|(v, _)| v == n)) {
            Some((_, Var::Many(items))) => argv.extend(items.iter().cloned()),
            _ => argv.push(substitute(arg, &vars)),
        }
    }
    let mut env = Vec::new();
    if let Some(map) = pick("env").and_then(Value::as_object) {
        for (name, value) in map {
            let Some(value) = value.as_str() else {
                return Err(format!(
                    "/server/mcp_config/env/{}: not a string",
                    escape(name)
                ));
            };
            env.push((name.clone(), substitute(value, &vars)));
        }
    }
    Ok(Launch {
        command: argv,
        env,
        placeholders,
    })
}

/// The names a list (`tools`, `prompts`) gives, each at its pointer; `None` when the
/// manifest has no such list.
fn listed(doc: &Value, key: &str) -> Option<Vec<Claim>> {
    let items = doc.get(key)?.as_array()?;
    Some(
        items
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                t.get("name")
                    .and_then(Value::as_str)
                    .map(|n| Claim::new(format!("/{key}/{i}"), n))
            })
            .collect(),
    )
}

/// What the manifest claims about the server it starts, for the `manifest` category.
pub fn claims(doc: &Value, source: &str, problems: Vec<Claim>, launch: &Launch) -> ManifestClaims {
    let flag = |key: &str| doc.get(key).and_then(Value::as_bool) == Some(true);
    ManifestClaims {
        source: source.to_string(),
        problems,
        version: doc
            .get("version")
            .and_then(Value::as_str)
            .map(|v| Claim::new("/version", v)),
        tools: listed(doc, "tools"),
        tools_generated: flag("tools_generated"),
        prompts: listed(doc, "prompts"),
        prompts_generated: flag("prompts_generated"),
        placeholders: launch.placeholders.clone(),
        compatibility: compatibility(doc, launch),
        kind: crate::spec::ManifestKind::Mcpb,
        ..ManifestClaims::default()
    }
}

/// The manifest's `compatibility`, with the program that would run each runtime: the
/// bundle's own command when it is that runtime (a bundled venv's python), else the one on
/// PATH.
fn compatibility(doc: &Value, launch: &Launch) -> Option<Box<Compatibility>> {
    let c = doc.get("compatibility")?.as_object()?;
    let platforms = c.get("platforms").and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    });
    let own = launch.command.first().map(String::as_str).unwrap_or("");
    let own_name = std::path::Path::new(own)
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let mut runtimes = Vec::new();
    if let Some(map) = c.get("runtimes").and_then(Value::as_object) {
        for (name, range) in map {
            let Some(range) = range.as_str() else {
                continue;
            };
            let program = if own_name.starts_with(name.as_str()) {
                own.to_string()
            } else if name == "python" {
                "python3".to_string()
            } else {
                name.clone()
            };
            runtimes.push(Runtime {
                name: name.clone(),
                range: Claim::new(format!("/compatibility/runtimes/{}", escape(name)), range),
                program,
            });
        }
    }
    let clients = c
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "platforms" | "runtimes"))
        .filter_map(|(k, v)| {
            v.as_str()
                .map(|v| Claim::new(format!("/compatibility/{}", escape(k)), v))
        })
        .collect();
    Some(Box::new(Compatibility {
        host_platform: Host::this().platform,
        platforms,
        runtimes,
        clients,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn manifest() -> Value {
        json!({
            "manifest_version": "0.3",
            "name": "notes",
            "version": "1.2.0",
            "description": "Notes",
            "author": {"name": "A. Author"},
            "server": {
                "type": "node",
                "entry_point": "server/index.js",
                "mcp_config": {
                    "command": "node",
                    "args": ["${__dirname}/server/index.js", "--root", "${user_config.root}",
                             "${user_config.dirs}", "--key=${user_config.api_key}",
                             "${user_config.unset}"],
                    "env": {"NOTES_DEBUG": "${user_config.debug}", "NOTES_HOME": "${HOME}${/}x"},
                    "platform_overrides": {"win32": {"command": "node.exe"}}
                }
            },
            "tools": [{"name": "search"}, {"name": "write", "description": "Write a note"}],
            "prompts": [{"name": "summarise", "text": "Summarise ${arguments.topic}"}],
            "user_config": {
                "root": {"type": "directory", "title": "Root", "description": "Where",
                         "default": "${HOME}/notes"},
                "dirs": {"type": "directory", "title": "More", "description": "Also",
                         "multiple": true, "default": ["/a", "/b"]},
                "debug": {"type": "boolean", "title": "Debug", "description": "Verbose",
                          "default": false},
                "api_key": {"type": "string", "title": "Key", "description": "Key",
                            "required": true, "sensitive": true},
                "unset": {"type": "string", "title": "Unset", "description": "Optional"}
            }
        })
    }

    fn linux() -> Host {
        Host {
            platform: "linux".into(),
            home: Some("/home/u".into()),
        }
    }

    #[test]
    fn the_command_is_the_hosts_with_every_variable_substituted() {
        let l = launch(&manifest(), Path::new("/tmp/b"), &linux()).expect("launch");
        assert_eq!(
            l.command,
            [
                "node",
                "/tmp/b/server/index.js",
                "--root",
                "/home/u/notes",
                "/a",
                "/b",
                "--key=scout-placeholder-api_key",
                // An optional setting without a value stays as written, as in a host.
                "${user_config.unset}",
            ]
        );
        assert_eq!(
            l.env,
            [
                ("NOTES_DEBUG".to_string(), "false".to_string()),
                ("NOTES_HOME".to_string(), "/home/u/x".to_string())
            ]
        );
        assert_eq!(
            l.placeholders,
            [Claim::new(
                "/user_config/api_key",
                "scout-placeholder-api_key"
            )]
        );
        let windows = Host {
            platform: "win32".into(),
            home: None,
        };
        let w = launch(&manifest(), Path::new("/tmp/b"), &windows).expect("launch");
        assert_eq!(w.command[0], "node.exe");
    }

    #[test]
    fn a_manifest_without_a_command_is_refused_at_its_pointer() {
        let mut doc = manifest();
        doc["server"]["mcp_config"] = json!({"args": []});
        let e = launch(&doc, Path::new("/b"), &linux()).expect_err("no command");
        assert!(e.starts_with("/server/mcp_config/command"), "{e}");
        doc["server"] = json!({});
        let e = launch(&doc, Path::new("/b"), &linux()).expect_err("no mcp_config");
        assert!(e.starts_with("/server/mcp_config"), "{e}");
    }

    #[test]
    fn the_schema_is_the_one_the_manifest_version_names() {
        assert_eq!(schema_problems(&manifest()), Vec::<Claim>::new());
        let mut doc = manifest();
        doc["tools"][1]["params"] = json!({});
        doc["server"]["type"] = json!("java");
        let pointers: Vec<String> = schema_problems(&doc)
            .into_iter()
            .map(|c| c.pointer)
            .collect();
        assert!(pointers.contains(&"/tools/1".to_string()), "{pointers:?}");
        assert!(
            pointers.contains(&"/server/type".to_string()),
            "{pointers:?}"
        );
        // A version scout has no schema for, or none at all, is named at its pointer; the
        // old key `dxt_version` still names one.
        doc = manifest();
        doc["manifest_version"] = json!("0.9");
        assert_eq!(schema_problems(&doc)[0].pointer, "/manifest_version");
        doc.as_object_mut()
            .expect("object")
            .remove("manifest_version");
        assert_eq!(schema_problems(&doc)[0].pointer, "/manifest_version");
        doc["dxt_version"] = json!("0.1");
        doc.as_object_mut().expect("object").remove("prompts");
        assert_eq!(schema_problems(&doc), Vec::<Claim>::new());
    }

    #[test]
    fn the_claims_name_each_tool_and_prompt_at_its_pointer() {
        let doc = manifest();
        let l = launch(&doc, Path::new("/b"), &linux()).expect("launch");
        let c = claims(&doc, "notes.mcpb", Vec::new(), &l);
        assert_eq!(c.version, Some(Claim::new("/version", "1.2.0")));
        assert_eq!(
            c.tools,
            Some(vec![
                Claim::new("/tools/0", "search"),
                Claim::new("/tools/1", "write")
            ])
        );
        assert_eq!(c.prompts, Some(vec![Claim::new("/prompts/0", "summarise")]));
        assert!(!c.tools_generated && !c.prompts_generated);
        assert_eq!(c.transport, None);
        let mut none = doc.clone();
        none.as_object_mut().expect("object").remove("tools");
        none["tools_generated"] = json!(true);
        let c = claims(&none, "notes.mcpb", Vec::new(), &l);
        assert_eq!(c.tools, None);
        assert!(c.tools_generated);
    }

    #[test]
    fn compatibility_names_each_runtimes_program_and_the_clients() {
        let mut doc = manifest();
        assert_eq!(
            claims(
                &doc,
                "m",
                Vec::new(),
                &launch(&doc, Path::new("/b"), &linux()).expect("launch")
            )
            .compatibility,
            None
        );
        doc["server"]["mcp_config"]["command"] = json!("${__dirname}/venv/bin/python3.12");
        doc["compatibility"] = json!({
            "claude_desktop": ">=0.10.0",
            "my_client": ">1.0.0",
            "platforms": ["darwin", "linux"],
            "runtimes": {"python": ">=3.8,<4.0", "node": ">=16"}
        });
        let l = launch(&doc, Path::new("/b"), &linux()).expect("launch");
        let c = claims(&doc, "m", Vec::new(), &l)
            .compatibility
            .expect("compatibility");
        assert_eq!(c.platforms, Some(vec!["darwin".into(), "linux".into()]));
        let programs: Vec<(&str, &str, &str)> = c
            .runtimes
            .iter()
            .map(|r| {
                (
                    r.name.as_str(),
                    r.range.pointer.as_str(),
                    r.program.as_str(),
                )
            })
            .collect();
        // In the manifest's order. The bundle's own python is the one asked; node is the
        // one on PATH.
        assert_eq!(
            programs,
            [
                (
                    "python",
                    "/compatibility/runtimes/python",
                    "/b/venv/bin/python3.12"
                ),
                ("node", "/compatibility/runtimes/node", "node"),
            ]
        );
        assert_eq!(
            c.clients,
            [
                Claim::new("/compatibility/claude_desktop", ">=0.10.0"),
                Claim::new("/compatibility/my_client", ">1.0.0")
            ]
        );
    }

    #[test]
    fn what_is_not_a_bundle_is_refused_in_one_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let not_zip = dir.path().join("x.mcpb");
        std::fs::write(&not_zip, "not a zip").expect("write");
        let e = open(&not_zip).expect_err("not a zip");
        assert!(e.contains("x.mcpb") && e.lines().count() == 1, "{e}");
        let e = open(dir.path()).expect_err("no manifest.json");
        assert!(e.contains("manifest.json") && e.lines().count() == 1, "{e}");
        std::fs::write(dir.path().join("manifest.json"), "{").expect("write");
        let e = open(dir.path()).expect_err("not JSON");
        assert!(e.contains("not JSON") && e.lines().count() == 1, "{e}");
        let e = open(&dir.path().join("absent.mcpb")).expect_err("absent");
        assert!(e.contains("absent.mcpb"), "{e}");
    }

    #[test]
    fn an_entry_that_climbs_out_of_the_bundle_is_not_written_outside_it() {
        use std::io::Write;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("evil.mcpb");
        let escape = format!("scout-escape-{}.txt", uuid::Uuid::new_v4());
        let mut w = zip::ZipWriter::new(std::fs::File::create(&path).expect("create"));
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        w.start_file("manifest.json", opts).expect("entry");
        w.write_all(manifest().to_string().as_bytes())
            .expect("write");
        w.start_file(format!("../{escape}"), opts).expect("entry");
        w.write_all(b"out").expect("write");
        w.finish().expect("finish");
        // Refused, or kept inside: never beside the unpacked folder.
        let opened = open(&path);
        assert!(!std::env::temp_dir().join(&escape).exists());
        if let Err(e) = opened {
            assert_eq!(e.lines().count(), 1, "{e}");
        }
    }

    #[test]
    fn a_bundle_is_unpacked_into_a_folder_removed_when_it_is_dropped() {
        use std::io::Write;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("b.mcpb");
        let mut w = zip::ZipWriter::new(std::fs::File::create(&path).expect("create"));
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        w.start_file("manifest.json", opts).expect("entry");
        w.write_all(manifest().to_string().as_bytes())
            .expect("write");
        w.start_file("server/index.js", opts).expect("entry");
        w.write_all(b"// server").expect("write");
        w.finish().expect("finish");
        let b = open(&path).expect("a bundle");
        assert_eq!(b.manifest["name"], "notes");
        assert!(b.root.join("server/index.js").is_file());
        let root = b.root.clone();
        drop(b);
        assert!(!root.exists(), "the unpacked folder outlived the bundle");
    }
}
