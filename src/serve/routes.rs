//! The page's routes: the page and its assets, starting and listing runs, a run's live
//! events (SSE), its report, the exchanges a finding cites, and the report downloads.
//!
//! Reports are rendered by the same emitters `scout check` writes files with, from the run's
//! finished (already redacted) report; the exchanges are the HAR's own entries.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::Stream;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::emit;
use crate::emit::outputs::{Format, file_safe};
use crate::serve::guard::refuse;
use crate::serve::runs::{Refusal, Run, RunRequest, Runs, State as RunState};
use crate::serve::{assets, ending};

/// Most exchanges one evidence request may ask for.
const MAX_SEQS: usize = 200;

/// `GET /` and the assets.
pub async fn asset(Path(name): Path<String>) -> Response {
    serve_asset(&name)
}

/// `GET /`.
pub async fn index() -> Response {
    serve_asset("index.html")
}

fn serve_asset(name: &str) -> Response {
    match assets::get(name) {
        Some((body, kind)) => {
            let mut r = body.into_response();
            r.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
            r
        }
        None => refuse(StatusCode::NOT_FOUND, "no such page"),
    }
}

/// `GET /api/info`: how this server was started, for the page to say so.
pub async fn info(State(runs): State<Arc<Runs>>) -> Json<Value> {
    let l = &runs.limits;
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "allow_stdio": l.stdio_allowed(),
        "allow_stdio_flag": l.allow_stdio,
        "public": l.public,
        "max_runs": l.max_runs,
        "keep_runs": l.keep_runs,
        "running": runs.running(),
        "policy": "read-only tools only (the default safety policy)",
    }))
}

/// `GET /api/runs`: the recent runs, newest first.
pub async fn list(State(runs): State<Arc<Runs>>) -> Json<Value> {
    let items: Vec<Value> = runs.list().iter().map(|r| r.summary()).collect();
    Json(json!({"running": runs.running(), "runs": items}))
}

/// `POST /api/runs`: start a run.
pub async fn start(State(runs): State<Arc<Runs>>, body: axum::body::Bytes) -> Response {
    let request: RunRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            return error(Refusal {
                status: 400,
                message: format!("the request is not a run request: {e}"),
            });
        }
    };
    // Planning reads the config file: off the async workers.
    let r = runs.clone();
    match tokio::task::spawn_blocking(move || r.start(request)).await {
        Ok(Ok(run)) => (StatusCode::CREATED, Json(run.summary())).into_response(),
        Ok(Err(refusal)) => error(refusal),
        Err(e) => error(Refusal {
            status: 500,
            message: format!("scout could not start the run: {e}"),
        }),
    }
}

/// A refusal as JSON `{"error": "…"}`.
fn error(r: Refusal) -> Response {
    let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_REQUEST);
    (status, Json(json!({"error": r.message}))).into_response()
}

fn run_of(runs: &Runs, id: &str) -> Result<Arc<Run>, Refusal> {
    runs.get(id).ok_or_else(|| Refusal {
        status: 404,
        message: "no such run (only the most recent runs are kept)".into(),
    })
}

/// `GET /api/runs/{id}`: the run and, when finished, its JSON report and how it ended.
pub async fn get(State(runs): State<Arc<Runs>>, Path(id): Path<String>) -> Response {
    let run = match run_of(&runs, &id) {
        Ok(r) => r,
        Err(e) => return error(e),
    };
    let mut v = run.summary();
    if let RunState::Finished(report) = run.state() {
        v["report"] = serde_json::from_str(&emit::json::render(&report)).unwrap_or(Value::Null);
        // How each server's run ended, for the page's banner (in the report's server order).
        let endings: Vec<ending::Ending> = report.servers.iter().map(ending::of_server).collect();
        v["endings"] = json!(endings);
    }
    Json(v).into_response()
}

/// `POST /api/runs/{id}/stop`.
pub async fn stop(State(runs): State<Arc<Runs>>, Path(id): Path<String>) -> Response {
    match run_of(&runs, &id) {
        Ok(run) => {
            run.stop();
            (StatusCode::ACCEPTED, Json(run.summary())).into_response()
        }
        Err(e) => error(e),
    }
}

/// `GET /api/runs/{id}/events`: every event so far, then each new one, ending with `done`.
pub async fn events(State(runs): State<Arc<Runs>>, Path(id): Path<String>) -> Response {
    let run = match run_of(&runs, &id) {
        Ok(r) => r,
        Err(e) => return error(e),
    };
    Sse::new(event_stream(run))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

fn event_stream(run: Arc<Run>) -> impl Stream<Item = Result<Event, Infallible>> {
    let changed = run.subscribe();
    // The stream ends after the `done` event, which the run pushes once its report is kept.
    futures_util::stream::unfold(
        (run, changed, 0usize, false),
        |(run, mut changed, next, ended)| async move {
            if ended {
                return None;
            }
            loop {
                let events = run.events_since(next);
                if !events.is_empty() {
                    let n = events.len();
                    let done = events.iter().any(|e| e["type"] == "done");
                    // Several events at once go out as one SSE message, one JSON per line.
                    let data: Vec<String> = events.iter().map(|e| e.to_string()).collect();
                    let event = Event::default().data(data.join("\n"));
                    return Some((Ok(event), (run, changed, next + n, done)));
                }
                if changed.changed().await.is_err() {
                    return None;
                }
            }
        },
    )
}

/// `?seq=1,2,3&server=0`.
#[derive(Debug, Deserialize)]
pub struct ExchangeQuery {
    seq: String,
    #[serde(default)]
    server: usize,
}

/// `GET /api/runs/{id}/exchanges?seq=…`: the HAR entries of these exchanges.
pub async fn exchanges(
    State(runs): State<Arc<Runs>>,
    Path(id): Path<String>,
    Query(q): Query<ExchangeQuery>,
) -> Response {
    let report = match finished(&runs, &id) {
        Ok(r) => r,
        Err(e) => return error(e),
    };
    let Some(server) = report.servers.get(q.server) else {
        return error(Refusal {
            status: 404,
            message: "the run has no such server".into(),
        });
    };
    let seqs: Vec<u64> = q
        .seq
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .take(MAX_SEQS)
        .collect();
    let entries = emit::har::entries_for(server, &seqs);
    Json(json!({"server": server.name, "entries": entries})).into_response()
}

fn finished(runs: &Runs, id: &str) -> Result<Arc<crate::report::Report>, Refusal> {
    match run_of(runs, id)?.state() {
        RunState::Finished(r) => Ok(r),
        RunState::Running => Err(Refusal {
            status: 409,
            message: "the run has not finished yet".into(),
        }),
    }
}

/// `GET /api/runs/{id}/download/{format}`: json, junit, sarif, markdown or har.
pub async fn download(
    State(runs): State<Arc<Runs>>,
    Path((id, format)): Path<(String, String)>,
) -> Response {
    let report = match finished(&runs, &id) {
        Ok(r) => r,
        Err(e) => return error(e),
    };
    let (body, file, kind) = match Format::parse(&format) {
        Some(Format::Json) => (
            emit::json::render(&report),
            Format::Json.file_name().to_string(),
            "application/json",
        ),
        Some(Format::Junit) => (
            emit::junit::render(&report),
            Format::Junit.file_name().to_string(),
            "application/xml",
        ),
        Some(Format::Sarif) => (
            emit::sarif::render(&report),
            Format::Sarif.file_name().to_string(),
            "application/sarif+json",
        ),
        Some(Format::Markdown) => (
            emit::markdown::render_with(&report, &emit::markdown::Options::default()),
            Format::Markdown.file_name().to_string(),
            "text/markdown; charset=utf-8",
        ),
        Some(Format::Har) => match report.servers.first() {
            Some(s) => (
                emit::har::render(s),
                format!("{}.har", file_safe(&s.name)),
                "application/json",
            ),
            None => {
                return error(Refusal {
                    status: 404,
                    message: "the run has no server".into(),
                });
            }
        },
        _ => {
            return error(Refusal {
                status: 404,
                message: "downloads are json, junit, sarif, markdown and har".into(),
            });
        }
    };
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{file}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    r
}
