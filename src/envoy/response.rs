//! From a held upstream answer to what the caller gets: evaluation through the core, then
//! either the upstream answer with verdict headers or a problem document in its place.
//!
//! | decision | enforce | observe |
//! |---|---|---|
//! | valid | card unchanged + `a2a-card-verdict: valid`, `a2a-card-hash`, `a2a-card-staleness-ms`, `a2a-card-freshness` | same |
//! | `stale_agent_card` | `503` + `Retry-After`, `application/problem+json` | card unchanged + `a2a-card-verdict: rejected`, `a2a-card-error-class`, `a2a-card-reasons` |
//! | `capability_mismatch` | `409` problem | as above |
//! | `malformed_card` | `502` problem | as above |

use crate::gate::evaluate_document;
use crate::json::{self, Value};
use crate::reason::ReasonCode;
use crate::{evaluate_with, jcs, Decision, Limits, Requirement, Timestamp};

use super::caller::CallerError;
use super::config::Mode;
use super::routes::CardRoute;
use crate::watermark_sources::observe;

/// Every response header starting with this is ours; upstream copies are removed first.
pub const VERDICT_HEADER_PREFIX: &str = "a2a-card-";
/// `valid` or `rejected`.
pub const VERDICT: &str = "a2a-card-verdict";
/// The card hash of a card that was evaluated.
pub const CARD_HASH: &str = "a2a-card-hash";
/// The staleness figure the verdict used, in ms.
pub const STALENESS_MS: &str = "a2a-card-staleness-ms";
/// How freshness was established for a valid card: `watermark` or `pinned`.
pub const FRESHNESS: &str = "a2a-card-freshness";
/// Observe mode: the error class that would have blocked the answer.
pub const ERROR_CLASS: &str = "a2a-card-error-class";
/// Observe mode: the reason codes, comma-separated.
pub const REASONS: &str = "a2a-card-reasons";

/// A reply the filter sends in place of the upstream answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalReply {
    /// HTTP status.
    pub status: u16,
    /// Headers (lowercase names).
    pub headers: Vec<(&'static str, String)>,
    /// The problem document.
    pub body: String,
}

/// What happens to the upstream answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Forward it, with these headers added.
    Forward(Vec<(&'static str, String)>),
    /// Replace it.
    Replace(LocalReply),
}

/// Evaluates a complete (or over-limit) body for a route.
///
/// Without an envelope the bytes go to the core as they are. With `card_pointer`, the envelope
/// is parsed strictly (an unparsable envelope is reported exactly as an unparsable card), and
/// the card member is canonicalized (RFC 8785) and evaluated; its hash is unchanged by that.
pub fn evaluate_body(
    body: &[u8],
    route: &CardRoute,
    requirement: &Requirement,
    header: &dyn Fn(&str) -> Vec<Vec<u8>>,
    now: Timestamp,
    limits: &Limits,
) -> Decision {
    let needs_envelope = route.card_pointer.is_some() || route.watermark_pointer.is_some();
    let headers_only = || observe(&route.watermark, None, None, header, now);
    if !needs_envelope || body.len() > limits.max_card_bytes {
        return evaluate_with(body, requirement, &headers_only(), limits);
    }
    let envelope = match json::parse(body, limits.max_depth) {
        Ok(v) => v,
        Err(_) => return evaluate_with(body, requirement, &headers_only(), limits),
    };
    let observation = observe(
        &route.watermark,
        route.watermark_pointer.as_ref(),
        Some(&envelope),
        header,
        now,
    );
    // The envelope is parsed once: the card is evaluated as the document it already is.
    match &route.card_pointer {
        None => evaluate_document(envelope, requirement, &observation),
        Some(ptr) => match envelope.pointer(ptr) {
            Some(card) => evaluate_document(card.clone(), requirement, &observation),
            None => Decision::malformed(
                ReasonCode::MissingField,
                ptr,
                format!("the envelope has no member {ptr} (the route's card_pointer)"),
            ),
        },
    }
}

/// What to do with the upstream answer, given the decision.
pub fn outcome(decision: &Decision, mode: Mode, retry_after_s: u32) -> Outcome {
    let mut headers = Vec::new();
    if let Some(hash) = decision.card_hash() {
        headers.push((CARD_HASH, hash.to_string()));
    }
    if let Some(ms) = decision.staleness_ms() {
        headers.push((STALENESS_MS, ms.to_string()));
    }
    let Some(class) = decision.error_class() else {
        if let Some(basis) = decision.freshness() {
            headers.push((FRESHNESS, basis.as_str().to_owned()));
        }
        headers.insert(0, (VERDICT, "valid".to_owned()));
        return Outcome::Forward(headers);
    };
    headers.insert(0, (VERDICT, "rejected".to_owned()));
    if mode == Mode::Observe {
        headers.push((ERROR_CLASS, class.as_str().to_owned()));
        headers.push((REASONS, reason_codes(decision).join(",")));
        return Outcome::Forward(headers);
    }
    headers.push(("content-type", "application/problem+json".to_owned()));
    headers.push(("cache-control", "no-store".to_owned()));
    if decision.status() == 503 {
        headers.push(("retry-after", retry_after_s.to_string()));
    }
    Outcome::Replace(LocalReply {
        status: decision.status(),
        headers,
        body: decision.to_json(),
    })
}

/// The `400` answer to a caller header the gate cannot use (RFC 9457 problem).
pub fn caller_refused(err: &CallerError) -> LocalReply {
    let s = |v: &str| Value::String(v.to_owned());
    let detail = format!("{}: {}", err.header, err.message);
    let problem = Value::Object(vec![
        (
            "type".into(),
            s("urn:cardgate:problem:invalid_caller_requirement"),
        ),
        ("title".into(), s("Invalid Caller Requirement")),
        ("status".into(), Value::Number(400.0)),
        ("detail".into(), s(&detail)),
        ("verdict".into(), s("refused")),
        ("header".into(), s(err.header)),
    ]);
    LocalReply {
        status: 400,
        headers: vec![
            ("content-type", "application/problem+json".to_owned()),
            ("cache-control", "no-store".to_owned()),
        ],
        body: jcs::canonicalize(&problem),
    }
}

/// One structured log line for a rejection: agent, reason codes, staleness, hash.
pub fn rejection_log(
    decision: &Decision,
    rule_agent: Option<&str>,
    path: &str,
    mode: Mode,
) -> String {
    let s = |v: &str| Value::String(v.to_owned());
    let opt = |v: Option<&str>| v.map_or(Value::Null, s);
    let line = Value::Object(vec![
        ("event".into(), s("cardgate.rejected")),
        ("mode".into(), s(mode.as_str())),
        ("path".into(), s(path)),
        ("rule".into(), opt(rule_agent)),
        ("agent".into(), opt(decision.agent())),
        ("status".into(), Value::Number(f64::from(decision.status()))),
        (
            "error_class".into(),
            opt(decision.error_class().map(|c| c.as_str())),
        ),
        (
            "reasons".into(),
            Value::Array(reason_codes(decision).into_iter().map(s).collect()),
        ),
        (
            "missing_capabilities".into(),
            Value::Array(
                decision
                    .missing_capabilities()
                    .iter()
                    .map(|m| s(m))
                    .collect(),
            ),
        ),
        (
            "staleness_ms".into(),
            decision
                .staleness_ms()
                .map_or(Value::Null, |ms| Value::Number(ms as f64)),
        ),
        (
            "card_hash".into(),
            decision
                .card_hash()
                .map_or(Value::Null, |h| s(&h.to_string())),
        ),
    ]);
    jcs::canonicalize(&line)
}

/// The decision's reason codes, in order.
pub fn reason_codes(decision: &Decision) -> Vec<&'static str> {
    decision.reasons().iter().map(|r| r.code.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envoy::routes::PathPattern;
    use crate::watermark_sources::{PointerUnit, WatermarkSources};

    const CARD: &str =
        r#"{"name":"w","version":"2","capabilities":{},"skills":[{"id":"task.execute.v2"}]}"#;

    fn route(card_pointer: Option<&str>, wm: Option<(&str, PointerUnit)>) -> CardRoute {
        CardRoute {
            pattern: PathPattern::WellKnown,
            agent: None,
            card_pointer: card_pointer.map(str::to_owned),
            watermark: WatermarkSources::conventional(),
            watermark_pointer: wm.map(|(p, u)| (p.to_owned(), u)),
        }
    }

    fn lag(ms: &'static str) -> impl Fn(&str) -> Vec<Vec<u8>> {
        move |n: &str| {
            if n == "x-replica-lag-ms" {
                vec![ms.as_bytes().to_vec()]
            } else {
                Vec::new()
            }
        }
    }

    #[test]
    fn stale_card_becomes_503_with_retry_after() {
        let req =
            Requirement::from_json(r#"{"max_stale":"10s","require":["task.execute.v3"]}"#).unwrap();
        let d = evaluate_body(
            CARD.as_bytes(),
            &route(None, None),
            &req,
            &lag("40000"),
            Timestamp::from_unix_ms(0),
            &Limits::default(),
        );
        let Outcome::Replace(reply) = outcome(&d, Mode::Enforce, 7) else {
            panic!("not replaced")
        };
        assert_eq!(reply.status, 503);
        assert!(reply.headers.contains(&("retry-after", "7".to_owned())));
        assert!(reply.body.contains("\"watermark_exceeded\""));
        let Outcome::Forward(h) = outcome(&d, Mode::Observe, 7) else {
            panic!("observe blocked")
        };
        assert!(h.contains(&(
            REASONS,
            "watermark_exceeded,capabilities_missing".to_owned()
        )));
    }

    #[test]
    fn envelope_card_and_watermark() {
        let body = format!(r#"{{"card":{CARD},"replication":{{"lag_ms":120}}}}"#);
        let req = Requirement::from_json(r#"{"max_stale":"10s"}"#).unwrap();
        let r = route(
            Some("/card"),
            Some(("/replication/lag_ms", PointerUnit::Milliseconds)),
        );
        let none = |_: &str| Vec::new();
        let d = evaluate_body(
            body.as_bytes(),
            &r,
            &req,
            &none,
            Timestamp::from_unix_ms(0),
            &Limits::default(),
        );
        assert!(d.is_valid(), "{}", d.to_json());
        assert_eq!(d.staleness_ms(), Some(120));
        assert_eq!(
            d.card_hash().unwrap().to_string(),
            crate::api::card_hash(CARD.as_bytes()).unwrap()
        );

        let missing = evaluate_body(
            br#"{"other":1}"#,
            &r,
            &req,
            &none,
            Timestamp::from_unix_ms(0),
            &Limits::default(),
        );
        assert_eq!(missing.status(), 502);
        let broken = evaluate_body(
            b"{\"card\":",
            &r,
            &req,
            &none,
            Timestamp::from_unix_ms(0),
            &Limits::default(),
        );
        assert_eq!(broken.reasons()[0].code, ReasonCode::JsonSyntax);
    }

    #[test]
    fn valid_card_forwarded_with_headers() {
        let req = Requirement::from_json(r#"{"max_stale":"10s"}"#).unwrap();
        let d = evaluate_body(
            CARD.as_bytes(),
            &route(None, None),
            &req,
            &lag("250"),
            Timestamp::from_unix_ms(0),
            &Limits::default(),
        );
        let Outcome::Forward(h) = outcome(&d, Mode::Enforce, 5) else {
            panic!("blocked")
        };
        assert_eq!(h[0], (VERDICT, "valid".to_owned()));
        assert!(h.contains(&(STALENESS_MS, "250".to_owned())));
    }
}
