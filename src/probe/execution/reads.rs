//! Reading what the catalogue lists: `execution.resource_read` and `execution.prompt_get`,
//! each with a made-up name or URI that must get the revision's error.

use serde_json::Value;

use super::{
    MADE_UP_PROMPT, MISSING_URI, PROMPT_GET, RESOURCE_READ, content::content_block_problems,
    content::resource_contents_problems, verdict,
};
use crate::probe::catalog::describe;
use crate::report::finding::{Era, FindingBuilder};
use crate::transport::Reply;

/// Problems of one `resources/read` of a listed resource.
pub fn read_problems(uri: &str, reply: &Reply) -> Vec<String> {
    let Some(r) = reply.result() else {
        return vec![format!("reading {uri} got {}", describe(reply))];
    };
    match r.get("contents").and_then(Value::as_array) {
        None => vec![format!("reading {uri} returned no contents array")],
        Some(c) if c.is_empty() => vec![format!("reading {uri} returned empty contents")],
        Some(c) => c
            .iter()
            .flat_map(resource_contents_problems)
            .map(|e| format!("{uri}: {e}"))
            .collect(),
    }
}

/// What one read of a listed resource showed: the problems that break a rule (fail) and
/// what only tells an agent the resource could not be had (warn). A JSON-RPC error other
/// than "Method not found" is the server saying it could not serve the resource now (an
/// internal error is typically a backend it depends on being down): no rule says a listed
/// resource must always be readable, and the agent gets an error it can read. An empty
/// `contents` array for a resource the server itself listed is an empty resource, not the
/// "non-existent resource" the 2026-07-28 rule is about.
pub fn listed_read(uri: &str, reply: &Reply) -> (Vec<String>, Vec<String>) {
    match (reply.error_code(), reply.result()) {
        (Some(METHOD_NOT_FOUND), _) => (
            vec![not_served("resources/read", uri, "resources", reply)],
            Vec::new(),
        ),
        (Some(code), _) => (
            Vec::new(),
            vec![format!(
                "reading the listed resource {uri} got error {code}{}: the server lists it but could not serve it",
                reply
                    .error_message()
                    .map(|m| format!(" (\"{m}\")"))
                    .unwrap_or_default()
            )],
        ),
        (None, Some(r))
            if r.get("contents")
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty) =>
        {
            (
                Vec::new(),
                vec![format!(
                    "reading the listed resource {uri} returned an empty contents array"
                )],
            )
        }
        _ => (read_problems(uri, reply), Vec::new()),
    }
}

/// `execution.resource_read`: listed resources read; a missing URI is an error with the
/// era's code (-32002 in the handshake revisions, -32602 in 2026-07-28). `problems` fail,
/// `refused` (listed resources answered with an error) warn. A success for the missing URI
/// fails only where a rule forbids it: an empty `contents` array on 2026-07-28 ("Servers
/// MUST NOT return an empty contents array for a non-existent resource"); elsewhere the
/// error the revision asks for is a SHOULD.
pub fn resource_read(
    read: usize,
    problems: &[String],
    refused: &[String],
    mut ev: Vec<u64>,
    era: Era,
    missing: &Reply,
) -> FindingBuilder {
    ev.extend(missing.evidence.iter().copied());
    let mut problems = problems.to_vec();
    let mut soft = refused.to_vec();
    let expected = if era == Era::Modern { -32602 } else { -32002 };
    match (missing.error_code(), missing.result()) {
        (Some(c), _) if c == expected => {}
        // Nothing listed was read: "Method not found" says resources/read is not there at
        // all, for a server that declared resources (see `method_not_served`).
        (Some(METHOD_NOT_FOUND), _) if read == 0 => problems.push(not_served(
            "resources/read",
            MISSING_URI,
            "resources",
            missing,
        )),
        // The agent still gets an error it can read; the retired code itself is what
        // `protocol.error_codes` judges. A warning here, like any other wrong code.
        (Some(-32002), _) => soft.push(format!(
            "the missing resource `{MISSING_URI}` got -32002, which 2026-07-28 retired (use -32602)"
        )),
        (Some(c), _) => soft.push(format!(
            "the missing resource `{MISSING_URI}` got error {c}; {expected} is expected"
        )),
        (None, Some(r)) => {
            let empty = r
                .get("contents")
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty);
            if empty && era == Era::Modern {
                problems.push(format!(
                    "the missing resource `{MISSING_URI}` got an empty contents array instead of an error, which 2026-07-28 forbids"
                ));
            } else if empty {
                soft.push(format!(
                    "the missing resource `{MISSING_URI}` got an empty success instead of error {expected}"
                ));
            } else {
                soft.push(format!(
                    "the made-up resource URI `{MISSING_URI}` was answered with contents instead of error {expected}"
                ));
            }
        }
        (None, None) => problems.push(format!(
            "reading the missing resource `{MISSING_URI}` got {}",
            describe(missing)
        )),
    }
    verdict(
        &RESOURCE_READ,
        problems,
        soft,
        format!("{read} listed resource(s) read; a missing URI got {expected}"),
    )
    .evidence(ev)
}

/// String arguments for a prompt: every declared argument gets `"scout"`, or a value that
/// points nowhere when its name says it is a URL, a host or an e-mail address.
pub fn prompt_arguments(prompt: &Value) -> Value {
    let mut m = serde_json::Map::new();
    for a in prompt
        .get("arguments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(n) = a.get("name").and_then(Value::as_str) {
            m.insert(n.to_string(), crate::policy::args::placeholder(n));
        }
    }
    Value::Object(m)
}

/// Problems of one `prompts/get`.
pub fn prompt_problems(name: &str, reply: &Reply, version: &str) -> Vec<String> {
    let Some(r) = reply.result() else {
        return vec![format!("prompts/get `{name}` got {}", describe(reply))];
    };
    if r.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return Vec::new();
    }
    let Some(msgs) = r.get("messages").and_then(Value::as_array) else {
        return vec![format!("prompts/get `{name}` returned no messages array")];
    };
    let mut p = Vec::new();
    for (i, m) in msgs.iter().enumerate() {
        if !matches!(
            m.get("role").and_then(Value::as_str),
            Some("user" | "assistant")
        ) {
            p.push(format!(
                "`{name}` message {i}: role is not user or assistant"
            ));
        }
        match m.get("content") {
            Some(c) => p.extend(
                content_block_problems(c, version)
                    .into_iter()
                    .map(|e| format!("`{name}` message {i}: {e}")),
            ),
            None => p.push(format!("`{name}` message {i} has no content")),
        }
    }
    p
}

/// JSON-RPC's "Method not found".
pub const METHOD_NOT_FOUND: i64 = -32601;

/// The problem of a `prompts/get` answered "Method not found" although the server declared
/// the `prompts` capability. Capabilities "determine which protocol features and primitives
/// are available during a session" (the architecture page), and the lifecycle's table says
/// a server with `prompts` "offers prompt templates", which clients fetch with prompts/get:
/// a declared feature whose method does not exist is not served.
pub fn method_not_served(name: &str, reply: &Reply) -> String {
    not_served("prompts/get", name, "prompts", reply)
}

/// `method` for `subject` answered -32601 although `capability` is declared.
fn not_served(method: &str, subject: &str, capability: &str, reply: &Reply) -> String {
    format!(
        "{method} `{subject}` got {} (Method not found) although the server declares the {capability} capability",
        describe(reply)
    )
}

/// `execution.prompt_get`: prompts fetched; an unknown prompt gets -32602. `problems` fail,
/// `refused` (errors to generated arguments) warn. When no listed prompt was fetched, an
/// unknown prompt answered -32601 is the only sign of prompts/get, and it says the method is
/// not there: a failure, not a wrong error code.
pub fn prompt_get(
    fetched: usize,
    problems: &[String],
    refused: &[String],
    mut ev: Vec<u64>,
    unknown: &Reply,
) -> FindingBuilder {
    ev.extend(unknown.evidence.iter().copied());
    let mut problems = problems.to_vec();
    let mut soft = refused.to_vec();
    match (unknown.error_code(), unknown.result()) {
        (Some(-32602), _) => {}
        (Some(METHOD_NOT_FOUND), _) if fetched == 0 => {
            problems.push(method_not_served(MADE_UP_PROMPT, unknown))
        }
        (Some(c), _) => soft.push(format!(
            "the unknown prompt `{MADE_UP_PROMPT}` got error {c}; -32602 is expected"
        )),
        (None, Some(_)) => problems.push(format!(
            "the unknown prompt `{MADE_UP_PROMPT}` was answered with a result"
        )),
        (None, None) => problems.push(format!(
            "prompts/get for the unknown prompt `{MADE_UP_PROMPT}` got {}",
            describe(unknown)
        )),
    }
    verdict(
        &PROMPT_GET,
        problems,
        soft,
        format!("{fetched} prompt(s) fetched; an unknown prompt got -32602"),
    )
    .evidence(ev)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::{built, err, ok};
    use crate::report::finding::Status;
    use serde_json::json;

    #[test]
    fn a_missing_resources_read_fails_when_nothing_showed_the_method() {
        let f = built(resource_read(
            0,
            &[],
            &[],
            vec![],
            Era::Legacy,
            &err(1, -32601),
        ));
        assert_eq!(f.status, Status::Fail, "{}", f.detail);
        let f = built(resource_read(
            1,
            &[],
            &[],
            vec![1],
            Era::Legacy,
            &err(2, -32601),
        ));
        assert_eq!(f.status, Status::Warn, "{}", f.detail);
    }

    #[test]
    fn a_missing_prompts_get_fails_when_nothing_showed_the_method() {
        // Nothing listed: the unknown prompt's -32601 says prompts/get is not there.
        let f = built(prompt_get(0, &[], &[], vec![], &err(1, -32601)));
        assert_eq!(f.status, Status::Fail, "{}", f.detail);
        // Listed prompts were served: -32601 for the unknown one is only the wrong code.
        let f = built(prompt_get(2, &[], &[], vec![1], &err(2, -32601)));
        assert_eq!(f.status, Status::Warn, "{}", f.detail);
    }

    #[test]
    fn resource_read_codes_per_era() {
        let read = || vec![1u64];
        assert_eq!(
            built(resource_read(
                1,
                &[],
                &[],
                read(),
                Era::Legacy,
                &err(2, -32002)
            ))
            .status,
            Status::Pass
        );
        assert_eq!(
            built(resource_read(
                1,
                &[],
                &[],
                read(),
                Era::Modern,
                &err(2, -32602)
            ))
            .status,
            Status::Pass
        );
        assert_eq!(
            built(resource_read(
                1,
                &[],
                &[],
                read(),
                Era::Modern,
                &err(2, -32002)
            ))
            .status,
            Status::Warn
        );
        assert_eq!(
            built(resource_read(
                1,
                &[],
                &[],
                read(),
                Era::Legacy,
                &err(2, -32603)
            ))
            .status,
            Status::Warn
        );
        assert_eq!(
            built(resource_read(
                1,
                &[],
                &[],
                read(),
                Era::Modern,
                &ok(2, json!({"contents": []}))
            ))
            .status,
            Status::Fail
        );
        // The empty-contents rule is 2026-07-28's: earlier revisions only ask for -32002.
        assert_eq!(
            built(resource_read(
                1,
                &[],
                &[],
                read(),
                Era::Legacy,
                &ok(2, json!({"contents": []}))
            ))
            .status,
            Status::Warn
        );
        assert_eq!(
            read_problems(
                "x://",
                &ok(3, json!({"contents": [{"uri": "x://", "text": "t"}]}))
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            read_problems("x://", &ok(3, json!({"contents": [{"uri": "x://"}]}))).len(),
            1
        );
    }

    #[test]
    fn a_listed_resource_that_fails_upstream_is_a_warning_with_its_error() {
        // Previously: a listed resource answered -32603 (its backend unreachable) failed
        // major, quoting the rule about empty contents for a non-existent resource.
        let outage = Reply {
            response: Some(json!({"jsonrpc": "2.0", "id": 2,
                "error": {"code": -32603, "message": "cluster unreachable"}})),
            ..err(2, -32603)
        };
        let (hard, soft) = listed_read("x://a", &outage);
        assert!(hard.is_empty(), "{hard:?}");
        assert!(soft[0].contains("-32603"), "{soft:?}");
        assert!(soft[0].contains("cluster unreachable"), "{soft:?}");
        let f = built(resource_read(
            1,
            &hard,
            &soft,
            vec![1],
            Era::Modern,
            &err(3, -32602),
        ));
        assert_eq!(f.status, Status::Warn, "{}", f.detail);
        // A listed resource whose read is not a method at all is not served.
        assert_eq!(listed_read("x://a", &err(2, -32601)).0.len(), 1);
        // Malformed contents of a listed resource stay a problem.
        assert_eq!(
            listed_read("x://a", &ok(3, json!({"contents": [{"uri": "x://a"}]})))
                .0
                .len(),
            1
        );
    }

    #[test]
    fn prompt_get_judgement() {
        let good = ok(
            3,
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}),
        );
        assert!(prompt_problems("p", &good, "2025-11-25").is_empty());
        let bad = ok(
            3,
            json!({"messages": [{"role": "system", "content": {"type": "text", "text": "hi"}}]}),
        );
        assert_eq!(prompt_problems("p", &bad, "2025-11-25").len(), 1);
        assert_eq!(
            built(prompt_get(1, &[], &[], vec![3], &err(4, -32602))).status,
            Status::Pass
        );
        assert_eq!(
            built(prompt_get(
                1,
                &[],
                &[],
                vec![3],
                &ok(4, json!({"messages": []}))
            ))
            .status,
            Status::Fail
        );
        let refused = ["`p` answered scout's generated arguments with -32603".to_string()];
        assert_eq!(
            built(prompt_get(1, &[], &refused, vec![3], &err(4, -32602))).status,
            Status::Warn
        );
        assert_eq!(
            prompt_arguments(&json!({"arguments": [{"name": "who"}]})),
            json!({"who": "scout"})
        );
    }
}
