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

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::client::Connection;
use crate::policy::{self, Decision, Hints};
use crate::probe::session::{Catalog, Session};
use crate::report::exchange::{Seq, jsonrpc_messages};
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::spec::{ExpectAllow, ExpectTarget, Expectation, PolicySpec};
use crate::transport::Reply;

crate::checks! { phase: Expectations;
    EXPECTATION = "expect.expectation", Major, "An expectation of the config holds", "",
        "Each [[servers.expect]] of the config is one finding with the id expect.<slug of its name>: a tool, prompt or resource it names that the server does not list fails it, citing the lists; its setup steps run first (capturing values for later arguments), then its call is made `trials` times, and every trial must give what the expectation says (is_error, contains, json, schema, max_ms; on an expected error each applies to the error that came). A tool that is not read-only is called only when the expectation says allow = \"mutations\" or \"destructive\" and the run has the matching flag; otherwise the expectation is skipped by policy. See docs/expectations.md.",
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
    let Some(catalog) = s
        .catalogs
        .iter()
        .find(|c| c.era == Some(wire.era()))
        .cloned()
    else {
        // Whether the server still offers what an expectation names is read off its lists;
        // without them a call could be neither judged nor safely made.
        skip_all(
            s,
            SkipReason::NotAssessed,
            "the server's tools, prompts and resources were not listed, so what the expectations name could not be looked up",
        );
        return;
    };
    let lists = ListExchanges::of(s, &catalog);
    for x in s.spec.expect.clone() {
        let f = match crate::probe::liveness::death(s) {
            Some(d) => EXPECTATION.skip(
                SkipReason::NotAssessed,
                crate::probe::liveness::not_assessed(&d),
            ),
            None => expectation(&wire, &catalog, &lists, &s.spec.policy, &x).await,
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
    lists: &ListExchanges,
    policy: &PolicySpec,
    x: &Expectation,
) -> FindingBuilder {
    let steps = x
        .setup
        .iter()
        .enumerate()
        .map(|(n, s)| (Some(n + 1), &s.target));
    for (step, t) in steps.clone().chain([(None, &x.target)]) {
        if let Some(missing) = unlisted(catalog, lists, t) {
            if let Some(method) = unread_list(catalog, t) {
                // A list that did not answer whole says nothing of what the server offers.
                return EXPECTATION.skip(
                    SkipReason::NotAssessed,
                    format!(
                        "{method} could not be read whole this run, so whether the server still offers {} is not known",
                        t.describe()
                    ),
                );
            }
            return match step {
                Some(n) => missing.prefixed(&format!("setup step {n}: ")),
                None => missing,
            }
            .finding();
        }
    }
    for (_, t) in steps.chain([(None, &x.target)]) {
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

/// The exchanges of the catalogue's lists, by method (`tools/list`, …): the requests and
/// the answers to them, for a finding about what the server does not list to cite.
struct ListExchanges {
    by_method: BTreeMap<String, Vec<Seq>>,
    all: Vec<Seq>,
}

impl ListExchanges {
    fn of(s: &Session, catalog: &Catalog) -> Self {
        let mut by_method: BTreeMap<String, Vec<Seq>> = BTreeMap::new();
        let mut asked: Vec<(Value, String)> = Vec::new();
        let exchanges = s.recorder.shared();
        for e in exchanges
            .iter()
            .filter(|e| catalog.evidence.contains(&e.seq))
        {
            for m in jsonrpc_messages(e) {
                let method = match m.get("method").and_then(Value::as_str) {
                    Some(method) => {
                        if let Some(id) = m.get("id") {
                            asked.push((id.clone(), method.to_string()));
                        }
                        Some(method.to_string())
                    }
                    // An answer (a stdio line of its own) belongs to the list it answers.
                    None => m
                        .get("id")
                        .and_then(|id| asked.iter().find(|(a, _)| a == id).map(|(_, m)| m.clone())),
                };
                if let Some(method) = method {
                    let seqs = by_method.entry(method).or_default();
                    if !seqs.contains(&e.seq) {
                        seqs.push(e.seq);
                    }
                }
            }
        }
        ListExchanges {
            by_method,
            all: catalog.evidence.clone(),
        }
    }

    /// The exchanges of `methods`; every list's when none of them was sent (a list the
    /// server declared no capability for), so the finding still cites what it saw.
    fn cited(&self, methods: &[&str]) -> Vec<Seq> {
        let seqs: Vec<Seq> = methods
            .iter()
            .filter_map(|m| self.by_method.get(*m))
            .flatten()
            .copied()
            .collect();
        if seqs.is_empty() {
            self.all.clone()
        } else {
            seqs
        }
    }
}

/// An expectation naming what the server does not list.
struct Missing {
    detail: String,
    evidence: Vec<Seq>,
}

impl Missing {
    fn prefixed(mut self, prefix: &str) -> Self {
        self.detail.insert_str(0, prefix);
        self
    }

    fn finding(self) -> FindingBuilder {
        let f = EXPECTATION.fail(self.detail);
        if self.evidence.is_empty() {
            // Nothing was listed at all: the server declared none of the lists.
            f.without_exchange()
        } else {
            f.evidence(self.evidence)
        }
    }
}

/// `Some` when `target` names a tool, prompt or resource the server does not list: the
/// expectation is about something the server no longer offers, which is a fail (what the
/// author gates on is gone), never a call of an unknown name or a skip.
fn unlisted(catalog: &Catalog, lists: &ListExchanges, target: &ExpectTarget) -> Option<Missing> {
    let named = |entries: &[Value], key: &str, wanted: &str| {
        entries
            .iter()
            .any(|e| e.get(key).and_then(Value::as_str) == Some(wanted))
    };
    match target {
        ExpectTarget::Call(name) => (!named(&catalog.tools, "name", name)).then(|| Missing {
            detail: format!(
                "{name} is not in tools/list ({})",
                listed_count(catalog.tools.len(), "tool")
            ),
            evidence: lists.cited(&["tools/list"]),
        }),
        ExpectTarget::Prompt(name) => (!named(&catalog.prompts, "name", name)).then(|| Missing {
            detail: format!(
                "{name} is not in prompts/list ({})",
                listed_count(catalog.prompts.len(), "prompt")
            ),
            evidence: lists.cited(&["prompts/list"]),
        }),
        ExpectTarget::Resource(uri) => {
            let templated = catalog.resource_templates.iter().any(|t| {
                t.get("uriTemplate")
                    .and_then(Value::as_str)
                    .is_some_and(|tpl| template_matches(tpl, uri))
            });
            (!named(&catalog.resources, "uri", uri) && !templated).then(|| Missing {
                detail: format!(
                    "{uri} is not in resources/list ({}) and matches none of resources/templates/list ({})",
                    listed_count(catalog.resources.len(), "resource"),
                    listed_count(catalog.resource_templates.len(), "template")
                ),
                evidence: lists.cited(&["resources/list", "resources/templates/list"]),
            })
        }
    }
}

/// The list `target` is looked up in that could not be read whole this run, if any.
fn unread_list(catalog: &Catalog, target: &ExpectTarget) -> Option<&'static str> {
    let methods: &[&'static str] = match target {
        ExpectTarget::Call(_) => &["tools/list"],
        ExpectTarget::Prompt(_) => &["prompts/list"],
        ExpectTarget::Resource(_) => &["resources/list", "resources/templates/list"],
    };
    methods.iter().copied().find(|m| !catalog.read_whole(m))
}

/// "12 tools listed", "1 tool listed".
fn listed_count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{} listed", if n == 1 { "" } else { "s" })
}

/// Whether `uri` is an instance of the RFC 6570 `template`: its literal text in order, any
/// text where an expression stands. Lenient on purpose: it only tells a URI a template
/// describes from one no list offers, and must not fail an author's URI that a stricter
/// expansion rule would have spelled differently.
fn template_matches(template: &str, uri: &str) -> bool {
    let mut pattern = String::from("^");
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        pattern.push_str(&regex::escape(&rest[..open]));
        pattern.push_str(".*");
        rest = &rest[open + close + 1..];
    }
    pattern.push_str(&regex::escape(rest));
    pattern.push('$');
    regex::Regex::new(&pattern).is_ok_and(|re| re.is_match(uri))
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
    // A tool the server does not list failed the expectation before this (`unlisted`): the
    // policy judges only annotations the server declared, never the defaults of a tool that
    // is not there.
    let tool = catalog
        .tools
        .iter()
        .find(|t| policy::tool_name(t) == name)?;
    let hints = Hints::of(tool);
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
    match policy::decide(tool, policy) {
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

/// What one trial got wrong, each as "expected … received …" (empty: it held). Every
/// assertion applies to what came back, an error included: a result's content, or a
/// JSON-RPC error's message and data (see [`Answer`]).
pub fn judge(x: &Expectation, reply: &Reply) -> Vec<String> {
    let mut problems = Vec::new();
    match Answer::of(reply) {
        None => problems.push(format!("expected a result, received {}", reply.describe())),
        Some(answer) => {
            if answer.is_error != x.is_error {
                problems.push(answer.error_mismatch(x.is_error, reply));
            }
            // An expectation of a result that got a JSON-RPC error has nothing its other
            // assertions were written for; one of an error, or of a result, has.
            if x.is_error || answer.rpc_error.is_none() {
                problems.extend(assertions(x, &answer));
            }
        }
    }
    if let Some(max) = x.max_ms {
        // A reply that never came has no time to hold to the budget; it failed above.
        let ms = reply.elapsed.as_millis();
        if reply.response.is_some() && ms > u128::from(max) {
            problems.push(format!(
                "expected an answer within {max} ms, received one after {ms} ms"
            ));
        }
    }
    problems
}

/// What came back, as the assertions read it: a result (its content blocks, messages or
/// contents; `structuredContent` or the whole result for a schema), or a JSON-RPC error
/// (its message and data as text; the error object `{code, message, data}` for `json` paths
/// and the schema).
struct Answer<'a> {
    is_error: bool,
    /// The error object, when the answer is a JSON-RPC error.
    rpc_error: Option<&'a Value>,
    /// What `json` paths are evaluated in.
    doc: &'a Value,
    /// What the `schema` validates.
    instance: &'a Value,
    texts: Vec<String>,
}

impl<'a> Answer<'a> {
    fn of(reply: &'a Reply) -> Option<Self> {
        if let Some(result) = reply.result() {
            return Some(Answer {
                is_error: result.get("isError").and_then(Value::as_bool) == Some(true),
                rpc_error: None,
                doc: result,
                instance: result.get("structuredContent").unwrap_or(result),
                texts: texts(result),
            });
        }
        let error = reply.response.as_ref()?.get("error")?;
        let mut texts: Vec<String> = error
            .get("message")
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
            .map(str::to_string)
            .into_iter()
            .collect();
        match error.get("data") {
            None | Some(Value::Null) => {}
            Some(Value::String(d)) => texts.push(d.clone()),
            Some(other) => texts.push(other.to_string()),
        }
        Some(Answer {
            is_error: true,
            rpc_error: Some(error),
            doc: error,
            instance: error,
            texts,
        })
    }

    /// Where the text was read, for a detail.
    fn text_source(&self) -> &'static str {
        if self.rpc_error.is_some() {
            "the JSON-RPC error's message and data"
        } else {
            "the content blocks"
        }
    }

    fn error_mismatch(&self, wanted: bool, reply: &Reply) -> String {
        match (self.rpc_error, wanted) {
            (Some(_), _) => format!("expected a result, received {}", reply.describe()),
            (None, true) => "expected isError true, received isError false".to_string(),
            (None, false) => format!(
                "expected isError false, received isError true: {}",
                excerpt(&self.texts.join(" "))
            ),
        }
    }
}

/// The `contains`, `json` and `schema` assertions against one answer.
fn assertions(x: &Expectation, answer: &Answer) -> Vec<String> {
    let mut problems = Vec::new();
    let text = answer.texts.join("\n");
    for want in &x.contains {
        if !text.contains(want.as_str()) {
            let read = match (text.is_empty(), answer.rpc_error.is_some()) {
                (false, _) => format!("\"{}\"", excerpt(&text)),
                (true, true) => "nothing (the error has no message and no data)".to_string(),
                (true, false) if answer.is_error => {
                    "nothing (the error result has no text content)".to_string()
                }
                (true, false) => "nothing (no text block)".to_string(),
            };
            problems.push(format!(
                "missing text \"{want}\" in {}, which read {read}",
                answer.text_source()
            ));
        }
    }
    for (path, want) in &x.json {
        match select(path, answer.doc) {
            // A query that is not singular yields a node list, and one that selects
            // nothing yields the empty list: `$.tags[*] = []` holds for a result with none.
            None if !singular(path) && *want == Value::Array(Vec::new()) => {}
            None => problems.push(format!(
                "{path}: expected {want}, received nothing (the path selects no value)"
            )),
            Some((pointer, got)) if got != *want => {
                problems.push(format!("{pointer}: expected {want}, received {got}"))
            }
            Some(_) => {}
        }
    }
    if let Some((file, schema)) = &x.schema
        && let Err(e) = policy::schema::validate(schema, answer.instance)
    {
        problems.push(format!("does not validate against {file}: {e}"));
    }
    problems
}

/// What `path` selects in `doc`, with where, for a detail. A singular query (RFC 9535: names
/// and indexes only) yields the one value it selects, at its JSON pointer; any other (a
/// wildcard, slice, filter or descendant segment, several selectors) yields the list of the
/// nodes it selects, as an array however many there are, so `$.tags[*] = ["noun"]` holds for
/// one tag as for several; it is shown under the path as written. `None`: nothing was
/// selected.
fn select(path: &str, doc: &Value) -> Option<(String, Value)> {
    let parsed = crate::spec::parse_path(path).ok()?;
    let nodes = parsed.query_located(doc).all();
    let first = nodes.first()?;
    if singular(path) {
        return Some((first.location().to_json_pointer(), first.node().clone()));
    }
    Some((
        path.to_string(),
        Value::Array(nodes.iter().map(|n| n.node().clone()).collect()),
    ))
}

/// Whether `path` is a singular query. RFC 9535 lets only a singular query stand as an
/// operand of a comparison in a filter, and the JSONPath parser enforces it; the parser
/// does not expose the property itself, so the path is tried in that place.
fn singular(path: &str) -> bool {
    path.trim_start().starts_with('$')
        && crate::spec::parse_path(&format!("$[?{} == null]", path.trim())).is_ok()
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
            select("$.structuredContent.items[*].n", &doc),
            Some(("$.structuredContent.items[*].n".into(), json!([1, 2])))
        );
        assert_eq!(select("$.nothing", &doc), None);
    }

    #[test]
    fn only_a_singular_query_yields_a_scalar() {
        for path in ["$.a", "$.a.b", "$['a'][0]", "$.a[-1]", "$"] {
            assert!(singular(path), "{path}");
        }
        for path in [
            "$.a[*]",
            "$.a.*",
            "$.a[0:1]",
            "$.a[?@ == 1]",
            "$..a",
            "$.a[0,1]",
        ] {
            assert!(!singular(path), "{path}");
        }
        let one = json!({"structuredContent": {"tags": ["noun"]}});
        assert_eq!(
            select("$.structuredContent.tags[*]", &one).map(|x| x.1),
            Some(json!(["noun"]))
        );
        assert_eq!(
            select("$.structuredContent.tags[0]", &one).map(|x| x.1),
            Some(json!("noun"))
        );
        assert_eq!(
            select("$..tags", &one).map(|x| x.1),
            Some(json!([["noun"]]))
        );
    }

    fn expecting(is_error: bool) -> Expectation {
        Expectation {
            name: "x".into(),
            id: "expect.x".into(),
            target: ExpectTarget::Call("charge".into()),
            arguments: json!({}),
            is_error,
            contains: Vec::new(),
            json: Vec::new(),
            schema: None,
            max_ms: None,
            trials: 1,
            allow: ExpectAllow::ReadOnly,
            setup: Vec::new(),
        }
    }

    fn answered(response: Value, ms: u64) -> Reply {
        Reply {
            outcome: crate::transport::Outcome::Answered,
            response: Some(response),
            elapsed: std::time::Duration::from_millis(ms),
            ..Reply::default()
        }
    }

    #[test]
    fn a_query_that_is_not_singular_and_selects_nothing_is_the_empty_list() {
        let none = answered(
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "structuredContent": {"tags": []}}}),
            1,
        );
        let some = answered(
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "structuredContent": {"tags": ["noun"]}}}),
            1,
        );
        let mut x = expecting(false);
        x.json = vec![("$.structuredContent.tags[*]".into(), json!([]))];
        assert!(judge(&x, &none).is_empty(), "{:?}", judge(&x, &none));
        assert_eq!(judge(&x, &some).len(), 1, "one tag is not none");
        // A singular query that selects nothing is a missing value, whatever was wanted.
        x.json = vec![("$.structuredContent.tags[0]".into(), json!([]))];
        assert_eq!(judge(&x, &none).len(), 1);
    }

    #[test]
    fn an_error_expectation_applies_every_assertion_to_the_error() {
        let crashed = answered(
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "database crashed", "data": {"table": "users"}}}),
            1500,
        );
        let mut x = expecting(true);
        assert!(
            judge(&x, &crashed).is_empty(),
            "any error, nothing more asked"
        );
        x.contains = vec!["quota exceeded".into()];
        let problems = judge(&x, &crashed);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("missing text \"quota exceeded\" in the JSON-RPC error's message and data, which read \"database crashed")
                && problems[0].contains("users"),
            "{problems:?}"
        );
        x.contains = vec!["database crashed".into(), "users".into()];
        x.json = vec![
            ("$.code".into(), json!(-32603)),
            ("$.data.table".into(), json!("users")),
        ];
        assert!(judge(&x, &crashed).is_empty());
        x.json = vec![("$.code".into(), json!(-32000))];
        assert_eq!(
            judge(&x, &crashed),
            vec!["/code: expected -32000, received -32603".to_string()]
        );
        x.json.clear();
        x.max_ms = Some(1000);
        let slow = judge(&x, &crashed);
        assert!(
            slow.len() == 1 && slow[0].contains("within 1000 ms, received one after 1500 ms"),
            "{slow:?}"
        );
    }

    #[test]
    fn contains_on_an_error_without_text_says_so() {
        let mut x = expecting(true);
        x.contains = vec!["quota".into()];
        let bare = answered(
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": true}}),
            1,
        );
        let p = judge(&x, &bare);
        assert!(
            p.len() == 1 && p[0].contains("nothing (the error result has no text content)"),
            "{p:?}"
        );
        let silent = answered(
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": ""}}),
            1,
        );
        let p = judge(&x, &silent);
        assert!(
            p.len() == 1 && p[0].contains("nothing (the error has no message and no data)"),
            "{p:?}"
        );
        // An expectation of a result that gets an error is told so once, not once per key.
        let mut ok = expecting(false);
        ok.contains = vec!["quota".into()];
        let p = judge(&ok, &silent);
        assert!(
            p.len() == 1 && p[0].starts_with("expected a result, received JSON-RPC error -32603"),
            "{p:?}"
        );
    }

    #[test]
    fn a_uri_a_template_describes_matches_it() {
        assert!(template_matches("notes://{id}", "notes://42"));
        assert!(template_matches("file:///{+path}", "file:///a/b.txt"));
        assert!(template_matches(
            "x://items{?page,size}",
            "x://items?page=2"
        ));
        assert!(!template_matches("notes://{id}", "files://42"));
        assert!(!template_matches("notes://list", "notes://list/2"));
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
