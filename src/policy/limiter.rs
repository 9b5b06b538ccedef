//! The `--rps` rate limiter: requests towards a remote (non-loopback) host start at least
//! `1/rps` seconds apart, across every phase and every probe of a run. Loopback HTTP and
//! stdio are unthrottled, unless the server is configured with `treat_as_remote`.
//!
//! Where it applies: one limiter lives in the target's HTTP client
//! ([`HttpClients`](crate::transport::http::HttpClients)), and every HTTP request scout sends
//! to the target waits for it before it starts (and before its exchange is recorded, so the
//! recorded start times show the spacing). The runner builds one limiter per remote
//! `host:port` with [`share_per_host`] and hands the same one to every server on that host,
//! so two servers behind one host together stay within the rate.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::probe::spec::{ServerSpec, TargetSpec};

/// The rate used for remote hosts when the config says nothing (DESIGN §5).
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

    /// The limiter every HTTP request to this server passes: the one the runner shared for
    /// its host when there is one, else a new one: `spec.rps` (default 2) when the server
    /// [is remote](ServerSpec::is_remote), unthrottled otherwise.
    pub fn for_target(spec: &ServerSpec) -> Self {
        if let Some(shared) = &spec.limiter {
            return shared.clone();
        }
        RateLimiter::new(
            spec.is_remote()
                .then(|| spec.rps.unwrap_or(DEFAULT_REMOTE_RPS)),
        )
    }

    /// An unthrottled limiter, for phases that still pace their own requests.
    ///
    /// Every HTTP request is paced in the transport (see [`RateLimiter::for_target`]); a
    /// phase that also waited on a limiter of its own would pace each request twice. The
    /// catalog and execution phases still call this and `wait()`; both are no-ops now and
    /// the calls can go.
    pub fn for_spec(_spec: &ServerSpec) -> Self {
        RateLimiter::new(None)
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

/// Gives every remote HTTP server one limiter per `host:port`, shared by all servers on that
/// host, at the lowest `rps` any of them is configured with. Servers that are not remote get
/// none (their transport builds an unthrottled one).
pub fn share_per_host(specs: &mut [ServerSpec]) {
    let mut rates: HashMap<String, f64> = HashMap::new();
    for s in specs.iter() {
        if let Some(key) = remote_key(s) {
            let rps = s.rps.unwrap_or(DEFAULT_REMOTE_RPS);
            rates
                .entry(key)
                .and_modify(|r| *r = r.min(rps))
                .or_insert(rps);
        }
    }
    let limiters: HashMap<String, RateLimiter> = rates
        .into_iter()
        .map(|(k, rps)| (k, RateLimiter::new(Some(rps))))
        .collect();
    for s in specs.iter_mut() {
        s.limiter = remote_key(s).and_then(|k| limiters.get(&k).cloned());
    }
}

/// The host key of a remote HTTP server (an unparsable URL gets a key of its own).
fn remote_key(s: &ServerSpec) -> Option<String> {
    match &s.target {
        TargetSpec::Http { url, .. } if s.is_remote() => {
            Some(host_key(url).unwrap_or_else(|| url.clone()))
        }
        _ => None,
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

    #[test]
    fn defaults_per_target() {
        assert!(!RateLimiter::for_target(&http("http://127.0.0.1:1/mcp")).is_throttled());
        assert!(RateLimiter::for_target(&http("https://example.com/mcp")).is_throttled());
        let mut local = http("http://127.0.0.1:1/mcp");
        local.rps = Some(5.0);
        assert!(!RateLimiter::for_target(&local).is_throttled());
        local.treat_as_remote = true;
        let l = RateLimiter::for_target(&local);
        assert_eq!(l.interval(), Some(Duration::from_millis(200)));
        let mut stdio = ServerSpec::new(
            "s",
            TargetSpec::Stdio {
                command: vec!["x".into()],
                env_forward: vec![],
                env_set: vec![],
                dir: None,
            },
        );
        stdio.treat_as_remote = true;
        assert!(!RateLimiter::for_target(&stdio).is_throttled());
        // The phases' own limiter no longer paces: the transport does.
        assert!(!RateLimiter::for_spec(&http("https://example.com/mcp")).is_throttled());
    }

    #[test]
    fn servers_on_one_host_share_one_limiter_at_the_lowest_rate() {
        let mut a = http("https://example.com/a");
        a.rps = Some(10.0);
        let mut b = http("https://EXAMPLE.com:443/b");
        b.rps = Some(4.0);
        let c = http("https://other.example.com/mcp");
        let d = http("http://127.0.0.1:9/mcp");
        let mut specs = [a, b, c, d];
        share_per_host(&mut specs);
        let [a, b, c, d] = specs.map(|s| s.limiter);
        let (a, b, c) = (
            a.expect("shared"),
            b.expect("shared"),
            c.expect("own limiter"),
        );
        assert_eq!(a, b, "one schedule for one host");
        assert_eq!(a.interval(), Some(Duration::from_millis(250)));
        assert_ne!(a, c);
        assert_eq!(c.interval(), Some(Duration::from_millis(500)));
        assert!(d.is_none(), "loopback is not throttled");
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
