//! Resources, resource templates, prompts and completions as listed:
//! `catalog.resources`, `catalog.prompts` and `catalog.completions`.

use serde_json::Value;

use super::paging::{Paged, describe};
use super::{COMPLETIONS, PROMPTS, RESOURCES};
use crate::policy::schema;
use crate::report::exchange::Seq;
use crate::report::finding::FindingBuilder;
use crate::transport::Reply;

/// `catalog.resources`: both lists answered and every entry has its required fields.
pub fn resources(resources: &Paged, templates: &Paged) -> FindingBuilder {
    let ev: Vec<Seq> = resources
        .evidence
        .iter()
        .chain(&templates.evidence)
        .copied()
        .collect();
    if let Some(r) = &resources.failed {
        return RESOURCES
            .fail(format!(
                "the server declares resources, but resources/list got {}",
                describe(r)
            ))
            .evidence(r.evidence.iter().copied());
    }
    if let Some(p) = resources
        .problem
        .as_ref()
        .or(templates.problem.as_ref())
        .or(resources.malformed.as_ref())
        .or(templates.malformed.as_ref())
    {
        return RESOURCES.fail(p.clone()).evidence(ev);
    }
    let mut problems = Vec::new();
    let mut soft = Vec::new();
    if let Some(r) = &templates.failed {
        // Templates are part of the resources feature; -32601 means the server has none.
        // Another error leaves the agent without templates, but its resources still list
        // and read: a deviation it can live with, so a warning.
        if r.error_code() != Some(-32601) {
            soft.push(format!("resources/templates/list got {}", describe(r)));
        }
    }
    let has = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).is_some();
    for (i, r) in resources.items.iter().enumerate() {
        for k in ["uri", "name"] {
            if !has(r, k) {
                problems.push(format!("resource #{i} has no string `{k}`"));
            }
        }
    }
    for (i, t) in templates.items.iter().enumerate() {
        for k in ["uriTemplate", "name"] {
            if !has(t, k) {
                problems.push(format!("resource template #{i} has no string `{k}`"));
            }
        }
    }
    if !problems.is_empty() {
        problems.extend(soft);
        RESOURCES.fail(problems.join("; ")).evidence(ev)
    } else if !soft.is_empty() {
        RESOURCES
            .warn(format!(
                "resources/list listed {} well-formed resource(s), but {}",
                resources.items.len(),
                soft.join("; ")
            ))
            .evidence(ev)
    } else {
        RESOURCES
            .pass(format!(
                "resources/list and resources/templates/list listed {} resource(s) and {} template(s), all well formed",
                resources.items.len(),
                templates.items.len()
            ))
            .evidence(ev)
    }
}

/// `catalog.prompts`: the list answered and every prompt and argument is well formed.
pub fn prompts(paged: &Paged) -> FindingBuilder {
    let ev = paged.evidence.iter().copied();
    if let Some(r) = &paged.failed {
        return PROMPTS
            .fail(format!(
                "the server declares prompts, but prompts/list got {}",
                describe(r)
            ))
            .evidence(r.evidence.iter().copied());
    }
    if let Some(p) = paged.problem.as_ref().or(paged.malformed.as_ref()) {
        return PROMPTS.fail(p.clone()).evidence(ev);
    }
    let mut problems = Vec::new();
    for (i, p) in paged.items.iter().enumerate() {
        let Some(name) = p.get("name").and_then(Value::as_str) else {
            problems.push(format!("prompt #{i} has no string `name`"));
            continue;
        };
        match p.get("arguments") {
            None | Some(Value::Null) => {}
            Some(Value::Array(args)) => {
                for (j, a) in args.iter().enumerate() {
                    if a.get("name").and_then(Value::as_str).is_none() {
                        problems.push(format!(
                            "prompt `{name}` argument #{j} has no string `name`"
                        ));
                    }
                    if let Some(r) = a.get("required").filter(|r| !r.is_boolean()) {
                        problems.push(format!(
                            "prompt `{name}` argument #{j}: required is {}",
                            schema::kind(r)
                        ));
                    }
                }
            }
            Some(other) => problems.push(format!(
                "prompt `{name}`: arguments is {}, not an array",
                schema::kind(other)
            )),
        }
    }
    if problems.is_empty() {
        PROMPTS
            .pass(format!(
                "prompts/list listed {} prompt(s), all well formed",
                paged.items.len()
            ))
            .evidence(ev)
    } else {
        PROMPTS.fail(problems.join("; ")).evidence(ev)
    }
}

/// `catalog.completions`: `completion.values` is an array of at most 100 strings.
pub fn judge_completion(reply: &Reply) -> FindingBuilder {
    let ev = reply.evidence.iter().copied();
    let Some(result) = reply.result() else {
        return COMPLETIONS
            .fail(format!(
                "the server declares completions, but completion/complete got {}",
                describe(reply)
            ))
            .evidence(ev);
    };
    match result
        .get("completion")
        .and_then(|c| c.get("values"))
        .and_then(Value::as_array)
    {
        None => COMPLETIONS
            .fail("completion/complete answered without completion.values")
            .evidence(ev),
        Some(v) if v.len() > 100 => COMPLETIONS
            .fail(format!(
                "completion/complete returned {} values; at most 100 are allowed",
                v.len()
            ))
            .evidence(ev),
        Some(v) if v.iter().any(|x| !x.is_string()) => COMPLETIONS
            .fail("completion/complete returned completion.values holding something other than strings")
            .evidence(ev),
        Some(v) => COMPLETIONS
            .pass(format!("completion/complete returned {} value(s)", v.len()))
            .evidence(ev),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::{built, err, ok, paged};
    use crate::report::finding::Status;
    use serde_json::json;

    #[test]
    fn resources_prompts_completions() {
        let r = paged(vec![json!({"uri": "x://1", "name": "one"})]);
        let t = paged(vec![json!({"uriTemplate": "x://{id}", "name": "t"})]);
        assert_eq!(built(resources(&r, &t)).status, Status::Pass);
        let bad = paged(vec![json!({"uri": "x://1"})]);
        assert_eq!(built(resources(&bad, &t)).status, Status::Fail);
        // Templates that fail to list (other than "no such method") warn.
        let mut broken = paged(vec![]);
        broken.failed = Some(err(2, -32603));
        assert_eq!(built(resources(&r, &broken)).status, Status::Warn);
        broken.failed = Some(err(2, -32601));
        assert_eq!(built(resources(&r, &broken)).status, Status::Pass);
        let p = paged(vec![
            json!({"name": "greet", "arguments": [{"name": "who", "required": true}]}),
        ]);
        assert_eq!(built(prompts(&p)).status, Status::Pass);
        let p = paged(vec![
            json!({"name": "greet", "arguments": [{"required": "yes"}]}),
        ]);
        assert_eq!(built(prompts(&p)).status, Status::Fail);
        let many: Vec<String> = (0..101).map(|i| i.to_string()).collect();
        assert_eq!(
            built(judge_completion(&ok(
                3,
                json!({"completion": {"values": ["a"]}})
            )))
            .status,
            Status::Pass
        );
        assert_eq!(
            built(judge_completion(&ok(
                3,
                json!({"completion": {"values": many}})
            )))
            .status,
            Status::Fail
        );
    }
}
