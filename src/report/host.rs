//! The host profiles of the `compat` category: hosts whose documented rules for tools are
//! stricter than MCP's (docs/compat.md quotes each rule's source).

use serde::{Deserialize, Serialize};

/// A named host profile, selected with `compat = […]` or `--compat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum HostProfile {
    /// The Claude API (Messages API tool definitions).
    #[serde(rename = "anthropic")]
    Anthropic,
    /// OpenAI function calling, as OpenAI applies it to every function.
    #[serde(rename = "openai")]
    Openai,
    /// OpenAI function calling with strict mode (`"strict": true`, Structured Outputs): an
    /// opt-in of the function's author, so judged only when selected.
    #[serde(rename = "openai-strict")]
    OpenaiStrict,
    /// The Gemini API's function declarations.
    #[serde(rename = "gemini")]
    Gemini,
    /// A host that reads only the first page of `tools/list`.
    #[serde(rename = "first-page")]
    FirstPage,
}

impl HostProfile {
    /// Every profile, in report order.
    pub const ALL: [HostProfile; 5] = [
        HostProfile::Anthropic,
        HostProfile::Openai,
        HostProfile::OpenaiStrict,
        HostProfile::Gemini,
        HostProfile::FirstPage,
    ];

    /// The name as written in config and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            HostProfile::Anthropic => "anthropic",
            HostProfile::Openai => "openai",
            HostProfile::OpenaiStrict => "openai-strict",
            HostProfile::Gemini => "gemini",
            HostProfile::FirstPage => "first-page",
        }
    }

    /// Judged when no profile is selected: a profile whose rules the host applies without
    /// an opt-in. Strict mode is one (`"strict": true` on a function), so `openai-strict` is
    /// judged only when selected.
    pub fn is_default(self) -> bool {
        self != HostProfile::OpenaiStrict
    }

    /// Parses a profile name.
    pub fn parse(s: &str) -> Option<HostProfile> {
        HostProfile::ALL
            .into_iter()
            .find(|p| p.as_str() == s.trim())
    }

    /// The known names, for a usage error.
    pub fn known() -> String {
        HostProfile::ALL.map(HostProfile::as_str).join(", ")
    }
}

impl std::fmt::Display for HostProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in HostProfile::ALL {
            assert_eq!(HostProfile::parse(p.as_str()), Some(p));
        }
        assert_eq!(HostProfile::parse("claude-desktop"), None);
    }

    #[test]
    fn only_an_opt_in_profile_is_left_out_by_default() {
        let defaults: Vec<&str> = HostProfile::ALL
            .into_iter()
            .filter(|p| p.is_default())
            .map(HostProfile::as_str)
            .collect();
        assert_eq!(defaults, ["anthropic", "openai", "gemini", "first-page"]);
    }
}
