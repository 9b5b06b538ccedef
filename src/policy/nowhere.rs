//! Generated values that point nowhere (docs/safety.md). A diagnostic must never make the server
//! it checks contact a third party or a private address, so every URL, hostname and e-mail
//! address scout makes up names a host under `.invalid`, the top-level domain RFC 6761
//! reserves and guarantees never resolves.
//!
//! The rule, in full:
//! - string formats `uri`, `url`, `iri`, `uri-reference`, `iri-reference` and `uri-template`
//!   get [`URL`], `hostname`/`idn-hostname` get [`HOST`], `email`/`idn-email` get [`EMAIL`];
//! - a string property whose name ends in a URL word (`url`, `endpoint`, `webhook`, `href`…),
//!   a host word (`host`, `domain`…) or an e-mail word gets the same, whatever its schema;
//! - any other generated string that names a host (a URL taken from the schema's `examples`,
//!   `enum` or `const`, an e-mail address, a dotted name like `api.example.com`, an IP
//!   literal) has that host replaced. A dotted name is read as a host whenever its last
//!   label is letters, so a file name offered as an example (`notes.md`: `.md` is a
//!   top-level domain too) is replaced as well; safety wins over fidelity;
//! - an IP literal is generated only when the schema's `format` demands one (`ipv4`,
//!   `ipv6`): there is no address that never routes, so scout uses the documentation ranges
//!   (RFC 5737 TEST-NET-1 `192.0.2.1`, RFC 3849 `2001:db8::1`), which are never assigned to
//!   a host and are dropped by routers. An IP found anywhere else becomes one of those.
//!
//! Configured arguments are the user's choice and are never rewritten.

use std::net::IpAddr;

use serde_json::Value;

/// The host of every generated URL, hostname and e-mail address.
pub const HOST: &str = "scout-probe.invalid";
/// The generated URL.
pub const URL: &str = "https://scout-probe.invalid/";
/// The generated e-mail address.
pub const EMAIL: &str = "scout@scout-probe.invalid";
/// The generated IPv4 address (RFC 5737 TEST-NET-1, documentation only).
pub const IPV4: &str = "192.0.2.1";
/// The generated IPv6 address (RFC 3849, documentation only).
pub const IPV6: &str = "2001:db8::1";

/// What a string property's name says it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Url,
    Host,
    Email,
}

/// Last words of a property name that make it a URL (`callbackUrl`, `webhook`, `base_uri`).
const URL_WORDS: [&str; 14] = [
    "url",
    "urls",
    "uri",
    "uris",
    "iri",
    "link",
    "links",
    "href",
    "website",
    "homepage",
    "webhook",
    "callback",
    "endpoint",
    "endpoints",
];
/// Last words that make it a host name.
const HOST_WORDS: [&str; 4] = ["host", "hostname", "domain", "domains"];
/// Last words that make it an e-mail address (`e-mail` splits into `e`, `mail`).
const EMAIL_WORDS: [&str; 3] = ["email", "emails", "mail"];

/// The value a string `format` calls for, when it names something that could be reached.
pub fn for_format(format: &str) -> Option<&'static str> {
    Some(match format {
        "uri" | "url" | "iri" | "uri-reference" | "iri-reference" | "uri-template" => URL,
        "hostname" | "idn-hostname" => HOST,
        "email" | "idn-email" => EMAIL,
        "ipv4" => IPV4,
        "ipv6" => IPV6,
        _ => return None,
    })
}

/// What a property named `name` holds, judged by its last word (`callback_url` is a URL,
/// `url_path` is not).
pub fn kind_of(name: &str) -> Option<Kind> {
    let mut w = words(name);
    let last = w.pop()?;
    // `hostName`, `webSite`, `homePage` split in two: read the last two words as one too.
    let joined = w.pop().map(|before| format!("{before}{last}"));
    [Some(last), joined].into_iter().flatten().find_map(|word| {
        let word = word.as_str();
        if URL_WORDS.contains(&word) {
            Some(Kind::Url)
        } else if HOST_WORDS.contains(&word) {
            Some(Kind::Host)
        } else if EMAIL_WORDS.contains(&word) {
            Some(Kind::Email)
        } else {
            None
        }
    })
}

/// The words of an identifier, lower-cased: split at non-alphanumerics and camelCase humps.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `value` with every string that could point somewhere rewritten to point nowhere. `key`
/// is the name of the property holding it, when there is one.
pub fn point_nowhere(value: Value, key: Option<&str>) -> Value {
    match value {
        Value::String(s) => Value::String(string(s, key.and_then(kind_of))),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| point_nowhere(v, key)).collect())
        }
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| {
                    let v = point_nowhere(v, Some(&k));
                    (k, v)
                })
                .collect(),
        ),
        other => other,
    }
}

/// One string, rewritten when its property's name or its content says it could be reached.
fn string(s: String, kind: Option<Kind>) -> String {
    if let Some(url) = absolute_url(&s) {
        return url;
    }
    if let Some(addr) = email(&s) {
        return addr;
    }
    if let Ok(ip) = s.parse::<IpAddr>() {
        return documentation_ip(ip).to_string();
    }
    if is_dotted_name(&s) && !is_nowhere_host(&s) {
        return HOST.to_string();
    }
    match kind {
        Some(Kind::Url) if !is_nowhere_host(&s) => URL.to_string(),
        Some(Kind::Host) if !is_nowhere_host(&s) => HOST.to_string(),
        Some(Kind::Email) => EMAIL.to_string(),
        _ => s,
    }
}

/// True for a string shaped like a DNS name of two or more labels whose last label is
/// letters (`api.example.com`, `example.com.`), the shape a resolver would look up.
fn is_dotted_name(s: &str) -> bool {
    let s = s.strip_suffix('.').unwrap_or(s);
    let labels: Vec<&str> = s.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
        && labels
            .last()
            .is_some_and(|l| l.len() >= 2 && l.chars().all(|c| c.is_ascii_alphabetic()))
}

/// True for a host name under `.invalid` (the only names guaranteed never to resolve).
pub fn is_nowhere_host(host: &str) -> bool {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    h == "invalid" || h.ends_with(".invalid")
}

/// The documentation address of `ip`'s family, unless `ip` already is one.
fn documentation_ip(ip: IpAddr) -> &'static str {
    match ip {
        IpAddr::V4(_) => IPV4,
        IpAddr::V6(_) => IPV6,
    }
}

/// `s` with its host moved under `.invalid`, when `s` is an absolute URL that names one
/// (`mailto:` addresses too); `None` for anything else, or when it already points nowhere.
fn absolute_url(s: &str) -> Option<String> {
    let mut url = url::Url::parse(s).ok()?;
    if url.scheme() == "mailto" {
        return (!email_nowhere(url.path())).then(|| format!("mailto:{EMAIL}"));
    }
    let host = url.host_str()?.to_string();
    if is_nowhere_host(&host) && url.port().is_none() && url.username().is_empty() {
        return Some(s.to_string());
    }
    // Drop the credentials and port of the original with its host.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    let _ = url.set_port(None);
    if url.set_host(Some(HOST)).is_err() {
        return Some(URL.to_string());
    }
    Some(url.to_string())
}

/// [`EMAIL`] when `s` is an e-mail address at a domain that could resolve.
fn email(s: &str) -> Option<String> {
    let (local, domain) = s.rsplit_once('@')?;
    if local.is_empty() || domain.is_empty() || s.chars().any(char::is_whitespace) {
        return None;
    }
    (!is_nowhere_host(domain)).then(|| EMAIL.to_string())
}

fn email_nowhere(addr: &str) -> bool {
    addr.rsplit_once('@')
        .is_some_and(|(_, domain)| is_nowhere_host(domain))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::args;
    use serde_json::json;

    #[test]
    fn names_are_read_by_their_last_word() {
        for name in [
            "url",
            "callbackUrl",
            "webhook_url",
            "WEBHOOK",
            "base-uri",
            "homepage",
            "endpoint",
            "href",
            "links",
            "webSite",
        ] {
            assert_eq!(kind_of(name), Some(Kind::Url), "{name}");
        }
        for name in [
            "host",
            "hostName",
            "smtp_host",
            "domain",
            "server_host_name",
        ] {
            assert_eq!(kind_of(name), Some(Kind::Host), "{name}");
        }
        for name in ["email", "userEmail", "e-mail", "reply_to_email"] {
            assert_eq!(kind_of(name), Some(Kind::Email), "{name}");
        }
        for name in [
            "url_path",
            "message",
            "hostility",
            "domain_id",
            "name",
            "file_name",
            "",
        ] {
            assert_eq!(kind_of(name), None, "{name}");
        }
    }

    #[test]
    fn strings_that_name_a_host_are_moved_under_invalid() {
        let v = point_nowhere(
            json!({
                "fetch": "https://user:pw@api.github.com:8443/repos?q=1",
                "ws": "wss://10.0.0.5/socket",
                "to": "admin@corp.example.com",
                "mailto": "mailto:root@example.org",
                "ip": "10.1.2.3",
                "ip6": "fe80::1",
                "host": "example.com",
                "url": "/relative/path",
                "list": ["http://localhost:8080/", "plain words"],
                "message": "hello",
                "server": "internal.corp.example.com",
                "version": "1.2.3",
                "already": "https://scout-probe.invalid/x"
            }),
            None,
        );
        assert_eq!(
            v,
            json!({
                "fetch": "https://scout-probe.invalid/repos?q=1",
                "ws": "wss://scout-probe.invalid/socket",
                "to": EMAIL,
                "mailto": "mailto:scout@scout-probe.invalid",
                "ip": IPV4,
                "ip6": IPV6,
                "host": HOST,
                "url": URL,
                "list": ["http://scout-probe.invalid/", "plain words"],
                "message": "hello",
                "server": HOST,
                "version": "1.2.3",
                "already": "https://scout-probe.invalid/x"
            })
        );
    }

    /// Why `s` could reach a host: an absolute URL, an e-mail address or a dotted name whose
    /// host is not under `.invalid`, or an IP literal outside the documentation ranges.
    fn reaches(s: &str) -> Option<String> {
        use std::net::IpAddr;
        let dotted = regex::Regex::new(r"^(?i)[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z][a-z0-9-]*\.?$")
            .expect("a valid regex");
        for token in s.split_whitespace() {
            if let Ok(u) = url::Url::parse(token)
                && let Some(h) = u.host_str()
                && !is_nowhere_host(h.trim_matches(['[', ']']))
            {
                return Some(format!("the URL {token:?} names {h}"));
            }
            if let Some((_, domain)) = token.rsplit_once('@')
                && !is_nowhere_host(domain)
            {
                return Some(format!("the address {token:?} names {domain}"));
            }
            let bare = token.trim_start_matches("mailto:");
            if let Ok(ip) = bare.trim_matches(['[', ']']).parse::<IpAddr>() {
                let doc = match ip {
                    IpAddr::V4(v4) => v4.octets()[..3] == [192, 0, 2],
                    IpAddr::V6(v6) => v6.segments()[..2] == [0x2001, 0xdb8],
                };
                if !doc {
                    return Some(format!(
                        "{token:?} is an IP literal outside the documentation ranges"
                    ));
                }
            }
            if dotted.is_match(bare) && !is_nowhere_host(bare) {
                return Some(format!("{token:?} is a host name that could resolve"));
            }
        }
        None
    }

    /// Every string inside `v`.
    fn strings(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            Value::Object(m) => m.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }

    #[test]
    fn the_reachability_test_catches_real_hosts() {
        for s in [
            "https://example.com/",
            "scout@example.com",
            "example.com",
            "127.0.0.1",
            "::1",
            "10.0.0.1",
            "see http://169.254.169.254/latest",
        ] {
            assert!(reaches(s).is_some(), "{s}");
        }
        for s in [
            "https://scout-probe.invalid/",
            "scout@scout-probe.invalid",
            "scout-probe.invalid",
            "192.0.2.1",
            "2001:db8::1",
            "scout",
            "2024-01-01T00:00:00Z",
            "1.5",
            "12:00",
            "Europe/Paris",
        ] {
            assert_eq!(reaches(s), None, "{s}");
        }
    }

    /// No generated value resolves, for every string format and every
    /// URL-like property name, whatever examples, enum or const the schema offers.
    #[test]
    fn generated_values_point_nowhere() {
        const FORMATS: [&str; 12] = [
            "uri",
            "url",
            "iri",
            "uri-reference",
            "iri-reference",
            "uri-template",
            "hostname",
            "idn-hostname",
            "email",
            "idn-email",
            "ipv4",
            "ipv6",
        ];
        const NAMES: [&str; 17] = [
            "url",
            "endpoint",
            "host",
            "domain",
            "email",
            "webhook",
            "callback",
            "link",
            "href",
            "website",
            "uri",
            "callbackUrl",
            "webhook_url",
            "smtpHost",
            "base-uri",
            "homepage",
            "hostname",
        ];
        // What a schema might offer as its own values: real hosts and private addresses.
        let real = [
            json!("https://api.github.com/repos"),
            json!("http://localhost:8080/"),
            json!("admin@corp.example.com"),
            json!("internal.corp.example.com"),
            json!("10.0.0.1"),
            json!("fe80::1"),
        ];
        let mut schemas = Vec::new();
        for f in FORMATS {
            schemas.push((
                "format",
                f.to_string(),
                json!({"type": "string", "format": f}),
            ));
        }
        for n in NAMES {
            schemas.push(("name", n.to_string(), json!({"type": "string"})));
            schemas.push((
                "name",
                n.to_string(),
                json!({"type": "string", "pattern": "^[a-z]+$"}),
            ));
            schemas.push((
                "name",
                n.to_string(),
                json!({"type": "array", "minItems": 2, "items": {"type": "string"}}),
            ));
        }
        for (i, r) in real.iter().enumerate() {
            let n = format!("target{i}");
            schemas.push((
                "examples",
                n.clone(),
                json!({"type": "string", "examples": [r]}),
            ));
            schemas.push(("enum", n.clone(), json!({"type": "string", "enum": [r]})));
            schemas.push(("const", n.clone(), json!({"const": r})));
            schemas.push((
                "nested",
                n,
                json!({"type": "object", "required": ["inner"],
                "properties": {"inner": {"type": "string", "examples": [r]}}}),
            ));
        }
        let mut checked = 0;
        for (how, name, prop) in schemas {
            let tool = json!({"name": "t", "inputSchema": {"type": "object", "required": [name],
                "properties": {name.clone(): prop}}});
            let (generated, source) = args::arguments_for(&tool, &[]);
            assert_eq!(source, args::ArgsSource::Generated);
            let bad = args::invalid(&tool["inputSchema"]).unwrap_or(Value::Null);
            for (what, v) in [
                ("generated", &generated),
                ("invalid", &bad),
                ("placeholder", &args::placeholder(&name)),
            ] {
                let mut all = Vec::new();
                strings(v, &mut all);
                for s in all {
                    checked += 1;
                    assert_eq!(reaches(&s), None, "{how} {name}: {what} value {v}");
                }
            }
        }
        assert!(checked > 100, "only {checked} values checked");
        // The formats and names that call for one get exactly the documented values.
        assert_eq!(
            args::generate(&json!({"type": "string", "format": "uri"})),
            json!(URL)
        );
        assert_eq!(
            args::generate(&json!({"type": "string", "format": "email"})),
            json!(EMAIL)
        );
        assert_eq!(
            args::generate(&json!({"type": "string", "format": "hostname"})),
            json!(HOST)
        );
        assert_eq!(
            args::generate(&json!({"type": "string", "format": "ipv4"})),
            json!(IPV4)
        );
        assert_eq!(args::placeholder("callback_url"), json!(URL));
        assert_eq!(args::placeholder("who"), json!("scout"));
    }
}
