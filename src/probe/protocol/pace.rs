//! Keeps the phase's concurrent probes within `--rps` for remote servers. Loopback targets
//! are not throttled (DESIGN §5: only non-loopback HTTP targets are).

use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::client::Connection;
use crate::probe::spec::{ServerSpec, TargetSpec};
use crate::transport::{Probe, Reply};

/// The default request rate for remote hosts when `--rps` is not given.
const DEFAULT_RPS: f64 = 2.0;

/// Spaces requests at least `interval` apart (none for loopback targets).
#[derive(Debug)]
pub struct Pacer {
    interval: Option<Duration>,
    next: Mutex<Instant>,
}

impl Pacer {
    /// The pacer for `spec`: throttled only for HTTP targets that are not loopback.
    pub fn for_spec(spec: &ServerSpec) -> Pacer {
        let remote = match &spec.target {
            TargetSpec::Http { url, .. } => !is_loopback(url),
            TargetSpec::Stdio { .. } => false,
        };
        let rps = spec.rps.filter(|r| *r > 0.0).unwrap_or(DEFAULT_RPS);
        Pacer {
            interval: remote.then(|| Duration::from_secs_f64(1.0 / rps)),
            next: Mutex::new(Instant::now()),
        }
    }

    /// Waits for this request's turn.
    async fn wait(&self) {
        let Some(interval) = self.interval else {
            return;
        };
        let at = {
            let mut next = self.next.lock().await;
            let at = (*next).max(Instant::now());
            *next = at + interval;
            at
        };
        tokio::time::sleep_until(at).await;
    }
}

/// Whether a URL's host is loopback (`localhost`, 127.0.0.0/8, `::1`).
pub fn is_loopback(url: &str) -> bool {
    let Ok(u) = url::Url::parse(url) else {
        return false;
    };
    match u.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// A connection whose `send` waits for the pacer first.
#[derive(Clone, Copy)]
pub struct Link<'a> {
    conn: &'a Connection,
    pacer: &'a Pacer,
}

impl<'a> Link<'a> {
    /// Wraps `conn`.
    pub fn new(conn: &'a Connection, pacer: &'a Pacer) -> Self {
        Link { conn, pacer }
    }

    /// Sends one probe in its turn.
    pub async fn send(&self, probe: Probe) -> Reply {
        self.pacer.wait().await;
        self.conn.send(probe).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        assert!(is_loopback("http://127.0.0.1:3001/mcp"));
        assert!(is_loopback("http://localhost/mcp"));
        assert!(is_loopback("http://[::1]:8080/mcp"));
        assert!(!is_loopback("https://mcp.example.com/mcp"));
        assert!(!is_loopback("not a url"));
    }

    #[tokio::test]
    async fn remote_requests_are_spaced() {
        let spec = ServerSpec {
            rps: Some(20.0),
            ..ServerSpec::new(
                "remote",
                TargetSpec::Http {
                    url: "https://mcp.example.com/mcp".into(),
                    headers: vec![],
                    auth: Default::default(),
                    start: None,
                },
            )
        };
        let p = Pacer::for_spec(&spec);
        let t = std::time::Instant::now();
        for _ in 0..3 {
            p.wait().await;
        }
        assert!(
            t.elapsed() >= Duration::from_millis(95),
            "{:?}",
            t.elapsed()
        );
    }
}
