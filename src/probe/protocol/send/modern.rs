//! 2026-07-28 probes: the required `_meta` keys, routing headers, the Base64 sentinel and
//! `Mcp-Param-*` headers.

use super::*;

/// `tools/call` of `name` with the routing headers bent by `headers`.
fn call(name: &str, args: Value, headers: Vec<(String, Option<String>)>, id: &str) -> Probe {
    Probe {
        id: IdKind::Str(id.into()),
        headers,
        ..Probe::request("tools/call", json!({"name": name, "arguments": args}))
    }
}

/// The 2026-07-28 probes: routing headers, sentinel encoding, `Mcp-Param-*`, `_meta`.
pub(super) async fn modern_group(_s: &Session, conn: &Connection, w: &Wire) -> Out {
    let mut out = Out::default();
    if !w.is_modern() {
        for c in [
            &ROUTING_HEADERS,
            &HEADER_ENCODING,
            &PARAM_HEADERS,
            &META_REQUIRED,
        ] {
            out.findings.push(c.skip(
                SkipReason::NotApplicable,
                "a 2026-07-28 rule; this wire speaks the handshake era",
            ));
        }
        return out;
    }
    meta_probes(conn, w, &mut out).await;
    if !w.is_http() {
        for c in [&ROUTING_HEADERS, &HEADER_ENCODING, &PARAM_HEADERS] {
            out.findings
                .push(c.skip(SkipReason::NotApplicable, w.not_streamable_http()));
        }
        return out;
    }
    let routed = routing_probes(conn, w, &mut out).await;
    let encoded = encoding_probes(conn, w, &mut out).await;
    let tools_reply = param_probes(conn, w, &mut out).await;
    for (r, id) in routed
        .into_iter()
        .chain(encoded)
        .chain([(tools_reply, "scout-tools")])
    {
        out.replies.push(Sent {
            reply: r,
            id: json!(id),
        });
    }
    out
}

/// `protocol.meta_required`: the required `_meta` keys, each left out in turn (on every
/// transport).
async fn meta_probes(conn: &Connection, w: &Wire, out: &mut Out) {
    // _meta rules hold on every transport.
    let missing_all = conn
        .send(Probe {
            meta: MetaMode::Omit,
            ..plain(w, IdKind::Str("scout-meta-none".into()))
        })
        .await;
    let missing_version = conn
        .send(Probe {
            meta: MetaMode::Custom(envelope_without(&w.version, META_VERSION)),
            ..plain(w, IdKind::Str("scout-meta-version".into()))
        })
        .await;
    let missing_caps = conn
        .send(Probe {
            meta: MetaMode::Custom(envelope_without(&w.version, META_CAPS)),
            ..plain(w, IdKind::Str("scout-meta-caps".into()))
        })
        .await;
    let no_client = conn
        .send(Probe {
            meta: MetaMode::Custom(envelope_without(&w.version, META_CLIENT)),
            ..plain(w, IdKind::Str("scout-meta-client".into()))
        })
        .await;
    out.findings.push(judge::modern::meta_required(
        w,
        &[
            ("no _meta", &missing_all),
            ("no protocolVersion", &missing_version),
            ("no clientCapabilities", &missing_caps),
        ],
        &no_client,
    ));
    for (r, id) in [
        (missing_all, "scout-meta-none"),
        (missing_version, "scout-meta-version"),
        (missing_caps, "scout-meta-caps"),
        (no_client, "scout-meta-client"),
    ] {
        out.replies.push(Sent {
            reply: r,
            id: json!(id),
        });
    }
}

/// The header pair `k: v` (`None`: left out).
fn h(k: &str, v: Option<&str>) -> (String, Option<String>) {
    (k.to_string(), v.map(str::to_string))
}

/// `protocol.routing_headers`: `Mcp-Method` and `Mcp-Name` missing, differing and bent.
async fn routing_probes(conn: &Connection, w: &Wire, out: &mut Out) -> [(Reply, &'static str); 6] {
    let list = |id: &str, headers: Vec<(String, Option<String>)>| Probe {
        id: IdKind::Str(id.into()),
        headers,
        ..Probe::request("tools/list", json!({}))
    };
    let (m_missing, m_mismatch, m_case, m_space, n_missing, n_mismatch) = futures_util::join!(
        conn.send(list("scout-rh-1", vec![h("Mcp-Method", None)])),
        conn.send(list(
            "scout-rh-2",
            vec![h("Mcp-Method", Some("prompts/list"))]
        )),
        conn.send(list(
            "scout-rh-3",
            vec![h("Mcp-Method", Some("TOOLS/LIST"))]
        )),
        conn.send(list(
            "scout-rh-4",
            vec![h("Mcp-Method", Some("  tools/list  "))]
        )),
        conn.send(call(
            NO_TOOL,
            json!({}),
            vec![h("Mcp-Name", None)],
            "scout-rh-5"
        )),
        conn.send(call(
            NO_TOOL,
            json!({}),
            vec![h("Mcp-Name", Some("scout-other-tool"))],
            "scout-rh-6"
        )),
    );
    use judge::modern::Expect::{Accept, Reject};
    out.findings.push(judge::modern::routing_headers(
        w,
        &[
            ("Mcp-Method missing", Reject, &m_missing),
            ("Mcp-Method differing from the body", Reject, &m_mismatch),
            (
                "Mcp-Method in another case (values are case-sensitive)",
                Reject,
                &m_case,
            ),
            ("Mcp-Method with surrounding whitespace", Accept, &m_space),
            ("Mcp-Name missing on tools/call", Reject, &n_missing),
            ("Mcp-Name differing from params.name", Reject, &n_mismatch),
        ],
    ));
    [
        (m_missing, "scout-rh-1"),
        (m_mismatch, "scout-rh-2"),
        (m_case, "scout-rh-3"),
        (m_space, "scout-rh-4"),
        (n_missing, "scout-rh-5"),
        (n_mismatch, "scout-rh-6"),
    ]
}

/// `protocol.header_encoding`: a Base64-encoded `Mcp-Name` and a malformed one.
async fn encoding_probes(conn: &Connection, w: &Wire, out: &mut Out) -> [(Reply, &'static str); 2] {
    let b64 = base64::engine::general_purpose::STANDARD.encode(NO_TOOL);
    let (enc, bad) = futures_util::join!(
        conn.send(call(
            NO_TOOL,
            json!({}),
            vec![h("Mcp-Name", Some(&format!("=?base64?{b64}?=")))],
            "scout-enc-1"
        )),
        // The body names a tool that does not exist, so a server that ignores the malformed
        // header still runs nothing (never a real tool: scout only calls read-only tools).
        conn.send(call(
            NO_TOOL,
            json!({}),
            vec![h("Mcp-Name", Some("=?base64?SGVs!!!bG8=?="))],
            "scout-enc-2"
        )),
    );
    out.findings
        .push(judge::modern::header_encoding(w, &enc, &bad));
    [(enc, "scout-enc-1"), (bad, "scout-enc-2")]
}

/// `protocol.param_headers`: `Mcp-Param-*` left out and differing, on a read-only tool
/// that declares one. Returns the tool list it asked for.
async fn param_probes(conn: &Connection, w: &Wire, out: &mut Out) -> Reply {
    // Mcp-Param-*: needs the tool list (read-only request).
    let tools_reply = conn
        .send(Probe {
            id: IdKind::Str("scout-tools".into()),
            ..Probe::request("tools/list", json!({}))
        })
        .await;
    let tools: Vec<Value> = tools_reply
        .result()
        .and_then(|r| r.get("tools"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let declared = judge::modern::param_header_tools(&tools);
    match declared.iter().find(|(_, _, _, ro)| *ro) {
        None if declared.is_empty() => out.findings.push(
            PARAM_HEADERS
                .skip(SkipReason::NotApplicable, "no tool declares x-mcp-header")
                .evidence(tools_reply.evidence.clone()),
        ),
        None => out.findings.push(
            PARAM_HEADERS
                .skip(SkipReason::Policy, format!("only tools that are not read-only declare x-mcp-header ({}); scout does not call them to test headers", declared.iter().map(|d| d.0.as_str()).collect::<Vec<_>>().join(", ")))
                .evidence(tools_reply.evidence.clone()),
        ),
        Some((tool, prop, header, _)) => {
            let hname = format!("Mcp-Param-{header}");
            let args = json!({ prop.as_str(): "scout-probe" });
            let (omitted, mismatched) = futures_util::join!(
                conn.send(call(tool, args.clone(), vec![(hname.clone(), None)], "scout-param-1")),
                conn.send(call(tool, args.clone(), vec![(hname.clone(), Some("scout-other".into()))], "scout-param-2")),
            );
            out.findings.push(judge::modern::param_headers(w, tool, &omitted, &mismatched));
            out.replies.push(Sent { reply: omitted, id: json!("scout-param-1") });
            out.replies.push(Sent { reply: mismatched, id: json!("scout-param-2") });
        }
    }
    tools_reply
}
