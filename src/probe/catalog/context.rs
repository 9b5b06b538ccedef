//! `catalog.context_size`: what the whole catalogue costs an agent's context window.

use super::CONTEXT_SIZE;
use crate::probe::session::Catalog;
use crate::report::exchange::Seq;
use crate::report::finding::FindingBuilder;

/// Tokens per byte of JSON, for the estimate: about 4 bytes of JSON per token, the usual
/// rule of thumb for English text and JSON in current tokenizers. An estimate, not a count.
pub const BYTES_PER_TOKEN: usize = 4;

/// The estimated token cost of the whole catalogue (tools, resources, templates, prompts
/// serialised as the agent would receive them).
pub fn estimate_tokens(c: &Catalog) -> u64 {
    let bytes: usize = [&c.tools, &c.resources, &c.resource_templates, &c.prompts]
        .iter()
        .map(|items| serde_json::to_vec(items).map(|v| v.len()).unwrap_or(0))
        .sum();
    bytes.div_ceil(BYTES_PER_TOKEN) as u64
}

/// `catalog.context_size`: info, or a warn above `threshold` tokens.
pub fn context_size(c: &Catalog, threshold: u64, evidence: &[Seq]) -> FindingBuilder {
    let tokens = estimate_tokens(c);
    let detail = format!(
        "the catalogue ({} tools, {} resources, {} templates, {} prompts) costs about {tokens} tokens of an agent's context (JSON bytes / {BYTES_PER_TOKEN})",
        c.tools.len(),
        c.resources.len(),
        c.resource_templates.len(),
        c.prompts.len()
    );
    if tokens > threshold && !evidence.is_empty() {
        CONTEXT_SIZE
            .warn(format!("{detail}, above the threshold of {threshold}"))
            .evidence(evidence.iter().copied())
    } else {
        CONTEXT_SIZE.info(detail).evidence(evidence.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::built;
    use crate::report::finding::Status;
    use serde_json::json;

    #[test]
    fn context_size_estimate() {
        let c = Catalog {
            tools: vec![json!({"name": "x".repeat(396)})],
            ..Catalog::default()
        };
        // [{"name":"xxx…"}] is 396 + 12 bytes, the three empty lists 2 bytes each:
        // 414 bytes = 104 tokens at 4 bytes a token (rounded up).
        assert_eq!(estimate_tokens(&c), 104);
        assert_eq!(built(context_size(&c, 1000, &[1])).status, Status::Info);
        assert_eq!(built(context_size(&c, 100, &[1])).status, Status::Warn);
    }
}
