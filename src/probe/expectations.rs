//! Expectations: the server author's own assertions (`[[servers.expect]]`, see
//! docs/expectations.md), run after scout's execution probes on the same wire and session,
//! one after another in config order (a setup step may change what a later one reads).
//!
//! One registered check, `expect.expectation`, stands for them all: the registry is a
//! static list that the docs, the grounds and the coverage tests read, while expectations
//! are the user's, read at run time. Each expectation is its own finding all the same: the
//! builder gives it the expectation's id (`expect.<slug of name>`) and name as title, so
//! baselines, ignores, JUnit case names and SARIF results each see one stable id per
//! expectation. Leaking a `&'static Check` per expectation would have put run-time data in
//! the registry that nothing else can list.

use serde_json::{Map, Value, json};

use crate::client::Connection;
use crate::policy::{self, Decision, Hints};
use crate::probe::session::{Catalog, Session};
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::spec::{ExpectAllow, ExpectTarget, Expectation, PolicySpec};
use crate::transport::Reply;

crate::checks! { phase: Expectations;
    EXPECTATION = "expect.expectation", Major, "An expectation of the config holds", "",
        "Each [[servers.expect]] of the config is one finding with the id expect.<slug of its name>: its setup steps run first (capturing values for later arguments), then its call is made `trials` times, and every trial must give what the expectation says (is_error, contains, json, schema, max_ms). A tool that is not read-only is called only when the expectation says allow = \"mutations\" or \"destructive\" and the run has the matching flag; otherwise the expectation is skipped by policy. See docs/expectations.md.",
        "The server no longer does what the expectation says: fix the server, or update the expectation if the change was meant.";
}

/// Records every expectation of the server as skipped (the phase could not run).
pub fn skip_all(s: &mut Session, reason: SkipReason, why: &str) {
    for x in s.spec.expect.clone() {
        if !s.findings.iter().any(|f| f.id == x.id) {
            s.add(
                EXPECTATION
                    .skip(reason, why)
                    .named(&x.id, &x.name)
                    .subject(x.target.describe()),
            );
        }
    }
}

/// Runs the expectations on the first wire, in config order.
pub async fn run(s: &mut Session) {
    if s.spec.expect.is_empty() {
        return;
    }
    let Some(wire) = s.wires.first().cloned() else {
        skip_all(
            s,
            SkipReason::NotAssessed,
            "no connection to the server was established",
        );
        return;
    };
    let catalog = s
        .catalogs
        .iter()
        .find(|c| c.era == Some(wire.era()))
        .cloned()
        .unwrap_or_default();
    for x in s.spec.expect.clone() {
        let f = match crate::probe::liveness::death(s) {
            Some(d) => EXPECTATION.skip(
                SkipReason::NotAssessed,
                crate::probe::liveness::not_assessed(&d),
            ),
            None => expectation(&wire, &catalog, &s.spec.policy, &x).await,
        };
        s.add(
            f.named(&x.id, &x.name)
                .subject(x.target.describe())
                .era(wire.era()),
        );
    }
}

/// One expectation: policy, setup steps, then every trial.
async fn expectation(
    wire: &Connection,
    catalog: &Catalog,
    policy: &PolicySpec,
    x: &Expectation,
) -> FindingBuilder {
    let targets = x.setup.iter().map(|s| &s.target).chain([&x.target]);
    for t in targets {
        if let ExpectTarget::Call(name) = t
            && let Some(refused) = permitted(catalog, policy, x.allow, name)
        {
            return refused;
        }
    }
    let mut evidence = Vec::new();
    let mut vars = Map::new();
    for (n, step) in x.setup.iter().enumerate() {
        let reply = send(
            wire,
            catalog,
            &step.target,
            substitute(&step.arguments, &vars),
        )
        .await;
        evidence.extend(reply.evidence.iter().copied());
        let what = format!("setup step {} ({})", n + 1, step.target.describe());
        let Some(result) = reply.result() else {
            return EXPECTATION
                .fail(format!("{what} got {}", reply.describe()))
                .evidence(evidence);
        };
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            return EXPECTATION
                .fail(format!(
                    "{what} answered with an error result: {}",
                    excerpt(&texts(result).join(" "))
                ))
                .evidence(evidence);
        }
        for (var, path) in &step.capture {
            match select(path, result) {
                Some((_, v)) => {
                    vars.insert(var.clone(), v);
                }
                None => {
                    return EXPECTATION
                        .fail(format!(
                            "{what}: capture `{var}` = `{path}` selected nothing in the result {}",
                            excerpt(&result.to_string())
                        ))
                        .evidence(evidence);
                }
            }
        }
    }
    let arguments = substitute(&x.arguments, &vars);
    let mut failed: Vec<(u32, Vec<String>)> = Vec::new();
    for trial in 1..=x.trials {
        let reply = send(wire, catalog, &x.target, arguments.clone()).await;
        evidence.extend(reply.evidence.iter().copied());
        let problems = judge(x, &reply);
        if !problems.is_empty() {
            failed.push((trial, problems));
        }
    }
    verdict(x.trials, &failed).evidence(evidence)
}

/// The finding of the trials: a pass when all held, else a fail saying how many held
/// (pass^k) and what the first failing trial received.
fn verdict(trials: u32, failed: &[(u32, Vec<String>)]) -> FindingBuilder {
    let held = trials - failed.len() as u32;
    match (failed.first(), trials) {
        (None, 1) => EXPECTATION.pass("the expectation held"),
        (None, k) => EXPECTATION.pass(format!("pass^{k}: all {k} trials held")),
        (Some((_, problems)), 1) => EXPECTATION.fail(problems.join("; ")),
        (Some((trial, problems)), k) => EXPECTATION.fail(format!(
            "pass^{k} not met: {held} of {k} trials held; trial {trial}: {}",
            problems.join("; ")
        )),
    }
}

/// `None` when every call of the expectation may be made; else the policy skip, with what
/// would allow it. A tool that is not read-only needs both the expectation's `allow` and
/// the run's flag: the author's word alone does not let a run change a server, nor does a
/// flag given for scout's own probes let every expectation do so.
fn permitted(
    catalog: &Catalog,
    policy: &PolicySpec,
    allow: ExpectAllow,
    name: &str,
) -> Option<FindingBuilder> {
    let tool = catalog
        .tools
        .iter()
        .find(|t| policy::tool_name(t) == name)
        .cloned()
        // A tool the server does not list has no annotations: the spec's defaults make it
        // destructive, so it is called only as a destructive one would be.
        .unwrap_or_else(|| json!({ "name": name }));
    let hints = Hints::of(&tool);
    let needs = if hints.read_only {
        ExpectAllow::ReadOnly
    } else if hints.destructive {
        ExpectAllow::Destructive
    } else {
        ExpectAllow::Mutations
    };
    let allowed_by_expectation = match needs {
        ExpectAllow::ReadOnly => true,
        ExpectAllow::Mutations => allow != ExpectAllow::ReadOnly,
        ExpectAllow::Destructive => allow == ExpectAllow::Destructive,
    };
    if !allowed_by_expectation {
        let word = if needs == ExpectAllow::Destructive {
            "destructive"
        } else {
            "mutations"
        };
        return Some(EXPECTATION.skip(
            SkipReason::Policy,
            format!(
                "tool {name} is {}; the expectation needs allow = \"{word}\" (and the run --allow-{word})",
                hints.kind()
            ),
        ));
    }
    // The expectation allows what the tool is: the run's own policy (its flags, allow and
    // deny lists) decides as it does for scout's probes.
    match policy::decide(&tool, policy) {
        Decision::Call => None,
        d => Some(EXPECTATION.skip(SkipReason::Policy, format!("tool {name}: {}", d.explain()))),
    }
}

/// Sends the call, prompt or read of `target`.
async fn send(wire: &Connection, catalog: &Catalog, target: &ExpectTarget, args: Value) -> Reply {
    match target {
        ExpectTarget::Call(name) => {
            let schema = catalog
                .tools
                .iter()
                .find(|t| policy::tool_name(t) == name)
                .and_then(|t| t.get("inputSchema"))
                .cloned()
                .unwrap_or(Value::Null);
            wire.send_completing(wire.tool_call(json!({"name": name, "arguments": args}), &schema))
                .await
        }
        ExpectTarget::Prompt(name) => {
            wire.request_completing("prompts/get", json!({"name": name, "arguments": args}))
                .await
        }
        ExpectTarget::Resource(uri) => {
            wire.request_completing("resources/read", json!({"uri": uri}))
                .await
        }
    }
}

/// What one trial got wrong, each as "expected … received …" (empty: it held).
pub fn judge(x: &Expectation, reply: &Reply) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(result) = reply.result() else {
        // A JSON-RPC error is the error an `is_error = true` expectation asks for.
        if x.is_error && reply.error_code().is_some() {
            return problems;
        }
        problems.push(format!("expected a result, received {}", reply.describe()));
        return problems;
    };
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    if is_error != x.is_error {
        problems.push(format!(
            "expected isError {}, received isError {is_error}{}",
            x.is_error,
            if is_error {
                format!(": {}", excerpt(&texts(result).join(" ")))
            } else {
                String::new()
            }
        ));
    }
    let text = texts(result).join("\n");
    for want in &x.contains {
        if !text.contains(want.as_str()) {
            problems.push(format!(
                "missing text \"{want}\" in the content blocks, which read {}",
                if text.is_empty() {
                    "nothing (no text block)".to_string()
                } else {
                    format!("\"{}\"", excerpt(&text))
                }
            ));
        }
    }
    for (path, want) in &x.json {
        match select(path, result) {
            None => problems.push(format!(
                "{path}: expected {want}, received nothing (the path selects no value)"
            )),
            Some((pointer, got)) if got != *want => {
                problems.push(format!("{pointer}: expected {want}, received {got}"))
            }
            Some(_) => {}
        }
    }
    if let Some((file, schema)) = &x.schema {
        let instance = result.get("structuredContent").unwrap_or(result);
        if let Err(e) = policy::schema::validate(schema, instance) {
            problems.push(format!("does not validate against {file}: {e}"));
        }
    }
    if let Some(max) = x.max_ms {
        let ms = reply.elapsed.as_millis();
        if ms > u128::from(max) {
            problems.push(format!(
                "expected an answer within {max} ms, received one after {ms} ms"
            ));
        }
    }
    problems
}

/// The value `path` selects in `doc`, with its JSON pointer: one node as itself, several as
/// an array of them (pointing at the first), none as `None`.
fn select(path: &str, doc: &Value) -> Option<(String, Value)> {
    let path = crate::spec::parse_path(path).ok()?;
    let nodes = path.query_located(doc).all();
    match nodes.as_slice() {
        [] => None,
        [one] => Some((one.location().to_json_pointer(), one.node().clone())),
        [first, ..] => Some((
            first.location().to_json_pointer(),
            Value::Array(nodes.iter().map(|n| n.node().clone()).collect()),
        )),
    }
}

/// The text of a result's content: a tool's text blocks, a prompt's text messages, a
/// resource's text contents.
fn texts(result: &Value) -> Vec<String> {
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .cloned()
        .chain(
            result
                .get("messages")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|m| m.get("content").cloned()),
        )
        .chain(
            result
                .get("contents")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .cloned(),
        );
    blocks
        .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_string))
        .collect()
}

/// At most 200 characters of `s`, for a detail.
fn excerpt(s: &str) -> String {
    const MAX: usize = 200;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(MAX).collect::<String>())
    }
}

/// `v` with every `{{name}}` replaced by its captured value: a string that is only the
/// placeholder takes the value itself (a number stays a number), one inside longer text
/// takes its text.
fn substitute(v: &Value, vars: &Map<String, Value>) -> Value {
    match v {
        Value::String(s) => {
            let names = crate::spec::placeholders(s);
            if names.len() == 1
                && s.trim().starts_with("{{")
                && s.trim().ends_with("}}")
                && let Some(val) = vars.get(names[0])
            {
                return val.clone();
            }
            let mut out = s.clone();
            for name in names {
                if let Some(val) = vars.get(name) {
                    let text = match val {
                        Value::String(t) => t.clone(),
                        other => other.to_string(),
                    };
                    out = out.replace(&format!("{{{{{name}}}}}"), &text);
                }
            }
            Value::String(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| substitute(x, vars)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), substitute(x, vars)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placeholder_alone_keeps_its_type_and_inside_text_becomes_text() {
        let mut vars = Map::new();
        vars.insert("id".into(), json!(7));
        let got = substitute(
            &json!({"a": "{{id}}", "b": "item-{{id}}", "c": ["{{id}}"]}),
            &vars,
        );
        assert_eq!(got, json!({"a": 7, "b": "item-7", "c": [7]}));
    }

    #[test]
    fn a_path_gives_the_pointer_of_what_it_selected() {
        let doc = json!({"structuredContent": {"count": 2, "items": [{"n": 1}, {"n": 2}]}});
        assert_eq!(
            select("$.structuredContent.count", &doc),
            Some(("/structuredContent/count".into(), json!(2)))
        );
        assert_eq!(
            select("$.structuredContent.items[*].n", &doc).map(|x| x.1),
            Some(json!([1, 2]))
        );
        assert_eq!(select("$.nothing", &doc), None);
    }

    #[test]
    fn pass_k_says_how_many_trials_held() {
        let f = verdict(
            5,
            &[(
                3,
                vec!["expected isError false, received isError true".into()],
            )],
        );
        assert_eq!(f.status(), crate::report::finding::Status::Fail);
        let all = verdict(5, &[]);
        assert_eq!(all.status(), crate::report::finding::Status::Pass);
    }
}
