//! Judges for the 2026-07-28 rules: routing headers, the Base64 sentinel, `Mcp-Param-*`
//! headers, the required `_meta` keys, and (over every recorded message) `resultType`,
//! cache hints, the error-code policy and the shape of `input_required` results.

use std::collections::BTreeMap;

use serde_json::Value;

use super::wire_schema::Message;
use crate::probe::protocol::{
    CACHE_HINTS, ERROR_CODES, HEADER_ENCODING, INPUT_REQUIRED_SHAPE, META_REQUIRED, PARAM_HEADERS,
    RESULT_TYPE, ROUTING_HEADERS, Wire, cite, code_of, describe, has_result,
};
use crate::report::exchange::Seq;
use crate::report::finding::FindingBuilder;
use crate::transport::Reply;

/// What a header probe expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// The server must reject it with 400 + -32020.
    Reject,
    /// The server must accept it (no -32020).
    Accept,
}

/// Grades one header case; `None` when it went as expected, else `(is_fail, sentence)`.
fn header_case(label: &str, expect: Expect, r: &Reply) -> Option<(bool, String)> {
    let status = r.status();
    let code = code_of(r);
    match expect {
        Expect::Reject => match (status, code) {
            (Some(400), Some(-32020)) => None,
            (Some(400), _) => Some((
                false,
                format!("{label}: 400 but not -32020 ({})", describe(r)),
            )),
            _ if has_result(r) => Some((true, format!("{label}: accepted ({})", describe(r)))),
            _ => Some((
                true,
                format!("{label}: {} (expected 400 + -32020)", describe(r)),
            )),
        },
        Expect::Accept => {
            if code == Some(-32020) || status == Some(400) && !has_result(r) && code.is_none() {
                Some((true, format!("{label}: rejected ({})", describe(r))))
            } else if accepted(r) {
                None
            } else {
                // A timeout, a reset, a 5xx or a body that is no JSON-RPC answer shows nothing
                // about the headers: no answer is never a pass.
                Some((
                    true,
                    format!(
                        "{label}: no JSON-RPC answer showed the headers were accepted ({})",
                        describe(r)
                    ),
                ))
            }
        }
    }
}

/// The server got past header validation: it answered with a JSON-RPC result, or with a
/// JSON-RPC error about the body (not -32020) and a status below 500. The status of errors
/// other than the header ones is unspecified, so a 400 with -32602 (unknown tool) counts.
fn accepted(r: &Reply) -> bool {
    let below_500 = r.status().is_none_or(|s| s < 500);
    has_result(r) || (below_500 && code_of(r).is_some_and(|c| c != -32020))
}

/// Folds header cases into one finding of `check`.
fn header_finding(
    check: &'static crate::report::check::Check,
    cases: &[(&str, Expect, &Reply)],
    pass_detail: &str,
) -> FindingBuilder {
    let mut fails = Vec::new();
    let mut warns = Vec::new();
    let mut fail_ev = Vec::new();
    for (label, expect, r) in cases {
        match header_case(label, *expect, r) {
            Some((true, s)) => {
                fails.push(s);
                fail_ev.push(*r);
            }
            Some((false, s)) => {
                warns.push(s);
                fail_ev.push(*r);
            }
            None => {}
        }
    }
    if !fails.is_empty() {
        check
            .fail(
                fails
                    .into_iter()
                    .chain(warns)
                    .collect::<Vec<_>>()
                    .join("; "),
            )
            .evidence(cite(fail_ev))
    } else if !warns.is_empty() {
        check.warn(warns.join("; ")).evidence(cite(fail_ev))
    } else {
        check
            .pass(pass_detail.to_string())
            .evidence(cite(cases.iter().map(|(_, _, r)| *r)))
    }
}

/// `routing_headers`: missing / mismatched / wrong-case `Mcp-Method` and `Mcp-Name` must be
/// rejected with 400 + -32020 (a 400 with another code is a warning, as in the official
/// conformance suite); a lower-case header name must be accepted.
pub fn routing_headers(_w: &Wire, cases: &[(&str, Expect, &Reply)]) -> FindingBuilder {
    header_finding(
        &ROUTING_HEADERS,
        cases,
        "missing and mismatched routing headers got 400 + -32020; valid variants were accepted",
    )
}

/// `header_encoding`: a sentinel-encoded `Mcp-Name` must be decoded (accepted), a malformed
/// one rejected.
pub fn header_encoding(_w: &Wire, encoded: &Reply, malformed: &Reply) -> FindingBuilder {
    header_finding(
        &HEADER_ENCODING,
        &[
            (
                "=?base64?…?= Mcp-Name matching the body",
                Expect::Accept,
                encoded,
            ),
            (
                "malformed Base64 in the sentinel",
                Expect::Reject,
                malformed,
            ),
        ],
        "the sentinel value was decoded and matched; malformed Base64 got 400 + -32020",
    )
}

/// The tools whose input schema declares `x-mcp-header` on a top-level property:
/// `(tool name, property, header name, readOnlyHint)`. A tool with an invalid declaration
/// is left out: a client must drop it, so scout never calls it to test headers.
pub fn param_header_tools(tools: &[Value]) -> Vec<(String, String, String, bool)> {
    let mut out = Vec::new();
    for t in tools {
        let Some(name) = t.get("name").and_then(Value::as_str) else {
            continue;
        };
        if !crate::probe::catalog::x_mcp_header::drop_reasons(t).is_empty() {
            continue;
        }
        let read_only = t
            .pointer("/annotations/readOnlyHint")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let Some(props) = t
            .pointer("/inputSchema/properties")
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (prop, schema) in props {
            if let Some(h) = schema.get("x-mcp-header").and_then(Value::as_str) {
                out.push((name.to_string(), prop.clone(), h.to_string(), read_only));
            }
        }
    }
    out
}

/// `param_headers`: calls of a tool with an `x-mcp-header` argument whose header was
/// omitted or differed from the body must be rejected with 400 + -32020.
pub fn param_headers(_w: &Wire, tool: &str, omitted: &Reply, mismatched: &Reply) -> FindingBuilder {
    header_finding(
        &PARAM_HEADERS,
        &[
            ("Mcp-Param header omitted", Expect::Reject, omitted),
            (
                "Mcp-Param header differing from the body",
                Expect::Reject,
                mismatched,
            ),
        ],
        "omitted and mismatched Mcp-Param-* headers got 400 + -32020",
    )
    .subject(tool.to_string())
}

/// `meta_required`: requests missing the whole `_meta`, the protocol version or the client
/// capabilities must get -32602 (HTTP 400; on HTTP -32020 is also accepted for the missing
/// version, which also disagrees with the header); a request without clientInfo must succeed.
pub fn meta_required(
    w: &Wire,
    missing: &[(&str, &Reply)],
    no_client_info: &Reply,
) -> FindingBuilder {
    let mut fails = Vec::new();
    let mut ev = Vec::new();
    for (label, r) in missing {
        let code = code_of(r);
        let status_ok = !w.is_http() || r.status() == Some(400);
        let code_ok = code == Some(-32602) || (w.is_http() && code == Some(-32020));
        if !(status_ok && code_ok) {
            fails.push(format!("{label}: {}", describe(r)));
            ev.push(*r);
        }
    }
    if !has_result(no_client_info) {
        fails.push(format!(
            "without clientInfo (optional) the request got {}",
            describe(no_client_info)
        ));
        ev.push(no_client_info);
    }
    if fails.is_empty() {
        META_REQUIRED
            .pass("missing required _meta keys got -32602 (HTTP 400 where applicable); clientInfo was optional")
            .evidence(cite(missing.iter().map(|(_, r)| *r).chain([no_client_info])))
    } else {
        META_REQUIRED
            .fail(format!(
                "requests without the required _meta keys must get -32602{}: {}",
                if w.is_http() { " with HTTP 400" } else { "" },
                fails.join("; ")
            ))
            .evidence(cite(ev))
    }
}

/// `result_type`: every result the server sent on this wire carries `resultType`.
pub fn result_type(_w: &Wire, msgs: &[&Message]) -> FindingBuilder {
    // A result to a method 2026-07-28 removed (ping) is a deviation of its own, reported by
    // `handshake.ping`; it is not counted here a second time.
    let results: Vec<&&Message> = msgs
        .iter()
        .filter(|m| m.value.get("result").is_some())
        .filter(|m| !m.method.as_deref().is_some_and(|x| REMOVED.contains(&x)))
        .collect();
    let missing: Vec<Seq> = results
        .iter()
        .filter(|m| {
            !m.value
                .pointer("/result/resultType")
                .and_then(Value::as_str)
                .is_some_and(|t| t == "complete" || t == "input_required")
        })
        .map(|m| m.seq)
        .collect();
    if results.is_empty() {
        return RESULT_TYPE
            .info("no result was recorded on this wire")
            .without_exchange();
    }
    if missing.is_empty() {
        RESULT_TYPE
            .pass(format!("all {} results carry resultType", results.len()))
            .evidence(results.iter().map(|m| m.seq))
    } else {
        RESULT_TYPE
            .fail(format!(
                "{} of {} results lack resultType (or carry an unknown value)",
                missing.len(),
                results.len()
            ))
            .evidence(missing)
    }
}

/// What is wrong with one `input_required` result answering `method`, for a request that
/// declared `declared` (basic/patterns/mrtr): placement, that it asks for something, what
/// each input request is, and that the client declared what it asks for.
pub fn input_required_problems(
    method: Option<&str>,
    result: &Value,
    declared: Option<&Value>,
) -> Vec<String> {
    let mut out = Vec::new();
    // A response whose request is unknown (its id matched none scout sent) is not placed.
    if let Some(method) = method
        && !crate::client::rounds::INPUT_METHODS.contains(&method)
    {
        // "Servers MUST NOT send InputRequiredResult responses on any other client requests."
        out.push(format!("an input_required result answers {method}"));
    }
    let requests = result.get("inputRequests");
    let state = result.get("requestState");
    if requests.is_none() && state.is_none() {
        out.push("an input_required result carries neither inputRequests nor requestState".into());
    }
    if state.is_some_and(|s| !s.is_string()) {
        out.push("a requestState is not a string".into());
    }
    let Some(requests) = requests else {
        return out;
    };
    let Some(requests) = requests.as_object() else {
        out.push("an inputRequests is not an object".into());
        return out;
    };
    let has = |path: &str| declared.is_some_and(|d| d.pointer(path).is_some_and(|v| !v.is_null()));
    for (key, r) in requests {
        let asked = r.get("method").and_then(Value::as_str).unwrap_or_default();
        let params = r.get("params").unwrap_or(&Value::Null);
        let needs = match asked {
            "elicitation/create" => {
                // "Clients MUST treat requests without a mode field as form mode"; an
                // elicitation capability declared as {} means form.
                match params.get("mode").and_then(Value::as_str).unwrap_or("form") {
                    "url" => has("/elicitation/url")
                        .then_some(())
                        .ok_or("elicitation.url"),
                    _ => (has("/elicitation/form")
                        || declared
                            .and_then(|d| d.get("elicitation"))
                            .and_then(Value::as_object)
                            .is_some_and(|e| e.is_empty()))
                    .then_some(())
                    .ok_or("elicitation.form"),
                }
            }
            "sampling/createMessage" if params.get("tools").is_some() => {
                has("/sampling/tools").then_some(()).ok_or("sampling.tools")
            }
            "sampling/createMessage" => has("/sampling").then_some(()).ok_or("sampling"),
            "roots/list" => has("/roots").then_some(()).ok_or("roots"),
            other => {
                out.push(format!(
                    "the input request {key:?} is {}, not an elicitation, sampling or roots request",
                    if other.is_empty() { "no request" } else { other }
                ));
                continue;
            }
        };
        if let Err(capability) = needs {
            // "Servers MUST NOT send an inputRequests that the client has not declared
            // support for in its capabilities."
            out.push(format!(
                "the input request {key:?} ({asked}) needs {capability}, which the request did not declare"
            ));
        }
    }
    out
}

/// `input_required_shape`: every `input_required` result of the wire, judged by
/// [`input_required_problems`]. Not applicable when the server gave none.
pub fn input_required_shape(_w: &Wire, msgs: &[&Message]) -> FindingBuilder {
    let asked: Vec<&&Message> = msgs
        .iter()
        .filter(|m| {
            m.value
                .pointer("/result/resultType")
                .and_then(Value::as_str)
                == Some(crate::client::rounds::INPUT_REQUIRED)
        })
        .collect();
    if asked.is_empty() {
        return INPUT_REQUIRED_SHAPE.skip(
            crate::report::finding::SkipReason::NotApplicable,
            "no request was answered with input_required",
        );
    }
    let mut problems: BTreeMap<String, Vec<Seq>> = BTreeMap::new();
    for m in &asked {
        let result = m.value.get("result").unwrap_or(&Value::Null);
        for p in input_required_problems(m.method.as_deref(), result, m.declared.as_ref()) {
            problems.entry(p).or_default().push(m.seq);
        }
    }
    if problems.is_empty() {
        return INPUT_REQUIRED_SHAPE
            .pass(format!(
                "{} input_required result(s), each on tools/call, prompts/get or resources/read, asking only for what the request declared",
                asked.len()
            ))
            .evidence(asked.iter().map(|m| m.seq));
    }
    let evidence: Vec<Seq> = problems.values().flatten().copied().collect();
    INPUT_REQUIRED_SHAPE
        .fail(problems.into_keys().collect::<Vec<_>>().join("; "))
        .evidence(evidence)
}

/// Methods the 2026-07-28 revision removed.
const REMOVED: [&str; 6] = [
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "tasks/list",
    "tasks/result",
];

const CACHEABLE: [&str; 6] = [
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// `cache_hints`: complete results of discover/list/read carry `ttlMs` ≥ 0 and `cacheScope`,
/// and one list's pages share the scope.
pub fn cache_hints(_w: &Wire, msgs: &[&Message]) -> FindingBuilder {
    let mut seen = Vec::new();
    let mut bad = Vec::new();
    let mut scopes: BTreeMap<&str, Vec<(String, Seq)>> = BTreeMap::new();
    for m in msgs {
        let Some(method) = m.method.as_deref().filter(|x| CACHEABLE.contains(x)) else {
            continue;
        };
        let Some(result) = m.value.get("result") else {
            continue;
        };
        if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
            continue;
        }
        seen.push(m.seq);
        let ttl_ok = result
            .get("ttlMs")
            .is_some_and(crate::report::integer::is_non_negative_integer);
        let scope = result.get("cacheScope").and_then(Value::as_str);
        let scope_ok = matches!(scope, Some("public") | Some("private"));
        if !ttl_ok || !scope_ok {
            bad.push((
                m.seq,
                format!(
                    "{method}: ttlMs {} / cacheScope {}",
                    result
                        .get("ttlMs")
                        .map(Value::to_string)
                        .unwrap_or("missing".into()),
                    scope.unwrap_or("missing")
                ),
            ));
        }
        if let Some(s) = scope {
            scopes
                .entry(method)
                .or_default()
                .push((s.to_string(), m.seq));
        }
    }
    for (method, list) in &scopes {
        if list.iter().any(|(s, _)| *s != list[0].0) {
            bad.push((
                list[0].1,
                format!("{method}: pages carry different cacheScope values"),
            ));
            bad.extend(list.iter().skip(1).map(|(_, seq)| (*seq, String::new())));
        }
    }
    if seen.is_empty() {
        return CACHE_HINTS
            .info("no discover, list or read result was recorded on this wire")
            .without_exchange();
    }
    if bad.is_empty() {
        CACHE_HINTS
            .pass(format!(
                "{} discover/list/read results carry ttlMs and cacheScope",
                seen.len()
            ))
            .evidence(seen)
    } else {
        let what: Vec<String> = bad
            .iter()
            .filter(|(_, s)| !s.is_empty())
            .map(|(_, s)| s.clone())
            .collect();
        CACHE_HINTS
            .fail(what.join("; "))
            .evidence(bad.into_iter().map(|(s, _)| s))
    }
}

/// `error_codes`: over the whole run, no -32002 / -32042 and no undefined code from the
/// reserved -32020..-32099 range from a 2026-07-28 wire (MUST NOT: a failure). The pre-GA
/// numbers -32001 / -32003 / -32004 lie in the legacy -32000..-32019 range, which "new
/// implementations SHOULD NOT use": a warning that names them.
pub fn error_codes(_w: &Wire, msgs: &[&Message]) -> FindingBuilder {
    let mut fails = Vec::new();
    let mut warns = Vec::new();
    let mut all = Vec::new();
    for m in msgs {
        let Some(code) = m.value.pointer("/error/code").and_then(Value::as_i64) else {
            continue;
        };
        all.push(m.seq);
        match code {
            -32002 => fails.push((
                m.seq,
                "-32002 (resource not found is -32602 in 2026-07-28)".to_string(),
            )),
            -32042 => fails.push((
                m.seq,
                "-32042 (URL elicitation error, retired in 2026-07-28)".to_string(),
            )),
            -32001 | -32003 | -32004 => warns.push((
                m.seq,
                format!(
                    "{code} (a pre-GA draft number in the legacy range new implementations should not use; GA uses -32020/-32021/-32022)"
                ),
            )),
            c if (-32099..=-32020).contains(&c) && !(-32022..=-32020).contains(&c) => {
                fails.push((m.seq, format!("{c} (undefined code in the reserved range)")))
            }
            _ => {}
        }
    }
    if all.is_empty() {
        return ERROR_CODES
            .info("no error response was recorded on this wire")
            .without_exchange();
    }
    let kinds = |list: &[(Seq, String)]| {
        let mut k: Vec<String> = list.iter().map(|(_, w)| w.clone()).collect();
        k.sort();
        k.dedup();
        k
    };
    if !fails.is_empty() {
        let mut text = kinds(&fails);
        text.extend(kinds(&warns));
        ERROR_CODES
            .fail(text.join("; "))
            .evidence(fails.into_iter().chain(warns).map(|(s, _)| s))
    } else if !warns.is_empty() {
        ERROR_CODES
            .warn(kinds(&warns).join("; "))
            .evidence(warns.into_iter().map(|(s, _)| s))
    } else {
        ERROR_CODES
            .pass(format!(
                "{} error responses, none with a retired or undefined code",
                all.len()
            ))
            .evidence(all)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::probe::protocol::testing::*;
    use crate::report::finding::{Era, Status};
    use crate::report::model::TransportKind;

    fn modern() -> Wire {
        Wire::new(Era::Modern, TransportKind::Http, "2026-07-28")
    }

    fn msg(seq: Seq, method: &str, value: Value) -> Message {
        Message {
            seq,
            era: Some(Era::Modern),
            method: Some(method.into()),
            value,
            declared: None,
            task: false,
        }
    }

    #[test]
    fn tsv2_and_python_routing_behaviour_passes() {
        // M4/M5 in the lab matrix: 400 -32020 from Python, TS v2 and rmcp.
        let mm = http_json(
            1,
            400,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Bad Request: the request headers and body disagree"}}"#,
        );
        let missing = http_json(
            2,
            400,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32020,"message":"Header mismatch"}}"#,
        );
        let lower = http_json(
            3,
            200,
            r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","tools":[]}}"#,
        );
        let f = routing_headers(
            &modern(),
            &[
                ("Mcp-Method mismatch", Expect::Reject, &mm),
                ("Mcp-Method missing", Expect::Reject, &missing),
                ("lower-case name", Expect::Accept, &lower),
            ],
        );
        assert_eq!(f.status(), Status::Pass);
    }

    #[test]
    fn ignored_headers_fail_and_bare_400_warns() {
        let served = http_json(
            1,
            200,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}"#,
        );
        let f = routing_headers(
            &modern(),
            &[("Mcp-Method mismatch", Expect::Reject, &served)],
        );
        assert_eq!(f.status(), Status::Fail);
        let bare = http_json(
            2,
            400,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"bad"}}"#,
        );
        let f = routing_headers(&modern(), &[("Mcp-Method mismatch", Expect::Reject, &bare)]);
        assert_eq!(f.status(), Status::Warn);
    }

    #[test]
    fn accepted_header_cases_need_an_answer() {
        // The sentinel case calls a tool that does not exist: -32602 (any status below 500)
        // shows the header passed validation.
        let unknown_tool = http_json(
            1,
            400,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool"}}"#,
        );
        let rejected = http_json(
            2,
            400,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32020,"message":"Header mismatch"}}"#,
        );
        assert_eq!(
            header_encoding(&modern(), &unknown_tool, &rejected).status(),
            Status::Pass
        );
        // A 500, a timeout or a reset on the encoded request is no pass: nothing showed the rule kept.
        let crashed = http_text(3, 500, Some("text/plain"), "Internal Server Error");
        let f = header_encoding(&modern(), &crashed, &rejected);
        assert_eq!(f.status(), Status::Fail);
        assert!(
            f.build(|_| true)
                .expect("valid")
                .detail
                .contains("no JSON-RPC answer"),
        );
        assert_eq!(
            header_encoding(&modern(), &timed_out(&[4]), &rejected).status(),
            Status::Fail
        );
        let internal = http_json(
            5,
            500,
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"boom"}}"#,
        );
        assert_eq!(
            routing_headers(
                &modern(),
                &[(
                    "Mcp-Method with surrounding whitespace",
                    Expect::Accept,
                    &internal
                )]
            )
            .status(),
            Status::Fail
        );
    }

    #[test]
    fn meta_required_python_transcript() {
        // pysdk-http-modern M8: 400 -32602.
        let r = http_json(
            1,
            400,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"params._meta must be an object"}}"#,
        );
        let ok = http_json(
            2,
            200,
            r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete"}}"#,
        );
        assert_eq!(
            meta_required(&modern(), &[("no _meta", &r)], &ok).status(),
            Status::Pass
        );
        let served = http_json(
            3,
            200,
            r#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete"}}"#,
        );
        assert_eq!(
            meta_required(&modern(), &[("no _meta", &served)], &ok).status(),
            Status::Fail
        );
    }

    #[test]
    fn result_type_cache_and_codes() {
        let good = msg(
            1,
            "tools/list",
            json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private"}}),
        );
        let bare = msg(
            2,
            "tools/list",
            json!({"jsonrpc":"2.0","id":2,"result":{"tools":[]}}),
        );
        assert_eq!(result_type(&modern(), &[&good]).status(), Status::Pass);
        assert_eq!(
            result_type(&modern(), &[&good, &bare]).status(),
            Status::Fail
        );
        assert_eq!(cache_hints(&modern(), &[&good]).status(), Status::Pass);
        assert_eq!(
            cache_hints(&modern(), &[&good, &bare]).status(),
            Status::Fail
        );
        let public = msg(
            3,
            "tools/list",
            json!({"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","tools":[],"ttlMs":5,"cacheScope":"public"}}),
        );
        assert_eq!(
            cache_hints(&modern(), &[&good, &public]).status(),
            Status::Fail
        );
        // Python / TS v2 modern codes are defined ones.
        let e1 = msg(
            4,
            "x",
            json!({"jsonrpc":"2.0","id":4,"error":{"code":-32020,"message":"m"}}),
        );
        let e2 = msg(
            5,
            "x",
            json!({"jsonrpc":"2.0","id":5,"error":{"code":-32022,"message":"m"}}),
        );
        let e3 = msg(
            6,
            "x",
            json!({"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"m"}}),
        );
        assert_eq!(
            error_codes(&modern(), &[&e1, &e2, &e3]).status(),
            Status::Pass
        );
        let old = msg(
            7,
            "resources/read",
            json!({"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"m"}}),
        );
        let f = error_codes(&modern(), &[&e1, &old]);
        assert_eq!(f.status(), Status::Fail);
        assert_eq!(f.build(|_| true).expect("valid").evidence, vec![7]);
        // Pre-GA -32001/-32003/-32004: the legacy range is a SHOULD NOT, so a warning.
        let draft = msg(
            8,
            "tools/list",
            json!({"jsonrpc":"2.0","id":8,"error":{"code":-32001,"message":"m"}}),
        );
        let f = error_codes(&modern(), &[&e1, &draft]);
        assert_eq!(f.status(), Status::Warn);
        let built = f.build(|_| true).expect("valid");
        assert!(built.detail.contains("-32001"), "{}", built.detail);
        assert_eq!(built.evidence, vec![8]);
        assert_eq!(
            error_codes(&modern(), &[&draft, &old]).status(),
            Status::Fail
        );
    }

    #[test]
    fn finds_x_mcp_header_tools() {
        let tools = vec![
            json!({"name":"plain","inputSchema":{"type":"object"}}),
            json!({"name":"geo","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}),
            // Dropped: a header on an object property (a client must exclude the tool).
            json!({"name":"bad","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"filter":{"type":"object","x-mcp-header":"Filter"}}}}),
        ];
        let found = param_header_tools(&tools);
        assert_eq!(
            found,
            vec![(
                "geo".to_string(),
                "region".to_string(),
                "Region".to_string(),
                true
            )]
        );
    }

    #[test]
    fn input_required_is_judged_by_where_it_answers_and_what_the_request_declared() {
        let form = json!({"inputRequests": {"f": {"method": "elicitation/create",
            "params": {"message": "m", "requestedSchema": {"type": "object", "properties": {}}}}}});
        let url = json!({"inputRequests": {"u": {"method": "elicitation/create",
            "params": {"mode": "url", "message": "m", "url": "https://example.invalid/"}}}});
        let p = |m: Option<&str>, r: &Value, d: Option<Value>| {
            input_required_problems(m, r, d.as_ref())
        };
        // An empty elicitation capability is form mode only (the 2025-11-25 compatibility
        // rule), so a form is fine and a URL is not.
        assert!(p(Some("tools/call"), &form, Some(json!({"elicitation": {}}))).is_empty());
        let u = p(Some("tools/call"), &url, Some(json!({"elicitation": {}})));
        assert!(u[0].contains("needs elicitation.url"), "{u:?}");
        // Nothing declared: nothing may be asked.
        let bare = p(Some("prompts/get"), &form, Some(json!({})));
        assert!(bare[0].contains("needs elicitation.form"), "{bare:?}");
        // Placement, and asking for nothing at all.
        let list = p(
            Some("tools/list"),
            &json!({"requestState": "s"}),
            Some(json!({})),
        );
        assert_eq!(list, ["an input_required result answers tools/list"]);
        let empty = p(Some("resources/read"), &json!({}), Some(json!({})));
        assert!(empty[0].contains("neither inputRequests nor requestState"));
        // A response whose request is unknown is not placed; sampling with tools needs
        // sampling.tools.
        let tools = json!({"inputRequests": {"s": {"method": "sampling/createMessage",
            "params": {"messages": [], "maxTokens": 5, "tools": []}}}});
        let s = p(None, &tools, Some(json!({"sampling": {}})));
        assert_eq!(s.len(), 1, "{s:?}");
        assert!(s[0].contains("needs sampling.tools"), "{s:?}");
        assert!(p(None, &tools, Some(json!({"sampling": {"tools": {}}}))).is_empty());
    }
}
