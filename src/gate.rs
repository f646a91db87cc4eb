//! The gate: is this card valid for delegation?
//!
//! Order follows the seed: (b) freshness — a pinned hash replaces the watermark check — then
//! (a) the version floor, then (c) the capability superset. Unlike the seed, every failed
//! condition is reported; the primary error class is the first failure in that order.

use crate::card::{AgentCard, Limits};
use crate::card_hash::CardHash;
use crate::decision::{
    ConditionOutcome, Conditions, Decision, FreshnessBasis, Reason, CARD_TEXT_LIMIT,
};
use crate::duration::format_duration;
use crate::freshness::Observation;
use crate::json::Value;
use crate::reason::{ErrorClass, ReasonCode};
use crate::requirement::Requirement;
use crate::version::Version;

/// Evaluates `card` (the exact bytes served) with the default [`Limits`].
///
/// ```
/// use cardgate::{evaluate, Observation, Requirement};
/// let card = br#"{"name":"Worker","version":"2","capabilities":{},
///   "skills":[{"id":"task.execute.v2","name":"x","description":"x","tags":["x"]}]}"#;
/// let req = Requirement::from_json(r#"{"require":["task.execute.v3"],"max_stale":"10s"}"#).unwrap();
/// let obs = Observation::from_json(r#"{"lag_ms":"40000"}"#).unwrap();
/// let d = evaluate(card, &req, &obs);
/// assert_eq!(d.error_class().unwrap().as_str(), "stale_agent_card");
/// let codes: Vec<_> = d.reasons().iter().map(|r| r.code.as_str()).collect();
/// assert_eq!(codes, ["watermark_exceeded", "capabilities_missing"]);
/// assert_eq!(d.reasons()[0].message, "staleness 40000 ms exceeds max_stale 10000 ms");
/// ```
pub fn evaluate(card: &[u8], requirement: &Requirement, observation: &Observation) -> Decision {
    evaluate_with(card, requirement, observation, &Limits::default())
}

fn num(n: u64) -> Value {
    Value::Number(n as f64)
}

fn text(s: &str) -> Value {
    Value::String(s.to_string())
}

/// Evaluates `card` with explicit limits.
pub fn evaluate_with(
    card: &[u8],
    requirement: &Requirement,
    observation: &Observation,
    limits: &Limits,
) -> Decision {
    let (doc, view) = match AgentCard::read(card, limits) {
        Ok(read) => read,
        Err((doc, defect)) => {
            let card_hash = doc.as_ref().map(CardHash::of);
            let card_text = match doc {
                Some(_) => None,
                None => Some(
                    String::from_utf8_lossy(card)
                        .chars()
                        .take(CARD_TEXT_LIMIT)
                        .collect(),
                ),
            };
            let mut figures = Vec::new();
            if defect.code == ReasonCode::BodyTooLarge {
                figures.push(("body_bytes".into(), num(card.len() as u64)));
                figures.push(("max_card_bytes".into(), num(limits.max_card_bytes as u64)));
            }
            return Decision {
                error_class: Some(ErrorClass::MalformedCard),
                reasons: vec![Reason {
                    code: defect.code,
                    message: defect.message,
                    figures,
                }],
                missing: Vec::new(),
                agent: None,
                card_version: None,
                card_hash,
                staleness_ms: None,
                freshness: None,
                conditions: None,
                card: doc,
                card_text,
                defect_path: Some(defect.path),
                defect_offset: defect.offset,
            };
        }
    };
    let hash = CardHash::of(&doc);
    let mut reasons = Vec::new();

    // (b) freshness, or the pin that replaces it.
    let staleness = observation.staleness();
    let staleness_ms = staleness.as_ref().ok().map(|s| s.ms);
    let mut freshness = None;
    let freshness_outcome = if let Some(pin) = &requirement.pin {
        if *pin == hash {
            freshness = Some(FreshnessBasis::Pinned);
            ConditionOutcome {
                passed: true,
                message: format!(
                    "card hash matches the pinned {pin}; the watermark is not consulted"
                ),
            }
        } else {
            let message = format!("card hash {hash} does not match the pinned {pin}");
            reasons.push(Reason {
                code: ReasonCode::PinnedHashMismatch,
                message: message.clone(),
                figures: vec![
                    ("card_hash".into(), text(hash.as_str())),
                    ("pin".into(), text(pin.as_str())),
                ],
            });
            ConditionOutcome {
                passed: false,
                message,
            }
        }
    } else {
        match (&staleness, requirement.max_stale_ms) {
            (Err(why), _) => {
                reasons.push(Reason {
                    code: why.code,
                    message: why.message.clone(),
                    figures: Vec::new(),
                });
                ConditionOutcome {
                    passed: false,
                    message: why.message.clone(),
                }
            }
            (Ok(s), None) => {
                let message = format!(
                    "staleness {} ms ({}) but no max_stale was given and no hash pinned, so freshness cannot be accepted",
                    s.ms, s.basis
                );
                reasons.push(Reason {
                    code: ReasonCode::ToleranceMissing,
                    message: message.clone(),
                    figures: vec![("staleness_ms".into(), num(s.ms))],
                });
                ConditionOutcome {
                    passed: false,
                    message,
                }
            }
            (Ok(s), Some(max)) if s.ms > max => {
                let message = format!("staleness {} ms exceeds max_stale {} ms", s.ms, max);
                reasons.push(Reason {
                    code: ReasonCode::WatermarkExceeded,
                    message: message.clone(),
                    figures: vec![
                        ("staleness_ms".into(), num(s.ms)),
                        ("max_stale_ms".into(), num(max)),
                    ],
                });
                ConditionOutcome {
                    passed: false,
                    message: format!("{message} ({})", s.basis),
                }
            }
            (Ok(s), Some(max)) => {
                freshness = Some(FreshnessBasis::Watermark);
                ConditionOutcome {
                    passed: true,
                    message: format!(
                        "staleness {} ms ({}) is within max_stale {} ms ({})",
                        s.ms,
                        s.basis,
                        max,
                        format_duration(max)
                    ),
                }
            }
        }
    };

    // (a) version floor.
    let version_outcome = match &requirement.min_version {
        None => ConditionOutcome {
            passed: true,
            message: format!(
                "no minimum version required (card version {:?})",
                view.version
            ),
        },
        Some(min) => match Version::parse(&view.version) {
            Err(e) => {
                let message = format!("card {e}, so it cannot be checked against minimum {}", min);
                reasons.push(Reason {
                    code: ReasonCode::VersionIncomparable,
                    message: message.clone(),
                    figures: vec![
                        ("card_version".into(), text(&view.version)),
                        ("min_version".into(), text(min.as_str())),
                    ],
                });
                ConditionOutcome {
                    passed: false,
                    message,
                }
            }
            Ok(v) if v < *min => {
                let message = format!("card version {} is below the minimum {}", view.version, min);
                reasons.push(Reason {
                    code: ReasonCode::VersionBelowMinimum,
                    message: message.clone(),
                    figures: vec![
                        ("card_version".into(), text(&view.version)),
                        ("min_version".into(), text(min.as_str())),
                    ],
                });
                ConditionOutcome {
                    passed: false,
                    message,
                }
            }
            Ok(_) => ConditionOutcome {
                passed: true,
                message: format!(
                    "card version {} is at least the minimum {}",
                    view.version, min
                ),
            },
        },
    };

    // (c) capability superset.
    let missing: Vec<String> = requirement
        .require
        .iter()
        .filter(|c| !c.declared_by(&view))
        .map(ToString::to_string)
        .collect();
    let capabilities_outcome = if missing.is_empty() {
        ConditionOutcome {
            passed: true,
            message: if requirement.require.is_empty() {
                "no capabilities required".into()
            } else {
                format!(
                    "card declares all {} required capabilities",
                    requirement.require.len()
                )
            },
        }
    } else {
        let message = format!(
            "card for {} does not declare {} of {} required capabilities: {}",
            view.name,
            missing.len(),
            requirement.require.len(),
            missing.join(", ")
        );
        reasons.push(Reason {
            code: ReasonCode::CapabilitiesMissing,
            message: message.clone(),
            figures: vec![(
                "missing".into(),
                Value::Array(missing.iter().map(|m| text(m)).collect()),
            )],
        });
        ConditionOutcome {
            passed: false,
            message,
        }
    };

    // Reasons were pushed in the order b, a, c; the first one names the class.
    let error_class = reasons.first().map(|r| match r.code {
        ReasonCode::CapabilitiesMissing => ErrorClass::CapabilityMismatch,
        _ => ErrorClass::StaleAgentCard,
    });
    Decision {
        error_class,
        reasons,
        missing,
        agent: Some(view.name),
        card_version: Some(view.version),
        card_hash: Some(hash),
        staleness_ms,
        freshness: if error_class.is_none() {
            freshness
        } else {
            None
        },
        conditions: Some(Conditions {
            version: version_outcome,
            freshness: freshness_outcome,
            capabilities: capabilities_outcome,
        }),
        card: Some(doc),
        card_text: None,
        defect_path: None,
        defect_offset: None,
    }
}
