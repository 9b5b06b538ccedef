//! Property tests for every parser and decoder of input scout does not control (anything a server sends):
//! SSE streams, stdout lines, JSON-RPC frames as recorded from HTTP and stdio, header values
//! (the 2026-07-28 `=?base64?…?=` sentinel), tool schemas, durations and the config file.
//! Arbitrary and adversarial input never panics, never grows past the caps, and round-trips
//! where a round trip is defined.
//!
//! Public parsers are tested here; the stdio router, which is internal, has its
//! `prop_tests` beside it in `src/transport/stdio.rs`. The suite runs few cases
//! (`PROPTEST_CASES`, default 32); `scripts/fuzz.sh MINUTES` runs them with many.

use proptest::prelude::*;
use serde_json::{Value, json};

use scout::transport::headers::{decode_value, encode_value, is_plain};
use scout::transport::sse::{ANOMALIES_KEPT, SseEvent, SseParser};
use scout::transport::stdio::LineSplitter;

/// Cases per property: `PROPTEST_CASES`, else a few for the ordinary test run.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        // Failures are kept as named regression tests, not as files beside the sources.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Bytes shaped like what a hostile peer sends: SSE and JSON fragments, every line-ending
/// variant, NULs, invalid UTF-8, long runs.
fn hostile_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"data: ".to_vec()),
        Just(b"data:".to_vec()),
        Just(b"event: message".to_vec()),
        Just(b"id: 7".to_vec()),
        Just(b"retry: x".to_vec()),
        Just(b": comment".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\n\n".to_vec()),
        Just(b"\0".to_vec()),
        Just(vec![0xff, 0xfe, 0xc3]),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}".to_vec()),
        Just(b"[[[[[[[[[[".to_vec()),
        (1usize..3000).prop_map(|n| vec![b'x'; n]),
        proptest::collection::vec(any::<u8>(), 0..16),
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

/// `bytes` fed to a fresh parser in the given chunks; events, then the parser.
fn parse_chunks(chunks: &[&[u8]]) -> (Vec<SseEvent>, SseParser) {
    let mut p = SseParser::new();
    let mut events = Vec::new();
    for c in chunks {
        events.extend(p.feed(c));
    }
    p.finish();
    (events, p)
}

/// Splits `bytes` at the given cut points (taken modulo its length, sorted).
fn split_at<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|c| if bytes.is_empty() { 0 } else { c % bytes.len() })
        .collect();
    points.sort_unstable();
    let mut out = Vec::new();
    let mut last = 0;
    for p in points {
        out.push(&bytes[last..p]);
        last = p;
    }
    out.push(&bytes[last..]);
    out
}

/// A line of event text: anything but CR and LF.
fn field_text() -> impl Strategy<Value = String> {
    "[^\r\n]{0,40}"
}

/// An event as a server writes it, with its expected parse.
fn event() -> impl Strategy<Value = (Option<String>, Vec<String>, Option<String>)> {
    (
        proptest::option::of(field_text()),
        proptest::collection::vec(field_text(), 1..4),
        proptest::option::of("[^\r\n\0]{0,20}"),
    )
}

fn line_end() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("\n"), Just("\r\n"), Just("\r")]
}

proptest! {
    #![proptest_config(config())]

    /// Any bytes, chunked anyhow: no panic, the same events and notes as fed whole, and at
    /// most `ANOMALIES_KEPT` notes however many irregular lines came.
    #[test]
    fn sse_parser_is_chunking_invariant_and_bounded(
        bytes in hostile_bytes(),
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
    ) {
        let (whole, p1) = parse_chunks(&[&bytes]);
        let (chunked, p2) = parse_chunks(&split_at(&bytes, &cuts));
        prop_assert_eq!(&whole, &chunked);
        prop_assert_eq!(&p1.anomalies, &p2.anomalies);
        prop_assert_eq!(p1.anomalies_dropped, p2.anomalies_dropped);
        prop_assert!(p1.anomalies.len() <= ANOMALIES_KEPT);
        prop_assert!(p1.anomalies.iter().all(|a| a.chars().count() <= 200), "{:?}", p1.anomalies);
        prop_assert_eq!(p1.events, whole.len());
    }

    /// Every single split point of a short stream gives what the whole stream gives.
    #[test]
    fn sse_parser_survives_a_split_at_every_byte(bytes in hostile_bytes().prop_map(|mut b| { b.truncate(200); b })) {
        let (whole, p) = parse_chunks(&[&bytes]);
        for k in 0..=bytes.len() {
            let (split, q) = parse_chunks(&[&bytes[..k], &bytes[k..]]);
            prop_assert_eq!(&whole, &split, "split at {}", k);
            prop_assert_eq!(&p.anomalies, &q.anomalies);
        }
    }

    /// Events written with any line endings parse back to what was written.
    #[test]
    fn sse_event_framing_round_trips(
        events in proptest::collection::vec((event(), line_end()), 1..6),
        cuts in proptest::collection::vec(any::<usize>(), 0..6),
    ) {
        let mut wire = String::new();
        let mut expected = Vec::new();
        for ((name, data, id), end) in &events {
            if let Some(n) = name {
                wire.push_str(&format!("event: {n}{end}"));
            }
            for d in data {
                wire.push_str(&format!("data: {d}{end}"));
            }
            if let Some(i) = id {
                wire.push_str(&format!("id: {i}{end}"));
            }
            wire.push_str(end);
            expected.push(SseEvent {
                event: name.clone(),
                data: data.join("\n"),
                id: id.clone(),
                has_data: true,
            });
        }
        let (got, p) = parse_chunks(&split_at(wire.as_bytes(), &cuts));
        prop_assert_eq!(got, expected);
        prop_assert!(p.anomalies.is_empty(), "{:?}", p.anomalies);
    }

    /// stdout split into lines: chunking does not matter, no line is longer than the cap,
    /// and lines under the cap come out exactly as written.
    #[test]
    fn stdout_lines_are_capped_and_chunking_invariant(
        bytes in hostile_bytes(),
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
        max in 1usize..4096,
    ) {
        let run = |chunks: Vec<&[u8]>| {
            let mut s = LineSplitter::new(max);
            let mut out: Vec<(Vec<u8>, bool)> = Vec::new();
            let mut emit = |l: &[u8], cut: bool| out.push((l.to_vec(), cut));
            for c in chunks {
                s.feed(c, &mut emit);
            }
            s.finish(&mut emit);
            out
        };
        let whole = run(vec![&bytes]);
        prop_assert_eq!(&whole, &run(split_at(&bytes, &cuts)));
        let written: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
        let written = if bytes.last() == Some(&b'\n') || bytes.is_empty() {
            &written[..written.len() - 1]
        } else {
            &written[..]
        };
        // Empty lines are handed on too, except a trailing piece that is empty.
        let expected: Vec<(Vec<u8>, bool)> = written
            .iter()
            .enumerate()
            .filter(|(i, l)| !l.is_empty() || *i + 1 < written.len() || bytes.ends_with(b"\n"))
            .map(|(_, l)| (l[..l.len().min(max)].to_vec(), l.len() > max))
            .collect();
        prop_assert_eq!(whole, expected);
    }

    /// Header values: any text encodes to a value HTTP can carry and decodes back.
    #[test]
    fn header_sentinel_round_trips(v in any::<String>()) {
        let encoded = encode_value(&v);
        prop_assert!(reqwest::header::HeaderValue::from_str(&encoded).is_ok(), "{:?}", encoded);
        prop_assert_eq!(decode_value(&encoded), Ok(v.clone()));
        prop_assert_eq!(is_plain(&v), encoded == v);
    }

    /// Whatever a peer puts in a header value, decoding never panics, and what decodes as a
    /// sentinel re-encodes to a sentinel.
    #[test]
    fn header_decoding_never_panics(
        v in prop_oneof![
            any::<String>(),
            "[A-Za-z0-9+/=!?]{0,40}".prop_map(|b| format!("=?base64?{b}?=")),
            "=\\?base64\\?[\\x00-\\x7f]{0,20}(\\?=)?",
        ]
    ) {
        if let Ok(d) = decode_value(&v)
            && v.starts_with("=?base64?") && v.ends_with("?=") && v.len() >= 11
        {
            prop_assert_eq!(decode_value(&encode_value(&d)), Ok(d));
        }
    }
}

// ---- JSON: schemas, recorded frames, redaction ----

/// JSON values shaped like hostile schemas and messages: deep nesting, `$ref` cycles, big
/// `minItems`, long `required` lists, odd keys.
fn hostile_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        "[\\PC\0]{0,12}".prop_map(Value::from),
        Just(json!("#")),
        Just(json!({"$ref": "#"})),
        Just(json!({"$ref": "#/$defs/a"})),
        Just(json!({"type": "array", "minItems": 64, "items": {"$ref": "#"}})),
        Just(
            json!({"type": "object", "required": ["a", "b", "c", "d"], "properties": {
            "a": {"$ref": "#"}, "b": {"$ref": "#"}, "c": {"$ref": "#"}, "d": {"$ref": "#"}}})
        ),
    ];
    leaf.prop_recursive(8, 64, 6, |inner| {
        let key = prop_oneof![
            Just("type".to_string()),
            Just("properties".to_string()),
            Just("required".to_string()),
            Just("items".to_string()),
            Just("$ref".to_string()),
            Just("$defs".to_string()),
            Just("anyOf".to_string()),
            Just("allOf".to_string()),
            Just("enum".to_string()),
            Just("minItems".to_string()),
            Just("a".to_string()),
            Just("jsonrpc".to_string()),
            Just("id".to_string()),
            Just("method".to_string()),
            Just("result".to_string()),
            "[a-z_]{1,6}",
        ];
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map(key, inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A value nested `n` levels deep (arrays or objects).
fn nested(n: usize, object: bool) -> Value {
    let mut v = json!(1);
    for _ in 0..n {
        v = if object { json!({"a": v}) } else { json!([v]) };
    }
    v
}

proptest! {
    #![proptest_config(config())]

    /// Generated arguments stay small whatever the schema (cycles, fan-out, deep nesting),
    /// and schema checks never panic.
    #[test]
    fn schemas_never_panic_and_arguments_stay_bounded(schema in hostile_json()) {
        let args = scout::policy::args::generate(&schema);
        let size = serde_json::to_vec(&args).map(|v| v.len()).unwrap_or(0);
        prop_assert!(size <= 1024 * 1024, "{} bytes generated", size);
        let _ = scout::policy::args::invalid(&schema);
        let _ = scout::policy::schema::check(&schema);
        if let Ok(v) = scout::policy::schema::compile(&schema) {
            let _ = v.is_valid(&args);
        }
        let _ = scout::policy::schema::validate(&schema, &args);
        let _ = scout::transport::headers::param_headers(&args, &schema);
    }

    /// JSON-RPC frames as recorded from HTTP (JSON or SSE bodies) and stdio lines: the
    /// whole-run decoder never panics on any body, header or line.
    #[test]
    fn recorded_frames_never_panic(
        bodies in proptest::collection::vec(
            (hostile_bytes(), hostile_json(), any::<bool>(), any::<bool>()), 0..6),
    ) {
        use scout::report::exchange::{Direction, Exchange, ExchangeKind, HttpExchange, StdioMessage};
        let mut exchanges = Vec::new();
        for (i, (bytes, value, sse, stdio)) in bodies.into_iter().enumerate() {
            let text = if i % 2 == 0 {
                String::from_utf8_lossy(&bytes).into_owned()
            } else {
                value.to_string()
            };
            let kind = if stdio {
                ExchangeKind::Stdio(StdioMessage {
                    direction: if sse { Direction::Sent } else { Direction::Received },
                    method: None,
                    line: text,
                    not_jsonrpc: false,
                })
            } else {
                ExchangeKind::Http(HttpExchange {
                    method: "POST".into(),
                    url: "http://127.0.0.1:1/mcp".into(),
                    request_body: Some(value.to_string()),
                    status: Some(200),
                    response_headers: vec![(
                        "content-type".into(),
                        if sse { "text/event-stream" } else { "application/json" }.into(),
                    )],
                    response_body: Some(text),
                    ..HttpExchange::default()
                })
            };
            exchanges.push(Exchange {
                seq: i as u64 + 1,
                started_at: time::OffsetDateTime::UNIX_EPOCH,
                duration_ms: 0.0,
                era: None,
                kind,
            });
        }
        let _ = scout::probe::protocol::judge::wire_schema::server_messages(&exchanges);
        // The redactor reads the same bodies (JSON sniffed, not trusted by content type).
        let r = scout::telemetry::redact::Redactor::new();
        r.register("s3cr3t-token");
        for e in &mut exchanges {
            r.exchange(&mut e.kind);
        }
    }

    /// Durations as written in a config: no panic, and formatting round-trips.
    #[test]
    fn durations_parse_or_refuse(text in "[0-9. ]{0,8}(ms|s|m|min|h|x|)[ ]{0,2}", ms in 1u64..10_000_000) {
        let _ = scout::config::duration::parse(&text);
        let d = std::time::Duration::from_millis(ms);
        let back = scout::config::duration::parse(&scout::config::duration::format(d));
        prop_assert_eq!(back, Ok(d));
    }

    /// A config file a user wrote: any text loads or is refused with one line, never a panic.
    #[test]
    fn config_files_load_or_are_refused(text in config_text()) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("scout.toml");
        std::fs::write(&path, &text).expect("write");
        let loaded = scout::config::load(scout::config::LoadOptions {
            config: Some(path),
            ..Default::default()
        });
        if let Err(e) = loaded {
            prop_assert!(!e.to_string().contains('\n'), "one line: {}", e);
        }
    }
}

/// Config text: valid-looking keys and tables with hostile values, or noise.
fn config_text() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        Just("true".to_string()),
        Just("-1".to_string()),
        Just("1e309".to_string()),
        Just("\"10 sec\"".to_string()),
        Just("\"\"".to_string()),
        Just("[]".to_string()),
        Just("{ id = \"x\" }".to_string()),
        Just("nan".to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        "\"[^\"\\\\\n]{0,12}\"",
    ];
    let key = prop_oneof![
        Just("fail_under"),
        Just("rps"),
        Just("timeout"),
        Just("deadline"),
        Just("jobs"),
        Just("max_body"),
        Just("only"),
        Just("formats"),
        Just("treat_as_remote"),
        Just("fail_under_category"),
        Just("name"),
        Just("url"),
        Just("command"),
        Just("nonsense"),
    ];
    let line = prop_oneof![
        (key, value).prop_map(|(k, v)| format!("{k} = {v}")),
        Just("[default]".to_string()),
        Just("[[default.servers]]".to_string()),
        Just("[default.checks]".to_string()),
        Just("[[servers]]".to_string()),
        "[^\n]{0,20}",
    ];
    proptest::collection::vec(line, 0..12).prop_map(|l| l.join("\n"))
}

#[test]
fn deeply_nested_json_is_refused_not_overflowed() {
    // Deeper than any parsed value can be (serde_json stops at 128 levels) and than the
    // schema limit (64); much deeper values are not a peer's to make.
    for object in [false, true] {
        let deep = nested(200, object);
        assert!(scout::policy::schema::check(&deep).is_err());
        let _ = scout::policy::args::generate(&deep);
        let _ = scout::policy::args::invalid(&deep);
        // Deeper than serde_json's own limit: a parse error, not a stack overflow.
        let text = "[".repeat(100_000);
        assert!(serde_json::from_str::<Value>(&text).is_err());
    }
}

/// Regression (a shape `schemas_never_panic_and_arguments_stay_bounded` generates; found
/// while writing it, fixed before it ran): a schema whose required properties refer back to
/// the root made argument generation fan out at every level, 4^16 values, which hung the
/// run. Generation now has a budget of values.
#[test]
fn self_referencing_required_properties_do_not_hang_generation() {
    let schema = json!({"type": "object", "required": ["a", "b", "c", "d"], "properties": {
        "a": {"$ref": "#"}, "b": {"$ref": "#"}, "c": {"$ref": "#"}, "d": {"$ref": "#"}}});
    let started = std::time::Instant::now();
    let args = scout::policy::args::generate(&schema);
    assert!(args.is_object());
    assert!(serde_json::to_vec(&args).expect("json").len() < 1024 * 1024);
    let _ = scout::policy::args::invalid(&schema);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    // The same fan-out through arrays: 64 items a level.
    let schema = json!({"type": "array", "minItems": 64, "items": {"$ref": "#"}});
    let args = scout::policy::args::generate(&schema);
    assert!(serde_json::to_vec(&args).expect("json").len() < 1024 * 1024);
}

/// Regression: the SSE parser kept one note per irregular line, so a 16 MiB body of
/// `x\n` lines made millions of strings (hundreds of MiB). Notes are capped and counted.
#[test]
fn sse_notes_per_irregular_line_are_capped() {
    let mut p = SseParser::new();
    let body = "x\n".repeat(100_000);
    assert!(p.feed(body.as_bytes()).is_empty());
    assert_eq!(p.anomalies.len(), ANOMALIES_KEPT);
    assert_eq!(p.anomalies_dropped, 100_000 - ANOMALIES_KEPT);
    // A field name as long as the line is quoted, not copied whole.
    let mut p = SseParser::new();
    p.feed(format!("{}\n", "f".repeat(1_000_000)).as_bytes());
    assert!(p.anomalies[0].len() < 200, "{}", p.anomalies[0].len());
}

/// One page a hostile server might send: items or not, an array or another type, and a
/// cursor that repeats, is huge, or is not a string.
fn hostile_page() -> impl Strategy<Value = Value> {
    let items = prop_oneof![
        4 => prop::collection::vec(any::<u8>().prop_map(|n| json!({"name": format!("t{n}")})), 0..4)
            .prop_map(Value::Array),
        1 => Just(Value::Null),
        1 => Just(json!("not an array")),
    ];
    let cursor = prop_oneof![
        3 => (0u8..6).prop_map(|n| Some(json!(format!("c{n}")))),
        2 => Just(None),
        1 => Just(Some(json!("x".repeat(200_000)))),
        1 => Just(Some(json!(7))),
    ];
    (items, cursor, any::<bool>()).prop_map(|(items, cursor, omit)| {
        let mut page = serde_json::Map::new();
        if !(omit && items.is_null()) {
            page.insert("tools".into(), items);
        }
        if let Some(c) = cursor {
            page.insert("nextCursor".into(), c);
        }
        Value::Object(page)
    })
}

proptest! {
    #![proptest_config(config())]

    /// Paging a hostile server always ends, within the page cap, keeps exactly the items of
    /// the pages it accepted, and never quotes more than a bounded piece of a cursor.
    #[test]
    fn paging_always_ends_within_the_cap(pages in prop::collection::vec(hostile_page(), 1..120)) {
        use scout::probe::catalog::paging::{MAX_PAGES, Pager, Step};
        let mut pager = Pager::new("tools/list", "tools");
        let mut expected = 0usize;
        let mut last = None;
        for page in &pages {
            let step = pager.feed(page);
            if !matches!(step, Step::Malformed(_))
                && !matches!(&step, Step::Problem(p) if p.contains("repeats an earlier page"))
            {
                expected += page["tools"].as_array().map_or(0, Vec::len);
            }
            let go_on = matches!(step, Step::Next(_));
            last = Some(step);
            if !go_on {
                break;
            }
        }
        prop_assert!(pager.pages <= MAX_PAGES);
        prop_assert_eq!(pager.items.len(), expected);
        if let Some(Step::Problem(p) | Step::Malformed(p)) = &last {
            prop_assert!(p.len() < 600, "a finding quotes {} bytes", p.len());
        }
    }
}

/// A server that hands out a new cursor forever is stopped at the page cap, with a reason.
#[test]
fn endless_unique_cursors_stop_at_the_page_cap() {
    use scout::probe::catalog::paging::{MAX_PAGES, Pager, Step};
    let mut pager = Pager::new("tools/list", "tools");
    let mut steps = 0;
    let last = loop {
        steps += 1;
        let page =
            json!({"tools": [{"name": format!("t{steps}")}], "nextCursor": format!("c{steps}")});
        match pager.feed(&page) {
            Step::Next(_) => assert!(steps < MAX_PAGES, "went past the cap"),
            other => break other,
        }
    };
    assert_eq!(steps, MAX_PAGES);
    assert!(matches!(last, Step::Problem(p) if p.contains("after 100 pages")));
    assert_eq!(pager.items.len(), MAX_PAGES);
}
