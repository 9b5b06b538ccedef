//! The `--rps` rate limiter: requests towards a remote (non-loopback) host start at least
//! `1/rps` seconds apart, across every phase and every probe of a run. Loopback HTTP and
//! stdio are unthrottled, unless the server is configured with `treat_as_remote`.
//!
//! Where it applies: one limiter lives in the target's HTTP client
//! ([`HttpClients`](crate::transport::http::HttpClients)), and every HTTP request scout sends
//! to the target waits for it before it starts (and before its exchange is recorded, so the
//! recorded start times show the spacing). The runner builds one limiter per remote
//! `host:port` (`runner::share_per_host`) and hands the same one to every server on that
//! host, so two servers behind one host together stay within the rate; a server without one
//! gets its own (`client::connect::limiter_for`).

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

/// The rate used for remote hosts when the config says nothing (docs/safety.md).
pub const DEFAULT_REMOTE_RPS: f64 = 2.0;

/// Starts requests at least `1/rps` apart. Cloning shares the schedule. `None` interval =
/// unthrottled.
#[derive(Debug, Clone)]
pub struct RateLimiter {
    interval: Option<Duration>,
    /// When the last request started. Held across the wait, so waiters take turns in the
    /// order they arrived (tokio's mutex is fair) and each start is measured after the wake:
    /// two starts are never closer than the interval, even when a waiter wakes late.
    last: Arc<Mutex<Option<Instant>>>,
}

/// Two limiters are equal when they share one schedule (or are both unthrottled).
impl PartialEq for RateLimiter {
    fn eq(&self, other: &Self) -> bool {
        self.interval == other.interval
            && (self.interval.is_none() || Arc::ptr_eq(&self.last, &other.last))
    }
}

impl RateLimiter {
    /// A limiter allowing `rps` request starts per second (`None`, zero, negative or
    /// non-finite = unthrottled).
    pub fn new(rps: Option<f64>) -> Self {
        let interval = rps
            .filter(|r| r.is_finite() && *r > 0.0)
            .map(|r| Duration::from_secs_f64(1.0 / r));
        RateLimiter {
            interval,
            last: Arc::new(Mutex::new(None)),
        }
    }

    /// True when requests are spaced at all.
    pub fn is_throttled(&self) -> bool {
        self.interval.is_some()
    }

    /// The minimum time between two request starts, when throttled.
    pub fn interval(&self) -> Option<Duration> {
        self.interval
    }

    /// Waits until the next request may start and marks it started. Call it right before
    /// the request goes out.
    pub async fn wait(&self) {
        let Some(interval) = self.interval else {
            return;
        };
        let mut last = self.last.lock().await;
        if let Some(t) = *last {
            tokio::time::sleep_until(t + interval).await;
        }
        *last = Some(Instant::now());
    }
}

/// True when the URL's host is a loopback name or address (`localhost`, `*.localhost`,
/// 127.0.0.0/8, ::1). An unparsable URL counts as remote, so it is throttled rather than
/// hammered.
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

/// `host:port` of a URL (the scheme's default port when none is written), the key under
/// which servers share a limiter. `None` for an unparsable URL.
pub fn host_key(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    let host = u.host_str()?.to_ascii_lowercase();
    let port = u.port_or_known_default()?;
    Some(format!("{host}:{port}"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn host_keys_name_the_port() {
        assert_eq!(
            host_key("https://MCP.example.com/mcp").as_deref(),
            Some("mcp.example.com:443")
        );
        assert_eq!(
            host_key("http://127.0.0.1:3000/a").as_deref(),
            Some("127.0.0.1:3000")
        );
        assert_eq!(host_key("nonsense"), None);
    }

    #[tokio::test]
    async fn spaces_request_starts() {
        let l = RateLimiter::new(Some(20.0));
        let start = Instant::now();
        for _ in 0..5 {
            l.wait().await;
        }
        // 5 starts at 20 rps: the fifth starts 200 ms after the first.
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(200), "{took:?}");
        let free = RateLimiter::new(None);
        let start = Instant::now();
        for _ in 0..100 {
            free.wait().await;
        }
        assert!(start.elapsed() < Duration::from_millis(10));
    }

    #[tokio::test]
    async fn concurrent_waiters_share_the_schedule() {
        let l = RateLimiter::new(Some(50.0));
        let starts = Arc::new(std::sync::Mutex::new(Vec::new()));
        let tasks: Vec<_> = (0..8)
            .map(|_| {
                let (l, starts) = (l.clone(), starts.clone());
                tokio::spawn(async move {
                    l.wait().await;
                    starts
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(Instant::now());
                })
            })
            .collect();
        for t in tasks {
            t.await.expect("task");
        }
        let mut s = starts.lock().unwrap_or_else(|e| e.into_inner()).clone();
        s.sort();
        let span = s[s.len() - 1] - s[0];
        // 8 starts at 50 rps: at least 7 × 20 ms between the first and the last.
        assert!(span >= Duration::from_millis(138), "{span:?}");
    }
}
