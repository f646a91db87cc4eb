//! The gate's answer, and its JSON form: the contract every runtime returns byte for byte.

use crate::card_hash::CardHash;
use crate::jcs;
use crate::json::Value;
use crate::reason::{Condition, ErrorClass, ReasonCode};
use crate::resolution::ResolutionSummary;
use serde::ser::{Serialize, SerializeMap, Serializer};

/// One failed check, with the figures that explain it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reason {
    /// The stable code.
    pub code: ReasonCode,
    /// A sentence with the figures, e.g. "staleness 40000 ms exceeds max_stale 10000 ms".
    pub message: String,
    /// The figures, by name (`staleness_ms`, `max_stale_ms`, `card_version`, ...).
    pub figures: Vec<(String, Value)>,
}

impl Reason {
    /// The condition this reason fails.
    pub fn condition(&self) -> Condition {
        self.code.condition()
    }
}

/// How condition (b) was satisfied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum FreshnessBasis {
    /// A watermark within tolerance.
    Watermark,
    /// The card matched the pinned hash.
    Pinned,
}

impl FreshnessBasis {
    /// `"watermark"` or `"pinned"`.
    pub fn as_str(self) -> &'static str {
        match self {
            FreshnessBasis::Watermark => "watermark",
            FreshnessBasis::Pinned => "pinned",
        }
    }
}

/// The outcome of one condition, for display.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
pub struct ConditionOutcome {
    // Members are declared in RFC 8785 order, so the canonical writer never moves them.
    /// A sentence explaining why, with figures.
    pub message: String,
    /// Whether it held.
    pub passed: bool,
}

/// The three conditions' outcomes (`a`, `b`, `c` on the wire).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
pub struct Conditions {
    /// (a) version.
    #[serde(rename = "a")]
    pub version: ConditionOutcome,
    /// (b) freshness or pin.
    #[serde(rename = "b")]
    pub freshness: ConditionOutcome,
    /// (c) capabilities.
    #[serde(rename = "c")]
    pub capabilities: ConditionOutcome,
}

/// The gate's decision about one card.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub(crate) error_class: Option<ErrorClass>,
    pub(crate) reasons: Vec<Reason>,
    pub(crate) missing: Vec<String>,
    pub(crate) agent: Option<String>,
    pub(crate) card_version: Option<String>,
    pub(crate) card_hash: Option<CardHash>,
    pub(crate) staleness_ms: Option<u64>,
    pub(crate) freshness: Option<FreshnessBasis>,
    pub(crate) conditions: Option<Conditions>,
    pub(crate) card: Option<Value>,
    pub(crate) card_text: Option<String>,
    pub(crate) defect_path: Option<String>,
    pub(crate) defect_offset: Option<usize>,
    /// Re-resolution: the attempts and how it ended (see [`crate::resolution`]).
    pub(crate) resolution: Option<Box<ResolutionSummary>>,
}

/// How much of an unreadable body a decision carries.
pub const CARD_TEXT_LIMIT: usize = 4096;

impl Decision {
    /// Whether the card is valid for delegation.
    pub fn is_valid(&self) -> bool {
        self.error_class.is_none()
    }
    /// 200 for a valid card, else the error class's status (503, 409, 502).
    pub fn status(&self) -> u16 {
        self.error_class.map_or(200, ErrorClass::status)
    }
    /// The primary error class of a rejection.
    pub fn error_class(&self) -> Option<ErrorClass> {
        self.error_class
    }
    /// Every failed check, in the order b, a, c.
    pub fn reasons(&self) -> &[Reason] {
        &self.reasons
    }
    /// Required capabilities the card does not declare, in the order required.
    pub fn missing_capabilities(&self) -> &[String] {
        &self.missing
    }
    /// The card's `name`, when it could be read.
    pub fn agent(&self) -> Option<&str> {
        self.agent.as_deref()
    }
    /// The card's `version`, when it could be read.
    pub fn card_version(&self) -> Option<&str> {
        self.card_version.as_deref()
    }
    /// The card hash, when the body parsed as JSON.
    pub fn card_hash(&self) -> Option<&CardHash> {
        self.card_hash.as_ref()
    }
    /// The staleness figure established, if any.
    pub fn staleness_ms(&self) -> Option<u64> {
        self.staleness_ms
    }
    /// How freshness was established, for a card that passed (b).
    pub fn freshness(&self) -> Option<FreshnessBasis> {
        self.freshness
    }
    /// The conditions' outcomes, when the card could be read.
    pub fn conditions(&self) -> Option<&Conditions> {
        self.conditions.as_ref()
    }
    /// The card as received, on a rejection of a body that parsed (the problem JSON's `card`).
    pub fn card(&self) -> Option<&Value> {
        self.card.as_ref()
    }
    /// The re-resolution record (`attempts`, `outcome`, `source`), when there was more than one
    /// attempt or the resolution stopped early.
    pub fn resolution(&self) -> Option<&ResolutionSummary> {
        self.resolution.as_deref()
    }
    /// The messages of every reason, joined: the problem's `detail`.
    pub fn detail(&self) -> String {
        let messages: Vec<&str> = self.reasons.iter().map(|r| r.message.as_str()).collect();
        messages.join("; ")
    }

    /// A `malformed_card` decision for a body that could not be read: `code` is one of the
    /// card-level reason codes, `path` the JSON Pointer of the offending member (`""` for the
    /// whole body).
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
            resolution: None,
        }
    }

    /// A body over `limit` bytes of which a host read only `start` (a proxy stops buffering at the
    /// limit): `seen_bytes` is the size it saw, "at least" while the body was still arriving.
    pub fn body_too_large(
        start: &[u8],
        seen_bytes: usize,
        limit: usize,
        complete: bool,
    ) -> Decision {
        let qualifier = if complete { "" } else { "at least " };
        let mut d = Decision::malformed(
            ReasonCode::BodyTooLarge,
            "",
            format!(
                "card body is {qualifier}{seen_bytes} bytes, more than the limit of {limit} bytes"
            ),
        );
        d.reasons_mut_figures(vec![
            ("body_bytes".into(), Value::Number(seen_bytes as f64)),
            ("max_card_bytes".into(), Value::Number(limit as f64)),
        ]);
        d.card_text = Some(card_excerpt(start));
        d
    }

    /// A body with a `Content-Encoding` the gate does not decode.
    pub fn body_encoded(encoding: &str) -> Decision {
        Decision::malformed(
            ReasonCode::BodyEncoded,
            "",
            format!(
                "the body has Content-Encoding {encoding:?}; the gate reads identity-encoded cards only"
            ),
        )
    }

    /// The `body_encoded` decision for a host's `Content-Encoding` header values (every value of
    /// every such header), if they name a coding other than `identity`: each comma-separated
    /// element, spaces and tabs trimmed, must be empty or `identity` (ASCII case aside). Callers'
    /// HTTP clients then hand over the bytes as served, the bytes the gate checks. The Envoy
    /// filter and `cardgate resolve` share this rule.
    pub fn content_encoding<V: AsRef<[u8]>>(values: &[V]) -> Option<Decision> {
        values.iter().find_map(|value| {
            let text = String::from_utf8_lossy(value.as_ref());
            let identity = text.split(',').all(|e| {
                let e = e.trim_matches([' ', '\t']);
                e.is_empty() || e.eq_ignore_ascii_case("identity")
            });
            (!identity).then(|| Decision::body_encoded(text.trim()))
        })
    }

    /// Sets the figures of a malformed decision's single reason.
    pub(crate) fn reasons_mut_figures(&mut self, figures: Vec<(String, Value)>) {
        if let Some(reason) = self.reasons.first_mut() {
            reason.figures = figures;
        }
    }

    /// The decision's wire form ([`DecisionJson`]): what every runtime serializes.
    pub fn wire(&self) -> DecisionJson<'_> {
        let parsed = self.card_hash.as_ref().map(CardHash::as_str);
        // Read from the card exactly when the conditions were checked (nullable then).
        let read = self.conditions.is_some();
        let agent = read.then_some(self.agent.as_deref());
        let card_version = read.then_some(self.card_version.as_deref());
        let staleness_ms = read.then_some(self.staleness_ms);
        let freshness = read.then_some(self.freshness);
        let resolution = self.resolution.as_deref();
        let Some(class) = self.error_class else {
            return DecisionJson::Valid(ValidJson {
                verdict: Valid,
                status: self.status(),
                card_hash: parsed,
                agent,
                card_version,
                staleness_ms,
                freshness,
                conditions: self.conditions.as_ref(),
                resolution,
            });
        };
        let reasons = self
            .reasons
            .iter()
            .map(|r| {
                let card = r.condition() == Condition::Card;
                ReasonJson {
                    code: r.code,
                    condition: r.condition(),
                    message: &r.message,
                    figures: Members(&r.figures),
                    path: card.then_some(self.defect_path.as_deref()),
                    offset: self.defect_offset.filter(|_| card),
                }
            })
            .collect();
        DecisionJson::Rejected(RejectedJson {
            verdict: Rejected,
            problem_type: format!("urn:cardgate:problem:{}", class.as_str()),
            title: class.title(),
            detail: self.detail(),
            error_class: class,
            reasons,
            missing_capabilities: &self.missing,
            status: self.status(),
            card_hash: parsed,
            agent,
            card_version,
            staleness_ms,
            freshness,
            conditions: self.conditions.as_ref(),
            resolution,
            card: self.card.as_ref(),
            card_text: self
                .card
                .is_none()
                .then_some(())
                .and(self.card_text.as_deref()),
        })
    }

    /// The decision as a JSON value (see `DESIGN.md`): its canonical JSON read back.
    pub fn to_value(&self) -> Value {
        crate::json::parse(self.to_json().as_bytes(), 128).unwrap_or(Value::Null)
    }

    /// The decision's RFC 8785 canonical JSON, written straight from [`Decision::wire`]:
    /// identical bytes in every runtime.
    pub fn to_json(&self) -> String {
        // Cannot fail: every map key in the wire types is a string, and nothing is bytes.
        jcs::to_string(&self.wire()).unwrap_or_default()
    }
}

/// The start of an unreadable body, for the decision's `card_text`.
pub(crate) fn card_excerpt(body: &[u8]) -> String {
    String::from_utf8_lossy(body)
        .chars()
        .take(CARD_TEXT_LIMIT)
        .collect()
}

/// The decision's JSON form (DESIGN.md "Decision"), borrowed from a [`Decision`]: the one
/// definition the canonical text ([`Decision::to_json`]), the JS objects and the generated
/// TypeScript declarations all come from. Members that do not apply are absent; members read
/// from the card are `null` when the card lacks them.
///
/// Each variant's members, `verdict` included, are declared in RFC 8785 order, so the canonical
/// writer writes them as they come and never re-sorts (`verdict` sorts last; serde's enum tag
/// would come first and make every decision object a re-sort).
#[derive(Debug, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(untagged)]
pub enum DecisionJson<'a> {
    /// The card may be used.
    Valid(ValidJson<'a>),
    /// An RFC 9457 problem with cardgate's members.
    Rejected(RejectedJson<'a>),
}

/// Declares a unit struct that serializes as one constant (`$method($value)`): a member such as
/// `verdict` that tells the variants of an untagged wire enum apart and sorts where RFC 8785
/// puts it (serde's own enum tag would always come first). Its TypeScript type is given on the
/// member (`tsify(type = ...)`).
macro_rules! wire_constant {
    ($(#[$doc:meta])* $name:ident, $method:ident($value:expr)) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $name;

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.$method($value)
            }
        }
    };
}
pub(crate) use wire_constant;

wire_constant!(
    /// `"valid"`: the `verdict` of a [`ValidJson`].
    Valid,
    serialize_str("valid")
);
wire_constant!(
    /// `"rejected"`: the `verdict` of a [`RejectedJson`].
    Rejected,
    serialize_str("rejected")
);

/// A valid decision's members.
#[derive(Debug, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify), tsify(missing_as_null))]
pub struct ValidJson<'a> {
    /// The card's `name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<Option<&'a str>>,
    /// `sha256:<hex>`, absent when there was no card (a freshness-only decision).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card_hash: Option<&'a str>,
    /// The card's `version`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card_version: Option<Option<&'a str>>,
    /// The three conditions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<&'a Conditions>,
    /// How (b) was satisfied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freshness: Option<Option<FreshnessBasis>>,
    /// The re-resolution record, when more than one source was asked or a bound ended it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<&'a ResolutionSummary>,
    /// The staleness figure established, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub staleness_ms: Option<Option<u64>>,
    /// 200.
    pub status: u16,
    /// `"valid"`.
    #[cfg_attr(feature = "js", tsify(type = "\"valid\""))]
    pub verdict: Valid,
}

/// A rejection's members.
#[derive(Debug, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify), tsify(missing_as_null))]
pub struct RejectedJson<'a> {
    /// The card's `name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<Option<&'a str>>,
    /// The card as received, when it parsed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "js", tsify(type = "unknown"))]
    pub card: Option<&'a Value>,
    /// `sha256:<hex>`, when the body parsed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card_hash: Option<&'a str>,
    /// The first 4096 characters of a body that did not parse.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card_text: Option<&'a str>,
    /// The card's `version`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card_version: Option<Option<&'a str>>,
    /// The three conditions, when the card could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<&'a Conditions>,
    /// Every reason's message, joined with `; `.
    pub detail: String,
    /// The primary error class.
    pub error_class: ErrorClass,
    /// Always `null` on a rejection that read the card.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freshness: Option<Option<FreshnessBasis>>,
    /// Required capabilities the card does not declare.
    pub missing_capabilities: &'a [String],
    /// Every failed check, in the order b, a, c.
    pub reasons: Vec<ReasonJson<'a>>,
    /// The re-resolution record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<&'a ResolutionSummary>,
    /// The staleness figure established, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub staleness_ms: Option<Option<u64>>,
    /// 503, 409 or 502.
    pub status: u16,
    /// The error class's title.
    pub title: &'static str,
    /// `urn:cardgate:problem:<error_class>`.
    #[serde(rename = "type")]
    pub problem_type: String,
    /// `"rejected"`.
    #[cfg_attr(feature = "js", tsify(type = "\"rejected\""))]
    pub verdict: Rejected,
}

/// One failed check on the wire.
#[derive(Debug, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify), tsify(missing_as_null))]
pub struct ReasonJson<'a> {
    // Members are declared in RFC 8785 order, so the canonical writer never moves them.
    /// The stable code.
    pub code: ReasonCode,
    /// The condition it fails.
    #[cfg_attr(feature = "js", tsify(type = "ConditionName"))]
    pub condition: Condition,
    /// The figures, by name.
    #[cfg_attr(
        feature = "js",
        tsify(type = "Record<string, number | string | boolean | null>")
    )]
    pub figures: Members<'a>,
    /// A sentence with the figures.
    pub message: &'a str,
    /// JSON Pointer of the offending member (card reasons only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Option<&'a str>>,
    /// Byte offset of a syntax error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
}

/// Borrowed object members, serialized as a JSON object.
#[derive(Debug, Clone, Copy)]
pub struct Members<'a>(pub &'a [(String, Value)]);

impl Serialize for Members<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::FreshnessBasis;
    use crate::{evaluate, Observation, Requirement};

    const CARD: &[u8] = br#"{"name":"W","version":"1.0","skills":[{"id":"s"}]}"#;

    fn decide(card: &[u8], lag_ms: &str) -> crate::Decision {
        let req = Requirement::from_json(r#"{"max_stale":"10s"}"#).unwrap();
        let obs = Observation::from_json(&format!(r#"{{"lag_ms":"{lag_ms}"}}"#)).unwrap();
        evaluate(card, &req, &obs)
    }

    /// A card reason names the member (`path`) and, for a syntax error, the byte (`offset`);
    /// a reason of another condition has neither.
    #[test]
    fn card_reasons_alone_carry_path_and_offset() {
        let wrong = decide(br#"{"name":"W","version":7}"#, "5").to_json();
        assert!(
            wrong.contains(r#""message":"card member /version must be a string, found number","path":"/version"}"#),
            "{wrong}"
        );
        let syntax = decide(br#"{"name":"W",]"#, "5").to_json();
        assert!(syntax.contains(r#","offset":12,"path":""}"#), "{syntax}");
        let stale = decide(CARD, "40000").to_json();
        assert!(stale.contains(r#""code":"watermark_exceeded""#), "{stale}");
        assert!(
            !stale.contains(r#""path""#) && !stale.contains(r#""offset""#),
            "{stale}"
        );
    }

    /// What the glue (Envoy headers, the npm package) reads of a decision.
    #[test]
    fn accessors() {
        let valid = decide(CARD, "5");
        assert!(valid.is_valid());
        assert_eq!(valid.agent(), Some("W"));
        assert_eq!(valid.card_version(), Some("1.0"));
        let hash = valid.card_hash().unwrap().to_string();
        assert!(valid
            .to_json()
            .contains(&format!(r#""card_hash":"{hash}""#)));
        assert_eq!(valid.staleness_ms(), Some(5));
        assert_eq!(
            valid.freshness().map(FreshnessBasis::as_str),
            Some("watermark")
        );
        assert!(valid.conditions().is_some());
        assert!(valid.card().is_none());
        let stale = decide(CARD, "40000");
        assert_eq!(stale.staleness_ms(), Some(40000));
        assert_eq!(
            stale.card().map(crate::jcs::canonicalize).as_deref(),
            Some(r#"{"name":"W","skills":[{"id":"s"}],"version":"1.0"}"#)
        );
        assert_eq!(FreshnessBasis::Pinned.as_str(), "pinned");
        for empty in [&b""[..], b" \r\n"] {
            let d = decide(empty, "5");
            assert_eq!(d.reasons()[0].message, "card body is empty");
            assert_eq!(d.reasons()[0].code.as_str(), "body_empty");
        }
        let unread = decide(b"[]", "5");
        assert_eq!((unread.agent(), unread.card_version()), (None, None));
        assert!(unread.conditions().is_none());
    }
}
