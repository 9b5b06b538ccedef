//! `catalog.identity`: what a host can show a person about the server and what it offers —
//! the server's title, description, website and icons, and which tools, prompts (and their
//! arguments), resources and templates carry a human-readable `title`. An observation: every
//! one of these fields is optional, and hosts fall back to the name.

use serde_json::Value;

use super::IDENTITY;
use crate::probe::session::Catalog;
use crate::report::exchange::Seq;
use crate::report::finding::FindingBuilder;

/// A non-empty string at `key` of `v`.
fn has_text(v: Option<&Value>, key: &str) -> bool {
    v.and_then(|v| v.get(key))
        .and_then(Value::as_str)
        .is_some_and(|t| !t.trim().is_empty())
}

/// "3 of 5 tools" carry a non-empty `title` (a tool's `annotations.title` counts too: hosts
/// show it before the name).
fn titled(what: &str, items: &[&Value]) -> Option<String> {
    if items.is_empty() {
        return None;
    }
    let n = items
        .iter()
        .filter(|i| has_text(Some(i), "title") || has_text(i.get("annotations"), "title"))
        .count();
    Some(format!("{n} of {} {what}", items.len()))
}

/// What the server's `serverInfo` says of it beyond name and version.
fn server(info: Option<&Value>) -> String {
    let Some(info) = info else {
        return "no serverInfo".to_string();
    };
    let text = |k: &str| {
        info.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    let mut has = Vec::new();
    let mut lacks = Vec::new();
    for key in ["title", "description", "websiteUrl"] {
        match text(key) {
            Some(v) if key == "description" => {
                has.push(format!("a description ({} chars)", v.chars().count()))
            }
            Some(v) => has.push(format!(
                "{key} {:?}",
                v.chars().take(80).collect::<String>()
            )),
            None => lacks.push(key.to_string()),
        }
    }
    match info.get("icons").and_then(Value::as_array).map(Vec::len) {
        Some(n) if n > 0 => has.push(format!("{n} icon(s)")),
        _ => lacks.push("icons".to_string()),
    }
    let has = if has.is_empty() {
        "nothing beyond its name and version".to_string()
    } else {
        has.join(", ")
    };
    if lacks.is_empty() {
        format!("serverInfo has {has}")
    } else {
        format!("serverInfo has {has}; no {}", lacks.join(", "))
    }
}

/// `catalog.identity` for one wire's catalogue and `serverInfo`.
pub fn identity(
    catalog: &Catalog,
    server_info: Option<&Value>,
    evidence: &[Seq],
) -> FindingBuilder {
    let arguments: Vec<&Value> = catalog
        .prompts
        .iter()
        .filter_map(|p| p.get("arguments").and_then(Value::as_array))
        .flatten()
        .collect();
    let lists = [
        titled("tools", &catalog.tools.iter().collect::<Vec<_>>()),
        titled("prompts", &catalog.prompts.iter().collect::<Vec<_>>()),
        titled("prompt arguments", &arguments),
        titled("resources", &catalog.resources.iter().collect::<Vec<_>>()),
        titled(
            "resource templates",
            &catalog.resource_templates.iter().collect::<Vec<_>>(),
        ),
    ];
    let titles: Vec<String> = lists.into_iter().flatten().collect();
    let titles = if titles.is_empty() {
        "the catalogue is empty".to_string()
    } else {
        format!("a title on {}", titles.join(", "))
    };
    IDENTITY
        .info(format!("{}; {titles}", server(server_info)))
        .evidence(evidence.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn says_what_the_server_and_each_list_carry() {
        let catalog = Catalog {
            tools: vec![
                json!({"name": "a", "title": "A"}),
                json!({"name": "b"}),
                json!({"name": "c", "annotations": {"title": "C"}}),
            ],
            prompts: vec![
                json!({"name": "p", "arguments": [{"name": "x", "title": "X"}, {"name": "y"}]}),
            ],
            ..Catalog::default()
        };
        let info = json!({"name": "s", "version": "1", "title": "S", "websiteUrl": "https://s.example", "icons": [{"src": "https://s.example/i.png"}]});
        let f = identity(&catalog, Some(&info), &[1])
            .build(|_| true)
            .expect("valid");
        assert_eq!(f.status, crate::report::finding::Status::Info);
        for said in [
            "title \"S\"",
            "websiteUrl \"https://s.example\"",
            "1 icon(s)",
            "no description",
            "2 of 3 tools",
            "0 of 1 prompts",
            "1 of 2 prompt arguments",
        ] {
            assert!(f.detail.contains(said), "{said}: {}", f.detail);
        }
        assert!(
            !f.detail.contains("resources"),
            "empty lists are left out: {}",
            f.detail
        );
        let bare = identity(
            &Catalog::default(),
            Some(&json!({"name": "s", "version": "1"})),
            &[1],
        )
        .build(|_| true)
        .expect("valid");
        assert!(
            bare.detail.contains("nothing beyond its name and version"),
            "{}",
            bare.detail
        );
    }
}
