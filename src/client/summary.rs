//! `scout connect`: open the conversation the way the handshake phase does and say what
//! the server is (era, versions, identity, capabilities, instructions, timing), without
//! running any check. The CLI prints [`ConnectSummary::render_human`] or the JSON form.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::client::lifecycle::{self, DiscoverVerdict};
use crate::client::{ConnectError, Connection, Connector};
use crate::report::finding::Era;
use crate::report::model::{EraKind, TransportKind};
use crate::spec::ServerSpec;
use crate::telemetry::Recorder;

/// How many characters of `instructions` are kept.
pub const INSTRUCTIONS_SHOWN: usize = 400;

/// What one wire (era) of the server said about itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WireSummary {
    pub era: Era,
    pub protocol_version: String,
    pub server_info: Option<Value>,
    pub capabilities: Value,
    /// Truncated to [`INSTRUCTIONS_SHOWN`] characters (with `…`).
    pub instructions: Option<String>,
}

/// The result of `scout connect`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConnectSummary {
    pub server: String,
    pub target: String,
    pub transport: TransportKind,
    pub era: EraKind,
    pub wires: Vec<WireSummary>,
    /// How the era was decided, one clause per step.
    pub how: Vec<String>,
    pub elapsed_ms: u64,
}

impl ConnectSummary {
    /// A few human-readable lines.
    pub fn render_human(&self) -> String {
        let mut s = format!(
            "{} ({}, {})\n  era: {} ({})\n",
            self.server,
            self.target,
            name(&self.transport),
            name(&self.era),
            self.how.join("; ")
        );
        for w in &self.wires {
            let server = w
                .server_info
                .as_ref()
                .and_then(|i| i.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("?");
            let version = w
                .server_info
                .as_ref()
                .and_then(|i| i.get("version"))
                .and_then(Value::as_str)
                .unwrap_or("?");
            let caps: Vec<&str> = w
                .capabilities
                .as_object()
                .map(|o| o.keys().map(String::as_str).collect())
                .unwrap_or_default();
            s.push_str(&format!(
                "  {} wire: protocol {}, server {server} {version}, capabilities: {}\n",
                name(&w.era),
                w.protocol_version,
                if caps.is_empty() {
                    "none".to_string()
                } else {
                    caps.join(", ")
                }
            ));
            if let Some(i) = &w.instructions {
                s.push_str(&format!("    instructions: {}\n", i.replace('\n', " ")));
            }
        }
        s.push_str(&format!("  took {} ms\n", self.elapsed_ms));
        s
    }
}

/// The name serde gives a unit enum value (`dual`, `legacy_sse` …).
fn name<T: Serialize + std::fmt::Debug>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|x| x.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{v:?}"))
}

fn wire_summary(c: &Connection) -> WireSummary {
    WireSummary {
        era: c.era(),
        protocol_version: c.protocol_version().to_string(),
        server_info: c.server_info().cloned(),
        capabilities: c.capabilities().clone(),
        instructions: c.instructions().map(|i| {
            if i.chars().count() > INSTRUCTIONS_SHOWN {
                format!(
                    "{}…",
                    i.chars().take(INSTRUCTIONS_SHOWN).collect::<String>()
                )
            } else {
                i.to_string()
            }
        }),
    }
}

/// A server opened for a one-off command (`connect`, `tools`, `call`): its wires, one per era
/// it speaks (modern first). Call [`OpenServer::close`] when done: it shuts down every process
/// that was started (a `Drop` in the transport reaps them on any other way out).
pub struct OpenServer {
    pub(crate) connector: Connector,
    /// The open wires, modern first.
    pub wires: Vec<Connection>,
    /// How the era was decided, one clause per step.
    pub how: Vec<String>,
}

impl OpenServer {
    /// The wire an agent would use: the modern one when the server speaks 2026-07-28.
    pub fn preferred(&self) -> Option<&Connection> {
        self.wires
            .iter()
            .find(|w| w.era() == Era::Modern)
            .or_else(|| self.wires.first())
    }

    /// Closes stdio wires and stops a server started with `start`.
    pub async fn close(self) {
        close_connector(&self.connector).await;
    }
}

async fn close_connector(connector: &Connector) {
    for w in connector.stdio_wires() {
        w.close(Duration::from_millis(500)).await;
    }
    connector.stop_started(Duration::from_secs(1)).await;
}

/// Connects to `spec`'s server (starting it when configured) and decides its era, the way the
/// handshake phase does. `reauth`: what the command allows when a later request asks for
/// (more) authorization (see [`crate::client::reauth`]); `None` leaves a refusal as it is.
pub async fn open(
    spec: &ServerSpec,
    reauth: Option<crate::client::reauth::Reauth>,
) -> Result<OpenServer, ConnectError> {
    open_for(spec, reauth, Eras::AsAgent).await
}

/// Which eras a one-off command opens wires in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Eras {
    /// As an agent (a dual-era client) would: once `server/discover` answered, it stays
    /// modern (2026-07-28 versioning, "Dual-era client, Modern server: … The client stays
    /// modern"), and sends no `initialize`. `scout tools`, `scout call` and `scout pin`.
    AsAgent,
    /// Every era the server speaks, to describe it (`scout connect` says "dual").
    Describe,
}

async fn open_for(
    spec: &ServerSpec,
    reauth: Option<crate::client::reauth::Reauth>,
    eras: Eras,
) -> Result<OpenServer, ConnectError> {
    let connector = Connector::new(spec, Recorder::new(), &uuid::Uuid::new_v4().to_string())?;
    if let Some(r) = reauth {
        connector.enable_reauthorization(r);
    }
    match decide(&connector, spec, eras).await {
        Ok((wires, how)) => Ok(OpenServer {
            connector,
            wires,
            how,
        }),
        Err(e) => {
            close_connector(&connector).await;
            Err(e)
        }
    }
}

/// Connects to `spec`'s server (starting it when configured), decides its era and returns
/// what it said. Every process started is shut down before returning.
pub async fn summary(
    spec: &ServerSpec,
    reauth: Option<crate::client::reauth::Reauth>,
) -> Result<ConnectSummary, ConnectError> {
    let started = Instant::now();
    let opened = open_for(spec, reauth, Eras::Describe).await?;
    let wires = opened.wires.clone();
    let how = opened.how.clone();
    opened.close().await;
    let era = match (
        wires.iter().any(|w| w.era() == Era::Modern),
        wires.iter().any(|w| w.era() == Era::Legacy),
    ) {
        (true, true) => EraKind::Dual,
        (true, false) => EraKind::Modern,
        (false, true) => EraKind::Legacy,
        (false, false) => EraKind::Unknown,
    };
    Ok(ConnectSummary {
        server: spec.name.clone(),
        target: spec.target_display(),
        transport: wires
            .first()
            .map(Connection::transport)
            .unwrap_or(TransportKind::Http),
        era,
        wires: wires.iter().map(wire_summary).collect(),
        how,
        elapsed_ms: started.elapsed().as_millis() as u64,
    })
}

async fn decide(
    connector: &Connector,
    spec: &ServerSpec,
    eras: Eras,
) -> Result<(Vec<Connection>, Vec<String>), ConnectError> {
    connector
        .start_server(crate::client::connect::START_TIMEOUT)
        .await?;
    connector.authorize().await?;
    let first = connector.open().await?;
    let mut how = Vec::new();
    let mut wires = Vec::new();
    // The version `initialize` offers; `None` once -32022 said no handshake revision scout
    // speaks is supported (the server is modern: no falling back).
    let mut handshake = Some(crate::client::LEGACY_VERSION.to_string());
    if !spec.skip_era_check {
        let d = lifecycle::discover(&first).await;
        match lifecycle::judge_discover(&d) {
            DiscoverVerdict::NotModern(why) => how.push(format!("server/discover: {why}")),
            DiscoverVerdict::ModernError(-32022) => {
                let supported = lifecycle::supported_versions(&d);
                how.push(format!(
                    "server/discover: -32022, the server supports {}",
                    supported.join(", ")
                ));
                match lifecycle::retry_for(&supported) {
                    lifecycle::Retry::Modern => {
                        let again = lifecycle::discover(&first).await;
                        if lifecycle::judge_discover(&again) == DiscoverVerdict::Result {
                            how.push("server/discover answered when asked again".into());
                            wires.push(lifecycle::modern_from(&first, &again));
                        }
                        handshake = None;
                    }
                    lifecycle::Retry::Handshake(v) => handshake = Some(v),
                    lifecycle::Retry::Nothing => {
                        return Err(ConnectError::NoHandshake(format!(
                            "{}; scout speaks none of these versions ({}, and {} and earlier)",
                            how.join("; "),
                            crate::client::MODERN_VERSION,
                            crate::client::LEGACY_VERSION
                        )));
                    }
                }
            }
            _ => {
                how.push("server/discover answered".into());
                wires.push(lifecycle::modern_from(&first, &d));
                if eras == Eras::AsAgent {
                    handshake = None;
                }
            }
        }
    }
    let Some(version) = handshake else {
        if wires.is_empty() {
            return Err(ConnectError::NoHandshake(how.join("; ")));
        }
        return Ok((wires, how));
    };
    let base = if wires.is_empty() {
        first
    } else {
        first.fresh().await?
    };
    let (mut legacy, init, _) = lifecycle::open_legacy_at(&base, &version).await;
    if legacy.is_none()
        && wires.is_empty()
        && lifecycle::looks_like_old_sse(&base, &init)
        && let Some((c, _, _)) = lifecycle::try_legacy_sse(connector).await
    {
        how.push("HTTP+SSE (2024-11-05) stream".into());
        legacy = c;
    }
    match legacy {
        Some(c) => {
            how.push("initialize answered".into());
            wires.push(c);
        }
        None => how.push(format!("initialize: {}", init.describe())),
    }
    if wires.is_empty() {
        return Err(ConnectError::NoHandshake(how.join("; ")));
    }
    Ok((wires, how))
}
