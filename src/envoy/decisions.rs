//! Decisions the proxy needs that the core's `evaluate_with` does not make, in the core's shape.
//!
//! - a card the proxy cannot read at all (`body_encoded`, or an envelope without the card);
//! - an oversized body, of which the proxy reads only the start (its size may still be growing);
//! - a freshness-only verdict for answers that carry no card (`304 Not Modified`, `HEAD`).
//!
//! They build [`Decision`] values directly, so `to_json()` gives the same problem document as
//! every other rejection. Candidates for the core (see the report in `envoy/README.md`).

use crate::decision::{
    ConditionOutcome, Conditions, Decision, FreshnessBasis, Reason, CARD_TEXT_LIMIT,
};
use crate::json::Value;
use crate::reason::{ErrorClass, ReasonCode};
use crate::{Observation, Requirement};

/// A `malformed_card` decision for a body the proxy could not hand to the parser.
pub fn malformed(code: ReasonCode, path: &str, message: String) -> Decision {
    Decision {
        error_class: Some(ErrorClass::MalformedCard),
        reasons: vec![Reason {
            code,
            message,
            figures: Vec::new(),
        }],
        missing: Vec::new(),
        agent: None,
        card_version: None,
        card_hash: None,
        staleness_ms: None,
        freshness: None,
        conditions: None,
        card: None,
        card_text: None,
        defect_path: Some(path.to_owned()),
        defect_offset: None,
    }
}

/// A body over the limit, as `evaluate_with` reports it, but with the size Envoy buffered
/// (`seen_bytes`, "at least" while the body is still arriving) instead of the bytes handed over,
/// and `card_text` from the body's start.
pub fn body_too_large(start: &[u8], seen_bytes: usize, limit: usize, complete: bool) -> Decision {
    let qualifier = if complete { "" } else { "at least " };
    let mut d = malformed(
        ReasonCode::BodyTooLarge,
        "",
        format!("card body is {qualifier}{seen_bytes} bytes, more than the limit of {limit} bytes"),
    );
    if let Some(reason) = d.reasons.first_mut() {
        reason.figures = vec![
            ("body_bytes".into(), Value::Number(seen_bytes as f64)),
            ("max_card_bytes".into(), Value::Number(limit as f64)),
        ];
    }
    d.card_text = Some(
        String::from_utf8_lossy(start)
            .chars()
            .take(CARD_TEXT_LIMIT)
            .collect(),
    );
    d
}

/// The body has a `Content-Encoding` the gate does not decode.
pub fn body_encoded(encoding: &str) -> Decision {
    malformed(
        ReasonCode::BodyEncoded,
        "",
        format!("the body has Content-Encoding {encoding:?}; the gate reads identity-encoded cards only (the request's Accept-Encoding was removed)"),
    )
}

/// Condition (b) alone, for an answer without a card (`304 Not Modified`, `HEAD`).
///
/// With a pin the caller already holds the pinned card (it revalidates what it has), so (b)
/// passes as `pinned`; otherwise the watermark must be within `max_stale`, as in the core.
pub fn freshness_only(requirement: &Requirement, observation: &Observation) -> Decision {
    let staleness = observation.staleness();
    let staleness_ms = staleness.as_ref().ok().map(|s| s.ms);
    let mut reasons = Vec::new();
    let mut basis = None;
    let message = if let Some(pin) = &requirement.pin {
        basis = Some(FreshnessBasis::Pinned);
        format!("no card in this answer; the caller holds the card pinned as {pin}")
    } else {
        match (&staleness, requirement.max_stale_ms) {
            (Err(why), _) => {
                reasons.push(Reason {
                    code: why.code,
                    message: why.message.clone(),
                    figures: Vec::new(),
                });
                why.message.clone()
            }
            (Ok(s), None) => {
                let message = format!(
                    "staleness {} ms ({}) but no max_stale was given and no hash pinned, so freshness cannot be accepted",
                    s.ms, s.basis
                );
                reasons.push(Reason {
                    code: ReasonCode::ToleranceMissing,
                    message: message.clone(),
                    figures: vec![("staleness_ms".into(), Value::Number(s.ms as f64))],
                });
                message
            }
            (Ok(s), Some(max)) if s.ms > max => {
                let message = format!("staleness {} ms exceeds max_stale {} ms", s.ms, max);
                reasons.push(Reason {
                    code: ReasonCode::WatermarkExceeded,
                    message: message.clone(),
                    figures: vec![
                        ("staleness_ms".into(), Value::Number(s.ms as f64)),
                        ("max_stale_ms".into(), Value::Number(max as f64)),
                    ],
                });
                message
            }
            (Ok(s), Some(max)) => {
                basis = Some(FreshnessBasis::Watermark);
                format!(
                    "staleness {} ms ({}) is within max_stale {} ms",
                    s.ms, s.basis, max
                )
            }
        }
    };
    let passed = reasons.is_empty();
    let unchecked = |what: &str| ConditionOutcome {
        passed: true,
        message: format!("no card in this answer: {what} not checked"),
    };
    Decision {
        error_class: (!passed).then_some(ErrorClass::StaleAgentCard),
        reasons,
        missing: Vec::new(),
        agent: None,
        card_version: None,
        card_hash: None,
        staleness_ms,
        freshness: if passed { basis } else { None },
        conditions: Some(Conditions {
            version: unchecked("version"),
            freshness: ConditionOutcome { passed, message },
            capabilities: unchecked("capabilities"),
        }),
        card: None,
        card_text: None,
        defect_path: None,
        defect_offset: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WatermarkValue;

    #[test]
    fn not_modified_from_a_stale_replica_is_stale() {
        let req = Requirement::from_json(r#"{"max_stale":"10s"}"#).unwrap();
        let obs = Observation {
            lag_ms: Some(WatermarkValue::Text("40000".into())),
            ..Observation::default()
        };
        let d = freshness_only(&req, &obs);
        assert_eq!(d.status(), 503);
        assert_eq!(d.reasons()[0].code, ReasonCode::WatermarkExceeded);
        let fresh = Observation {
            lag_ms: Some(WatermarkValue::Text("100".into())),
            ..Observation::default()
        };
        assert!(freshness_only(&req, &fresh).is_valid());
        assert_eq!(
            freshness_only(&req, &Observation::default()).reasons()[0].code,
            ReasonCode::FreshnessUnverifiable
        );
    }

    #[test]
    fn oversized_body_reports_what_envoy_buffered() {
        let d = body_too_large(b"{\"name\":", 200_000, 65_536, false);
        assert_eq!(d.status(), 502);
        assert_eq!(
            d.reasons()[0].message,
            "card body is at least 200000 bytes, more than the limit of 65536 bytes"
        );
        let json = d.to_json();
        assert!(json.contains(r#""card_text":"{\"name\":""#), "{json}");
        assert!(json.contains(r#""body_bytes":200000"#), "{json}");
    }

    #[test]
    fn encoded_body_is_malformed() {
        let d = body_encoded("gzip");
        assert_eq!(d.status(), 502);
        assert!(d.to_json().contains(r#""code":"body_encoded""#));
    }
}
