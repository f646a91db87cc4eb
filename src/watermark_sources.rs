//! Where a resolver's watermark comes from: response headers and, for JSON envelopes, a member
//! of the body. The values are passed on as they are; [`Observation::staleness`] composes and
//! checks them. Every host that reads HTTP responses (the Envoy filter, the npm package's
//! `resolveAgentCard`, the inspector) uses the same conventional header names.
//!
//! A header that is not UTF-8 or that appears more than once, and an envelope value that
//! disagrees with a header feeding the same figure, become invalid watermarks: an upstream
//! cannot pick which of two figures the gate believes. So does a watermark field sent in the
//! response's trailer section (HTTP/2, or chunked HTTP/1.1): a watermark is read from the header
//! section only, the part every caller's HTTP client reads, and a figure sent after the body
//! would stand beside (or instead of) the one there.

use crate::json::Value;
use crate::{Observation, Timestamp, WatermarkValue};

/// Conventional header for replica lag in milliseconds.
pub const CONVENTIONAL_LAG_MS_HEADER: &str = "x-replica-lag-ms";
/// Conventional header for replica lag in seconds.
pub const CONVENTIONAL_LAG_S_HEADER: &str = "x-replica-lag-s";
/// Conventional header for the last successful sync (RFC 3339).
pub const CONVENTIONAL_SYNCED_AT_HEADER: &str = "x-replica-synced-at";
/// Consul's lag header (ms since the answering server heard from the leader).
pub const CONSUL_LAST_CONTACT_HEADER: &str = "x-consul-lastcontact";
/// Consul's leader flag.
pub const CONSUL_KNOWN_LEADER_HEADER: &str = "x-consul-knownleader";

/// Response headers that carry the replica's watermark (names stored lowercase). Its JSON form,
/// shared with the JS package, has these members (an absent header is `null`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WatermarkSources {
    /// Replica lag in milliseconds, e.g. `x-replica-lag-ms`.
    pub lag_ms_header: Option<String>,
    /// Replica lag in seconds.
    pub lag_s_header: Option<String>,
    /// Last successful sync, RFC 3339.
    pub synced_at_header: Option<String>,
    /// Read `X-Consul-LastContact` and `X-Consul-KnownLeader`.
    pub consul: bool,
    /// Read HTTP `Age` (time spent in caches; added to the lag).
    pub age: bool,
}

impl WatermarkSources {
    /// The default when a configuration names none: `x-replica-lag-ms`, `x-replica-lag-s`,
    /// `x-replica-synced-at`, the Consul pair (`X-Consul-LastContact`, `X-Consul-KnownLeader`)
    /// and `Age`.
    pub fn conventional() -> WatermarkSources {
        WatermarkSources {
            lag_ms_header: Some(CONVENTIONAL_LAG_MS_HEADER.to_owned()),
            lag_s_header: Some(CONVENTIONAL_LAG_S_HEADER.to_owned()),
            synced_at_header: Some(CONVENTIONAL_SYNCED_AT_HEADER.to_owned()),
            consul: true,
            age: true,
        }
    }
}

/// The unit of a watermark taken from a JSON envelope: `"ms"`, `"s"` or `"rfc3339"` in a
/// configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(try_from = "String")]
#[schemars(with = "String")]
pub enum PointerUnit {
    /// Replica lag in milliseconds.
    Milliseconds,
    /// Replica lag in seconds (the seed's `replication_watermark_s`).
    Seconds,
    /// Last sync time, RFC 3339.
    SyncedAt,
}

impl TryFrom<String> for PointerUnit {
    type Error = crate::input_error::RangeMessage;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        match text.as_str() {
            "ms" => Ok(PointerUnit::Milliseconds),
            "s" => Ok(PointerUnit::Seconds),
            "rfc3339" => Ok(PointerUnit::SyncedAt),
            other => Err(crate::input_error::RangeMessage(format!(
                "must be \"ms\", \"s\" or \"rfc3339\", found {other:?}"
            ))),
        }
    }
}

/// The fields of one response, as a host hands them over.
#[derive(Clone, Copy)]
pub struct ResponseFields<'a> {
    /// Every value of a header-section field (lowercase name), as bytes.
    pub header: &'a dyn Fn(&str) -> Vec<Vec<u8>>,
    /// Whether the trailer section holds a field of that name.
    pub trailer: &'a dyn Fn(&str) -> bool,
}

impl<'a> ResponseFields<'a> {
    /// A response without a trailer section, or read by a host that hands over none (an HTTP
    /// client: a caller's never sees trailers either).
    pub fn headers(header: &'a dyn Fn(&str) -> Vec<Vec<u8>>) -> ResponseFields<'a> {
        ResponseFields {
            header,
            trailer: &|_| false,
        }
    }
}

/// Builds the observation for one response.
///
/// `envelope` is the parsed body when the route has a `watermark_pointer`.
pub fn observe(
    sources: &WatermarkSources,
    pointer: Option<&(String, PointerUnit)>,
    envelope: Option<&Value>,
    fields: ResponseFields<'_>,
    now: Timestamp,
) -> Observation {
    let header_value = |name: &str| field_value(name, fields);
    let from_header = |name: &Option<String>| name.as_deref().and_then(header_value);
    let mut obs = Observation {
        lag_ms: from_header(&sources.lag_ms_header),
        lag_s: from_header(&sources.lag_s_header),
        synced_at: from_header(&sources.synced_at_header),
        now: Some(now),
        ..Observation::default()
    };
    if sources.consul {
        obs.consul_last_contact_ms = header_value(CONSUL_LAST_CONTACT_HEADER);
        obs.consul_known_leader = header_value(CONSUL_KNOWN_LEADER_HEADER);
    }
    if sources.age {
        obs.age_s = header_value("age");
    }
    if let (Some((ptr, unit)), Some(body)) = (pointer, envelope) {
        if let Some(found) = body.pointer(ptr) {
            let value = match found {
                Value::String(s) => WatermarkValue::Text(s.clone()),
                Value::Number(n) => WatermarkValue::Number(*n),
                other => WatermarkValue::Invalid(format!(
                    "envelope member {ptr} is a JSON {}",
                    other.type_name()
                )),
            };
            let slot = match unit {
                PointerUnit::Milliseconds => &mut obs.lag_ms,
                PointerUnit::Seconds => &mut obs.lag_s,
                PointerUnit::SyncedAt => &mut obs.synced_at,
            };
            *slot = Some(match slot.take() {
                None => value,
                // A header already invalid (repeated, not UTF-8, sent as a trailer) stays
                // invalid, for its own reason.
                Some(invalid @ WatermarkValue::Invalid(_)) => invalid,
                Some(existing) if existing == value || same_figure(&existing, &value) => value,
                Some(existing) => WatermarkValue::Invalid(format!(
                    "the header says {} but envelope member {ptr} says {}",
                    describe(&existing),
                    describe(&value)
                )),
            });
        }
    }
    obs
}

/// A header's single value; repeated or non-UTF-8 values are invalid watermarks, and so is a
/// field the trailer section holds, whether the header section has it or not.
fn field_value(name: &str, fields: ResponseFields<'_>) -> Option<WatermarkValue> {
    if (fields.trailer)(name) {
        return Some(WatermarkValue::Invalid(format!(
            "{name} came in the response trailers: a watermark is read from the header section only, which a caller's HTTP client reads (a figure sent after the body would stand beside or replace the one there)"
        )));
    }
    let values = (fields.header)(name);
    match values.as_slice() {
        [] => None,
        [one] => Some(match std::str::from_utf8(one) {
            Ok(text) => WatermarkValue::Text(text.to_owned()),
            Err(_) => WatermarkValue::Invalid(format!("header {name} is not UTF-8")),
        }),
        many => Some(WatermarkValue::Invalid(format!(
            "header {name} appears {} times",
            many.len()
        ))),
    }
}

/// Header text and an envelope number denoting the same figure (`"40000"` and `40000`).
fn same_figure(a: &WatermarkValue, b: &WatermarkValue) -> bool {
    match (a, b) {
        (WatermarkValue::Text(t), WatermarkValue::Number(n))
        | (WatermarkValue::Number(n), WatermarkValue::Text(t)) => {
            parse_f64(t.trim_matches([' ', '\t'])) == Some(*n)
        }
        _ => false,
    }
}

/// `text.parse::<f64>()` for finite results: an optional sign, digits with an optional point,
/// an optional exponent, read by the JSON reader once put in JSON's form (serde_json's float
/// parser is exact, as `parse` is), so that core's own float parser (`dec2flt`, about 16 KB of
/// Wasm with its tables) is not linked into the wasm modules. `inf`, `nan` and figures out of
/// `f64`'s range are `None` (they never equal an envelope's number, which is finite).
pub(crate) fn parse_f64(text: &str) -> Option<f64> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, text.get(1..)?),
        Some(b'+') => (false, text.get(1..)?),
        _ => (false, text),
    };
    let (mantissa, exponent) = match rest.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (rest, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return None;
    }
    let mut json = String::with_capacity(text.len() + 2);
    if negative {
        json.push('-');
    }
    // JSON has no leading zeros, no empty integer part and no point without a fraction.
    let int = int.trim_start_matches('0');
    json.push_str(if int.is_empty() { "0" } else { int });
    if !frac.is_empty() {
        json.push('.');
        json.push_str(frac);
    }
    if let Some(e) = exponent {
        let e_digits = e.strip_prefix(['+', '-']).unwrap_or(e);
        if e_digits.is_empty() || !digits(e_digits) {
            return None;
        }
        json.push('e');
        json.push_str(e);
    }
    match crate::json::parse(json.as_bytes(), 1) {
        Ok(Value::Number(x)) => Some(x),
        _ => None,
    }
}

fn describe(v: &WatermarkValue) -> String {
    match v {
        WatermarkValue::Text(s) => format!("{s:?}"),
        WatermarkValue::Number(n) => format!("{n}"),
        WatermarkValue::Invalid(what) => what.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Vec<Vec<u8>> {
        move |name: &str| {
            pairs
                .iter()
                .filter(|(k, _)| *k == name)
                .map(|(_, v)| v.as_bytes().to_vec())
                .collect()
        }
    }

    #[test]
    fn parse_f64_is_str_parse() {
        let mut cases: Vec<String> = [
            "0", "-0", "+0", "00", "007", "1.", ".5", ".", "", "+", "-", "1e3", "1E3", "1e+3",
            "1e-3", "1e", "1e+", "e3", "1.5e2", "-.5", "+.5e1", "inf", "-inf", "infinity", "NaN",
            "nan", "1e400", "-1e400", "1e-400", "0e99999999999999999999", "1e99999999999999999999",
            "1e-99999999999999999999", "0.1", "0.30000000000000004", "9007199254740993",
            "123456789012345678901234567890", "1_000", "1,5", " 1", "1 ", "0x10", "1..2", "1.2.3",
            "--1", "+-1", "1e1.5", "٣",
            "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791",
            "2.4703282292062327e-324", "2.4703282292062328e-324",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..5_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let f = f64::from_bits(x);
            cases.push(format!("{f}"));
            cases.push(format!("{f:e}"));
            cases.push(format!("{}.{:03}", x % 100_000, x % 1000));
        }
        for t in cases {
            let want = t.parse::<f64>().ok().filter(|f| f.is_finite());
            assert_eq!(
                parse_f64(&t).map(f64::to_bits),
                want.map(f64::to_bits),
                "{t:?}"
            );
        }
    }

    #[test]
    fn headers_feed_the_observation() {
        let h = headers(&[
            ("x-replica-lag-ms", "40000"),
            ("age", "3"),
            ("x-consul-knownleader", "true"),
            ("x-consul-lastcontact", "39500"),
        ]);
        let obs = observe(
            &WatermarkSources::conventional(),
            None,
            None,
            ResponseFields::headers(&h),
            Timestamp::from_unix_ms(0),
        );
        assert_eq!(obs.lag_ms, Some(WatermarkValue::Text("40000".into())));
        assert_eq!(obs.age_s, Some(WatermarkValue::Text("3".into())));
        assert_eq!(
            obs.consul_known_leader,
            Some(WatermarkValue::Text("true".into()))
        );
        assert_eq!(obs.lag_s, None);
        assert_eq!(obs.synced_at, None);
        assert_eq!(obs.staleness().unwrap().ms, 43_000);
    }

    /// A last-sync header is read against the host's clock, which `observe` is given.
    #[test]
    fn a_synced_at_header_is_read_against_the_given_clock() {
        let h = headers(&[("x-replica-synced-at", "2026-11-09T12:00:37Z")]);
        let now = Timestamp::parse_rfc3339("2026-11-09T12:00:40Z").unwrap();
        let obs = observe(
            &WatermarkSources::conventional(),
            None,
            None,
            ResponseFields::headers(&h),
            now,
        );
        assert_eq!(obs.now, Some(now));
        assert_eq!(obs.staleness().unwrap().ms, 3_000);
    }

    #[test]
    fn repeated_header_is_invalid() {
        let h = headers(&[("x-replica-lag-ms", "0"), ("x-replica-lag-ms", "40000")]);
        let obs = observe(
            &WatermarkSources::conventional(),
            None,
            None,
            ResponseFields::headers(&h),
            Timestamp::from_unix_ms(0),
        );
        assert!(matches!(obs.lag_ms, Some(WatermarkValue::Invalid(_))));
    }

    #[test]
    fn a_watermark_in_the_trailers_is_invalid() {
        let h = headers(&[("x-replica-lag-ms", "120"), ("age", "1")]);
        let with_trailer = |trailer: &'static str| {
            let in_trailers = move |name: &str| name == trailer;
            observe(
                &WatermarkSources::conventional(),
                None,
                None,
                ResponseFields {
                    header: &h,
                    trailer: &in_trailers,
                },
                Timestamp::from_unix_ms(0),
            )
        };
        // In the trailers as well as in the headers, or only there: invalid either way; a
        // trailer the sources do not read changes nothing.
        for trailer in [
            "x-replica-lag-ms",
            "x-replica-synced-at",
            "x-consul-lastcontact",
        ] {
            let obs = with_trailer(trailer);
            let slot = match trailer {
                "x-replica-lag-ms" => &obs.lag_ms,
                "x-replica-synced-at" => &obs.synced_at,
                _ => &obs.consul_last_contact_ms,
            };
            match slot {
                Some(WatermarkValue::Invalid(why)) => assert!(why.contains("trailers"), "{why}"),
                other => panic!("{trailer}: {other:?}"),
            }
            assert_eq!(obs.age_s, Some(WatermarkValue::Text("1".into())));
            assert!(obs.staleness().is_err(), "{trailer}");
        }
        let obs = with_trailer("x-request-id");
        assert_eq!(obs.lag_ms, Some(WatermarkValue::Text("120".into())));
        assert_eq!(obs.staleness().unwrap().ms, 1_120);
    }

    #[test]
    fn envelope_pointer_and_disagreement() {
        let body = crate::json::parse(br#"{"replication":{"lag_s":40}}"#, 8).unwrap();
        let ptr = ("/replication/lag_s".to_owned(), PointerUnit::Seconds);
        let none = headers(&[]);
        let from_envelope = |body: &Value| {
            observe(
                &WatermarkSources::conventional(),
                Some(&ptr),
                Some(body),
                ResponseFields::headers(&none),
                Timestamp::from_unix_ms(0),
            )
        };
        let obs = from_envelope(&body);
        assert_eq!(obs.lag_s, Some(WatermarkValue::Number(40.0)));

        let mut sources = WatermarkSources::conventional();
        sources.lag_s_header = Some("x-lag-s".into());
        let agree = headers(&[("x-lag-s", "40")]);
        let obs = observe(
            &sources,
            Some(&ptr),
            Some(&body),
            ResponseFields::headers(&agree),
            Timestamp::from_unix_ms(0),
        );
        assert_eq!(obs.lag_s, Some(WatermarkValue::Number(40.0)));
        let disagree = headers(&[("x-lag-s", "0")]);
        let obs = observe(
            &sources,
            Some(&ptr),
            Some(&body),
            ResponseFields::headers(&disagree),
            Timestamp::from_unix_ms(0),
        );
        assert!(matches!(obs.lag_s, Some(WatermarkValue::Invalid(_))));
        // Sent as a trailer, the header's figure is invalid whatever the envelope says.
        let in_trailers = |name: &str| name == "x-lag-s";
        let obs = observe(
            &sources,
            Some(&ptr),
            Some(&body),
            ResponseFields {
                header: &agree,
                trailer: &in_trailers,
            },
            Timestamp::from_unix_ms(0),
        );
        match obs.lag_s {
            Some(WatermarkValue::Invalid(why)) => assert!(why.contains("trailers"), "{why}"),
            other => panic!("{other:?}"),
        }
        // An envelope member that is neither a number nor a string is invalid, its type named.
        for (text, kind) in [
            ("true", "boolean"),
            ("null", "null"),
            ("[40]", "array"),
            ("{}", "object"),
        ] {
            let body = format!(r#"{{"replication":{{"lag_s":{text}}}}}"#);
            let obs = from_envelope(&crate::json::parse(body.as_bytes(), 8).unwrap());
            let want = format!("envelope member /replication/lag_s is a JSON {kind}");
            assert_eq!(obs.lag_s, Some(WatermarkValue::Invalid(want)));
        }
    }
}
