//! Where a URL that the server names may take scout.
//!
//! A protected server names URLs that scout then fetches from the CI host: the challenge's
//! `resource_metadata`, its `authorization_servers`, the endpoints in the authorization
//! server's metadata. A server being vetted could aim those at a cloud metadata address or an
//! internal admin page, so a URL on another origin than the MCP server's own is fetched only
//! over https and only when the address connected to is public. Addresses of the kind the MCP
//! server itself is on stay reachable (a loopback server may name loopback metadata), unless
//! the server is treated as remote, when nothing but public addresses is.
//!
//! The address check happens inside the HTTP client's DNS resolver ([`Guarded`]), so the
//! address checked is the address connected to and a name that resolves differently the
//! second time (DNS rebinding) gains nothing. IP literals never reach a resolver, so
//! [`Reach::judge`] checks them before a request is made.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use tokio::sync::OnceCell;

/// What kind of network an address belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddrClass {
    Public,
    Loopback,
    /// RFC 1918 and IPv6 unique local addresses (fc00::/7).
    Private,
    /// 169.254/16 and fe80::/10.
    LinkLocal,
    /// The shared address space of carrier-grade NAT, 100.64/10 (RFC 6598).
    Cgnat,
    /// Cloud instance metadata services (169.254.169.254, fd00:ec2::254).
    Metadata,
    /// 0.0.0.0/8 and `::`.
    Unspecified,
    Multicast,
    /// Broadcast, documentation, benchmarking, protocol-assignment and reserved ranges:
    /// nothing a server should send a client to.
    Reserved,
}

impl AddrClass {
    /// "a loopback address", for refusal messages.
    pub fn describe(self) -> &'static str {
        match self {
            AddrClass::Public => "a public address",
            AddrClass::Loopback => "a loopback address",
            AddrClass::Private => "a private-network address",
            AddrClass::LinkLocal => "a link-local address",
            AddrClass::Cgnat => "a carrier-grade NAT (shared) address",
            AddrClass::Metadata => "a cloud metadata service address",
            AddrClass::Unspecified => "an unspecified address",
            AddrClass::Multicast => "a multicast address",
            AddrClass::Reserved => "a reserved (non-routable) address",
        }
    }
}

/// The class of `ip`. IPv4 addresses written in IPv6 form (mapped `::ffff:a.b.c.d`,
/// compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::`) are judged by
/// the IPv4 address they carry, so the notation cannot smuggle a private address through.
pub fn classify(ip: IpAddr) -> AddrClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> AddrClass {
    let [a, b, c, _] = ip.octets();
    if ip == Ipv4Addr::new(169, 254, 169, 254) || ip == Ipv4Addr::new(169, 254, 170, 2) {
        AddrClass::Metadata
    } else if ip.is_loopback() {
        AddrClass::Loopback
    } else if ip.is_private() {
        AddrClass::Private
    } else if ip.is_link_local() {
        AddrClass::LinkLocal
    } else if a == 100 && (64..128).contains(&b) {
        AddrClass::Cgnat
    } else if a == 0 {
        AddrClass::Unspecified
    } else if ip.is_multicast() {
        AddrClass::Multicast
    } else if ip.is_broadcast()
        || ip.is_documentation()
        || a >= 240
        || (a == 198 && (18..20).contains(&b))
        || (a == 192 && b == 0 && c == 0)
    {
        AddrClass::Reserved
    } else {
        AddrClass::Public
    }
}

fn classify_v6(ip: Ipv6Addr) -> AddrClass {
    if let Some(v4) = embedded_v4(ip) {
        return classify_v4(v4);
    }
    let seg = ip.segments();
    if ip == Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x254) {
        AddrClass::Metadata
    } else if ip.is_loopback() {
        AddrClass::Loopback
    } else if ip.is_unspecified() {
        AddrClass::Unspecified
    } else if ip.is_multicast() {
        AddrClass::Multicast
    } else if (seg[0] & 0xfe00) == 0xfc00 || (seg[0] & 0xffc0) == 0xfec0 {
        // Unique local (fc00::/7) and the deprecated site-local fec0::/10.
        AddrClass::Private
    } else if (seg[0] & 0xffc0) == 0xfe80 {
        AddrClass::LinkLocal
    } else if seg[0] == 0x2001 && seg[1] == 0x0db8 || seg[0] == 0x0100 && seg[1..4] == [0, 0, 0] {
        // Documentation (2001:db8::/32) and discard-only (100::/64).
        AddrClass::Reserved
    } else {
        AddrClass::Public
    }
}

/// The IPv4 address an IPv6 address carries, for the notations that carry one.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let seg = ip.segments();
    let tail = || Ipv4Addr::from(((seg[6] as u32) << 16) | seg[7] as u32);
    // Compatible (::a.b.c.d, deprecated) and NAT64 (64:ff9b::a.b.c.d) carry it last.
    let compatible = seg[..6] == [0, 0, 0, 0, 0, 0] && !ip.is_loopback() && !ip.is_unspecified();
    let nat64 = seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0];
    if let Some(v4) = ip.to_ipv4_mapped() {
        Some(v4)
    } else if compatible || nat64 {
        Some(tail())
    } else if seg[0] == 0x2002 {
        // 6to4 carries it right after the prefix.
        Some(Ipv4Addr::from(((seg[1] as u32) << 16) | seg[2] as u32))
    } else {
        None
    }
}

/// How a request to one URL is to be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// On the MCP server's own origin: sent as the server was configured.
    Own,
    /// Named by the server, on another origin: sent over the guarded client, without the
    /// trace id, its address checked when it is connected to.
    Named,
    /// Not sent; why.
    Refused(String),
}

/// Where the server-named URLs of one MCP server may take scout.
#[derive(Debug)]
pub struct Reach {
    home: url::Url,
    treat_as_remote: bool,
    /// The classes of the MCP server's own addresses (looked up once, when first needed);
    /// empty when the server is treated as remote.
    home_classes: OnceCell<Vec<AddrClass>>,
}

impl Reach {
    /// The reach of the server at `mcp_url`. `treat_as_remote` (the config key): grant no
    /// address class beyond public, whatever address the server is on.
    pub fn new(mcp_url: &str, treat_as_remote: bool) -> Arc<Reach> {
        let home = url::Url::parse(mcp_url)
            .unwrap_or_else(|_| url::Url::parse("invalid://scout-probe.invalid/").expect("URL"));
        Arc::new(Reach {
            home,
            treat_as_remote,
            home_classes: OnceCell::new(),
        })
    }

    /// The MCP server's URL.
    pub fn home(&self) -> &url::Url {
        &self.home
    }

    /// True when `url` is on the MCP server's own origin (scheme, host and port).
    pub fn is_own(&self, url: &url::Url) -> bool {
        url.origin() == self.home.origin()
    }

    /// True when `url` is the MCP endpoint itself (its query aside).
    pub fn is_endpoint(&self, url: &url::Url) -> bool {
        self.is_own(url) && url.path() == self.home.path()
    }

    /// The classes of address a server-named URL may reach besides public ones: those of
    /// the MCP server's own addresses, unless it is treated as remote.
    pub async fn granted(&self) -> &[AddrClass] {
        self.home_classes
            .get_or_init(|| async {
                if self.treat_as_remote {
                    return Vec::new();
                }
                let mut classes: Vec<AddrClass> = match self.home.host() {
                    Some(url::Host::Ipv4(ip)) => vec![classify_v4(ip)],
                    Some(url::Host::Ipv6(ip)) => vec![classify_v6(ip)],
                    Some(url::Host::Domain(d)) if is_localhost(d) => vec![AddrClass::Loopback],
                    Some(url::Host::Domain(d)) => {
                        lookup(d).await.into_iter().map(classify).collect()
                    }
                    None => Vec::new(),
                };
                classes.retain(|c| *c != AddrClass::Public);
                classes.dedup();
                classes
            })
            .await
    }

    /// True when a server-named URL may connect to `ip`.
    pub async fn permits(&self, ip: IpAddr) -> bool {
        let class = classify(ip);
        class == AddrClass::Public || self.granted().await.contains(&class)
    }

    /// How a request to `url` is to be made. A URL on another origin must be https, unless
    /// its host is an address (or `localhost`) of a class the MCP server itself is on; an
    /// IP literal is checked here, a name when it is resolved ([`Guarded`]).
    pub async fn judge(&self, url: &str) -> Route {
        let Ok(u) = url::Url::parse(url) else {
            return Route::Refused("it is not a URL".into());
        };
        if self.is_own(&u) {
            return Route::Own;
        }
        if !matches!(u.scheme(), "http" | "https") {
            return Route::Refused(format!("its scheme `{}` is not https", u.scheme()));
        }
        let literal = match u.host() {
            Some(url::Host::Ipv4(ip)) => Some(classify_v4(ip)),
            Some(url::Host::Ipv6(ip)) => Some(classify_v6(ip)),
            Some(url::Host::Domain(d)) if is_localhost(d) => Some(AddrClass::Loopback),
            Some(url::Host::Domain(_)) => None,
            None => return Route::Refused("it names no host".into()),
        };
        let granted = match literal {
            Some(AddrClass::Public) | None => false,
            Some(class) if self.granted().await.contains(&class) => true,
            Some(class) => {
                return Route::Refused(format!(
                    "{} is {}, and the MCP server is {}",
                    u.host_str().unwrap_or_default(),
                    class.describe(),
                    self.where_home_is()
                ));
            }
        };
        if u.scheme() != "https" && !granted {
            return Route::Refused(
                "it is plain http on another host than the MCP server's; scout fetches server-named URLs elsewhere only over https".into(),
            );
        }
        Route::Named
    }

    /// "treated as remote", "not on such an address", for refusal messages.
    fn where_home_is(&self) -> &'static str {
        if self.treat_as_remote {
            "treated as remote (treat_as_remote)"
        } else {
            "not on such an address"
        }
    }
}

fn is_localhost(host: &str) -> bool {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    h == "localhost" || h.ends_with(".localhost")
}

async fn lookup(host: &str) -> Vec<IpAddr> {
    match tokio::net::lookup_host((host, 0)).await {
        Ok(addrs) => addrs.map(|a| a.ip()).collect(),
        Err(_) => Vec::new(),
    }
}

/// A name whose addresses were all refused (the error of [`Guarded`]).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{host} resolves only to addresses scout does not fetch server-named URLs from: {why}")]
pub struct Refused {
    pub host: String,
    pub why: String,
}

/// The DNS resolver of the client that fetches server-named URLs: the system's lookup, with
/// every address a server-named URL may not reach removed. The client connects only to
/// what this returns, so the address checked is the address connected to.
pub struct Guarded(pub Arc<Reach>);

impl reqwest::dns::Resolve for Guarded {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let reach = self.0.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let all: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let mut kept = Vec::new();
            let mut refused = Vec::new();
            for a in all {
                if reach.permits(a.ip()).await {
                    kept.push(a);
                } else {
                    refused.push(format!("{} is {}", a.ip(), classify(a.ip()).describe()));
                }
            }
            if kept.is_empty() {
                let why = if refused.is_empty() {
                    "no address".to_string()
                } else {
                    format!(
                        "{}, and the MCP server is {}",
                        refused.join(", "),
                        reach.where_home_is()
                    )
                };
                return Err(Box::new(Refused { host, why }) as Box<_>);
            }
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// The [`Refused`] error somewhere in `e`'s chain of causes.
pub fn refusal_in<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a Refused> {
    let mut cur: Option<&'a (dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(r) = err.downcast_ref::<Refused>() {
            return Some(r);
        }
        cur = err.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(s: &str) -> AddrClass {
        classify(s.parse().expect("an address"))
    }

    #[test]
    fn address_classes() {
        for (a, c) in [
            ("8.8.8.8", AddrClass::Public),
            ("2606:4700::1111", AddrClass::Public),
            ("127.0.0.2", AddrClass::Loopback),
            ("::1", AddrClass::Loopback),
            ("10.1.2.3", AddrClass::Private),
            ("172.16.0.1", AddrClass::Private),
            ("172.31.255.255", AddrClass::Private),
            ("192.168.1.1", AddrClass::Private),
            ("fd12:3456::1", AddrClass::Private),
            ("169.254.1.1", AddrClass::LinkLocal),
            ("fe80::1", AddrClass::LinkLocal),
            ("100.64.0.1", AddrClass::Cgnat),
            ("100.127.255.254", AddrClass::Cgnat),
            ("169.254.169.254", AddrClass::Metadata),
            ("fd00:ec2::254", AddrClass::Metadata),
            ("0.0.0.0", AddrClass::Unspecified),
            ("::", AddrClass::Unspecified),
            ("224.0.0.1", AddrClass::Multicast),
            ("ff02::1", AddrClass::Multicast),
            ("255.255.255.255", AddrClass::Reserved),
            ("192.0.2.1", AddrClass::Reserved),
            ("2001:db8::1", AddrClass::Reserved),
            ("240.0.0.1", AddrClass::Reserved),
            // IPv4 in IPv6 clothing is judged as the IPv4 address it carries.
            ("::ffff:127.0.0.1", AddrClass::Loopback),
            ("::ffff:169.254.169.254", AddrClass::Metadata),
            ("::10.0.0.1", AddrClass::Private),
            ("64:ff9b::a9fe:a9fe", AddrClass::Metadata),
            ("2002:0a00:0001::", AddrClass::Private),
            ("::ffff:8.8.8.8", AddrClass::Public),
        ] {
            assert_eq!(class(a), c, "{a}");
        }
        assert_eq!(class("100.63.255.255"), AddrClass::Public);
        assert_eq!(class("172.32.0.1"), AddrClass::Public);
    }

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
    }

    #[test]
    fn a_loopback_server_may_name_loopback_unless_treated_as_remote() {
        rt().block_on(async {
            let local = Reach::new("http://127.0.0.1:9000/mcp", false);
            assert_eq!(
                local.judge("http://127.0.0.1:9000/.well-known/x").await,
                Route::Own
            );
            assert_eq!(local.judge("http://127.0.0.2:7/prm").await, Route::Named);
            assert_eq!(local.judge("http://localhost:7/prm").await, Route::Named);
            assert!(matches!(
                local.judge("http://169.254.169.254/latest").await,
                Route::Refused(_)
            ));
            assert!(matches!(
                local.judge("http://10.0.0.1/").await,
                Route::Refused(_)
            ));
            assert!(local.permits("127.0.0.5".parse().expect("ip")).await);
            assert!(!local.permits("10.0.0.1".parse().expect("ip")).await);

            let remote = Reach::new("http://127.0.0.1:9000/mcp", true);
            assert_eq!(remote.judge("http://127.0.0.1:9000/t").await, Route::Own);
            let Route::Refused(why) = remote.judge("http://127.0.0.2:7/prm").await else {
                panic!("a loopback URL named by a remote server is refused");
            };
            assert!(why.contains("127.0.0.2 is a loopback address"), "{why}");
            assert!(why.contains("treat_as_remote"), "{why}");
            assert!(matches!(
                remote.judge("https://[::ffff:7f00:2]/prm").await,
                Route::Refused(_)
            ));
            // Other spellings of an IPv4 address are parsed as the address they spell.
            for spelled in [
                "https://2130706434/prm",
                "https://0x7f.0.0.2/prm",
                "https://127.1/",
            ] {
                assert!(
                    matches!(remote.judge(spelled).await, Route::Refused(_)),
                    "{spelled}"
                );
            }
            assert!(!remote.permits("127.0.0.1".parse().expect("ip")).await);
            assert!(remote.permits("8.8.8.8".parse().expect("ip")).await);
        });
    }

    #[test]
    fn elsewhere_only_https_and_only_web_schemes() {
        rt().block_on(async {
            let r = Reach::new("https://mcp.example.com/mcp", false);
            assert_eq!(r.judge("https://auth.example.com/x").await, Route::Named);
            assert_eq!(r.judge("https://mcp.example.com/x").await, Route::Own);
            let Route::Refused(why) = r.judge("http://auth.example.com/x").await else {
                panic!("plain http elsewhere is refused");
            };
            assert!(why.contains("https"), "{why}");
            assert!(matches!(
                r.judge("file:///etc/passwd").await,
                Route::Refused(_)
            ));
            assert!(matches!(r.judge("not a url").await, Route::Refused(_)));
            // Another port is another origin.
            assert_eq!(
                r.judge("https://mcp.example.com:8443/x").await,
                Route::Named
            );
        });
    }

    #[test]
    fn a_private_server_may_name_its_own_network_but_not_metadata() {
        rt().block_on(async {
            let r = Reach::new("http://10.0.0.5:8080/mcp", false);
            assert_eq!(r.judge("http://10.0.0.6/prm").await, Route::Named);
            assert!(matches!(
                r.judge("http://169.254.169.254/").await,
                Route::Refused(_)
            ));
            assert!(matches!(
                r.judge("http://127.0.0.1/").await,
                Route::Refused(_)
            ));
        });
    }

    #[test]
    fn the_resolver_removes_refused_addresses() {
        rt().block_on(async {
            use reqwest::dns::Resolve as _;
            let remote = Guarded(Reach::new("http://127.0.0.1:1/mcp", true));
            let name: reqwest::dns::Name = "localhost".parse().expect("name");
            let Err(e) = remote.resolve(name).await else {
                panic!("localhost resolves only to loopback, refused for a remote server");
            };
            let r = refusal_in(e.as_ref()).expect("a Refused error");
            assert_eq!(r.host, "localhost");
            assert!(r.why.contains("loopback"), "{}", r.why);
            let local = Guarded(Reach::new("http://127.0.0.1:1/mcp", false));
            let name: reqwest::dns::Name = "localhost".parse().expect("name");
            let addrs: Vec<SocketAddr> = local.resolve(name).await.expect("allowed").collect();
            assert!(addrs.iter().all(|a| a.ip().is_loopback()), "{addrs:?}");
            assert!(!addrs.is_empty());
        });
    }
}
