//! `[[servers.expect]]` as written, turned into [`Expectation`]s: the one step from text to
//! types for the author's own assertions (docs/expectations.md). Every mistake is one line
//! that names the expectation and the key, never a panic mid-run.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::config::layer::{ExpectEntry, SetupEntry};
use crate::spec::{ExpectAllow, ExpectTarget, Expectation, SetupStep, parse_path, placeholders};

/// The finding id of an expectation: `expect.` and its name in lower snake case (every run of
/// characters other than ASCII letters and digits becomes one `_`).
pub fn id_of(name: &str) -> String {
    let mut slug = String::new();
    for c in name.trim().chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('_') {
            slug.push('_');
        }
    }
    format!("expect.{}", slug.trim_matches('_'))
}

/// Validates a server's expectations; `base` is the folder `schema` paths are relative to
/// (the config file's).
pub fn validate(entries: &[ExpectEntry], base: &Path) -> Result<Vec<Expectation>, String> {
    let mut ids = BTreeSet::new();
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if e.name.trim().is_empty() {
            return Err(format!(
                "expectation {} has an empty `name`; every [[servers.expect]] needs one",
                i + 1
            ));
        }
        let x = one(e, base).map_err(|what| format!("expectation `{}`: {what}", e.name))?;
        if x.id == "expect." {
            return Err(format!(
                "expectation `{}`: `name` needs a letter or a digit (the finding id is made from it)",
                e.name
            ));
        }
        if !ids.insert(x.id.clone()) {
            return Err(format!(
                "expectation `{}`: another expectation of this server has the id `{}`; give them names that differ in letters or digits",
                e.name, x.id
            ));
        }
        out.push(x);
    }
    Ok(out)
}

fn one(e: &ExpectEntry, base: &Path) -> Result<Expectation, String> {
    let target = target(&e.call, &e.prompt, &e.resource)?;
    let arguments = arguments(&e.arguments, &target)?;
    let mut json = Vec::new();
    for (path, want) in e.json.iter().flatten() {
        parse_path(path).map_err(|x| format!("`json` key `{path}` is not a JSON path ({x})"))?;
        json.push((path.clone(), want.clone()));
    }
    let schema = match &e.schema {
        None => None,
        Some(p) => Some(read_schema(p, base)?),
    };
    let trials = e.trials.unwrap_or(1);
    if trials == 0 {
        return Err("`trials` must be at least 1".into());
    }
    let allow = match e.allow.as_deref() {
        None => ExpectAllow::ReadOnly,
        Some("mutations") => ExpectAllow::Mutations,
        Some("destructive") => ExpectAllow::Destructive,
        Some(other) => {
            return Err(format!(
                "`allow` must be \"mutations\" or \"destructive\", not \"{other}\""
            ));
        }
    };
    let mut setup = Vec::new();
    let mut captured = BTreeSet::new();
    for (n, step) in e.setup.iter().flatten().enumerate() {
        let s = setup_step(step, &captured).map_err(|x| format!("setup step {}: {x}", n + 1))?;
        captured.extend(s.capture.iter().map(|(k, _)| k.clone()));
        setup.push(s);
    }
    uses_only(&arguments, &captured).map_err(|x| format!("`arguments`: {x}"))?;
    Ok(Expectation {
        name: e.name.trim().to_string(),
        id: id_of(&e.name),
        target,
        arguments,
        is_error: e.is_error.unwrap_or(false),
        contains: e.contains.clone().unwrap_or_default(),
        json,
        schema,
        max_ms: e.max_ms,
        trials,
        allow,
        setup,
    })
}

fn setup_step(step: &SetupEntry, captured: &BTreeSet<String>) -> Result<SetupStep, String> {
    let target = target(&step.call, &step.prompt, &step.resource)?;
    let arguments = arguments(&step.arguments, &target)?;
    uses_only(&arguments, captured).map_err(|x| format!("`arguments`: {x}"))?;
    let mut capture = Vec::new();
    for (var, path) in step.capture.iter().flatten() {
        if var.is_empty() || !var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "`capture` name `{var}` must be letters, digits and `_` (it is used as {{{{{var}}}}})"
            ));
        }
        parse_path(path)
            .map_err(|x| format!("`capture` `{var}` = `{path}` is not a JSON path ({x})"))?;
        capture.push((var.clone(), path.clone()));
    }
    Ok(SetupStep {
        target,
        arguments,
        capture,
    })
}

fn target(
    call: &Option<String>,
    prompt: &Option<String>,
    resource: &Option<String>,
) -> Result<ExpectTarget, String> {
    match (call, prompt, resource) {
        (Some(t), None, None) => Ok(ExpectTarget::Call(t.clone())),
        (None, Some(p), None) => Ok(ExpectTarget::Prompt(p.clone())),
        (None, None, Some(u)) => Ok(ExpectTarget::Resource(u.clone())),
        _ => Err("give exactly one of `call` (a tool), `prompt` or `resource` (a URI)".into()),
    }
}

fn arguments(given: &Option<Value>, target: &ExpectTarget) -> Result<Value, String> {
    match (given, target) {
        (None, _) => Ok(Value::Object(Default::default())),
        (Some(_), ExpectTarget::Resource(_)) => {
            Err("`arguments` apply to `call` and `prompt`, not to a `resource`".into())
        }
        (Some(v @ Value::Object(_)), _) => Ok(v.clone()),
        (Some(_), _) => Err("`arguments` must be a table (`arguments = { q = \"seed\" }`)".into()),
    }
}

/// Every `{{name}}` in the strings of `v` names a value an earlier setup step captures.
fn uses_only(v: &Value, captured: &BTreeSet<String>) -> Result<(), String> {
    match v {
        Value::String(s) => {
            for var in placeholders(s) {
                if !captured.contains(var) {
                    return Err(format!(
                        "`{{{{{var}}}}}` is not captured by an earlier setup step"
                    ));
                }
            }
            Ok(())
        }
        Value::Array(a) => a.iter().try_for_each(|x| uses_only(x, captured)),
        Value::Object(m) => m.values().try_for_each(|x| uses_only(x, captured)),
        _ => Ok(()),
    }
}

fn read_schema(path: &Path, base: &Path) -> Result<(String, Value), String> {
    let shown = path.display().to_string();
    let full = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let text = std::fs::read_to_string(&full)
        .map_err(|e| format!("`schema` file `{shown}` cannot be read ({e})"))?;
    let schema: Value = serde_json::from_str(&text)
        .map_err(|e| format!("`schema` file `{shown}` is not JSON ({e})"))?;
    crate::policy::schema::check(&schema)
        .map_err(|e| format!("`schema` file `{shown}` is not a usable JSON Schema ({e})"))?;
    Ok((shown, schema))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(toml_text: &str) -> ExpectEntry {
        toml::from_str(toml_text).expect("an entry")
    }

    #[test]
    fn ids_are_lower_snake_case_of_the_name() {
        assert_eq!(
            id_of("Search finds the seeded note!"),
            "expect.search_finds_the_seeded_note"
        );
        assert_eq!(id_of("  a--b  "), "expect.a_b");
    }

    #[test]
    fn a_malformed_expectation_names_its_key() {
        let cases = [
            ("name = \"x\"", "give exactly one of `call`"),
            ("name = \"x\"\ncall = \"a\"\nprompt = \"b\"", "exactly one"),
            ("name = \"x\"\ncall = \"a\"\ntrials = 0", "`trials`"),
            ("name = \"x\"\ncall = \"a\"\nallow = \"all\"", "`allow`"),
            ("name = \"x\"\ncall = \"a\"\narguments = 3", "`arguments`"),
            (
                "name = \"x\"\ncall = \"a\"\njson = { \"$.a[\" = 1 }",
                "`json` key",
            ),
            (
                "name = \"x\"\ncall = \"a\"\nschema = \"nowhere.json\"",
                "`schema` file `nowhere.json`",
            ),
            (
                "name = \"x\"\ncall = \"a\"\narguments = { id = \"{{id}}\" }",
                "`{{id}}` is not captured",
            ),
        ];
        for (text, wanted) in cases {
            let err = validate(&[entry(text)], Path::new(".")).expect_err(text);
            assert!(err.contains(wanted), "{text}: {err}");
            assert!(err.starts_with("expectation `x`"), "{err}");
            assert!(!err.contains('\n'), "one line: {err}");
        }
    }

    #[test]
    fn a_capture_feeds_later_arguments_and_two_names_may_not_share_an_id() {
        let e = entry(
            "name = \"read back\"\ncall = \"get\"\narguments = { id = \"{{id}}\" }\n\
             [[setup]]\ncall = \"create\"\ncapture = { id = \"$.structuredContent.id\" }",
        );
        let x = validate(std::slice::from_ref(&e), Path::new(".")).expect("valid");
        assert_eq!(x[0].setup[0].capture[0].0, "id");
        let mut twin = e.clone();
        twin.name = "Read back!".into();
        let err = validate(&[e, twin], Path::new(".")).expect_err("same id");
        assert!(err.contains("expect.read_back"), "{err}");
    }
}
