//! A starter expectations file from a finished run (`scout expect init`): one expectation per
//! tool scout called and got a result from, with the arguments it sent and a starter
//! `is_error` / `contains` read off the answer, for the author to edit (docs/expectations.md).
//! A pure function of the in-memory `Report`: the exchanges it reads are not in the JSON v1
//! report.

use serde_json::Value;

use crate::report::exchange::{Exchange, jsonrpc_messages};
use crate::report::finding::Status;
use crate::report::model::{Report, ServerReport};

/// The TOML text: a `[[default.servers]]` entry per server with its expectations.
pub fn starter(report: &Report) -> String {
    let mut out = String::from(
        "# Starter expectations written by `scout expect init` from one run: one per tool scout\n\
         # called, with the arguments it sent and what came back. Edit them (keep what must stay\n\
         # true, drop what may change), then move each server's [[default.servers.expect]]\n\
         # tables into its entry in scout.toml. Keys: docs/expectations.md.\n",
    );
    for server in &report.servers {
        let calls = calls_of(server);
        out.push_str(&format!(
            "\n[[default.servers]]\nname = {}\n# target: {}\n",
            quoted(&server.name),
            server.target
        ));
        if calls.is_empty() {
            out.push_str("# scout called no tool of this server that answered with a result\n");
        }
        for (tool, arguments, result) in calls {
            out.push_str(&expectation(&tool, &arguments, &result));
        }
    }
    out
}

/// One `[[default.servers.expect]]` table.
fn expectation(tool: &str, arguments: &Value, result: &Value) -> String {
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let mut t = format!(
        "\n[[default.servers.expect]]\nname = {}\ncall = {}\narguments = {}\nis_error = {is_error}\n",
        quoted(&format!("{tool} answers as it did")),
        quoted(tool),
        inline(arguments)
    );
    if let Some(text) = first_text(result) {
        t.push_str(&format!("contains = [{}]\n", quoted(&text)));
    }
    t
}

/// Per tool (once, in the order scout called them), the arguments sent and the result that
/// came back, for the `execution.tool_call` findings that judged an answer.
fn calls_of(server: &ServerReport) -> Vec<(String, Value, Value)> {
    let mut out: Vec<(String, Value, Value)> = Vec::new();
    for f in &server.findings {
        if f.id != "execution.tool_call" || !matches!(f.status, Status::Pass | Status::Warn) {
            continue;
        }
        let Some(tool) = f.subject.as_deref() else {
            continue;
        };
        if out.iter().any(|(t, _, _)| t == tool) {
            continue;
        }
        let shown: Vec<&Exchange> = server
            .exchanges
            .iter()
            .filter(|e| f.evidence.contains(&e.seq))
            .collect();
        if let Some((arguments, result)) = call_in(&shown, tool) {
            out.push((tool.to_string(), arguments, result));
        }
    }
    out
}

/// The `tools/call` of `tool` among `exchanges` and the result answering it.
fn call_in(exchanges: &[&Exchange], tool: &str) -> Option<(Value, Value)> {
    let messages: Vec<Value> = exchanges.iter().flat_map(|e| jsonrpc_messages(e)).collect();
    let request = messages.iter().find(|m| {
        m.get("method").and_then(Value::as_str) == Some("tools/call")
            && m.pointer("/params/name").and_then(Value::as_str) == Some(tool)
    })?;
    let id = request.get("id")?;
    let result = messages
        .iter()
        .find(|m| m.get("id") == Some(id) && m.get("result").is_some())?
        .get("result")?
        .clone();
    let arguments = request
        .pointer("/params/arguments")
        .cloned()
        .unwrap_or_else(|| Value::Object(Default::default()));
    Some((arguments, result))
}

/// The first line of the first text block, at most 60 characters: a starter `contains`.
fn first_text(result: &Value) -> Option<String> {
    let text = result
        .get("content")?
        .as_array()?
        .iter()
        .find_map(|b| b.get("text").and_then(Value::as_str))?;
    let line: String = text.lines().next()?.trim().chars().take(60).collect();
    (!line.is_empty()).then_some(line)
}

/// A TOML basic string.
fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A JSON value as a TOML inline value (null, which TOML lacks, as an empty string).
fn inline(v: &Value) -> String {
    match v {
        Value::Null => "\"\"".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => quoted(s),
        Value::Array(a) => format!("[{}]", a.iter().map(inline).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, x)| {
                    let key = if !k.is_empty()
                        && k.chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                    {
                        k.clone()
                    } else {
                        quoted(k)
                    };
                    format!("{key} = {}", inline(x))
                })
                .collect();
            if items.is_empty() {
                "{}".into()
            } else {
                format!("{{ {} }}", items.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_expectation_table_reads_back_as_toml_with_its_arguments() {
        let t = expectation(
            "search",
            &json!({"q": "a \"b\"", "n": 2, "deep": {"x-y": [true]}}),
            &json!({"content": [{"type": "text", "text": "found 2\nmore"}]}),
        );
        let v: toml::Value =
            toml::from_str(&format!("[[default.servers]]\nname = \"s\"\n{t}")).expect("TOML");
        let x = &v["default"]["servers"][0]["expect"][0];
        assert_eq!(x["call"].as_str(), Some("search"));
        assert_eq!(x["arguments"]["q"].as_str(), Some("a \"b\""));
        assert_eq!(x["arguments"]["deep"]["x-y"][0].as_bool(), Some(true));
        assert_eq!(x["contains"][0].as_str(), Some("found 2"));
        assert_eq!(x["is_error"].as_bool(), Some(false));
    }
}
