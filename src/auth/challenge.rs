//! `WWW-Authenticate` challenges (RFC 9110 §11.6.1; Bearer parameters from RFC 6750 §3 and
//! RFC 9728 §5.1): a header value may hold several challenges, each a scheme followed by a
//! token68 or by `name=value` parameters (values are tokens or quoted strings).

/// One challenge: `Bearer realm="x", resource_metadata="…"`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Challenge {
    /// The auth scheme as sent (compare case-insensitively).
    pub scheme: String,
    /// Parameters in order, names lower-cased, values unquoted.
    pub params: Vec<(String, String)>,
    /// A token68 instead of parameters (rare).
    pub token68: Option<String>,
}

impl Challenge {
    /// A parameter's value (name case-insensitive).
    pub fn param(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.params
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// True for the Bearer scheme.
    pub fn is_bearer(&self) -> bool {
        self.scheme.eq_ignore_ascii_case("bearer")
    }
}

/// What a challenge in the middle of a conversation already said, so that a new grant
/// need not provoke one: where the resource metadata is, and the scope the request needs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Seen {
    pub resource_metadata: Option<String>,
    pub scope: Option<String>,
}

impl Seen {
    pub fn of(c: &Challenge) -> Seen {
        Seen {
            resource_metadata: c.param("resource_metadata").map(str::to_string),
            scope: c.param("scope").map(str::to_string),
        }
    }
}

/// The Bearer challenge among the `WWW-Authenticate` values, if any.
pub fn bearer<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Challenge> {
    values
        .into_iter()
        .flat_map(parse)
        .find(Challenge::is_bearer)
}

/// The schemes a `WWW-Authenticate` value names, in order, once each (`ApiKey, Basic`);
/// `None` when it names none.
pub fn schemes(value: &str) -> Option<String> {
    let mut names: Vec<String> = Vec::new();
    for c in parse(value) {
        if !names.iter().any(|n| n.eq_ignore_ascii_case(&c.scheme)) {
            names.push(c.scheme);
        }
    }
    (!names.is_empty()).then(|| names.join(", "))
}

/// `Negotiate abc==`: token68 characters, `=` only as trailing padding.
fn is_token68(s: &str) -> bool {
    let body = s.trim_end_matches('=');
    !body.is_empty()
        && body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._~+/".contains(c))
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Parses one header value into its challenges. Never fails: what cannot be read is skipped.
pub fn parse(value: &str) -> Vec<Challenge> {
    let chars: Vec<char> = value.chars().collect();
    let mut i = 0;
    let mut out: Vec<Challenge> = Vec::new();
    let skip_ws = |i: &mut usize| {
        while *i < chars.len() && (chars[*i] == ' ' || chars[*i] == '\t') {
            *i += 1;
        }
    };
    let token = |i: &mut usize| -> String {
        let start = *i;
        while *i < chars.len() && is_tchar(chars[*i]) {
            *i += 1;
        }
        chars[start..*i].iter().collect()
    };
    while i < chars.len() {
        skip_ws(&mut i);
        if i < chars.len() && chars[i] == ',' {
            i += 1;
            continue;
        }
        let word = token(&mut i);
        if word.is_empty() {
            i += 1; // a stray character
            continue;
        }
        // Is this a parameter of the current challenge (`word=`) or a new scheme?
        let mut j = i;
        skip_ws(&mut j);
        let is_param = j < chars.len() && chars[j] == '=' && !out.is_empty() && {
            // `token68` ends with `=` padding; a parameter has a value after the `=`.
            let mut k = j + 1;
            while k < chars.len() && chars[k] == '=' {
                k += 1;
            }
            k == j + 1
        };
        if is_param {
            i = j + 1;
            skip_ws(&mut i);
            let v = if i < chars.len() && chars[i] == '"' {
                i += 1;
                let mut s = String::new();
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        i += 1;
                    }
                    s.push(chars[i]);
                    i += 1;
                }
                i += 1; // closing quote
                s
            } else {
                token(&mut i)
            };
            if let Some(c) = out.last_mut() {
                c.params.push((word.to_ascii_lowercase(), v));
            }
            continue;
        }
        // A new challenge: the scheme, then maybe a token68 (up to the next comma).
        let mut c = Challenge {
            scheme: word,
            ..Challenge::default()
        };
        skip_ws(&mut i);
        let end = chars[i..]
            .iter()
            .position(|&ch| ch == ',')
            .map_or(chars.len(), |p| i + p);
        let seg: String = chars[i..end].iter().collect::<String>().trim().to_string();
        if is_token68(&seg) {
            c.token68 = Some(seg);
            i = end;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_with_quoted_and_token_params() {
        let c = parse(
            r#"Bearer error="invalid_token", error_description="Authentication required", resource_metadata="http://127.0.0.1:3006/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(c.len(), 1);
        assert!(c[0].is_bearer());
        assert_eq!(c[0].param("error"), Some("invalid_token"));
        assert_eq!(
            c[0].param("RESOURCE_METADATA"),
            Some("http://127.0.0.1:3006/.well-known/oauth-protected-resource/mcp")
        );
        let c = parse(r#"bearer realm=mcp,scope="files:read files:write""#);
        assert_eq!(c[0].param("realm"), Some("mcp"));
        assert_eq!(c[0].param("scope"), Some("files:read files:write"));
    }

    #[test]
    fn several_challenges_in_one_value() {
        let c = parse(
            r#"Basic realm="x", Bearer resource_metadata="https://h/.well-known/oauth-protected-resource", scope="a""#,
        );
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].scheme, "Basic");
        assert_eq!(c[0].param("realm"), Some("x"));
        let b = bearer([r#"Basic realm="x", Bearer scope="a""#]).expect("bearer");
        assert_eq!(b.param("scope"), Some("a"));
        assert!(bearer(["Basic realm=\"x\""]).is_none());
    }

    #[test]
    fn a_bearer_challenge_on_a_second_field_line_is_found() {
        // Two field lines (RFC 9110 §11.6.1: the field can occur multiple times), as the
        // auth phase joins them: the Bearer challenge after Basic keeps its parameters.
        let lines = [
            "Basic realm=\"legacy\"",
            "Bearer resource_metadata=\"https://h/.well-known/oauth-protected-resource/mcp\", scope=\"mcp\"",
        ];
        let b = bearer(lines).expect("bearer on the second line");
        assert_eq!(
            b.param("resource_metadata"),
            Some("https://h/.well-known/oauth-protected-resource/mcp")
        );
        let joined = bearer([lines.join(", ").as_str()]).expect("joined");
        assert_eq!(joined, b);
        assert_eq!(schemes(&lines.join(", ")).as_deref(), Some("Basic, Bearer"));
        assert_eq!(
            schemes("ApiKey header=\"X-API-Key\"").as_deref(),
            Some("ApiKey")
        );
        assert_eq!(schemes(""), None);
    }

    #[test]
    fn bare_scheme_token68_escapes_and_garbage() {
        let c = parse("Bearer");
        assert_eq!(c.len(), 1);
        assert!(c[0].params.is_empty());
        let c = parse("Negotiate a87421000492aa874209af8bc028==");
        assert_eq!(
            c[0].token68.as_deref(),
            Some("a87421000492aa874209af8bc028==")
        );
        let c = parse(r#"Bearer error_description="say \"hi\"""#);
        assert_eq!(c[0].param("error_description"), Some(r#"say "hi""#));
        for junk in [
            "",
            ",,,",
            "=\"",
            "Bearer a=\"unterminated",
            "\u{1F600} Bearer x=1",
        ] {
            let _ = parse(junk); // never panics
        }
    }
}
