//! Card parsing: any bytes either read as a card or give exactly one malformed reason, and the
//! strict reader agrees with itself (the card hash `api::card_hash` reports is the one the
//! decision carries, and exists exactly when the body parsed).
#![no_main]

use cardgate::card::{AgentCard, Limits};
use cardgate::reason::Condition;
use cardgate::{api, evaluate, CardHash, Observation, Requirement};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let limits = Limits::default();
    let parsed = AgentCard::parse_document(bytes, &limits);
    let view = parsed.as_ref().ok().map(AgentCard::from_document);
    if let Err(defect) = &parsed {
        assert_eq!(defect.code.condition(), Condition::Card, "{defect:?}");
        assert!(bytes.len() > limits.max_card_bytes || defect.offset.is_some());
    }
    if let Some(Err(defect)) = &view {
        assert_eq!(defect.code.condition(), Condition::Card, "{defect:?}");
        assert!(defect.path.is_empty() || defect.path.starts_with('/'));
    }

    // The decision with no requirement agrees with the reader.
    let decision = evaluate(bytes, &Requirement::default(), &Observation::default());
    let hash = api::card_hash(bytes);
    match (&parsed, decision.card_hash()) {
        (Ok(_), Some(h)) => assert_eq!(hash.as_deref().ok(), Some(h.as_str())),
        (Err(_), None) => assert!(hash.is_err()),
        (p, h) => panic!("parsed {:?} but decision hash {h:?}", p.is_ok()),
    }
    // The hash written from the document (strings without escapes copied from the text) is the
    // hash of the same JSON as a tree (every string escaped by the writer).
    if let Ok(doc) = &parsed {
        assert_eq!(
            CardHash::of_document(doc),
            CardHash::of(&doc.root().to_value())
        );
    }
    match &view {
        Some(Ok(card)) => {
            assert_eq!(decision.agent(), Some(card.name.as_str()));
            assert_eq!(decision.card_version(), Some(card.version.as_str()));
            // No requirement, no pin, no watermark: only (b) can fail.
            assert!(!decision.is_valid());
            assert!(decision
                .reasons()
                .iter()
                .all(|r| r.condition() == Condition::Freshness));
        }
        _ => {
            assert_eq!(decision.reasons().len(), 1);
            assert_eq!(decision.status(), 502);
        }
    }
});
