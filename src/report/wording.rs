//! A finding's detail reads as a sentence. Probes write their details as lower-case clauses
//! ("the server answered …", "tools/list listed 3 tools") because the same words are also
//! joined into longer details; [`sentence`] turns the finished detail into a sentence when
//! the finding is built, so every emitter shows the same text.

/// `text` as a sentence: its first word capitalised ("the server …" → "The server …"), or,
/// when that word is an identifier a capital would mangle (`tools/list`, `serverInfo`,
/// `_meta[…]`, `x-mcp-header`, the methods `initialize` and `ping`), put in a code span
/// instead. Text that already starts with a capital, a digit, a sign, a quote or a code span
/// is left as it is.
pub fn sentence(text: String) -> String {
    let Some(first) = text.chars().next() else {
        return text;
    };
    if !(first.is_ascii_lowercase() || first == '_') {
        return text;
    }
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    let word = &text[..end];
    // Punctuation after the word stays outside the code span.
    let token = word.trim_end_matches([',', ':', ';']);
    if is_identifier(token) {
        return format!("`{token}`{}", &text[token.len()..]);
    }
    let mut out = String::with_capacity(text.len());
    out.push(first.to_ascii_uppercase());
    out.push_str(&text[first.len_utf8()..]);
    out
}

/// MCP methods that are single English-looking words.
const BARE_METHODS: [&str; 2] = ["initialize", "ping"];

/// True for a word that names something in code rather than being English.
fn is_identifier(token: &str) -> bool {
    if token.is_empty() || token.contains('`') {
        return false;
    }
    let hyphens = token.matches('-').count();
    BARE_METHODS.contains(&token)
        || token.contains(['/', '_', '.', '[', '(', '=', '$'])
        || token.chars().any(|c| c.is_ascii_uppercase())
        || token.chars().any(|c| c.is_ascii_digit())
        // `x-mcp-header`, `mcp-session-id`; one hyphen is English (`dual-era`, `made-up`).
        || hyphens >= 2
        || token.split('-').any(|part| part.len() == 1 && hyphens > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> String {
        sentence(t.to_string())
    }

    #[test]
    fn clauses_become_sentences() {
        assert_eq!(s("the server answered"), "The server answered");
        assert_eq!(s("a call got -32602"), "A call got -32602");
        assert_eq!(s("dual-era: both wires"), "Dual-era: both wires");
        assert_eq!(s("base: PATH, HOME"), "Base: PATH, HOME");
        assert_eq!(s("x"), "X");
    }

    #[test]
    fn identifiers_get_a_code_span_instead_of_a_capital() {
        assert_eq!(
            s("tools/list listed 3 tools"),
            "`tools/list` listed 3 tools"
        );
        assert_eq!(s("serverInfo of the result"), "`serverInfo` of the result");
        assert_eq!(
            s("_meta[\"io.modelcontextprotocol/serverInfo\"] of it"),
            "`_meta[\"io.modelcontextprotocol/serverInfo\"]` of it"
        );
        assert_eq!(s("x-mcp-header exists"), "`x-mcp-header` exists");
        assert_eq!(s("ping returned {}"), "`ping` returned {}");
        assert_eq!(s("initialize: failed"), "`initialize`: failed");
    }

    #[test]
    fn sentences_are_left_alone() {
        for t in [
            "The server",
            "`echo` answered",
            "3 tools",
            "-32601 came back",
            "\"x\" is not a name",
            "",
        ] {
            assert_eq!(s(t), t);
        }
    }
}
