//! `execution.resource_templates`: each listed resource template is expanded with inert
//! values and read, as an agent reads what a template describes. A variable gets the value
//! an argument of its name would get (`scout`, or one that points nowhere: `.invalid`), or
//! `1` when it names an identifier, so the read can reach no one; the instance may not
//! exist, and the server may say so with an error, but it must answer, and an answer with
//! contents must be a well-formed one.

use iri_string::spec::UriSpec;
use iri_string::template::UriTemplateStr;
use iri_string::template::context::{Context, Visitor};
use serde_json::Value;

use super::MAX_READS;
use super::reads::read_problems;
use crate::client::Connection;
use crate::probe::catalog::describe;
use crate::probe::session::Catalog;
use crate::report::check::spec_url;
use crate::report::exchange::Seq;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::transport::limiter::RateLimiter;

crate::checks! { phase: Execution;
    RESOURCE_TEMPLATES = "execution.resource_templates", Major, "Resource templates can be read", spec_url::R26,
        "Each listed resource template (up to 10) is expanded as RFC 6570 says, every variable with an inert value (`1` for a name ending in id, else `scout`, or a value that points nowhere, under .invalid, when its name says it is a URL, a host or an e-mail address), and read. The read must be answered: with contents (each with a uri and text or blob; an empty contents array is no answer) or with a JSON-RPC error, as for a resource that does not exist. No answer, a malformed result or an empty success fails; a uriTemplate that is not an RFC 6570 template is a warning. Not applicable when no template is listed.",
        "Answer a read of any URI your templates describe: with contents, or with an error for an instance that does not exist.";
}

/// Every variable of a template, bound to the value an argument of that name would get; an
/// identifier (a name ending in `id`) gets `1`, so that a template of numbered records
/// (`demo://resource/{resourceId}`) reads one (a read changes nothing).
struct Inert;

impl Context for Inert {
    fn visit<V: Visitor>(&self, visitor: V) -> V::Result {
        let name = visitor.var_name().as_str().to_string();
        if name.to_ascii_lowercase().ends_with("id") {
            return visitor.visit_string("1");
        }
        let value = crate::policy::args::placeholder(&name);
        visitor.visit_string(value.as_str().unwrap_or("scout").to_string())
    }
}

/// `template` expanded with [`Inert`] values, or why it is no RFC 6570 template.
pub fn expand(template: &str) -> Result<String, String> {
    let t = UriTemplateStr::new(template).map_err(|e| e.to_string())?;
    let expanded = t.expand::<UriSpec, _>(&Inert).map_err(|e| e.to_string())?;
    Ok(expanded.to_string())
}

/// Reads up to [`MAX_READS`] listed templates, each expanded, all at once, and judges them.
pub async fn read_templates(
    wire: &Connection,
    limiter: &RateLimiter,
    catalog: &Catalog,
) -> FindingBuilder {
    let templates: Vec<&str> = catalog
        .resource_templates
        .iter()
        .take(MAX_READS)
        .filter_map(|t| t.get("uriTemplate").and_then(Value::as_str))
        .collect();
    if templates.is_empty() {
        return RESOURCE_TEMPLATES.skip(
            SkipReason::NotApplicable,
            "the server lists no resource template",
        );
    }
    let read = |uri: String| async move {
        limiter.wait().await;
        let reply = wire
            .request_completing("resources/read", serde_json::json!({"uri": uri}))
            .await;
        (uri, reply)
    };
    let mut fails = Vec::new();
    let mut warns = Vec::new();
    let mut uris = Vec::new();
    for t in &templates {
        match expand(t) {
            Ok(uri) => uris.push(uri),
            Err(why) => warns.push(format!("`{t}` is not an RFC 6570 template ({why})")),
        }
    }
    let replies = futures_util::future::join_all(uris.into_iter().map(read)).await;
    let mut evidence: Vec<Seq> = catalog.evidence.clone();
    let mut contents = 0;
    let mut refused = Vec::new();
    for (uri, reply) in &replies {
        evidence.extend(reply.evidence.iter().copied());
        match (reply.result(), reply.error_code()) {
            (Some(_), _) => {
                let p = read_problems(uri, reply);
                if p.is_empty() {
                    contents += 1;
                }
                fails.extend(p);
            }
            (None, Some(code)) => refused.push(format!("{uri} ({code})")),
            (None, None) => fails.push(format!("reading {uri} got {}", describe(reply))),
        }
    }
    let read = format!(
        "{} template(s) expanded and read: {contents} answered with contents{}",
        replies.len(),
        if refused.is_empty() {
            String::new()
        } else {
            format!(
                ", {} with an error, as for an instance that does not exist: {}",
                refused.len(),
                refused.join(", ")
            )
        }
    );
    let f = if !fails.is_empty() {
        RESOURCE_TEMPLATES.fail(format!("{}; {read}", fails.join("; ")))
    } else if !warns.is_empty() {
        RESOURCE_TEMPLATES.warn(format!("{}; {read}", warns.join("; ")))
    } else {
        RESOURCE_TEMPLATES.pass(read)
    };
    f.evidence(evidence)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variable_gets_an_inert_value_and_every_operator_is_expanded() {
        assert_eq!(
            expand("notes://{name}/body").as_deref(),
            Ok("notes://scout/body")
        );
        assert_eq!(
            expand("search://items{?q,limit}").as_deref(),
            Ok("search://items?q=scout&limit=scout")
        );
        assert_eq!(
            expand("demo://resource/{resourceId}").as_deref(),
            Ok("demo://resource/1")
        );
        // A URL-like variable points nowhere (percent-encoded in a simple expansion).
        let fetched = expand("fetch://{url}").expect("expands");
        assert!(fetched.contains(".invalid"), "{fetched}");
        assert!(expand("broken://{name").is_err());
    }
}
