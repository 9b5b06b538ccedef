//! Streamable HTTP transport probes: GET, DELETE, unknown sessions and the
//! `MCP-Protocol-Version` header.

use super::*;

/// The GET stream (`get_stream`): it only waits, so it runs in the concurrent stage, beside
/// the catalog and execution phases, instead of holding up the run.
pub(super) async fn get_group(
    s: &Session,
    conn: &Connection,
    w: &Wire,
    stop: Option<tokio::sync::watch::Receiver<bool>>,
) -> Out {
    let mut out = Out::default();
    if !w.is_http() {
        out.findings
            .push(GET_STREAM.skip(SkipReason::NotApplicable, w.not_streamable_http()));
        return out;
    }
    let modern_only = s.era == EraKind::Modern;
    if w.is_modern() && !modern_only {
        out.findings.push(GET_STREAM.skip(
            SkipReason::NotApplicable,
            "dual-era server: the GET stream belongs to its handshake-era wire",
        ));
        return out;
    }
    let session = if w.is_modern() {
        SessionMode::None
    } else {
        SessionMode::Auto
    };
    let g = conn
        .send(Probe {
            http_method: Some("GET".into()),
            headers: vec![("Accept".into(), Some("text/event-stream".into()))],
            session,
            timeout: Some(GET_WINDOW),
            expect_no_reply: true,
            stop,
            ..Probe::default()
        })
        .await;
    out.findings
        .push(judge::http::get_stream(w, &g, modern_only));
    out.gets.push(g);
    out
}

/// The HTTP transport probes: DELETE, unknown sessions, the version header (the GET stream
/// is [`get_group`]).
pub(super) async fn http_group(s: &Session, conn: &Connection, w: &Wire) -> Out {
    let mut out = Out::default();
    let na = |c: &'static crate::report::check::Check, why: &str| {
        c.skip(SkipReason::NotApplicable, why.to_string())
    };
    if !w.is_http() {
        for c in [&DELETE, &BOGUS_SESSION, &VERSION_HEADER] {
            out.findings.push(na(c, &w.not_streamable_http()));
        }
        return out;
    }
    let modern_only = s.era == EraKind::Modern;
    let del = |session: SessionMode| Probe {
        http_method: Some("DELETE".into()),
        session,
        expect_no_reply: true,
        ..Probe::default()
    };
    if w.is_modern() {
        if modern_only {
            let d = conn.send(del(SessionMode::None)).await;
            out.findings.push(judge::http::delete(w, &d, None, true));
            out.replies.push(Sent {
                reply: d,
                id: Value::Null,
            });
        } else {
            out.findings.push(na(
                &DELETE,
                "dual-era server: DELETE belongs to its handshake-era wire",
            ));
        }
        // "Ignore Mcp-Session-Id" is asked of a server that supports only 2026-07-28; a
        // dual-era server keeps sessions for its handshake-era clients, and its unknown
        // sessions are judged on that wire, so the modern wire is not sent one.
        if modern_only {
            let bogus = conn
                .send(Probe {
                    session: SessionMode::Custom("scout-bogus-session".into()),
                    ..plain(w, IdKind::Str("scout-bogus".into()))
                })
                .await;
            out.findings
                .push(judge::http::bogus_session(w, &bogus, None));
            out.replies.push(Sent {
                reply: bogus,
                id: json!("scout-bogus"),
            });
        } else {
            out.findings.push(na(
                &BOGUS_SESSION,
                "dual-era server: \"ignore Mcp-Session-Id\" applies to a server that supports only 2026-07-28; unknown sessions are judged on its handshake-era wire",
            ));
        }
        let mismatch = conn
            .send(Probe {
                meta: MetaMode::Custom(envelope("2025-11-25")),
                headers: vec![("MCP-Protocol-Version".into(), Some(w.version.clone()))],
                ..plain(w, IdKind::Str("scout-version-mismatch".into()))
            })
            .await;
        let unsupported = conn
            .send(Probe {
                meta: MetaMode::Custom(envelope("1900-01-01")),
                headers: vec![("MCP-Protocol-Version".into(), Some("1900-01-01".into()))],
                ..plain(w, IdKind::Str("scout-version-unsupported".into()))
            })
            .await;
        out.findings.push(judge::http::version_header_modern(
            w,
            &mismatch,
            &unsupported,
        ));
        out.replies.push(Sent {
            reply: mismatch,
            id: json!("scout-version-mismatch"),
        });
        out.replies.push(Sent {
            reply: unsupported,
            id: json!("scout-version-unsupported"),
        });
        return out;
    }
    legacy_session_probes(conn, w).await
}

/// Handshake-era HTTP probes around sessions: a throw-away session for DELETE, a never
/// issued session id, and a bad `MCP-Protocol-Version`.
async fn legacy_session_probes(conn: &Connection, w: &Wire) -> Out {
    let mut out = Out::default();
    let del = |session: SessionMode| Probe {
        http_method: Some("DELETE".into()),
        session,
        expect_no_reply: true,
        ..Probe::default()
    };
    // A throw-away session for DELETE, so the run's own session stays usable.
    let init = conn
        .send(Probe {
            id: IdKind::Str("scout-throwaway-init".into()),
            meta: MetaMode::Omit,
            session: SessionMode::None,
            ..Probe::request(
                "initialize",
                json!({"protocolVersion": w.version, "capabilities": {}, "clientInfo": {"name": "scout", "version": env!("CARGO_PKG_VERSION")}}),
            )
        })
        .await;
    let sid = init
        .http
        .as_ref()
        .and_then(|h| h.header("mcp-session-id"))
        .map(str::to_string);
    let never = conn
        .send(Probe {
            session: SessionMode::Custom(format!("scout-never-issued-{}", uuid::Uuid::new_v4())),
            ..plain(w, IdKind::Str("scout-never-issued".into()))
        })
        .await;
    match sid {
        Some(sid) => {
            let _ = conn
                .send(Probe {
                    session: SessionMode::Custom(sid.clone()),
                    ..Probe::notification("notifications/initialized", None)
                })
                .await;
            let d = conn.send(del(SessionMode::Custom(sid.clone()))).await;
            let ended = if d.status().is_some_and(|c| (200..300).contains(&c)) {
                Some(
                    conn.send(Probe {
                        session: SessionMode::Custom(sid),
                        ..plain(w, IdKind::Str("scout-ended-session".into()))
                    })
                    .await,
                )
            } else {
                None
            };
            out.findings
                .push(judge::http::delete(w, &d, ended.as_ref(), false));
            out.findings
                .push(judge::http::bogus_session(w, &never, ended.as_ref()));
            out.replies.push(Sent {
                reply: d,
                id: Value::Null,
            });
            if let Some(e) = ended {
                out.replies.push(Sent {
                    reply: e,
                    id: json!("scout-ended-session"),
                });
            }
        }
        None => {
            let why = format!(
                "the server issues no Mcp-Session-Id (initialize answered without one: {})",
                crate::probe::protocol::describe(&init)
            );
            out.findings.push(
                DELETE
                    .skip(SkipReason::NotApplicable, why.clone())
                    .evidence(init.evidence.clone()),
            );
            out.findings.push(
                BOGUS_SESSION
                    .skip(SkipReason::NotApplicable, why)
                    .evidence(init.evidence.clone()),
            );
        }
    }
    out.replies.push(Sent {
        reply: init,
        id: json!("scout-throwaway-init"),
    });
    out.replies.push(Sent {
        reply: never,
        id: json!("scout-never-issued"),
    });
    if w.version.as_str() >= "2025-06-18" {
        let r = conn
            .send(Probe {
                headers: vec![("MCP-Protocol-Version".into(), Some("banana".into()))],
                ..plain(w, IdKind::Str("scout-bad-version".into()))
            })
            .await;
        out.findings.push(judge::http::version_header_legacy(w, &r));
        out.replies.push(Sent {
            reply: r,
            id: json!("scout-bad-version"),
        });
    } else {
        out.findings.push(VERSION_HEADER.skip(
            SkipReason::NotApplicable,
            "MCP-Protocol-Version exists from 2025-06-18; this wire negotiated an earlier revision",
        ));
    }
    out
}
