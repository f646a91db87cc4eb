//! wasm-bindgen glue for the npm package `cardgate` (feature `js`).
//!
//! Deliberately thin: every export takes bytes or text, calls [`crate::api`], and returns text.
//! The hand-written wrapper in `js/` turns objects into JSON, supplies the clock, and maps
//! errors to `TypeError`/`RangeError`. These raw exports are not the package's public API.
//!
//! Errors cross the boundary as a thrown *string* holding canonical JSON
//! `{"kind":"type"|"range","message":"...","path":"/json/pointer"}`, never as a trap:
//! nothing here can panic, so the module stays usable after any error.

use wasm_bindgen::prelude::wasm_bindgen;

use crate::api;
use crate::json::Value;
use crate::{InputError, InputErrorKind};

/// Encodes an input error as the canonical JSON string the JS wrapper decodes.
fn error_text(err: &InputError) -> String {
    let kind = match err.kind {
        InputErrorKind::Type => "type",
        InputErrorKind::Range => "range",
    };
    let value = Value::Object(vec![
        ("kind".to_owned(), Value::String(kind.to_owned())),
        ("message".to_owned(), Value::String(err.message.clone())),
        ("path".to_owned(), Value::String(err.path.clone())),
    ]);
    crate::jcs::canonicalize(&value)
}

/// Evaluates `card` (the exact bytes served) against a requirement and an observation, both
/// given as JSON text, and returns the canonical decision JSON (DESIGN.md).
///
/// A malformed card is a decision (`malformed_card`), not an error; a bad requirement or
/// observation throws the error string described in the module docs.
#[wasm_bindgen(js_name = evaluateRaw)]
pub fn evaluate_raw(card: &[u8], requirement: &str, observation: &str) -> Result<String, String> {
    api::evaluate_json(card, requirement, observation).map_err(|e| error_text(&e))
}

/// The canonical `body_too_large` decision for a body the wrapper stopped reading at the
/// default limit (`Decision::body_too_large`): `start` is what it read, `seen_bytes` the size to
/// report, `complete` whether that size is exact (a `Content-Length`, or the whole body) or only
/// a lower bound ("at least").
#[wasm_bindgen(js_name = bodyTooLargeRaw)]
pub fn body_too_large_raw(start: &[u8], seen_bytes: f64, complete: bool) -> String {
    let limit = crate::Limits::default().max_card_bytes;
    // A figure that does not fit (or is no count at all) is reported as the bytes in hand.
    let seen = if seen_bytes.is_finite() && seen_bytes >= start.len() as f64 {
        usize::try_from(seen_bytes as u64).ok()
    } else {
        None
    };
    let (seen, complete) = seen.map_or((start.len(), false), |n| (n, complete));
    crate::Decision::body_too_large(start, seen, limit, complete).to_json()
}

/// The default card size limit (`Limits::default().max_card_bytes`).
#[wasm_bindgen(js_name = maxCardBytes)]
pub fn max_card_bytes() -> f64 {
    crate::Limits::default().max_card_bytes as f64
}

/// Returns `sha256:<hex>` of the card's RFC 8785 form without top-level `signatures`.
#[wasm_bindgen(js_name = cardHash)]
pub fn card_hash(card: &[u8]) -> Result<String, String> {
    api::card_hash(card).map_err(|e| error_text(&e))
}

/// Returns the RFC 8785 canonical form of a JSON document (strict I-JSON parsing).
#[wasm_bindgen]
pub fn canonicalize(json: &[u8]) -> Result<String, String> {
    api::canonicalize(json).map_err(|e| error_text(&e))
}

/// Validates a policy document; throws the error string naming the offending member.
#[wasm_bindgen(js_name = checkPolicy)]
pub fn check_policy(policy: &[u8]) -> Result<(), String> {
    api::check_policy(policy).map_err(|e| error_text(&e))
}

/// The crate version the module was built from.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// The conventional watermark headers as JSON (`WatermarkSources::conventional()`): the JS
/// wrapper's `DEFAULT_WATERMARK` must name the same headers as the Envoy filter's default.
#[wasm_bindgen(js_name = conventionalWatermarkSources)]
pub fn conventional_watermark_sources() -> String {
    crate::jcs::canonicalize(&crate::WatermarkSources::conventional().to_value())
}

/// What a card grants, per SDK reading and in total (`api::declared_capabilities`), as JSON:
/// the inspector's capability table.
#[wasm_bindgen(js_name = declaredCapabilities)]
pub fn declared_capabilities(card: &[u8]) -> Result<String, String> {
    api::declared_capabilities(card).map_err(|e| error_text(&e))
}

/// Replica versus primary (`api::compare_cards_json`): both decisions, what differs between the
/// two cards, and the re-resolution outcome, as JSON: the inspector's side-by-side view.
#[wasm_bindgen(js_name = compareCards)]
pub fn compare_cards(
    replica: &[u8],
    primary: &[u8],
    requirement: &str,
    replica_observation: &str,
    primary_observation: &str,
) -> Result<String, String> {
    api::compare_cards_json(
        replica,
        primary,
        requirement,
        replica_observation,
        primary_observation,
    )
    .map_err(|e| error_text(&e))
}
