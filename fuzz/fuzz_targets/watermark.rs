//! Watermark, timestamp and duration parsing: never a panic, and what parses means what it says.
//! Durations and timestamps round-trip through their formatters; a staleness figure is never
//! below any lag it was composed from; a header that appears twice, or a watermark field in the
//! trailer section, is never believed.
#![no_main]

use cardgate::duration::{format_duration, parse_duration, MAX_DURATION_MS};
use cardgate::watermark_sources::{observe, ResponseFields, WatermarkSources};
use cardgate::{Observation, Timestamp, WatermarkValue};
use libfuzzer_sys::{arbitrary, fuzz_target};

#[derive(arbitrary::Arbitrary, Debug)]
enum Val<'a> {
    Text(&'a str),
    Digits(u64, u16),
    Number(f64),
    Invalid,
}

impl Val<'_> {
    fn value(&self) -> WatermarkValue {
        match self {
            Val::Text(t) => WatermarkValue::Text((*t).to_string()),
            Val::Digits(i, f) => WatermarkValue::Text(format!("{i}.{f}")),
            Val::Number(n) => WatermarkValue::Number(*n),
            Val::Invalid => WatermarkValue::Invalid("a JSON null".into()),
        }
    }
}

#[derive(arbitrary::Arbitrary, Debug)]
struct Input<'a> {
    duration: &'a str,
    timestamp: &'a str,
    lag_ms: Option<Val<'a>>,
    lag_s: Option<Val<'a>>,
    synced_at: Option<Val<'a>>,
    consul_last_contact_ms: Option<Val<'a>>,
    consul_known_leader: Option<Val<'a>>,
    age_s: Option<Val<'a>>,
    /// Milliseconds around 2026 (any instant years 0..9999 could name).
    now: Option<i32>,
    /// Fields the trailer section holds (indices into HEADERS).
    trailers: Vec<u8>,
    headers: Vec<(u8, &'a [u8])>,
}

const HEADERS: [&str; 7] = [
    "x-replica-lag-ms",
    "x-replica-lag-s",
    "x-replica-synced-at",
    "x-consul-lastcontact",
    "x-consul-knownleader",
    "age",
    "x-other",
];

fuzz_target!(|input: Input| {
    if let Ok(ms) = parse_duration(input.duration) {
        assert!(ms <= MAX_DURATION_MS);
        assert_eq!(parse_duration(&format_duration(ms)).ok(), Some(ms));
    }
    if let Ok(t) = Timestamp::parse_rfc3339(input.timestamp) {
        // The text names the same nanosecond (digits beyond nanoseconds cannot be printed).
        let text = t.to_rfc3339();
        let back = Timestamp::parse_rfc3339(&text).map(Timestamp::unix_nanos);
        assert_eq!(back.ok(), Some(t.unix_nanos()), "{text}");
    }

    let now = input
        .now
        .map(|d| Timestamp::from_unix_ms(1_795_000_000_000 + i64::from(d) * 1000));
    let obs = Observation {
        lag_ms: input.lag_ms.as_ref().map(Val::value),
        lag_s: input.lag_s.as_ref().map(Val::value),
        synced_at: input.synced_at.as_ref().map(Val::value),
        consul_last_contact_ms: input.consul_last_contact_ms.as_ref().map(Val::value),
        consul_known_leader: input.consul_known_leader.as_ref().map(Val::value),
        age_s: input.age_s.as_ref().map(Val::value),
        now,
    };
    if let Ok(s) = obs.staleness() {
        let lag = |v: &Option<WatermarkValue>, scale: f64| match v {
            Some(WatermarkValue::Number(n)) => Some(n * scale),
            Some(WatermarkValue::Text(t)) => t
                .trim_matches([' ', '\t'])
                .parse::<f64>()
                .ok()
                .map(|n| n * scale),
            _ => None,
        };
        for l in [lag(&obs.lag_ms, 1.0), lag(&obs.lag_s, 1000.0)]
            .into_iter()
            .flatten()
        {
            assert!(l.is_finite() && l >= 0.0);
            // `l` is a binary double (131072.17 s * 1000 = 131072170.00000001); the core reads
            // the decimal exactly. The relative 1e-12 is far below a millisecond for any lag
            // under 10^9 s, so a figure rounded down is still caught.
            assert!(
                s.ms as f64 >= l * (1.0 - 1e-12),
                "staleness {} below lag {l}",
                s.ms
            );
        }
        assert!(!s.basis.is_empty());
    }

    // Headers: whatever the bytes, each source yields at most one value, and a repeated or
    // non-UTF-8 header is an invalid watermark.
    let headers: Vec<(&str, &[u8])> = input
        .headers
        .iter()
        .map(|(i, v)| (HEADERS[usize::from(*i) % HEADERS.len()], *v))
        .collect();
    let lookup = |name: &str| -> Vec<Vec<u8>> {
        headers
            .iter()
            .filter(|(k, _)| *k == name)
            .map(|(_, v)| v.to_vec())
            .collect()
    };
    let trailers: Vec<&str> = input
        .trailers
        .iter()
        .map(|i| HEADERS[usize::from(*i) % HEADERS.len()])
        .collect();
    let in_trailers = |name: &str| trailers.contains(&name);
    let seen = observe(
        &WatermarkSources::conventional(),
        None,
        None,
        ResponseFields {
            header: &lookup,
            trailer: &in_trailers,
        },
        Timestamp::from_unix_ms(1_795_000_000_000),
    );
    let count = |name: &str| headers.iter().filter(|(k, _)| *k == name).count();
    for (name, got) in [
        ("x-replica-lag-ms", &seen.lag_ms),
        ("x-replica-lag-s", &seen.lag_s),
        ("age", &seen.age_s),
    ] {
        match (in_trailers(name), count(name)) {
            (true, _) => assert!(
                matches!(got, Some(WatermarkValue::Invalid(_))),
                "{name} in the trailers"
            ),
            (false, 0) => assert!(got.is_none()),
            (false, 1) => assert!(got.is_some()),
            (false, _) => assert!(
                matches!(got, Some(WatermarkValue::Invalid(_))),
                "{name} repeated"
            ),
        }
    }
    if count("x-replica-lag-ms") > 1 || in_trailers("x-replica-lag-ms") {
        assert!(seen.staleness().is_err());
    }
});
