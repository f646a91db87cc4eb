//! The Envoy filter's request path without the host: a card request's route and requirement
//! (path, caller headers, the policy's rule) and the decision on the upstream's answer (its
//! watermark and encoding headers, its body), made the way `src/envoy/filter.rs` makes them:
//! through the per-VM request memo and analysis cache, which live across inputs here as they do
//! across requests in a VM (small bounds, so entries are evicted and reused all the time).
//!
//! Never a panic (a panic in the filter takes down the worker's VM), and the memo and the cache
//! change nothing: a remembered route and requirement are the ones a fresh reading gives, and
//! every decision is byte for byte the one `evaluate_body` makes on the same answer without
//! them, whatever came before it (a changed body never reuses an old analysis, a requirement
//! never reuses another one's checks).
//!
//! Input: five selector bytes (path, two caller header sets, answer headers, where a free value
//! goes and the clock), then a free value up to the first NUL (at most 256 bytes), then the
//! body. `fuzz/seed.py` seeds it with every vector's card behind zeroed selectors.
#![no_main]

use std::cell::RefCell;
use std::rc::Rc;

use cardgate::card_hash::CardHash;
use cardgate::envoy::analysis::AnalysisCache;
use cardgate::envoy::caller::{caller_requirement, effective_requirement, trailer_requirement};
use cardgate::envoy::config::FilterConfig;
use cardgate::envoy::headers::{HeaderSnapshot, MemoEntry, RequestMemo, CALLER_HEADERS};
use cardgate::envoy::redirect;
use cardgate::envoy::response::{
    capped_cache_control, evaluate_body, evaluate_body_cached, lifetime_left_s, outcome,
    reason_codes, rejection_log, unreadable_encoding, Outcome,
};
use cardgate::envoy::routes::strip_query;
use cardgate::watermark_sources::ResponseFields;
use cardgate::{json, Requirement, Timestamp};
use libfuzzer_sys::fuzz_target;

/// The shipped listener's plugin configuration (envoy/envoy.yaml), with a pin on the minimal
/// bench card in place of the placeholder so that pinned cards can be valid.
const CONFIG: &str = r#"{
  "defaults": {"max_stale": "30s"},
  "agents": {
    "worker-7": {"require": ["task.execute.v3", "binding:JSONRPC", "protocol:1.0"],
                 "min_version": "3.0.0", "max_stale": "10s"},
    "archive-search": {"require": ["task.execute.v3"], "pin": "PIN"}
  },
  "routes": [
    {"path": "/agents/{id}/card"},
    {"path": "/agents/{id}/.well-known/agent-card.json"},
    {"path": "/v1/resolve/{id}", "card_pointer": "/card",
     "watermark_pointer": "/replication/lag_ms", "watermark_pointer_unit": "ms"}
  ],
  "well_known": true,
  "watermark": {"lag_ms_header": "x-replica-lag-ms", "lag_s_header": "x-replica-lag-s",
                "synced_at_header": "x-replica-synced-at", "consul": true, "age": true},
  "max_card_bytes": 65536,
  "mode": "enforce",
  "allow_caller_relax": false,
  "retry_after_s": 5
}"#;

const MINIMAL: &[u8] = include_bytes!("../../bench/cards/minimal.json");

const PATHS: &[&str] = &[
    "/agents/worker-7/card",
    "/agents/WORKER-7/card",
    "/agents/worker-7./card",
    "/agents/archive-search/card",
    "/agents/someone/card",
    "/agents/worker-7/.well-known/agent-card.json",
    "/.well-known/agent-card.json",
    "/v1/resolve/worker-7",
    "/agents/w%6frker-7/card",
    "/agents/worker-7;v=1/card",
    "/agents/worker-7%3F/card?x=1",
    "/agents/%2561rchive-search/card",
    "/not/a/card",
];

const CACHE_CONTROL: &[&str] = &[
    "max-stale=5",
    "max-stale=100",
    "no-cache",
    "max-stale",
    "max-stale=\"5\", max-age=0",
];
const CAPABILITIES: &[&str] = &[
    "task.execute.v3",
    "binding:JSONRPC, protocol:1.0",
    "task.cancel",
    "capability:streaming",
    "",
    "task.execute.v3,task.execute.v3",
    "protocol:0.3",
];
const MIN_VERSIONS: &[&str] = &["7", "3.0.0", "99"];
const LAGS: &[&str] = &["0", "500", "9999", "20000", "-1", "1e3", "40000"];
/// Milliseconds since the epoch the clock reads (2026-12-02T00:00:00Z), plus the selector's
/// offset in seconds.
const NOW_MS: i64 = 1_796_169_600_000;

struct State {
    config: FilterConfig,
    pin: String,
    cache: AnalysisCache,
    memo: RequestMemo,
}

thread_local! {
    static STATE: RefCell<Option<State>> = const { RefCell::new(None) };
}

fn state() -> State {
    let pin = json::parse(MINIMAL, 64)
        .map(|card| CardHash::of(&card).as_str().to_owned())
        .unwrap_or_default();
    let config = FilterConfig::from_json(CONFIG.replace("PIN", &pin).as_bytes())
        .unwrap_or_else(|e| panic!("the fuzz target's configuration is refused: {e}"));
    State {
        config,
        pin,
        cache: AnalysisCache::with_bounds(6, 192 * 1024),
        memo: RequestMemo::default(),
    }
}

/// The caller's headers a selector byte picks (bit fields), plus the free value under `free`.
fn caller_headers(
    bits: u8,
    pin: &str,
    free: Option<(&'static str, &[u8])>,
) -> Vec<(&'static str, Vec<u8>)> {
    let mut h: Vec<(&'static str, Vec<u8>)> = Vec::new();
    let pick = |table: &[&str], i: u8| {
        table
            .get(usize::from(i).wrapping_sub(1))
            .map(|v| v.as_bytes().to_vec())
    };
    if let Some(v) = pick(CACHE_CONTROL, bits & 0b111) {
        h.push(("cache-control", v));
    }
    if let Some(v) = pick(CAPABILITIES, (bits >> 3) & 0b111) {
        h.push(("a2a-require-capabilities", v));
    }
    if let Some(v) = pick(MIN_VERSIONS, (bits >> 6) & 0b11) {
        h.push(("a2a-min-card-version", v));
    }
    if bits == 0xff {
        h.push(("a2a-card-pin", pin.as_bytes().to_vec()));
    }
    if let Some((name, value)) = free {
        h.push((name, value.to_vec()));
    }
    h
}

/// A header map in the proxy-wasm pairs format the host hands over (a little-endian `u32`
/// count, each name's and value's length, then each name and value followed by a NUL): the
/// filter's snapshot is read from these bytes.
fn pairs_format(pairs: &[(&'static str, Vec<u8>)]) -> Vec<u8> {
    let len = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
    let mut out = len(pairs.len()).to_vec();
    for (k, v) in pairs {
        out.extend_from_slice(&len(k.len()));
        out.extend_from_slice(&len(v.len()));
    }
    for (k, v) in pairs {
        out.extend_from_slice(k.as_bytes());
        out.push(0);
        out.extend_from_slice(v);
        out.push(0);
    }
    out
}

fn lookup<'a>(pairs: &'a [(&'static str, Vec<u8>)]) -> impl Fn(&str) -> Vec<Vec<u8>> + 'a {
    move |name: &str| {
        pairs
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
            .collect()
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<5>() else {
        return;
    };
    let [path_sel, caller_a, caller_b, answer_bits, free_sel] = *head;
    let (free, body) = match rest.iter().position(|&b| b == 0) {
        Some(i) if i <= 256 => (&rest[..i], &rest[i + 1..]),
        _ => (&[][..], rest),
    };
    STATE.with(|cell| {
        let mut cell = cell.borrow_mut();
        let st = cell.get_or_insert_with(state);
        let free_text = String::from_utf8_lossy(free).into_owned();

        // Where the free value goes: the path, a caller header, a watermark header, Location.
        let target = free_sel % 8;
        let raw_path = if target == 0 && !free.is_empty() {
            format!("/{free_text}")
        } else {
            PATHS[usize::from(path_sel) % PATHS.len()].to_owned()
        };
        let path = strip_query(&raw_path).to_owned();
        let free_caller = match target {
            // The free text is the path too here; as a card name it may be anything.
            0 => Some(("a2a-card-name", free)),
            1 => Some(("cache-control", free)),
            2 => Some(("a2a-require-capabilities", free)),
            3 => Some(("a2a-min-card-version", free)),
            4 => Some(("a2a-card-pin", free)),
            _ => None,
        };

        // The answer's headers.
        let mut answer: Vec<(&'static str, Vec<u8>)> = Vec::new();
        if let Some(lag) = LAGS.get(usize::from(answer_bits & 0b111)) {
            answer.push(("x-replica-lag-ms", lag.as_bytes().to_vec()));
        }
        if answer_bits & 0b1000 != 0 {
            answer.push(("age", b"3".to_vec()));
        }
        let now = Timestamp::from_unix_ms(NOW_MS + i64::from(free_sel >> 3) * 1000);
        if answer_bits & 0b1_0000 != 0 {
            let synced = Timestamp::from_unix_ms(NOW_MS - 2_000).to_rfc3339();
            answer.push(("x-replica-synced-at", synced.into_bytes()));
        }
        if answer_bits & 0b10_0000 != 0 {
            answer.push(("content-encoding", b"gzip".to_vec()));
        }
        if answer_bits & 0b100_0000 != 0 {
            answer.push(("content-type", b"application/json; charset=latin1".to_vec()));
        }
        if answer_bits & 0b1000_0000 != 0 {
            answer.push(("x-replica-lag-s", b"2".to_vec()));
        }
        match target {
            5 => answer.push(("x-replica-lag-ms", free.to_vec())),
            6 => answer.push(("x-replica-synced-at", free.to_vec())),
            _ => {}
        }
        let answer_header = lookup(&answer);
        // A redirect's Location, read against the request path (no panic, whatever it says).
        if target == 7 {
            let _ = redirect::target(
                &[free.to_vec()],
                &path,
                Some("registry.example"),
                Some("http"),
            );
            // The same text as `x-envoy-original-url` on a request Envoy recreated to follow a
            // redirect itself: a refusal is always a malformed_card decision.
            if let Some(refusal) = redirect::internal_refusal(&st.config, &free_text, &path) {
                assert_eq!(
                    refusal.decision.error_class(),
                    Some(cardgate::ErrorClass::MalformedCard)
                );
                // Its original path is a card route: the one whose re_resolve applies.
                assert!(st
                    .config
                    .route_and_requirement(refusal.original_path())
                    .is_some());
            }
        }

        // Two requests for the path, with caller header sets A and B, and A again: the memo
        // and the cache see a requirement, another one, and the first again (the memo's hit).
        for (step, bits) in [caller_a, caller_b, caller_a].into_iter().enumerate() {
            let caller = caller_headers(bits, &st.pin, free_caller);
            let caller_header = lookup(&caller);
            let snapshot = HeaderSnapshot::from_pairs_bytes(pairs_format(&caller));
            let _ = trailer_requirement(&caller_header, CALLER_HEADERS);

            // A fresh reading, as the filter makes it on a memo miss.
            let Some((route_id, matched, rule)) = st.config.route_and_requirement(&path) else {
                return;
            };
            let rule_agent = matched.agent.clone();
            let fresh: Option<Requirement> = rule
                .ok()
                .and_then(|rule| Some((rule, caller_requirement(&caller_header).ok()?)))
                .and_then(|(rule, caller)| {
                    effective_requirement(&rule, &caller, st.config.allow_caller_relax).ok()
                });
            let Some(fresh) = fresh else { continue };
            let caller_key = snapshot.caller_key();
            let requirement: Rc<Requirement> = match st.memo.get(&path, &caller_key) {
                Some(kept) => {
                    assert_eq!(kept.route_id, route_id, "memo: another route for {path}");
                    assert_eq!(kept.rule_agent, rule_agent, "memo: another rule for {path}");
                    assert_eq!(
                        *kept.requirement, fresh,
                        "memo: another requirement for {path}"
                    );
                    Rc::clone(&kept.requirement)
                }
                None => {
                    let r = Rc::new(fresh.clone());
                    st.memo.put(MemoEntry {
                        path: path.clone(),
                        caller: caller_key,
                        route_id,
                        rule_agent: rule_agent.clone(),
                        requirement: Rc::clone(&r),
                    });
                    r
                }
            };

            let Some(route) = st.config.route(route_id) else {
                panic!("route_and_requirement named a route the configuration lacks");
            };
            let limits = &st.config.limits;
            let expected = unreadable_encoding(&answer_header).unwrap_or_else(|| {
                evaluate_body(
                    body,
                    route,
                    &fresh,
                    ResponseFields::headers(&answer_header),
                    now,
                    limits,
                )
            });
            let decision = match unreadable_encoding(&answer_header) {
                Some(d) => d,
                None => {
                    let mut clock = || now;
                    evaluate_body_cached(
                        body,
                        route,
                        &requirement,
                        ResponseFields::headers(&answer_header),
                        &mut clock,
                        limits,
                        &mut st.cache,
                    )
                    .0
                }
            };
            assert_eq!(
                decision.to_json(),
                expected.to_json(),
                "step {step}: the cached request path decided otherwise on {path}"
            );

            // The answer the filter builds from it.
            match outcome(&decision, st.config.mode, st.config.retry_after_s) {
                Outcome::Forward(headers) => {
                    assert!(
                        decision.is_valid(),
                        "an enforcing filter forwarded a rejection"
                    );
                    assert!(headers
                        .iter()
                        .any(|(k, v)| *k == "a2a-card-verdict" && v == "valid"));
                    let left = lifetime_left_s(&decision, &requirement);
                    let _ = capped_cache_control(&[b"max-age=600".as_slice()], left);
                }
                Outcome::Replace(reply) => {
                    assert!(!decision.is_valid(), "a valid card was replaced");
                    assert_eq!(reply.status, decision.status());
                    let log =
                        rejection_log(&decision, rule_agent.as_deref(), &path, st.config.mode);
                    assert!(json::parse(log.as_bytes(), 64).is_ok(), "log line: {log}");
                    assert!(!reason_codes(&decision).is_empty());
                }
            }
        }
    });
});
