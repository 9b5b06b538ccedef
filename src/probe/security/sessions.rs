//! `security.session_entropy`: whether someone who saw a few session ids could guess the next.
//! On the handshake-era HTTP wire scout opens [`SAMPLES`] fresh sessions with `initialize`,
//! one after the other (so a counter shows as consecutive values), closes each with DELETE,
//! and judges the ids: visible ASCII, all distinct, no counter or timestamp, no time-based
//! UUID, and an entropy estimate from the positions that vary and the alphabet used.

use serde_json::json;

use super::SESSION_ENTROPY;
use crate::client::Connection;
use crate::probe::Session;
use crate::report::exchange::Seq;
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::report::model::TransportKind;
use crate::transport::limiter::RateLimiter;
use crate::transport::{IdKind, MetaMode, Probe, SessionMode};

/// Sessions opened to sample ids (and closed again).
pub const SAMPLES: usize = 5;
/// At or above this estimate the ids pass.
pub const STRONG_BITS: f64 = 128.0;
/// Below this many ids a position that did not vary may still be random.
const FEW_SAMPLES: usize = 4;
/// Below this estimate the ids are guessable: a failure.
pub const WEAK_BITS: f64 = 64.0;

/// The verdict on a set of ids.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Pass(String),
    Warn(String),
    Fail(String),
    /// Too little to judge.
    Unjudged(String),
}

/// The size of the smallest usual alphabet that holds every character of `chars`.
fn alphabet(chars: impl Iterator<Item = char>) -> (u32, &'static str) {
    let (mut lower_hex, mut upper_hex, mut lower, mut upper) = (false, false, false, false);
    let (mut url_extra, mut b64_extra, mut other) = (false, false, false);
    for c in chars {
        match c {
            '0'..='9' => {}
            'a'..='f' => lower_hex = true,
            'A'..='F' => upper_hex = true,
            'g'..='z' => lower = true,
            'G'..='Z' => upper = true,
            '-' | '_' => url_extra = true,
            '+' | '/' | '=' => b64_extra = true,
            _ => other = true,
        }
    }
    let lower_any = lower || lower_hex;
    let upper_any = upper || upper_hex;
    if other {
        (94, "visible ASCII")
    } else if url_extra || b64_extra {
        (64, "base64")
    } else if lower_any && upper_any {
        (62, "letters and digits")
    } else if lower || upper {
        (36, "letters and digits of one case")
    } else if lower_hex || upper_hex {
        (16, "hex")
    } else {
        (10, "decimal digits")
    }
}

/// The characters every id shares at the start, and at the end (not overlapping).
fn common_affixes(ids: &[Vec<char>]) -> (usize, usize) {
    let min = ids.iter().map(Vec::len).min().unwrap_or(0);
    let prefix = (0..min)
        .take_while(|&i| ids.iter().all(|id| id[i] == ids[0][i]))
        .count();
    let suffix = (0..min - prefix)
        .take_while(|&i| {
            let c = ids[0][ids[0].len() - 1 - i];
            ids.iter().all(|id| id[id.len() - 1 - i] == c)
        })
        .count();
    (prefix, suffix)
}

/// The part of each id that differs between them, widened over digits so that a counter
/// (`s-19`, `s-20`) is read whole.
fn varying_tokens(ids: &[Vec<char>]) -> Vec<String> {
    let (mut prefix, mut suffix) = common_affixes(ids);
    while prefix > 0 && ids[0][prefix - 1].is_ascii_hexdigit() {
        prefix -= 1;
    }
    while suffix > 0 && ids[0][ids[0].len() - suffix].is_ascii_hexdigit() {
        suffix -= 1;
    }
    ids.iter()
        .map(|id| id[prefix..id.len() - suffix].iter().collect())
        .collect()
}

/// Reads the varying parts as numbers (decimal, else hex) when they are.
fn as_numbers(tokens: &[String]) -> Option<Vec<u128>> {
    let parse = |radix: u32| -> Option<Vec<u128>> {
        tokens
            .iter()
            .map(|t| {
                (!t.is_empty() && t.len() <= 32)
                    .then(|| u128::from_str_radix(t, radix).ok())
                    .flatten()
            })
            .collect()
    };
    if tokens.iter().all(|t| t.chars().all(|c| c.is_ascii_digit())) {
        parse(10)
    } else if tokens
        .iter()
        .all(|t| t.chars().all(|c| c.is_ascii_hexdigit()))
    {
        parse(16)
    } else {
        None
    }
}

/// The version nibble of a UUID-shaped id (hyphenated or 32 hex digits), if it is one.
fn uuid_version(id: &str) -> Option<(char, char)> {
    let hex: String = id.chars().filter(|c| *c != '-').collect();
    let hyphens_ok = !id.contains('-')
        || (id.len() == 36 && [8, 13, 18, 23].iter().all(|&i| id.as_bytes()[i] == b'-'));
    if hex.len() != 32 || !hyphens_ok || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let b: Vec<char> = hex.chars().collect();
    Some((b[12].to_ascii_lowercase(), b[16].to_ascii_lowercase()))
}

/// Seconds since the epoch, now.
fn now_secs() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as u128)
        .unwrap_or(0)
}

/// True when `n` reads as a time within a day of `now` (seconds to nanoseconds).
fn looks_like_time(n: u128, now: u128) -> bool {
    [1u128, 1_000, 1_000_000, 1_000_000_000]
        .iter()
        .any(|scale| {
            let t = n / scale;
            t + 86_400 >= now && t <= now + 86_400
        })
}

/// Judges the ids of fresh sessions, in the order they were issued.
pub fn judge_ids(ids: &[String]) -> Verdict {
    judge_ids_at(ids, now_secs())
}

/// [`judge_ids`] with the clock given (for tests).
pub fn judge_ids_at(ids: &[String], now: u128) -> Verdict {
    judge_ids_of("session", ids, now)
}

/// Judges fresh ids of any kind (`what`: "session", "task"), in the order they were issued:
/// the same rules make a session id and a task id unguessable.
pub fn judge_ids_named(what: &str, ids: &[String]) -> Verdict {
    judge_ids_of(what, ids, now_secs())
}

fn judge_ids_of(what: &str, ids: &[String], now: u128) -> Verdict {
    if ids.len() < 2 {
        return Verdict::Unjudged(format!(
            "only {} {what} id(s) could be collected; at least two are needed",
            ids.len()
        ));
    }
    let shown = |id: &str| {
        let mut s: String = id.chars().take(48).collect();
        if id.chars().count() > 48 {
            s.push('…');
        }
        format!("\"{}\"", s.escape_debug())
    };
    let lens: Vec<usize> = ids.iter().map(|i| i.chars().count()).collect();
    let len_text = match (lens.iter().min(), lens.iter().max()) {
        (Some(a), Some(b)) if a == b => format!("{a} characters"),
        (Some(a), Some(b)) => format!("{a}–{b} characters"),
        _ => String::new(),
    };
    if let Some(bad) = ids
        .iter()
        .find(|id| id.is_empty() || !id.chars().all(|c| ('\u{21}'..='\u{7E}').contains(&c)))
    {
        return Verdict::Fail(format!(
            "The {what} id {} is empty or has characters outside visible ASCII (0x21–0x7E), which the transports forbid.",
            shown(bad)
        ));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(dup) = ids.iter().find(|id| !seen.insert(id.as_str())) {
        return Verdict::Fail(format!(
            "Two fresh {what}s got the same id {}: a {what} id must be unique.",
            shown(dup)
        ));
    }
    // UUIDs: the version says how they were made. Random hex only looks like a UUID by
    // chance, so every id must carry the same version and a valid RFC 4122 variant.
    let versions: Vec<(char, char)> = ids.iter().filter_map(|i| uuid_version(i)).collect();
    let uuid_like = versions.len() == ids.len()
        && versions
            .iter()
            .all(|(v, var)| *v == versions[0].0 && matches!(var, '8' | '9' | 'a' | 'b'));
    if uuid_like {
        match versions[0].0 {
            '4' => {
                return Verdict::Pass(format!(
                    "{} fresh {what}s got distinct random (version 4) UUIDs, e.g. {}: 122 random bits each, the spec's own example of a secure session id.",
                    ids.len(),
                    shown(&ids[0])
                ));
            }
            v @ ('1' | '2' | '6') => {
                return Verdict::Fail(format!(
                    "The {what} ids are time-based UUIDs (version {v}), e.g. {}: they follow from the clock and the machine, and can be predicted.",
                    shown(&ids[0])
                ));
            }
            '7' => {
                return Verdict::Warn(format!(
                    "The {what} ids are version 7 UUIDs, e.g. {}: a timestamp and 74 random bits, below the {STRONG_BITS} bits scout expects.",
                    shown(&ids[0])
                ));
            }
            _ => {}
        }
    }
    let chars: Vec<Vec<char>> = ids.iter().map(|i| i.chars().collect()).collect();
    let tokens = varying_tokens(&chars);
    if let Some(nums) = as_numbers(&tokens) {
        let steps_small = nums
            .windows(2)
            .all(|w| w[1] > w[0] && w[1] - w[0] <= 1 << 20);
        if steps_small {
            return Verdict::Fail(format!(
                "The {what} ids count up: {} fresh {what}s got {} — the next one can be guessed.",
                ids.len(),
                ids.iter().map(|i| shown(i)).collect::<Vec<_>>().join(", ")
            ));
        }
        if nums.iter().all(|n| looks_like_time(*n, now)) {
            return Verdict::Fail(format!(
                "The varying part of the {what} ids reads as the current time (e.g. {}): it can be predicted.",
                shown(&ids[0])
            ));
        }
    }
    // The estimate: positions that vary (equal lengths), or the varying length, times the
    // bits of the alphabet the ids use there.
    let (mut prefix, mut suffix) = common_affixes(&chars);
    if ids.len() < FEW_SAMPLES {
        // With few samples random characters often agree by chance at the ends too (two
        // random hex ids share their first digit one time in sixteen): only the part of a
        // shared affix up to a separator (`task-`, `_sess`) is taken as fixed.
        let first = &chars[0];
        prefix = first[..prefix]
            .iter()
            .rposition(|c| !c.is_ascii_alphanumeric())
            .map_or(0, |i| i + 1);
        let len = first.len();
        suffix = first[len - suffix..]
            .iter()
            .position(|c| !c.is_ascii_alphanumeric())
            .map_or(0, |i| suffix - i);
    }
    let same_length = lens.iter().all(|l| *l == lens[0]);
    let (positions, alphabet_chars): (usize, Vec<char>) = if same_length {
        // With few samples a random position often repeats by chance (two random hex digits
        // agree one time in sixteen), so below FEW_SAMPLES every position between the
        // common prefix and suffix counts; with more, only those that vary.
        let varying: Vec<usize> = (prefix..lens[0] - suffix)
            .filter(|&i| ids.len() < FEW_SAMPLES || chars.iter().any(|c| c[i] != chars[0][i]))
            .collect();
        let used = varying
            .iter()
            .flat_map(|&i| chars.iter().map(move |c| c[i]))
            .collect();
        (varying.len(), used)
    } else {
        let min = lens.iter().min().copied().unwrap_or(0);
        let used = chars
            .iter()
            .flat_map(|c| c[prefix..c.len() - suffix].iter().copied())
            .collect();
        (min.saturating_sub(prefix + suffix), used)
    };
    let (size, name) = alphabet(alphabet_chars.into_iter());
    let bits = positions as f64 * f64::from(size).log2();
    let summary = format!(
        "{} fresh {what}s got distinct ids of {len_text} (e.g. {}); {positions} positions vary, drawn from {name}: about {bits:.0} bits.",
        ids.len(),
        shown(&ids[0])
    );
    if bits >= STRONG_BITS {
        Verdict::Pass(summary)
    } else if bits >= WEAK_BITS {
        Verdict::Warn(format!(
            "{summary} Below the {STRONG_BITS} bits scout expects of a {what} id."
        ))
    } else {
        Verdict::Fail(format!(
            "{summary} That is few enough to guess (under {WEAK_BITS} bits)."
        ))
    }
}

/// One fresh session: its id (if the server minted one) and the exchange.
async fn open_one(wire: &Connection, i: usize) -> (Option<String>, Vec<Seq>) {
    let reply = wire
        .send(Probe {
            id: IdKind::Str(format!("scout-entropy-{i}")),
            meta: MetaMode::Omit,
            session: SessionMode::None,
            ..Probe::request(
                "initialize",
                json!({
                    "protocolVersion": wire.protocol_version(),
                    "capabilities": {},
                    "clientInfo": {"name": "scout", "version": env!("CARGO_PKG_VERSION")},
                }),
            )
        })
        .await;
    let id = reply
        .http
        .as_ref()
        .and_then(|h| h.header("mcp-session-id"))
        .map(str::to_string);
    (id, reply.evidence)
}

/// Samples and judges the session ids of the handshake-era HTTP wire.
pub async fn run(s: &Session) -> Vec<FindingBuilder> {
    let na = |why: &str| vec![SESSION_ENTROPY.skip(SkipReason::NotApplicable, why.to_string())];
    let Some(wire) = s
        .wires
        .iter()
        .find(|w| w.era() == Era::Legacy && w.transport() == TransportKind::Http)
    else {
        return na(match s.wires.first().map(Connection::transport) {
            Some(TransportKind::Stdio) => "stdio has no HTTP sessions.",
            Some(TransportKind::LegacySse) => {
                "The HTTP+SSE transport carries its session in the endpoint URL, not in Mcp-Session-Id."
            }
            _ => "Session ids belong to the handshake era over HTTP; 2026-07-28 is stateless.",
        });
    };
    if wire.session_id().is_none() {
        return na("The server issued no Mcp-Session-Id when the run's session was opened.");
    }
    if let Some(skip) = crate::probe::classes::refused(&s.spec, &SESSION_ENTROPY) {
        return vec![skip];
    }
    let limiter = RateLimiter::new(None);
    let mut ids = Vec::new();
    let mut evidence = Vec::new();
    // One after another on purpose: whether ids count up is judged in the order the server
    // minted them, which only sequential requests show.
    for i in 0..SAMPLES {
        limiter.wait().await;
        let (id, ev) = open_one(wire, i).await;
        evidence.extend(ev);
        // A server that stops minting ids (or answering) has nothing more to show.
        let Some(id) = id else { break };
        // Each session completes its handshake as an agent's would before it is closed: a
        // server may treat a session left half-open as a client that went wrong.
        limiter.wait().await;
        let done = wire
            .send(Probe {
                meta: MetaMode::Omit,
                session: SessionMode::Custom(id.clone()),
                ..Probe::notification("notifications/initialized", None)
            })
            .await;
        evidence.extend(&done.evidence);
        ids.push(id);
    }
    // Every session scout opened is closed again, all at once.
    let mut not_closed = Vec::new();
    let closed = futures_util::future::join_all(ids.iter().map(|id| {
        let limiter = &limiter;
        async move {
            limiter.wait().await;
            wire.send(Probe {
                http_method: Some("DELETE".into()),
                session: SessionMode::Custom(id.clone()),
                expect_no_reply: true,
                ..Probe::default()
            })
            .await
        }
    }))
    .await;
    for reply in closed {
        evidence.extend(&reply.evidence);
        if !reply
            .status()
            .is_some_and(|c| (200..300).contains(&c) || c == 404)
        {
            not_closed.push(
                reply
                    .status()
                    .map_or("no answer".to_string(), |c| format!("HTTP {c}")),
            );
        }
    }
    let closing = if not_closed.is_empty() {
        format!(" All {} sessions were closed again with DELETE.", ids.len())
    } else {
        format!(
            " DELETE could not close {} of them ({}); the server has to expire them.",
            not_closed.len(),
            not_closed.join(", ")
        )
    };
    let f = match judge_ids(&ids) {
        Verdict::Pass(d) => SESSION_ENTROPY.pass(d + &closing),
        Verdict::Warn(d) => SESSION_ENTROPY.warn(d + &closing),
        Verdict::Fail(d) => SESSION_ENTROPY.fail(d + &closing),
        Verdict::Unjudged(d) => SESSION_ENTROPY.skip(SkipReason::NotAssessed, d + &closing),
    };
    vec![f.evidence(evidence).era(Era::Legacy)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    fn kind(v: &Verdict) -> &'static str {
        match v {
            Verdict::Pass(_) => "pass",
            Verdict::Warn(_) => "warn",
            Verdict::Fail(_) => "fail",
            Verdict::Unjudged(_) => "unjudged",
        }
    }

    const NOW: u128 = 1_790_000_000;

    #[test]
    fn two_random_ids_that_agree_at_their_ends_by_chance_still_pass() {
        // 32 random hex digits each, sharing the first and the last digit by chance.
        let hex = v(&[
            "0d0844d722e0df0a2381deaeefb37129",
            "069508d41c2353cd550f03e6db0929b9",
        ]);
        assert_eq!(kind(&judge_ids_of("task", &hex, NOW)), "pass");
        // A shared prefix up to a separator is fixed, whatever follows it.
        let prefixed = v(&[
            "task-a0844d722e0df0a2381deaeefb37129c",
            "task-a69508d41c2353cd550f03e6db0929bc",
        ]);
        assert_eq!(kind(&judge_ids_of("task", &prefixed, NOW)), "pass");
        let short = v(&["task-a08f", "task-a695"]);
        assert_eq!(kind(&judge_ids_of("task", &short, NOW)), "fail");
    }

    #[test]
    fn random_uuids_pass_in_both_spellings() {
        let hyphenated = v(&[
            "b93875df-22c4-4cd6-be90-9513b403a99f",
            "efad0eca-55b3-465f-81d9-17fe977db92e",
            "e13f65a7-a5a9-46ff-8da2-815851106c53",
        ]);
        assert_eq!(kind(&judge_ids_at(&hyphenated, NOW)), "pass");
        let hex = v(&[
            "3c5e03f06376413fa3c089f95670e290",
            "9e64a788229c4f0bb44213b4c8d1f0aa",
        ]);
        assert_eq!(kind(&judge_ids_at(&hex, NOW)), "pass");
        // 32 random hex digits that are no UUID are judged by the estimate (128 bits).
        let random_hex = v(&[
            "1f2e3d4c5b6a79881f2e3d4c5b6a7988",
            "a0b1c2d3e4f5061728394a5b6c7d8e9f",
            "9a8b7c6d5e4f30211203f4e5d6c7b8a9",
        ]);
        assert_eq!(kind(&judge_ids_at(&random_hex, NOW)), "pass");
    }

    #[test]
    fn counters_timestamps_and_time_based_uuids_fail() {
        for ids in [
            v(&["mcp-session-1001", "mcp-session-1002", "mcp-session-1003"]),
            v(&["s-9", "s-10", "s-11"]),
            v(&["0000000a", "0000000b", "0000000d"]),
            v(&[
                "sess-1789999990123",
                "sess-1789999990456",
                "sess-1789999991002",
            ]),
            v(&[
                "6e1a2b30-9c3d-11ef-8a4b-0242ac120002",
                "6e1a2b31-9c3d-11ef-8a4b-0242ac120002",
            ]),
            v(&["a", "a"]),
            v(&["ok", "bad id"]),
        ] {
            let verdict = judge_ids_at(&ids, NOW);
            assert_eq!(kind(&verdict), "fail", "{ids:?}: {verdict:?}");
        }
    }

    #[test]
    fn the_estimate_counts_varying_positions_and_the_alphabet() {
        // 32 random base64url characters: 192 bits.
        let strong = v(&[
            "Zx8_q1Lm0Pa9Bc7Dd6Ee5Ff4Gg3Hh2Ii",
            "k9J-w2Xy3Zz4Aa5Bb6Cc7Dd8Ee9Ff0Gg",
            "Qq1Ww2Ee3Rr4Tt5Yy6Uu7Ii8Oo9Pp0_-",
        ]);
        assert_eq!(kind(&judge_ids_at(&strong, NOW)), "pass");
        // 20 hex characters behind a fixed prefix: 80 bits.
        let medium = v(&[
            "session-9f8e7d6c5b4a39281706",
            "session-0a1b2c3d4e5f60718293",
            "session-f0e1d2c3b4a596870123",
        ]);
        let verdict = judge_ids_at(&medium, NOW);
        assert_eq!(kind(&verdict), "warn", "{verdict:?}");
        // 8 hex characters: 32 bits.
        let weak = v(&["9f8e7d6c", "0a1b2c3d", "f0e1d2c3"]);
        assert_eq!(kind(&judge_ids_at(&weak, NOW)), "fail");
        assert_eq!(kind(&judge_ids_at(&v(&["only-one"]), NOW)), "unjudged");
    }
}
