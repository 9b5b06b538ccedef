//! `scout serve`: a local web page to run checks and read their reports (docs/serve.md).
//!
//! One axum server, loopback only unless `--public`. The URL it prints carries a 256-bit
//! token that the page trades for an `HttpOnly`, `SameSite=Strict` cookie; every request
//! needs it, and `Host`/`Origin` are checked against DNS rebinding ([`guard`]). Runs go
//! through the same runner as `scout check` ([`runs`]), at most `--max-runs` at a time,
//! with the default safety policy; a run that names a program needs `--allow-stdio` and is
//! refused with `--public` whatever the flags say.

pub mod assets;
pub mod ending;
pub mod guard;
pub mod routes;
pub mod runs;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

pub use guard::{Guard, Token};
pub use runs::{Limits, Runs};

/// The largest request body the server reads (a run request is a few hundred bytes).
pub const MAX_BODY: usize = 64 * 1024;

/// How long Ctrl-C waits for running servers to shut down before killing them.
pub const STOP_GRACE: Duration = Duration::from_secs(30);

/// The server's routes behind the guard.
pub fn router(guard: Arc<Guard>, runs: Arc<Runs>) -> Router {
    Router::new()
        .route("/", get(routes::index))
        .route("/assets/{name}", get(routes::asset))
        .route("/api/info", get(routes::info))
        .route("/api/runs", get(routes::list).post(routes::start))
        .route("/api/runs/{id}", get(routes::get))
        .route("/api/runs/{id}/stop", post(routes::stop))
        .route("/api/runs/{id}/events", get(routes::events))
        .route("/api/runs/{id}/exchanges", get(routes::exchanges))
        .route("/api/runs/{id}/download/{format}", get(routes::download))
        .with_state(runs)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
}

/// A bound, not yet serving, `scout serve`.
pub struct Server {
    listener: tokio::net::TcpListener,
    pub guard: Arc<Guard>,
    pub runs: Arc<Runs>,
}

impl Server {
    /// Binds `addr` (port 0: a free one) and makes the token.
    pub async fn bind(
        addr: SocketAddr,
        public: bool,
        allow_hosts: Vec<String>,
        limits: Limits,
    ) -> Result<Server, String> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("could not listen on {addr}: {e}"))?;
        let bound = listener
            .local_addr()
            .map_err(|e| format!("could not read the bound address: {e}"))?;
        let guard = Arc::new(Guard {
            token: Token::generate()?,
            bound,
            public,
            allow_hosts,
        });
        Ok(Server {
            listener,
            guard,
            runs: Arc::new(Runs::new(limits)),
        })
    }

    /// The page's URL with the token (an unspecified bind address is shown as loopback).
    pub fn url(&self) -> String {
        let b = self.guard.bound;
        let host = match b.ip() {
            ip if ip.is_unspecified() => "127.0.0.1".to_string(),
            std::net::IpAddr::V6(ip) => format!("[{ip}]"),
            ip => ip.to_string(),
        };
        format!(
            "http://{host}:{}/?token={}",
            b.port(),
            self.guard.token.expose()
        )
    }

    /// Serves until `shutdown` resolves, then stops every run (their servers shut down and
    /// stdio children are reaped) and closes.
    pub async fn run(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), String> {
        let app = router(self.guard.clone(), self.runs.clone());
        let runs = self.runs.clone();
        let (stopped, mut stopped_rx) = tokio::sync::watch::channel(false);
        let graceful = async move {
            shutdown.await;
            runs.stop_all(STOP_GRACE).await;
            let _ = stopped.send(true);
        };
        // Small answers (SSE events, JSON) go out at once rather than waiting on Nagle.
        let listener = axum::serve::ListenerExt::tap_io(self.listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let served = axum::serve(listener, app).with_graceful_shutdown(graceful);
        // A connection that stays open (a stalled client) must not keep scout running.
        let linger = async move {
            let _ = stopped_rx.wait_for(|s| *s).await;
            tokio::time::sleep(Duration::from_secs(3)).await;
        };
        tokio::select! {
            r = served => r.map_err(|e| format!("the server failed: {e}")),
            () = linger => Ok(()),
        }
    }
}
