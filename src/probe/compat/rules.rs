//! Each host profile's rules, as pure functions of one tool (its `name` and `inputSchema`).
//! Every rule here has a documented source, quoted in docs/compat.md; a rule found only in
//! bug reports or folklore is not here.

use serde_json::{Map, Value};

/// Where the Claude API documents its tool definitions.
pub const ANTHROPIC_URL: &str =
    "https://platform.claude.com/docs/agents-and-tools/tool-use/define-tools";
/// Where OpenAI documents a function's name and the tool list of a request.
pub const OPENAI_URL: &str = "https://platform.openai.com/docs/api-reference/chat/create";
/// Where OpenAI documents strict mode's schema rules.
pub const OPENAI_STRICT_URL: &str =
    "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas";
/// OpenAI's limit on the functions of one request: "A max of 128 functions are supported."
pub const OPENAI_MAX_TOOLS: usize = 128;
/// Where the Gemini API (`google.ai.generativelanguage.v1beta`) lists the fields of the
/// Schema a function declaration's parameters are.
pub const GEMINI_URL: &str = "https://docs.cloud.google.com/nodejs/docs/reference/generativelanguage/latest/generativelanguage/protos.google.ai.generativelanguage.v1beta.ischema";

/// One rule a tool breaks, and what in the tool breaks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// The rule, in a few words (the same for every tool that breaks it).
    pub rule: &'static str,
    /// What this tool did: the name, or the JSON pointer into its input schema.
    pub what: String,
}

fn broken(rule: &'static str, what: impl Into<String>) -> Broken {
    Broken {
        rule,
        what: what.into(),
    }
}

/// True when `name` is 1 to `max` characters of `[a-zA-Z0-9_-]`.
fn name_fits(name: &str, max: usize) -> bool {
    let n = name.chars().count();
    (1..=max).contains(&n)
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn name_of(tool: &Value) -> &str {
    tool.get("name").and_then(Value::as_str).unwrap_or_default()
}

fn schema_of(tool: &Value) -> Option<&Value> {
    tool.get("inputSchema")
}

/// The Claude API: `name` must match `^[a-zA-Z0-9_-]{1,128}$`.
pub fn anthropic(tool: &Value) -> Vec<Broken> {
    let name = name_of(tool);
    if name_fits(name, 128) {
        Vec::new()
    } else {
        vec![broken(
            "name must match ^[a-zA-Z0-9_-]{1,128}$",
            describe_name(name),
        )]
    }
}

fn describe_name(name: &str) -> String {
    let n = name.chars().count();
    let bad: String = name
        .chars()
        .filter(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        .take(5)
        .collect();
    if bad.is_empty() {
        format!("{n} characters")
    } else {
        format!("{n} characters, with {bad:?}")
    }
}

/// The keywords OpenAI's strict mode does not support ("Some type-specific keywords are not
/// yet supported").
const OPENAI_UNSUPPORTED: &[&str] = &[
    "allOf",
    "not",
    "dependentRequired",
    "dependentSchemas",
    "if",
    "then",
    "else",
];

/// OpenAI function calling as applied to every function: the name pattern. The parameters
/// are "described as a JSON Schema object"; no subset applies without strict mode.
pub fn openai(tool: &Value) -> Vec<Broken> {
    let name = name_of(tool);
    if name_fits(name, 64) {
        Vec::new()
    } else {
        vec![broken(
            "name must match ^[a-zA-Z0-9_-]{1,64}$",
            describe_name(name),
        )]
    }
}

/// OpenAI strict function calling (opt-in): the name pattern and the parameters schema's
/// rules.
pub fn openai_strict(tool: &Value) -> Vec<Broken> {
    let mut out = openai(tool);
    let Some(schema) = schema_of(tool) else {
        return out;
    };
    if schema.get("anyOf").is_some() {
        out.push(broken("the root must not use anyOf", "/anyOf"));
    }
    walk(schema, "", &mut |node, at| {
        let Value::Object(m) = node else { return };
        if is_object_schema(m) {
            if m.get("additionalProperties") != Some(&Value::Bool(false)) {
                out.push(broken(
                    "additionalProperties: false must be set on every object",
                    pointer_or_root(at),
                ));
            }
            if let Some(Value::Object(props)) = m.get("properties") {
                let required: Vec<&str> = m
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let missing: Vec<&str> = props
                    .keys()
                    .map(String::as_str)
                    .filter(|k| !required.contains(k))
                    .collect();
                if !missing.is_empty() {
                    out.push(broken(
                        "every property must be required",
                        format!(
                            "{} not required at {}",
                            missing.join(", "),
                            pointer_or_root(at)
                        ),
                    ));
                }
            }
        }
        for k in OPENAI_UNSUPPORTED {
            if m.contains_key(*k) {
                out.push(broken(
                    "unsupported keyword (allOf, not, dependentRequired, dependentSchemas, if, then, else)",
                    format!("{at}/{k}"),
                ));
            }
        }
    });
    out
}

/// The fields of the Gemini API's `Schema` (the parameters of a function declaration).
const GEMINI_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// The Gemini API: the input schema keeps to the `Schema` subset (its fields, one `type`,
/// a Schema object at every place a subschema goes).
pub fn gemini(tool: &Value) -> Vec<Broken> {
    let mut out = Vec::new();
    let Some(schema) = schema_of(tool) else {
        return out;
    };
    gemini_node(schema, "", &mut out);
    out
}

fn gemini_node(node: &Value, at: &str, out: &mut Vec<Broken>) {
    let Value::Object(m) = node else {
        out.push(broken(
            "every subschema must be a Schema object",
            format!("{} is {node}", pointer_or_root(at)),
        ));
        return;
    };
    let mut unknown: Vec<&str> = m
        .keys()
        .map(String::as_str)
        .filter(|k| !GEMINI_FIELDS.contains(k))
        .collect();
    unknown.sort_unstable();
    for k in unknown {
        out.push(broken(
            "keyword outside the Schema subset",
            format!("{at}/{k}"),
        ));
    }
    if let Some(t) = m.get("type")
        && !t.is_string()
    {
        out.push(broken("type must be one type", format!("{at}/type is {t}")));
    }
    if let Some(Value::Object(props)) = m.get("properties") {
        for (k, v) in props {
            gemini_node(v, &format!("{at}/properties/{}", escape(k)), out);
        }
    }
    if let Some(items) = m.get("items") {
        gemini_node(items, &format!("{at}/items"), out);
    }
    if let Some(Value::Array(any)) = m.get("anyOf") {
        for (i, v) in any.iter().enumerate() {
            gemini_node(v, &format!("{at}/anyOf/{i}"), out);
        }
    }
}

/// True for a schema that describes an object: `type` is (or includes) `"object"`, or it
/// has `properties`.
fn is_object_schema(m: &Map<String, Value>) -> bool {
    let typed = match m.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => false,
    };
    typed || m.contains_key("properties")
}

/// Visits every subschema of a JSON Schema (the places a schema goes: properties, items,
/// the combinators, definitions), with its JSON pointer; depth-capped so that a hostile
/// schema cannot exhaust the stack.
fn walk(node: &Value, at: &str, f: &mut dyn FnMut(&Value, &str)) {
    walk_depth(node, at, f, 0);
}

const MAX_DEPTH: usize = 64;

fn walk_depth(node: &Value, at: &str, f: &mut dyn FnMut(&Value, &str), depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    f(node, at);
    let Value::Object(m) = node else { return };
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(Value::Object(children)) = m.get(key) {
            for (k, v) in children {
                walk_depth(v, &format!("{at}/{key}/{}", escape(k)), f, depth + 1);
            }
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = m.get(key) {
            for (i, v) in children.iter().enumerate() {
                walk_depth(v, &format!("{at}/{key}/{i}"), f, depth + 1);
            }
        }
    }
    for key in ["items", "additionalProperties", "not", "if", "then", "else"] {
        if let Some(v @ Value::Object(_)) = m.get(key) {
            walk_depth(v, &format!("{at}/{key}"), f, depth + 1);
        }
    }
}

/// A JSON pointer token (RFC 6901).
fn escape(k: &str) -> String {
    k.replace('~', "~0").replace('/', "~1")
}

fn pointer_or_root(at: &str) -> String {
    if at.is_empty() {
        "the root".to_string()
    } else {
        at.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names() {
        assert!(anthropic(&json!({"name": "get_weather-2"})).is_empty());
        assert_eq!(anthropic(&json!({"name": "fs.read"})).len(), 1);
        assert_eq!(anthropic(&json!({"name": "a/b"})).len(), 1);
        assert!(anthropic(&json!({"name": "x".repeat(128)})).is_empty());
        assert_eq!(anthropic(&json!({"name": "x".repeat(129)})).len(), 1);
        let long = json!({"name": "x".repeat(65), "inputSchema": {"type": "object", "additionalProperties": false}});
        assert_eq!(openai(&long).len(), 1);
        assert!(anthropic(&long).is_empty());
    }

    #[test]
    fn openai_strict_rules() {
        let strict = json!({"name": "t", "inputSchema": {
            "type": "object", "additionalProperties": false, "required": ["a", "b"],
            "properties": {
                "a": {"type": "string"},
                "b": {"type": "object", "additionalProperties": false, "required": ["c"],
                      "properties": {"c": {"type": ["string", "null"]}}}
            }
        }});
        assert!(
            openai_strict(&strict).is_empty(),
            "{:?}",
            openai_strict(&strict)
        );
        let open = json!({"name": "t", "inputSchema": {
            "type": "object", "required": ["a"],
            "properties": {"a": {"type": "string"}, "b": {"allOf": [{"type": "string"}]}}
        }});
        // Strict mode's rules only: OpenAI's default profile takes this schema as it is.
        assert!(openai(&open).is_empty(), "{:?}", openai(&open));
        let rules: Vec<&str> = openai_strict(&open).iter().map(|b| b.rule).collect();
        assert!(rules.contains(&"additionalProperties: false must be set on every object"));
        assert!(rules.contains(&"every property must be required"));
        assert!(rules.iter().any(|r| r.starts_with("unsupported keyword")));
        // A property named like a keyword is not the keyword.
        let named_not = json!({"name": "t", "inputSchema": {
            "type": "object", "additionalProperties": false, "required": ["not"],
            "properties": {"not": {"type": "string"}}
        }});
        assert!(openai_strict(&named_not).is_empty());
    }

    #[test]
    fn gemini_subset() {
        let fits = json!({"name": "t", "inputSchema": {
            "type": "object", "required": ["a"],
            "properties": {"a": {"type": "string", "nullable": true, "enum": ["x"]},
                           "b": {"type": "array", "items": {"type": "integer", "minimum": 0}}}
        }});
        assert!(gemini(&fits).is_empty(), "{:?}", gemini(&fits));
        let off = json!({"name": "t", "inputSchema": {
            "type": "object", "additionalProperties": false, "$schema": "x",
            "properties": {"a": {"type": ["string", "null"]}, "b": true, "c": {"const": 1}}
        }});
        let what: Vec<String> = gemini(&off).into_iter().map(|b| b.what).collect();
        assert!(
            what.contains(&"/additionalProperties".to_string()),
            "{what:?}"
        );
        assert!(what.contains(&"/$schema".to_string()), "{what:?}");
        assert!(
            what.contains(&"/properties/a/type is [\"string\",\"null\"]".to_string()),
            "{what:?}"
        );
        assert!(
            what.contains(&"/properties/b is true".to_string()),
            "{what:?}"
        );
        assert!(
            what.contains(&"/properties/c/const".to_string()),
            "{what:?}"
        );
    }
}
