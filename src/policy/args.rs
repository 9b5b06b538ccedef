//! Schema-driven arguments: deterministic, minimal, valid arguments for a tool from its
//! `inputSchema` (required properties only), and deliberately invalid ones for the
//! `execution.invalid_arguments` probe. Fixed arguments from the config always win.
//! Every generated value points nowhere: URLs, hostnames and e-mail addresses name a host
//! under `.invalid` (see [`super::nowhere`]).

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::nowhere;
use crate::spec::ToolArgs;

/// How deep generation follows nested schemas and `$ref`s before giving up with `null`
/// (a recursive schema would otherwise never end).
const MAX_GEN_DEPTH: usize = 16;
/// How many values one generation may produce in all. Depth alone does not bound it: a
/// hostile schema whose required properties (or `minItems` items) refer back to the root
/// fans out at every level (4 properties × 16 levels = 4^16 values).
const MAX_GEN_NODES: usize = 10_000;

thread_local! {
    /// Values left for the generation under way (generation is synchronous, so one per
    /// thread is one per generation).
    static GEN_BUDGET: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// True while arguments for a call that is to be cancelled are generated: waits must
    /// then outlast the cancellation (see [`arguments_to_cancel`]).
    static LONG_WAITS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The longest wait, in seconds, generated while [`LONG_WAITS`] is on.
    static LONGEST_WAIT: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// How long a generated wait lasts, in seconds, when nothing in the schema says otherwise:
/// short enough that a tool that sleeps costs the run almost nothing, long enough to be a
/// real wait (a tool reporting progress in 2 steps still sends both).
pub const SHORT_WAIT_SECS: f64 = 0.01;

/// How long a generated wait lasts, in seconds, in a call scout cancels: longer than the
/// cancellation probe needs to tell a server that ignored the cancellation from one whose
/// answer merely raced it (`execution.cancellation`).
pub const CANCELLABLE_WAIT_SECS: f64 = 0.5;

/// Where a call's arguments came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgsSource {
    /// `[[servers.tools]]` / `--json-args`.
    Configured,
    /// Generated from the input schema.
    Generated,
}

impl ArgsSource {
    /// Words for a finding's detail.
    pub fn as_str(self) -> &'static str {
        match self {
            ArgsSource::Configured => "configured",
            ArgsSource::Generated => "generated",
        }
    }
}

/// The arguments for `tool` (a Tool object): the configured ones when `fixed` names it,
/// otherwise generated from its `inputSchema`.
pub fn arguments_for(tool: &Value, fixed: &[ToolArgs]) -> (Value, ArgsSource) {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
    if let Some(f) = fixed.iter().find(|f| f.name == name) {
        return (f.arguments.clone(), ArgsSource::Configured);
    }
    let schema = tool.get("inputSchema").cloned().unwrap_or(json!({}));
    let mut args = generate(&schema);
    if !args.is_object() {
        args = json!({});
    }
    (args, ArgsSource::Generated)
}

/// Like [`arguments_for`], but for a call scout will cancel (`execution.cancellation`):
/// waits (durations, delays, sleeps) last [`CANCELLABLE_WAIT_SECS`] instead of the
/// shortest value (or longer, where the schema's bounds or steps say so), so the call is
/// still running when the cancellation arrives. Configured arguments are used as they are.
/// Also returns the longest wait generated: how long the call should run, which tells how
/// long an answer to it may take to come.
pub fn arguments_to_cancel(tool: &Value, fixed: &[ToolArgs]) -> (Value, Option<Duration>) {
    LONG_WAITS.with(|l| l.set(true));
    LONGEST_WAIT.with(|w| w.set(0.0));
    let (args, source) = arguments_for(tool, fixed);
    LONG_WAITS.with(|l| l.set(false));
    let longest = LONGEST_WAIT.with(std::cell::Cell::get);
    let runs_for = (source == ArgsSource::Generated && longest > 0.0)
        .then(|| Duration::try_from_secs_f64(longest).ok())
        .flatten();
    (args, runs_for)
}

/// A minimal instance of `schema`: required properties only, the first enum/const value,
/// the first `oneOf`/`anyOf` branch, `$ref`s to local definitions followed. Every URL,
/// hostname, e-mail address and IP in it points nowhere (a schema's own examples and enum
/// values included), even where that breaks the schema: safety wins over validity.
pub fn generate(schema: &Value) -> Value {
    GEN_BUDGET.with(|b| b.set(MAX_GEN_NODES));
    nowhere::point_nowhere(gen_value(schema, schema, 0), None)
}

/// The value for a string argument scout knows nothing about but its name (a prompt's
/// argument): `"scout"`, or a value that points nowhere when the name says it is a URL, a
/// host or an e-mail address (`callback_url` gets `https://scout-probe.invalid/`).
pub fn placeholder(name: &str) -> Value {
    nowhere::point_nowhere(json!("scout"), Some(name))
}

/// Arguments that violate `schema`: a required property (or, with none, any declared
/// property) with a value of the wrong type. `None` when the schema accepts anything.
pub fn invalid(schema: &Value) -> Option<Value> {
    let schema = resolve(schema, schema, 0);
    let props = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut args = match generate(schema) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let target = required
        .first()
        .copied()
        .or_else(|| props.and_then(|p| p.keys().next().map(String::as_str)))?;
    let prop_schema = props.and_then(|p| p.get(target)).unwrap_or(&Value::Null);
    let prop_schema = resolve(prop_schema, schema, 0);
    args.insert(target.to_string(), wrong_type(prop_schema));
    Some(nowhere::point_nowhere(Value::Object(args), None))
}

/// A value whose JSON type the property schema does not allow.
fn wrong_type(prop: &Value) -> Value {
    let types = type_names(prop);
    if types.is_empty() {
        // No declared type: violate an enum/const if there is one, else an object is the
        // least likely accepted value.
        return json!({"scout": "invalid"});
    }
    let candidates = [
        ("object", json!({"scout": "invalid"})),
        ("integer", json!(12345)),
        ("string", json!("scout-invalid")),
        ("array", json!(["scout-invalid"])),
    ];
    for (t, v) in candidates {
        let accepted = types.iter().any(|x| {
            x == t || (t == "integer" && x == "number") || (x == "integer" && t == "number")
        });
        if !accepted {
            return v;
        }
    }
    Value::Null
}

fn type_names(schema: &Value) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// Follows a local `$ref` (`#/$defs/x`, `#/definitions/x`, any JSON pointer into the root).
fn resolve<'a>(schema: &'a Value, root: &'a Value, depth: usize) -> &'a Value {
    if depth > MAX_GEN_DEPTH {
        return schema;
    }
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) if r.starts_with('#') => match root.pointer(&r[1..]) {
            Some(target) => resolve(target, root, depth + 1),
            None => schema,
        },
        _ => schema,
    }
}

fn gen_value(schema: &Value, root: &Value, depth: usize) -> Value {
    let spent = GEN_BUDGET.with(|b| {
        let left = b.get();
        b.set(left.saturating_sub(1));
        left == 0
    });
    if depth > MAX_GEN_DEPTH || spent {
        return Value::Null;
    }
    let schema = resolve(schema, root, depth);
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    // The schema author's own example is the most plausible valid value. `default` is not
    // used: it is often a large, slow value (a 10 s duration), and minimal is safer.
    if let Some(d) = schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return d.clone();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(branch) = schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|b| b.first())
        {
            return gen_value(branch, root, depth + 1);
        }
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        // Merge the objects each branch needs; good enough for the common "base + extra".
        let mut merged = Map::new();
        for b in all {
            if let Value::Object(m) = gen_value(b, root, depth + 1) {
                merged.extend(m);
            }
        }
        if !merged.is_empty() || schema.get("type").is_none() {
            return Value::Object(merged);
        }
    }
    let types = type_names(schema);
    // Prefer a non-null type when a union allows null ("type": ["string", "null"]).
    let ty = types
        .iter()
        .find(|t| *t != "null")
        .or_else(|| types.first())
        .map(String::as_str)
        .unwrap_or(if schema.get("properties").is_some() {
            "object"
        } else {
            "string"
        });
    match ty {
        "object" => gen_object(schema, root, depth),
        "array" => gen_array(schema, root, depth),
        "integer" => gen_number(schema, true),
        "number" => gen_number(schema, false),
        "boolean" => Value::Bool(false),
        "null" => Value::Null,
        _ => gen_string(schema),
    }
}

fn gen_object(schema: &Value, root: &Value, depth: usize) -> Value {
    let mut out = Map::new();
    let props = schema.get("properties").and_then(Value::as_object);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            let sub = props.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
            let v = if sub.is_null() {
                json!("scout")
            } else {
                gen_property(name, sub, root, depth + 1)
            };
            // A plain placeholder string gets a better value when the name or description
            // says what is wanted.
            let v = match string_hint(name, sub) {
                Some(h) if v == json!("scout") => json!(h),
                _ => v,
            };
            out.insert(name.to_string(), v);
        }
    }
    // An optional number with a declared default gets a minimal value too: the default is
    // what the server would use otherwise, and for numbers it is often slow or large (a
    // 10-second duration, 5 steps). Other optional properties stay absent.
    if let Some(props) = props {
        for (name, sub) in props {
            let numeric = matches!(
                sub.get("type").and_then(Value::as_str),
                Some("number" | "integer")
            );
            if numeric && sub.get("default").is_some() && !out.contains_key(name) {
                out.insert(name.clone(), gen_property(name, sub, root, depth + 1));
            }
        }
    }
    Value::Object(out)
}

/// What a numeric property's name says it measures, when that decides how small a value
/// may be: a tool that sleeps for `duration` should sleep briefly.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Magnitude {
    /// duration, delay, seconds, wait, sleep, interval: as short as allowed
    /// ([`SHORT_WAIT_SECS`] for a number, 1 for an integer; a declared minimum wins).
    Time,
    /// timeout: a limit, not a wait. A short one makes a working tool fail and a long one
    /// costs nothing, so 1 (or the declared minimum, if larger).
    Limit,
    /// steps: two, so that progress can be seen to increase.
    Steps,
    /// count, size, length, limit, …: the smallest allowed, at least 1 (0 often means
    /// "unlimited" or "the default").
    Count,
}

fn magnitude(name: &str) -> Option<Magnitude> {
    let lower = name.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    let millis = name.ends_with("Ms") || lower.ends_with("_ms") || lower == "ms";
    if has(&["timeout"]) {
        Some(Magnitude::Limit)
    } else if millis || has(&["duration", "delay", "second", "wait", "sleep", "interval"]) {
        Some(Magnitude::Time)
    } else if has(&["step"]) {
        Some(Magnitude::Steps)
    } else if has(&[
        "count",
        "size",
        "length",
        "limit",
        "number",
        "times",
        "repeat",
        "iteration",
        "amount",
        "total",
        "max",
        "num",
        "items",
        "pages",
        "rows",
        "lines",
        "bytes",
        "depth",
    ]) {
        Some(Magnitude::Count)
    } else {
        None
    }
}

/// A property's value: [`gen_value`], except that numbers whose name says they measure
/// time, steps or a count get the smallest value the schema allows (see [`Magnitude`]).
fn gen_property(name: &str, sub: &Value, root: &Value, depth: usize) -> Value {
    let schema = resolve(sub, root, depth);
    let types = type_names(schema);
    let integer = types.iter().any(|t| t == "integer");
    let numeric = integer || types.iter().any(|t| t == "number");
    let plain = schema.get("const").is_none()
        && schema.get("enum").is_none()
        && schema.get("examples").is_none();
    match magnitude(name) {
        Some(m) if numeric && plain => smallest_number(name, schema, integer, m),
        _ => gen_value(sub, root, depth),
    }
}

/// The smallest value of `m` that `schema` allows: the declared minimum (exclusive bounds
/// moved inside), else [`SHORT_WAIT_SECS`] for a time, 1 for a limit, 2 steps, 1 of a count;
/// rounded up to `multipleOf` and to a whole number for integers, and never above the
/// maximum. In a call scout will cancel, waits last [`CANCELLABLE_WAIT_SECS`] (a name in
/// milliseconds gets as many milliseconds).
fn smallest_number(name: &str, schema: &Value, integer: bool, m: Magnitude) -> Value {
    let cancellable = LONG_WAITS.with(|l| l.get()) && m == Magnitude::Time;
    let millis = name.ends_with("Ms") || name.to_ascii_lowercase().ends_with("ms");
    let preferred = match (m, integer) {
        _ if cancellable && millis => CANCELLABLE_WAIT_SECS * 1000.0,
        _ if cancellable => CANCELLABLE_WAIT_SECS,
        (Magnitude::Time, false) => SHORT_WAIT_SECS,
        (Magnitude::Time, true) | (Magnitude::Limit, _) | (Magnitude::Count, _) => 1.0,
        (Magnitude::Steps, _) => 2.0,
    };
    let num = |k: &str| schema.get(k).and_then(Value::as_f64);
    let mut v: f64 = preferred;
    if let Some(lo) = num("minimum") {
        v = v.max(lo);
        if m == Magnitude::Time && !cancellable {
            // A declared minimum is the shortest the tool accepts: use it.
            v = lo;
        }
    }
    if let Some(lo) = num("exclusiveMinimum")
        && v <= lo
    {
        v = if integer {
            lo.floor() + 1.0
        } else {
            lo + preferred
        };
    }
    if integer {
        v = v.ceil();
    }
    if let Some(step) = num("multipleOf").filter(|s| *s > 0.0) {
        v = (v / step).ceil() * step;
    }
    let hi = num("maximum")
        .or_else(|| num("exclusiveMaximum").map(|h| h - if integer { 1.0 } else { 0.001 }));
    if let Some(hi) = hi
        && v > hi
    {
        // The schema's range is narrow; the generic generator picks a value inside it.
        return gen_number(schema, integer);
    }
    if cancellable {
        let secs = if millis { v / 1000.0 } else { v };
        LONGEST_WAIT.with(|w| w.set(w.get().max(secs)));
    }
    if integer {
        json!(v as i64)
    } else {
        json!((v * 1e6).round() / 1e6)
    }
}

/// A value for string properties whose meaning is clear from their name or description
/// (a timezone, an `HH:MM` time); `None` otherwise.
fn string_hint(name: &str, schema: &Value) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let desc = schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if lower.contains("timezone") || lower.contains("time_zone") || lower == "tz" {
        Some("UTC")
    } else if desc.contains("HH:MM") {
        Some("12:00")
    } else {
        None
    }
}

fn gen_array(schema: &Value, root: &Value, depth: usize) -> Value {
    let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
    let items = schema.get("items").unwrap_or(&Value::Null);
    let mut out = Vec::new();
    for i in 0..min.min(64) {
        let mut v = if items.is_object() {
            gen_value(items, root, depth + 1)
        } else {
            json!("scout")
        };
        // uniqueItems: make string/number items differ.
        if schema.get("uniqueItems") == Some(&Value::Bool(true)) && i > 0 {
            v = match v {
                Value::String(s) => Value::String(format!("{s}{i}")),
                Value::Number(n) => json!(n.as_f64().unwrap_or(0.0) + i as f64),
                other => other,
            };
        }
        out.push(v);
    }
    Value::Array(out)
}

fn gen_number(schema: &Value, integer: bool) -> Value {
    let min = schema.get("minimum").and_then(Value::as_f64).or_else(|| {
        schema
            .get("exclusiveMinimum")
            .and_then(Value::as_f64)
            .map(|m| if integer { m.floor() + 1.0 } else { m + 0.5 })
    });
    let max = schema.get("maximum").and_then(Value::as_f64).or_else(|| {
        schema
            .get("exclusiveMaximum")
            .and_then(Value::as_f64)
            .map(|m| if integer { m.ceil() - 1.0 } else { m - 0.5 })
    });
    let mut v = match (min, max) {
        (Some(lo), _) => lo,
        (None, Some(hi)) if hi < 1.0 => hi,
        _ => 1.0,
    };
    if integer {
        v = v.ceil();
        if let Some(m) = schema.get("multipleOf").and_then(Value::as_f64)
            && m > 0.0
        {
            v = (v / m).ceil() * m;
        }
        json!(v as i64)
    } else {
        json!(v)
    }
}

fn gen_string(schema: &Value) -> Value {
    let format = schema.get("format").and_then(Value::as_str).unwrap_or("");
    let base = match format {
        "date-time" => "2024-01-01T00:00:00Z",
        "date" => "2024-01-01",
        "time" => "00:00:00Z",
        "uuid" => "00000000-0000-4000-8000-000000000000",
        "duration" => "PT1S",
        // URLs, hostnames, e-mail addresses and IPs: values that point nowhere.
        other => nowhere::for_format(other).unwrap_or(""),
    };
    if !base.is_empty() {
        return json!(base);
    }
    if let Some(p) = schema.get("pattern").and_then(Value::as_str)
        && let Some(s) = from_pattern(p)
    {
        return json!(s);
    }
    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = schema
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|m| m as usize);
    let mut s = String::from("scout");
    while s.chars().count() < min {
        s.push('x');
    }
    if let Some(max) = max {
        s = s.chars().take(max.max(min)).collect();
    }
    json!(s)
}

/// Best effort for simple anchored patterns made of literal characters and common classes
/// (`^[a-z]+$`, `^\d{3}-\d{4}$`); `None` when the pattern is anything cleverer.
fn from_pattern(p: &str) -> Option<String> {
    let re = regex::Regex::new(p).ok()?;
    for candidate in [
        "scout",
        "a",
        "1",
        "A",
        "abc",
        "123",
        "a1",
        "2024-01-01",
        "x_1",
    ] {
        if re.is_match(candidate) {
            return Some(candidate.to_string());
        }
    }
    None
}

/// Why `scout call`'s `--arg` / `--json-args` could not be turned into arguments.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArgError {
    #[error("--arg {0:?} is not NAME=VALUE")]
    NotAPair(String),
    #[error("--arg {name}: {value:?} is not {expected}")]
    BadValue {
        name: String,
        value: String,
        expected: &'static str,
    },
    #[error("--json-args is not a JSON object: {0}")]
    BadJson(String),
}

/// Builds `scout call` arguments: `--json-args` (a JSON object) first, then each `--arg
/// NAME=VALUE` on top, with VALUE read as the property's schema type says (integer, number,
/// boolean, or JSON for objects and arrays; a string otherwise).
pub fn cli_arguments(
    pairs: &[String],
    json_args: Option<&str>,
    input_schema: &Value,
) -> Result<Value, ArgError> {
    let mut out = match json_args {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            Ok(other) => {
                return Err(ArgError::BadJson(format!(
                    "it is {}",
                    crate::policy::schema::kind(&other)
                )));
            }
            Err(e) => return Err(ArgError::BadJson(e.to_string())),
        },
    };
    for pair in pairs {
        let (name, raw) = pair
            .split_once('=')
            .ok_or_else(|| ArgError::NotAPair(pair.clone()))?;
        let prop = input_schema
            .get("properties")
            .and_then(|p| p.get(name))
            .unwrap_or(&Value::Null);
        let types = type_names(resolve(prop, input_schema, 0));
        let bad = |expected| ArgError::BadValue {
            name: name.to_string(),
            value: raw.to_string(),
            expected,
        };
        let value = if types.iter().any(|t| t == "string") || types.is_empty() {
            json!(raw)
        } else if types.iter().any(|t| t == "integer") {
            json!(raw.parse::<i64>().map_err(|_| bad("an integer"))?)
        } else if types.iter().any(|t| t == "number") {
            json!(raw.parse::<f64>().map_err(|_| bad("a number"))?)
        } else if types.iter().any(|t| t == "boolean") {
            json!(raw.parse::<bool>().map_err(|_| bad("true or false"))?)
        } else {
            serde_json::from_str(raw).map_err(|_| bad("JSON"))?
        };
        out.insert(name.to_string(), value);
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::schema;

    fn valid(s: &Value) {
        let v = generate(s);
        schema::validate(s, &v).unwrap_or_else(|e| panic!("{v} does not satisfy {s}: {e}"));
    }

    #[test]
    fn required_only_and_types() {
        let s = json!({"type": "object", "properties": {
            "a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "boolean"},
            "opt": {"type": "string"}}, "required": ["a", "b", "c"]});
        assert_eq!(generate(&s), json!({"a": 1, "b": "scout", "c": false}));
        valid(&s);
    }

    #[test]
    fn enums_formats_bounds_nested() {
        let s = json!({"type": "object", "required": ["e", "when", "mail", "id", "n", "x", "list", "inner", "k", "u", "code"],
            "properties": {
                "e": {"type": "string", "enum": ["red", "green"]},
                "when": {"type": "string", "format": "date-time"},
                "mail": {"type": "string", "format": "email"},
                "id": {"type": "string", "format": "uuid"},
                "n": {"type": "integer", "minimum": 5, "maximum": 9},
                "x": {"type": "number", "exclusiveMinimum": 0, "maximum": 0.9},
                "list": {"type": "array", "minItems": 2, "items": {"type": "integer", "minimum": 3}},
                "inner": {"type": "object", "required": ["q"], "properties": {"q": {"const": 7}}},
                "k": {"type": "string", "minLength": 8, "maxLength": 10},
                "u": {"type": "string", "format": "uri"},
                "code": {"type": "string", "pattern": "^[0-9]+$"}}});
        let v = generate(&s);
        assert_eq!(v["e"], "red");
        assert_eq!(v["n"], 5);
        assert_eq!(v["list"], json!([3, 3]));
        assert_eq!(v["inner"], json!({"q": 7}));
        assert_eq!(v["code"], "1");
        valid(&s);
    }

    #[test]
    fn optional_numbers_with_a_default_get_a_minimal_value() {
        // server-everything's trigger-long-running-operation: duration 10 s, 5 steps by default.
        let s = json!({"type": "object", "properties": {
            "duration": {"type": "number", "default": 10},
            "steps": {"type": "number", "default": 5},
            "label": {"type": "string", "default": "x"}}});
        assert_eq!(generate(&s), json!({"duration": 0.01, "steps": 2.0}));
        // A call scout cancels must still be running when the cancellation arrives.
        let tool = json!({"name": "slow", "inputSchema": s});
        assert_eq!(
            arguments_to_cancel(&tool, &[]),
            (
                json!({"duration": 0.5, "steps": 2.0}),
                Some(Duration::from_secs_f64(0.5))
            )
        );
        // Generation afterwards is short again.
        assert_eq!(generate(&s), json!({"duration": 0.01, "steps": 2.0}));
    }

    #[test]
    fn timeouts_are_limits_and_cancelled_calls_wait_long_enough() {
        let s = json!({"type": "object", "required": ["timeout", "delayMs", "seconds"], "properties": {
            "timeout": {"type": "number"},
            "delayMs": {"type": "integer", "multipleOf": 100},
            "seconds": {"type": "integer", "minimum": 0}}});
        // A short timeout would make a working tool fail; a wait is as short as allowed.
        assert_eq!(
            generate(&s),
            json!({"timeout": 1.0, "delayMs": 100, "seconds": 0})
        );
        let tool = json!({"name": "slow", "inputSchema": s});
        assert_eq!(
            arguments_to_cancel(&tool, &[]),
            // Whole seconds round the wait up: the call runs for the longest of them.
            (
                json!({"timeout": 1.0, "delayMs": 500, "seconds": 1}),
                Some(Duration::from_secs(1))
            )
        );
        // Configured arguments win, for a cancelled call too.
        let fixed = [ToolArgs {
            name: "slow".into(),
            arguments: json!({"seconds": 5}),
        }];
        assert_eq!(
            arguments_to_cancel(&tool, &fixed),
            (json!({"seconds": 5}), None)
        );
    }

    #[test]
    fn durations_counts_and_sizes_get_the_smallest_allowed_value() {
        let s = json!({"type": "object", "required": ["delay", "delayMs", "count", "size", "limit", "wait", "timeout_s", "pages", "steps", "label"], "properties": {
            "delay": {"type": "number", "minimum": 0.5},
            "delayMs": {"type": "integer", "multipleOf": 100},
            "count": {"type": "integer", "minimum": 3},
            "size": {"type": "integer"},
            "limit": {"type": "integer", "exclusiveMinimum": 4},
            "wait": {"type": "number", "exclusiveMinimum": 0},
            "timeout_s": {"type": "number", "minimum": 0.2, "maximum": 0.3},
            "pages": {"type": "integer", "maximum": 0},
            "steps": {"type": "integer", "maximum": 10},
            "label": {"type": "number"}}});
        let v = generate(&s);
        assert_eq!(v["delay"], json!(0.5));
        assert_eq!(v["delayMs"], json!(100));
        assert_eq!(v["count"], json!(3));
        assert_eq!(v["size"], json!(1));
        assert_eq!(v["limit"], json!(5));
        assert_eq!(v["wait"], json!(0.01));
        assert_eq!(v["timeout_s"], json!(0.2));
        // Too narrow for a count of 1: the generic value inside the range.
        assert_eq!(v["pages"], json!(0));
        assert_eq!(v["steps"], json!(2));
        assert_eq!(v["label"], json!(1.0));
        valid(&s);
    }

    #[test]
    fn examples_are_used_and_defaults_are_not() {
        // server-everything's trigger-long-running-operation: duration defaults to 10 s.
        let s = json!({"type": "object", "required": ["tz", "duration"], "properties": {
            "tz": {"type": "string", "examples": ["Europe/Paris"]},
            "duration": {"type": "number", "default": 10}}});
        assert_eq!(
            generate(&s),
            json!({"tz": "Europe/Paris", "duration": 0.01})
        );
    }

    #[test]
    fn names_and_descriptions_hint_string_values() {
        // mcp-server-time's convert_time.
        let s = json!({"type": "object", "required": ["source_timezone", "time", "note"],
            "properties": {
                "source_timezone": {"type": "string"},
                "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
                "note": {"type": "string"}}});
        assert_eq!(
            generate(&s),
            json!({"source_timezone": "UTC", "time": "12:00", "note": "scout"})
        );
    }

    #[test]
    fn one_of_any_of_and_refs() {
        let s = json!({"type": "object", "required": ["a", "b", "c"],
            "$defs": {"pos": {"type": "integer", "minimum": 1}},
            "properties": {
                "a": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "b": {"anyOf": [{"$ref": "#/$defs/pos"}, {"type": "null"}]},
                "c": {"$ref": "#/$defs/pos"}}});
        assert_eq!(generate(&s), json!({"a": "scout", "b": 1, "c": 1}));
        valid(&s);
    }

    #[test]
    fn recursive_refs_end() {
        let s = json!({"type": "object", "required": ["n"], "$defs": {"node": {"type": "object",
            "required": ["next"], "properties": {"next": {"$ref": "#/$defs/node"}}}},
            "properties": {"n": {"$ref": "#/$defs/node"}}});
        let _ = generate(&s); // must terminate
    }

    #[test]
    fn invalid_arguments_violate_the_schema() {
        let s = json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
            "required": ["a", "b"]});
        let bad = invalid(&s).expect("some invalid args");
        assert!(schema::validate(&s, &bad).is_err(), "{bad}");
        assert!(bad["a"].is_object());
        let anything = json!({"type": "object"});
        assert_eq!(invalid(&anything), None);
    }

    #[test]
    fn cli_arguments_follow_the_schema() {
        let s = json!({"type": "object", "properties": {"n": {"type": "integer"},
            "f": {"type": "boolean"}, "s": {"type": "string"}, "o": {"type": "object"}}});
        let pairs: Vec<String> = ["n=3", "f=true", "s=42", "o={\"k\":1}", "extra=x=y"]
            .iter()
            .map(|p| p.to_string())
            .collect();
        assert_eq!(
            cli_arguments(&pairs, Some(r#"{"s": "base", "z": 1}"#), &s),
            Ok(json!({"s": "42", "z": 1, "n": 3, "f": true, "o": {"k": 1}, "extra": "x=y"}))
        );
        assert!(matches!(
            cli_arguments(&["n=x".into()], None, &s),
            Err(ArgError::BadValue { .. })
        ));
        assert!(matches!(
            cli_arguments(&["novalue".into()], None, &s),
            Err(ArgError::NotAPair(_))
        ));
        assert!(matches!(
            cli_arguments(&[], Some("[1]"), &s),
            Err(ArgError::BadJson(_))
        ));
    }

    #[test]
    fn configured_arguments_win() {
        let tool = json!({"name": "t", "inputSchema": {"type": "object", "required": ["a"],
            "properties": {"a": {"type": "integer"}}}});
        let fixed = vec![ToolArgs {
            name: "t".into(),
            arguments: json!({"a": 42}),
        }];
        assert_eq!(
            arguments_for(&tool, &fixed),
            (json!({"a": 42}), ArgsSource::Configured)
        );
        assert_eq!(
            arguments_for(&tool, &[]),
            (json!({"a": 1}), ArgsSource::Generated)
        );
    }
}
