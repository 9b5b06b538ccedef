//! `catalog.icons`: the URI schemes of the icons the catalogue offers (tools, resources,
//! resource templates, prompts). Only `https:` and `data:` are safe: clients must reject
//! the others, so an icon under another scheme is never shown.

use serde_json::Value;

use super::ICONS;
use crate::probe::session::Catalog;
use crate::report::exchange::Seq;
use crate::report::finding::{FindingBuilder, SkipReason};

/// The most icons named in one finding; the rest are counted.
const MAX_NAMED: usize = 10;

/// The scheme of an icon `src`, lower-cased (`None` for a value without one).
fn scheme(src: &str) -> Option<String> {
    let (s, _) = src.split_once(':')?;
    let valid = s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then(|| s.to_ascii_lowercase())
}

/// Every `(what, src)` of the catalogue's icons: `tool \`echo\``, and the icon's `src`.
fn offered(catalog: &Catalog) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let lists: [(&str, &str, &[Value]); 4] = [
        ("tool", "name", &catalog.tools),
        ("resource", "uri", &catalog.resources),
        (
            "resource template",
            "uriTemplate",
            &catalog.resource_templates,
        ),
        ("prompt", "name", &catalog.prompts),
    ];
    for (kind, key, items) in lists {
        for item in items {
            let Some(icons) = item.get("icons").and_then(Value::as_array) else {
                continue;
            };
            let who = item.get(key).and_then(Value::as_str).unwrap_or("?");
            for icon in icons {
                let src = icon.get("src").and_then(Value::as_str).unwrap_or_default();
                out.push((format!("{kind} `{who}`"), src.to_string()));
            }
        }
    }
    out
}

/// `catalog.icons`: a warning naming each icon whose `src` is neither `https:` nor `data:`.
pub fn icons(catalog: &Catalog, evidence: &[Seq]) -> FindingBuilder {
    let all = offered(catalog);
    if all.is_empty() {
        return ICONS.skip(SkipReason::NotApplicable, "the catalogue offers no icons");
    }
    let unsafe_: Vec<String> = all
        .iter()
        .filter(|(_, src)| !matches!(scheme(src).as_deref(), Some("https" | "data")))
        .map(|(who, src)| {
            let shown: String = src.chars().take(60).collect();
            let more = if src.chars().count() > 60 { "…" } else { "" };
            format!("{who}: {shown:?}{more}")
        })
        .collect();
    if unsafe_.is_empty() {
        return ICONS
            .pass(format!("all {} icons are https: or data: URIs", all.len()))
            .evidence(evidence.iter().copied());
    }
    let mut named = unsafe_
        .iter()
        .take(MAX_NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if unsafe_.len() > MAX_NAMED {
        named.push_str(&format!(" and {} more", unsafe_.len() - MAX_NAMED));
    }
    ICONS
        .warn(format!(
            "{} of {} icons are neither https: nor data: URIs, and clients must reject them: {named}",
            unsafe_.len(),
            all.len()
        ))
        .evidence(evidence.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::finding::Status;
    use serde_json::json;

    #[test]
    fn schemes() {
        assert_eq!(scheme("https://x/i.png").as_deref(), Some("https"));
        assert_eq!(scheme("DATA:image/png;base64,AA").as_deref(), Some("data"));
        assert_eq!(scheme("JavaScript:alert(1)").as_deref(), Some("javascript"));
        assert_eq!(scheme("/icon.png"), None);
    }

    #[test]
    fn unsafe_icons_are_named() {
        let catalog = Catalog {
            tools: vec![json!({"name": "t", "icons": [
                {"src": "https://example.invalid/t.png"},
                {"src": "javascript:alert(1)"}]})],
            resources: vec![json!({"uri": "fixture://r", "name": "r",
                "icons": [{"src": "file:///etc/passwd"}]})],
            ..Catalog::default()
        };
        let f = icons(&catalog, &[4]).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Warn);
        assert!(
            f.detail.contains("tool `t`: \"javascript:alert(1)\""),
            "{}",
            f.detail
        );
        assert!(f.detail.contains("resource `fixture://r`"), "{}", f.detail);
        assert!(!f.detail.contains("t.png"), "{}", f.detail);
        let none = icons(&Catalog::default(), &[4])
            .build(|_| true)
            .expect("valid");
        assert_eq!(none.status, Status::Skip);
    }
}
