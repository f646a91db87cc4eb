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
use crate::resolution::{Answer, Outcome, Resolution, ResolutionLimits, Step};
use crate::{InputError, InputErrorKind, Observation, Requirement};

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
    too_large(start, seen_bytes, complete).to_json()
}

/// [`body_too_large_raw`]'s decision.
fn too_large(start: &[u8], seen_bytes: f64, complete: bool) -> crate::Decision {
    let limit = crate::Limits::default().max_card_bytes;
    // A figure that does not fit (or is no count at all) is reported as the bytes in hand.
    let seen = if seen_bytes.is_finite() && seen_bytes >= start.len() as f64 {
        usize::try_from(seen_bytes as u64).ok()
    } else {
        None
    };
    let (seen, complete) = seen.map_or((start.len(), false), |n| (n, complete));
    crate::Decision::body_too_large(start, seen, limit, complete)
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

/// A host time in ms from JavaScript (`performance.now()`, fractional): whole ms, negative or
/// NaN as 0, beyond 2^64 (`Infinity`) as the largest.
fn whole_ms(ms: f64) -> u64 {
    if ms > 0.0 {
        ms as u64
    } else {
        0
    }
}

/// A re-resolution in progress ([`crate::resolution::Resolution`]) for the wrapper's fetch
/// loop: the wrapper fetches each source and reads the clock; the requirement, the rule, the
/// bounds and the final decision are the core's. Each `record*` method returns the step:
/// `"accept"`, `"try_next"` or `"stop"`.
#[wasm_bindgen(js_name = ResolutionRaw)]
pub struct ResolutionRaw {
    requirement: Requirement,
    inner: Option<Resolution>,
}

impl ResolutionRaw {
    fn running(&mut self) -> Result<&mut Resolution, String> {
        self.inner.as_mut().ok_or_else(|| {
            error_text(&InputError::type_error(
                "",
                "the resolution is already finished",
            ))
        })
    }

    fn record(&mut self, source: &str, answer: Answer, now_ms: f64) -> Result<String, String> {
        let step = self.running()?.record(source, answer, whole_ms(now_ms));
        Ok(match step {
            Step::Accept => "accept",
            Step::TryNext => "try_next",
            Step::Stop => "stop",
        }
        .to_owned())
    }
}

#[wasm_bindgen(js_class = ResolutionRaw)]
impl ResolutionRaw {
    /// Starts a resolution at host time `started_ms` with the requirement's JSON text (throws
    /// the error string for a bad one), at most `max_attempts` attempts (at least 1) and no
    /// attempt after `deadline_ms`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        requirement: &str,
        max_attempts: f64,
        deadline_ms: f64,
        started_ms: f64,
    ) -> Result<ResolutionRaw, String> {
        let requirement = Requirement::from_json(requirement)
            .map_err(|e| error_text(&e.within("/requirement")))?;
        let limits = ResolutionLimits {
            max_attempts: usize::try_from(whole_ms(max_attempts)).unwrap_or(usize::MAX),
            deadline_ms: whole_ms(deadline_ms),
        };
        Ok(ResolutionRaw {
            requirement,
            inner: Some(Resolution::new(limits, whole_ms(started_ms))),
        })
    }

    /// Records the card `source` served (its exact bytes) with the observation its headers
    /// gave (JSON text; throws the error string for a bad one).
    #[wasm_bindgen(js_name = recordCard)]
    pub fn record_card(
        &mut self,
        source: &str,
        card: &[u8],
        observation: &str,
        now_ms: f64,
    ) -> Result<String, String> {
        let observation = Observation::from_json(observation)
            .map_err(|e| error_text(&e.within("/observation")))?;
        let decision = crate::evaluate(card, &self.requirement, &observation);
        self.record(source, Answer::Card(Box::new(decision)), now_ms)
    }

    /// Records a body the wrapper stopped reading past the default limit ([`body_too_large_raw`]).
    #[wasm_bindgen(js_name = recordTooLarge)]
    pub fn record_too_large(
        &mut self,
        source: &str,
        start: &[u8],
        seen_bytes: f64,
        complete: bool,
        now_ms: f64,
    ) -> Result<String, String> {
        let decision = too_large(start, seen_bytes, complete);
        self.record(source, Answer::Card(Box::new(decision)), now_ms)
    }

    /// Records a source that served no card (`why`: a timeout, a refused connection, an HTTP
    /// error status).
    #[wasm_bindgen(js_name = recordFailed)]
    pub fn record_failed(
        &mut self,
        source: &str,
        why: &str,
        now_ms: f64,
    ) -> Result<String, String> {
        self.record(source, Answer::Failed(why.to_owned()), now_ms)
    }

    /// The decision JSON of the last attempt, when it carried a card.
    #[wasm_bindgen(js_name = lastDecision)]
    pub fn last_decision(&self) -> Option<String> {
        match self.inner.as_ref()?.attempts().last()?.answer {
            Answer::Card(ref d) => Some(d.to_json()),
            Answer::Failed(_) => None,
        }
    }

    /// The attempts so far as JSON (the `resolution.attempts` form).
    pub fn attempts(&self) -> String {
        self.inner.as_ref().map_or_else(
            || "[]".to_owned(),
            |r| crate::jcs::canonicalize(&r.attempts_value()),
        )
    }

    /// Milliseconds the next fetch may take at host time `now_ms` (0: the deadline has passed).
    #[wasm_bindgen(js_name = remainingMs)]
    pub fn remaining_ms(&self, now_ms: f64) -> f64 {
        self.inner
            .as_ref()
            .map_or(0.0, |r| r.remaining_ms(whole_ms(now_ms)) as f64)
    }

    /// Ends a resolution that wanted another attempt: `"over_budget"`, `"sources_exhausted"` or
    /// `"deadline_passed"`.
    pub fn stop(&mut self, outcome: &str) -> Result<(), String> {
        let outcome = match outcome {
            "over_budget" => Outcome::OverBudget,
            "sources_exhausted" => Outcome::SourcesExhausted,
            "deadline_passed" => Outcome::DeadlinePassed,
            other => {
                return Err(error_text(&InputError::range_error(
                    "",
                    format!("unknown outcome {other:?}"),
                )))
            }
        };
        self.running()?.stop(outcome);
        Ok(())
    }

    /// The final decision JSON (with `resolution` when more than one attempt, or a bound, shaped
    /// it); the resolution is over afterwards.
    pub fn finish(&mut self) -> Result<String, String> {
        self.running()?;
        let resolution = self.inner.take();
        Ok(resolution.map(|r| r.finish().to_json()).unwrap_or_default())
    }
}
