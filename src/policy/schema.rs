//! JSON Schema handling for tool schemas: meta-validation against the schema's dialect,
//! compiling with bounded size and depth, and validating instances.
//!
//! Safety: `jsonschema` is built with its default features off (no `resolve-http`, no
//! `resolve-file`), and every validator here is built with [`NoRetrieval`], so a `$ref` to
//! `http://…` or `file:///…` in a hostile schema is never fetched: it becomes a
//! [`SchemaError::Compile`] that the caller reports as a finding.

use serde_json::Value;

/// Schemas nested deeper than this are not compiled (a hostile server could send a schema
/// deep enough to exhaust the stack of a recursive compiler).
pub const MAX_DEPTH: usize = 64;
/// Schemas larger than this (serialised) are not compiled.
pub const MAX_BYTES: usize = 512 * 1024;

/// Why a schema could not be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SchemaError {
    #[error("the schema is nested {0} levels deep (limit {MAX_DEPTH}); not compiled")]
    TooDeep(usize),
    #[error("the schema is {0} bytes (limit {MAX_BYTES}); not compiled")]
    TooLarge(usize),
    #[error("the schema is not valid for its dialect: {0}")]
    Invalid(String),
    #[error("the schema cannot be compiled: {0}")]
    Compile(String),
}

/// A retriever that refuses every external reference: scout never dereferences a `$ref` to
/// the network or the file system (2026-07-28 forbids auto-dereferencing network refs, and a
/// file ref could read the CI machine's files).
#[derive(Debug, Clone, Copy)]
pub struct NoRetrieval;

impl jsonschema::Retrieve for NoRetrieval {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!("external $ref {} is not fetched", uri.as_str()).into())
    }
}

/// Nesting depth of a JSON value (a scalar is depth 1). Iterative, so a very deep value cannot
/// overflow the stack while it is being measured.
pub fn depth(value: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(value, 1usize)];
    while let Some((v, d)) = stack.pop() {
        max = max.max(d);
        match v {
            Value::Object(m) => stack.extend(m.values().map(|c| (c, d + 1))),
            Value::Array(a) => stack.extend(a.iter().map(|c| (c, d + 1))),
            _ => {}
        }
    }
    max
}

/// Refuses schemas that are too deep or too large to compile safely.
pub fn check_bounds(schema: &Value) -> Result<(), SchemaError> {
    let d = depth(schema);
    if d > MAX_DEPTH {
        return Err(SchemaError::TooDeep(d));
    }
    let size = serde_json::to_vec(schema).map(|v| v.len()).unwrap_or(0);
    if size > MAX_BYTES {
        return Err(SchemaError::TooLarge(size));
    }
    Ok(())
}

/// The dialect a schema declares, or 2020-12 when `$schema` is absent (the default from
/// 2025-11-25 on; scout applies it to older revisions too, since they name no dialect).
pub fn dialect(schema: &Value) -> &str {
    schema
        .get("$schema")
        .and_then(Value::as_str)
        .unwrap_or("https://json-schema.org/draft/2020-12/schema")
}

/// Checks a schema against its dialect's meta-schema and compiles it (no external refs).
pub fn check(schema: &Value) -> Result<(), SchemaError> {
    compile(schema).map(|_| ())
}

/// Meta-validates and compiles a schema into a validator. Unknown formats are tolerated and
/// formats are not asserted (they are annotations in 2020-12).
pub fn compile(schema: &Value) -> Result<jsonschema::Validator, SchemaError> {
    check_bounds(schema)?;
    if !(schema.is_object() || schema.is_boolean()) {
        return Err(SchemaError::Invalid(format!(
            "a schema must be an object or a boolean, not {}",
            kind(schema)
        )));
    }
    // An unknown `$schema` URI has no bundled meta-schema: report it rather than resolve it.
    jsonschema::meta::validate(schema).map_err(|e| SchemaError::Invalid(e.to_string()))?;
    jsonschema::options()
        .with_retriever(NoRetrieval)
        .should_ignore_unknown_formats(true)
        .should_validate_formats(false)
        .build(schema)
        .map_err(|e| SchemaError::Compile(e.to_string()))
}

/// Validates `instance` against `schema`; the error lists the first few violations.
pub fn validate(schema: &Value, instance: &Value) -> Result<(), SchemaError> {
    let validator = compile(schema)?;
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .take(3)
        .map(|e| {
            let path = e.instance_path().to_string();
            if path.is_empty() {
                e.to_string()
            } else {
                format!("{path}: {e}")
            }
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(SchemaError::Invalid(errors.join("; ")))
    }
}

/// The JSON type name of a value, for messages.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// True when the schema's root says `type: "object"` (the spec's rule for inputSchema).
pub fn root_is_object(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::io::Read;
    use std::net::TcpListener;
    use std::time::Duration;

    #[test]
    fn valid_schema_compiles_and_validates() {
        let s =
            json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]});
        assert!(check(&s).is_ok());
        assert!(validate(&s, &json!({"a": 1})).is_ok());
        let err = validate(&s, &json!({"a": "x"})).expect_err("a string is not an integer");
        assert!(err.to_string().contains("/a"), "{err}");
    }

    #[test]
    fn invalid_for_its_dialect_is_reported() {
        let s = json!({"type": "object", "properties": {"a": {"type": "no-such-type"}}});
        assert!(matches!(check(&s), Err(SchemaError::Invalid(_))));
        let s7 = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": "a"});
        assert!(matches!(check(&s7), Err(SchemaError::Invalid(_))));
        // The TypeScript SDK declares draft-07 (zod-to-json-schema): valid for its dialect.
        let ts = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"message": {"type": "string"}}, "required": ["message"]});
        assert_eq!(check(&ts), Ok(()));
        assert_eq!(dialect(&ts), "http://json-schema.org/draft-07/schema#");
        assert!(matches!(check(&json!("x")), Err(SchemaError::Invalid(_))));
    }

    #[test]
    fn unknown_formats_are_tolerated() {
        let s = json!({"type": "object", "properties": {"a": {"type": "string", "format": "x-custom"}}});
        assert!(validate(&s, &json!({"a": "anything"})).is_ok());
    }

    #[test]
    fn deep_and_huge_schemas_are_refused_before_compiling() {
        let mut s = json!({"type": "object"});
        for _ in 0..200 {
            s = json!({"type": "object", "properties": {"x": s}});
        }
        assert!(matches!(check(&s), Err(SchemaError::TooDeep(_))));
        let big = "d".repeat(MAX_BYTES + 10);
        let s = json!({"type": "object", "description": big});
        assert!(matches!(check(&s), Err(SchemaError::TooLarge(_))));
    }

    #[test]
    fn local_defs_refs_resolve() {
        let s = json!({"type": "object", "$defs": {"n": {"type": "integer"}},
                       "properties": {"a": {"$ref": "#/$defs/n"}}});
        assert!(validate(&s, &json!({"a": 2})).is_ok());
        assert!(validate(&s, &json!({"a": "2"})).is_err());
    }

    /// A remote `$ref` and a `file:///etc/passwd` ref cause no network or
    /// file access; they become errors, not crashes. The listener must receive nothing.
    #[test]
    fn remote_and_file_refs_are_never_fetched() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("nonblocking");
        let port = listener.local_addr().expect("addr").port();
        let remote = json!({"type": "object", "properties": {
            "a": {"$ref": format!("http://127.0.0.1:{port}/schema.json")}}});
        let file = json!({"type": "object", "properties": {"a": {"$ref": "file:///etc/passwd"}}});
        let remote_root = json!({"$ref": format!("http://127.0.0.1:{port}/root.json")});
        for s in [&remote, &file, &remote_root] {
            // The error comes from `NoRetrieval`: scout's retriever was asked and refused.
            match validate(s, &json!({"a": 1})) {
                Err(SchemaError::Compile(e)) => assert!(e.contains("is not fetched"), "{e}"),
                other => panic!("an external ref must not resolve: {s} gave {other:?}"),
            }
        }
        std::thread::sleep(Duration::from_millis(100));
        match listener.accept() {
            Ok((mut conn, _)) => {
                let mut buf = String::new();
                let _ = conn.read_to_string(&mut buf);
                panic!("the validator connected to the listener: {buf}");
            }
            Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock),
        }
    }
}
