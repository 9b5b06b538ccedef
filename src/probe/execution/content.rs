//! `execution.content_blocks`: the content blocks (and embedded resource contents) a result
//! carries, judged against the block types of the revision in use.

use base64::Engine;
use serde_json::Value;

use super::CONTENT_BLOCKS;
use crate::report::finding::FindingBuilder;

/// Which content-block types a revision knows.
fn block_types(version: &str) -> &'static [&'static str] {
    match version {
        "2024-11-05" => &["text", "image", "resource"],
        "2025-03-26" => &["text", "image", "audio", "resource"],
        _ => &["text", "image", "audio", "resource", "resource_link"],
    }
}

/// What is wrong with one content block under `version` (empty = well formed).
pub fn content_block_problems(block: &Value, version: &str) -> Vec<String> {
    let mut p = Vec::new();
    let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let Some(ty) = str_of(block, "type") else {
        return vec!["a block has no string `type`".into()];
    };
    if !block_types(version).contains(&ty.as_str()) {
        p.push(format!(
            "type `{ty}` is not a content block type in {version}"
        ));
        return p;
    }
    let b64 = |s: &str| {
        base64::engine::general_purpose::STANDARD
            .decode(s.trim())
            .is_ok()
    };
    match ty.as_str() {
        "text" if str_of(block, "text").is_none() => {
            p.push("a text block has no string `text`".into());
        }
        "image" | "audio" => {
            match str_of(block, "data") {
                None => p.push(format!("an {ty} block has no string `data`")),
                Some(d) if !b64(&d) => p.push(format!("an {ty} block's data is not valid base64")),
                _ => {}
            }
            if str_of(block, "mimeType").is_none_or(|m| m.is_empty()) {
                p.push(format!("an {ty} block has no mimeType"));
            }
        }
        "resource_link" => {
            for k in ["uri", "name"] {
                if str_of(block, k).is_none() {
                    p.push(format!("a resource_link has no string `{k}`"));
                }
            }
        }
        "resource" => match block.get("resource") {
            Some(r) if r.is_object() => p.extend(
                resource_contents_problems(r)
                    .into_iter()
                    .map(|e| format!("embedded resource: {e}")),
            ),
            _ => p.push("a resource block has no `resource` object".into()),
        },
        _ => {}
    }
    p
}

/// Problems of one `ResourceContents`: a uri and exactly one of text / base64 blob.
pub fn resource_contents_problems(r: &Value) -> Vec<String> {
    let mut p = Vec::new();
    if r.get("uri").and_then(Value::as_str).is_none() {
        p.push("no string `uri`".to_string());
    }
    let text = r.get("text");
    let blob = r.get("blob");
    match (text, blob) {
        (Some(t), None) if t.is_string() => {}
        (None, Some(Value::String(b))) => {
            if base64::engine::general_purpose::STANDARD
                .decode(b.trim())
                .is_err()
            {
                p.push("`blob` is not valid base64".into());
            }
        }
        (Some(_), Some(_)) => p.push("both `text` and `blob`".into()),
        (None, None) => p.push("neither `text` nor `blob`".into()),
        _ => p.push("`text`/`blob` is not a string".into()),
    }
    p
}

/// `execution.content_blocks` for one result (`None` when the result has no blocks).
pub fn content_blocks(
    name: &str,
    result: &Value,
    version: &str,
    evidence: &[u64],
) -> Option<FindingBuilder> {
    let blocks = result.get("content")?.as_array()?;
    if blocks.is_empty() {
        return None;
    }
    let problems: Vec<String> = blocks
        .iter()
        .enumerate()
        .flat_map(|(i, b)| {
            content_block_problems(b, version)
                .into_iter()
                .map(move |e| format!("block {i}: {e}"))
        })
        .collect();
    let ev = evidence.iter().copied();
    Some(if problems.is_empty() {
        CONTENT_BLOCKS
            .pass(format!(
                "`{name}` returned {} well-formed block(s)",
                blocks.len()
            ))
            .subject(name)
            .evidence(ev)
    } else {
        CONTENT_BLOCKS
            .fail(format!("`{name}`: {}", problems.join("; ")))
            .subject(name)
            .evidence(ev)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::built;
    use crate::report::finding::Status;
    use serde_json::json;

    #[test]
    fn content_block_rules() {
        let v = "2025-11-25";
        assert!(content_block_problems(&json!({"type": "text", "text": "x"}), v).is_empty());
        assert!(
            content_block_problems(
                &json!({"type": "image", "data": "aGk=", "mimeType": "image/png"}),
                v
            )
            .is_empty()
        );
        assert_eq!(
            content_block_problems(&json!({"type": "image", "data": "!!", "mimeType": ""}), v)
                .len(),
            2
        );
        assert_eq!(
            content_block_problems(
                &json!({"type": "audio", "data": "aGk=", "mimeType": "audio/wav"}),
                "2024-11-05"
            )
            .len(),
            1
        );
        assert_eq!(
            content_block_problems(&json!({"type": "resource_link", "uri": "x://"}), v).len(),
            1
        );
        assert!(
            content_block_problems(
                &json!({"type": "resource", "resource": {"uri": "x://", "blob": "aGk="}}),
                v
            )
            .is_empty()
        );
        assert_eq!(content_block_problems(&json!({"type": "resource", "resource": {"uri": "x://", "text": "a", "blob": "aGk="}}), v).len(), 1);
        assert_eq!(
            content_block_problems(&json!({"type": "video"}), v).len(),
            1
        );
        let f = content_blocks("t", &json!({"content": [{"type": "text"}]}), v, &[5]).map(built);
        assert_eq!(
            f.map(|f| (f.status, f.evidence)),
            Some((Status::Fail, vec![5]))
        );
    }
}
