//! The gate's answer, and its JSON form: the contract every runtime returns byte for byte.

use crate::card_hash::CardHash;
use crate::jcs;
use crate::json::Value;
use crate::reason::{Condition, ErrorClass, ReasonCode};

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionOutcome {
    /// Whether it held.
    pub passed: bool,
    /// A sentence explaining why, with figures.
    pub message: String,
}

/// The three conditions' outcomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conditions {
    /// (a) version.
    pub version: ConditionOutcome,
    /// (b) freshness or pin.
    pub freshness: ConditionOutcome,
    /// (c) capabilities.
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
    pub(crate) resolution: Option<Value>,
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
    pub fn resolution(&self) -> Option<&Value> {
        self.resolution.as_ref()
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
        d.card_text = Some(crate::gate::card_excerpt(start));
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

    /// Sets the figures of a malformed decision's single reason.
    pub(crate) fn reasons_mut_figures(&mut self, figures: Vec<(String, Value)>) {
        if let Some(reason) = self.reasons.first_mut() {
            reason.figures = figures;
        }
    }

    /// The decision as a JSON value (see `DESIGN.md`).
    pub fn to_value(&self) -> Value {
        let mut m: Vec<(String, Value)> = Vec::new();
        let s = |v: &str| Value::String(v.to_string());
        let opt_str = |v: Option<&str>| v.map_or(Value::Null, s);
        let opt_num = |v: Option<u64>| v.map_or(Value::Null, |n| Value::Number(n as f64));
        match self.error_class {
            None => m.push(("verdict".into(), s("valid"))),
            Some(class) => {
                m.push(("verdict".into(), s("rejected")));
                m.push((
                    "type".into(),
                    s(&format!("urn:cardgate:problem:{}", class.as_str())),
                ));
                m.push(("title".into(), s(class.title())));
                m.push(("detail".into(), Value::String(self.detail())));
                m.push(("error_class".into(), s(class.as_str())));
                let reasons = self
                    .reasons
                    .iter()
                    .map(|r| {
                        let mut rm = vec![
                            ("code".to_string(), s(r.code.as_str())),
                            ("condition".to_string(), s(r.condition().as_str())),
                            ("message".to_string(), s(&r.message)),
                            ("figures".to_string(), Value::Object(r.figures.clone())),
                        ];
                        if r.condition() == Condition::Card {
                            rm.push(("path".into(), opt_str(self.defect_path.as_deref())));
                            if let Some(offset) = self.defect_offset {
                                rm.push(("offset".into(), Value::Number(offset as f64)));
                            }
                        }
                        Value::Object(rm)
                    })
                    .collect();
                m.push(("reasons".into(), Value::Array(reasons)));
                m.push((
                    "missing_capabilities".into(),
                    Value::Array(self.missing.iter().map(|c| s(c)).collect()),
                ));
            }
        }
        m.push(("status".into(), Value::Number(f64::from(self.status()))));
        // The body parsed as JSON exactly when there is a hash (a valid decision keeps no card).
        let parsed = self.card_hash.is_some();
        if parsed {
            m.push((
                "card_hash".into(),
                opt_str(self.card_hash.as_ref().map(CardHash::as_str)),
            ));
        }
        if self.conditions.is_some() {
            m.push(("agent".into(), opt_str(self.agent.as_deref())));
            m.push(("card_version".into(), opt_str(self.card_version.as_deref())));
            m.push(("staleness_ms".into(), opt_num(self.staleness_ms)));
            m.push((
                "freshness".into(),
                opt_str(self.freshness.map(FreshnessBasis::as_str)),
            ));
        }
        if let Some(c) = &self.conditions {
            let outcome = |o: &ConditionOutcome| {
                Value::Object(vec![
                    ("passed".into(), Value::Bool(o.passed)),
                    ("message".into(), s(&o.message)),
                ])
            };
            m.push((
                "conditions".into(),
                Value::Object(vec![
                    ("a".into(), outcome(&c.version)),
                    ("b".into(), outcome(&c.freshness)),
                    ("c".into(), outcome(&c.capabilities)),
                ]),
            ));
        }
        if let Some(resolution) = &self.resolution {
            m.push(("resolution".into(), resolution.clone()));
        }
        if !self.is_valid() {
            if let Some(card) = &self.card {
                m.push(("card".into(), card.clone()));
            } else if let Some(text) = &self.card_text {
                m.push(("card_text".into(), s(text)));
            }
        }
        Value::Object(m)
    }

    /// The decision's RFC 8785 canonical JSON: identical bytes in every runtime.
    pub fn to_json(&self) -> String {
        jcs::canonicalize(&self.to_value())
    }
}
