//! The `--rps` rate limiter: requests towards a remote (non-loopback) host are spaced so that
//! at most `rps` start per second. Loopback HTTP and stdio are unthrottled unless `--rps` was
//! given explicitly.
//!
//! Use: build one per server with [`RateLimiter::for_spec`] and `limiter.wait().await` before
//! each request a phase sends. Cloning shares the schedule, so phases running concurrent
//! probes against one host stay within the rate together.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::probe::spec::{ServerSpec, TargetSpec};

/// The rate used for remote hosts when the config says nothing (DESIGN §5).
pub const DEFAULT_REMOTE_RPS: f64 = 2.0;

/// Spaces request starts at least `1/rps` apart. `None` interval = unthrottled.
#[derive(Debug, Clone)]
pub struct RateLimiter {
    interval: Option<Duration>,
    next: Arc<Mutex<Option<Instant>>>,
}

impl RateLimiter {
    /// A limiter allowing `rps` requests per second (`None`, zero, negative or non-finite
    /// = unthrottled).
    pub fn new(rps: Option<f64>) -> Self {
        let interval = rps
            .filter(|r| r.is_finite() && *r > 0.0)
            .map(|r| Duration::from_secs_f64(1.0 / r));
        RateLimiter {
            interval,
            next: Arc::new(Mutex::new(None)),
        }
    }

    /// The limiter for one server: `spec.rps` when set; otherwise 2 rps for a remote HTTP host
    /// and none for loopback HTTP and stdio.
    pub fn for_spec(spec: &ServerSpec) -> Self {
        let rps = spec.rps.or(match &spec.target {
            TargetSpec::Http { url, .. } if !is_loopback_url(url) => Some(DEFAULT_REMOTE_RPS),
            _ => None,
        });
        RateLimiter::new(rps)
    }

    /// True when requests are spaced at all.
    pub fn is_throttled(&self) -> bool {
        self.interval.is_some()
    }

    /// Waits until the next request may start, and reserves that slot.
    pub async fn wait(&self) {
        let Some(interval) = self.interval else {
            return;
        };
        let slot = {
            let mut next = self.next.lock().await;
            let now = Instant::now();
            let slot = match *next {
                Some(t) if t > now => t,
                _ => now,
            };
            *next = Some(slot + interval);
            slot
        };
        tokio::time::sleep_until(slot).await;
    }
}

/// True when the URL's host is a loopback name or address (`localhost`, 127.0.0.0/8, ::1).
/// An unparsable URL counts as remote, so it is throttled rather than hammered.
pub fn is_loopback_url(url: &str) -> bool {
    let Ok(u) = url::Url::parse(url) else {
        return false;
    };
    match u.host() {
        Some(url::Host::Domain(d)) => {
            d.eq_ignore_ascii_case("localhost") || d.to_ascii_lowercase().ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(url: &str) -> ServerSpec {
        ServerSpec::new(
            "s",
            TargetSpec::Http {
                url: url.into(),
                headers: vec![],
                auth: Default::default(),
                start: None,
            },
        )
    }

    #[test]
    fn loopback_detection() {
        assert!(is_loopback_url("http://127.0.0.1:3000/mcp"));
        assert!(is_loopback_url("http://localhost/mcp"));
        assert!(is_loopback_url("http://[::1]:8080/mcp"));
        assert!(!is_loopback_url("https://mcp.example.com/mcp"));
        assert!(!is_loopback_url("http://10.0.0.1/mcp"));
        assert!(!is_loopback_url("not a url"));
    }

    #[test]
    fn defaults_per_target() {
        assert!(!RateLimiter::for_spec(&http("http://127.0.0.1:1/mcp")).is_throttled());
        assert!(RateLimiter::for_spec(&http("https://example.com/mcp")).is_throttled());
        let mut local = http("http://127.0.0.1:1/mcp");
        local.rps = Some(5.0);
        assert!(RateLimiter::for_spec(&local).is_throttled());
        let stdio = ServerSpec::new(
            "s",
            TargetSpec::Stdio {
                command: vec!["x".into()],
                env_forward: vec![],
                env_set: vec![],
                dir: None,
            },
        );
        assert!(!RateLimiter::for_spec(&stdio).is_throttled());
    }

    #[tokio::test]
    async fn spaces_requests() {
        let l = RateLimiter::new(Some(20.0));
        let start = Instant::now();
        for _ in 0..5 {
            l.wait().await;
        }
        // 5 starts at 20 rps: the fifth starts 200 ms after the first.
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(195), "{took:?}");
        let free = RateLimiter::new(None);
        let start = Instant::now();
        for _ in 0..100 {
            free.wait().await;
        }
        assert!(start.elapsed() < Duration::from_millis(10));
    }
}
