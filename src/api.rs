//! JSON in, JSON out: the whole gate as four functions over bytes and strings.
//!
//! This is the surface the thin glue layers (wasm-bindgen, proxy-wasm) wrap, so that every
//! runtime shares one implementation, one set of input checks and one output format.

use crate::card::Limits;
use crate::card_hash::CardHash;
use crate::freshness::Observation;
use crate::gate::evaluate_with;
use crate::jcs;
use crate::json;
use crate::policy::Policy;
use crate::requirement::Requirement;
use crate::InputError;

/// Evaluates a card against a requirement and an observation given in their JSON forms and
/// returns the decision's canonical JSON. Input errors (not card defects) are `Err`.
///
/// ```
/// let out = cardgate::api::evaluate_json(b"{}", r#"{"max_stale":"10s"}"#, r#"{"lag_ms":"1"}"#).unwrap();
/// assert!(out.contains(r#""reasons":[{"code":"missing_field""#));
/// assert_eq!(cardgate::api::evaluate_json(b"{}", r#"{"max_stale":"10"}"#, "{}").unwrap_err().path, "/requirement/max_stale");
/// ```
pub fn evaluate_json(
    card: &[u8],
    requirement_json: &str,
    observation_json: &str,
) -> Result<String, InputError> {
    let requirement =
        Requirement::from_json(requirement_json).map_err(|e| e.within("/requirement"))?;
    let observation =
        Observation::from_json(observation_json).map_err(|e| e.within("/observation"))?;
    Ok(evaluate_with(card, &requirement, &observation, &Limits::default()).to_json())
}

/// The card hash of a card's bytes: the same figure a decision reports as `card_hash`, so it is
/// defined for any strict I-JSON body within the size limit (a body that is JSON but not a
/// usable card still has a hash; the gate will refuse it as `malformed_card` all the same).
pub fn card_hash(card: &[u8]) -> Result<String, InputError> {
    let limits = Limits::default();
    if card.len() > limits.max_card_bytes {
        return Err(InputError::range_error(
            "",
            format!(
                "card body is {} bytes, more than the limit of {} bytes",
                card.len(),
                limits.max_card_bytes
            ),
        ));
    }
    let doc = json::parse_document(card, limits.max_depth)
        .map_err(|e| InputError::type_error(e.path(), format!("card is not valid I-JSON: {e}")))?;
    Ok(CardHash::of_document(&doc).to_string())
}

/// The RFC 8785 canonical form of any I-JSON document.
pub fn canonicalize(document: &[u8]) -> Result<String, InputError> {
    let doc = json::parse_document(document, 128)
        .map_err(|e| InputError::type_error(e.path(), format!("not valid I-JSON: {e}")))?;
    Ok(jcs::canonicalize_document(&doc))
}

/// Validates a policy document.
pub fn check_policy(policy_json: &[u8]) -> Result<(), InputError> {
    Policy::from_json(policy_json).map(|_| ())
}

/// What a card grants, for display (the inspector's capability table): `granted` is what the
/// gate counts (every SDK reading has it), `readings` what each SDK reading alone has. A card
/// the gate cannot read gives `{"defect": {"code", "path", "message"}}` instead.
///
/// ```
/// let out = cardgate::api::declared_capabilities(br#"{"name":"W","version":"1","skills":[{"id":"s"}],
///   "capabilities":{"push_notifications":true},
///   "supportedInterfaces":[{"url":"https://w.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
///                          {"protocolBinding":"GRPC","protocolVersion":"1.0"}]}"#).unwrap();
/// // GRPC: its interface has no url, so no client can use it.
/// assert!(out.starts_with(r#"{"granted":["s","binding:JSONRPC","protocol:1.0"],"readings":["#));
/// ```
pub fn declared_capabilities(card: &[u8]) -> Result<String, InputError> {
    use crate::card::AgentCard;
    let doc = AgentCard::parse_document(card, &Limits::default())
        .map_err(|d| InputError::type_error(d.path, d.message))?;
    let value = match AgentCard::from_document(&doc) {
        Ok(view) => DeclaredCapabilities::Readable {
            granted: view.granted_capabilities(),
            readings: view
                .readings
                .iter()
                .map(|(sdk, r)| SdkReading {
                    sdk: sdk.label().into(),
                    capabilities: view.reading_capabilities(*sdk, r),
                })
                .collect(),
        },
        Err(defect) => DeclaredCapabilities::Unreadable { defect },
    };
    // Compact JSON in the members' declared order (the display order matters more than
    // RFC 8785's); serializing strings and lists cannot fail.
    Ok(serde_json::to_string(&value).unwrap_or_default())
}

/// [`declared_capabilities`]' JSON form.
#[derive(serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(untagged)]
enum DeclaredCapabilities {
    /// What the gate counts, and each SDK reading alone.
    Readable {
        /// What every A2A SDK reading grants.
        granted: Vec<String>,
        /// Each SDK reading.
        readings: Vec<SdkReading>,
    },
    /// A card that parses but is not a usable card.
    Unreadable {
        /// Why.
        defect: crate::card::CardDefect,
    },
}

/// What one SDK reading grants.
#[derive(serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
struct SdkReading {
    /// The SDK reading's label.
    sdk: String,
    /// What it grants, in requirement syntax.
    capabilities: Vec<String>,
}

/// Replica versus primary, for display (the inspector): each card's decision under the same
/// requirement with its own observation, what differs between the two cards
/// ([`crate::card_diff::compare`]), and what re-resolution (replica first, then the primary)
/// would conclude. Returns [`crate::card_diff::SideBySide::to_json`]. An unreadable card is
/// reported inside the result; only a bad requirement or observation is `Err`.
///
/// ```
/// let out = cardgate::api::compare_cards_json(
///     br#"{"name":"w","version":"2.0.0","skills":[{"id":"task.execute.v2"}]}"#,
///     br#"{"name":"w","version":"3.0.0","skills":[{"id":"task.execute.v3"}]}"#,
///     r#"{"require":["task.execute.v3"],"max_stale":"10s"}"#,
///     r#"{"lag_ms":"40000"}"#,
///     r#"{"lag_ms":"0"}"#,
/// ).unwrap();
/// assert!(out.contains(r#""message":"accepted the card from primary at attempt 2""#));
/// ```
pub fn compare_cards_json(
    replica: &[u8],
    primary: &[u8],
    requirement_json: &str,
    replica_observation_json: &str,
    primary_observation_json: &str,
) -> Result<String, InputError> {
    let requirement =
        Requirement::from_json(requirement_json).map_err(|e| e.within("/requirement"))?;
    let replica_observation = Observation::from_json(replica_observation_json)
        .map_err(|e| e.within("/replica_observation"))?;
    let primary_observation = Observation::from_json(primary_observation_json)
        .map_err(|e| e.within("/primary_observation"))?;
    Ok(crate::card_diff::side_by_side(
        replica,
        primary,
        &requirement,
        &replica_observation,
        &primary_observation,
    )
    .to_json())
}

#[cfg(test)]
mod tests {
    /// Each SDK reading alone, as the inspector lists it: a v0.3 card whose interface
    /// @a2a-js/sdk's default resolver does not read and whose snake_case flag only a2a-sdk does.
    #[test]
    fn declared_capabilities_per_reading() {
        let card = br#"{"name":"W","description":"d","version":"1.0","url":"https://w.example/a2a","preferredTransport":"JSONRPC","protocolVersion":"0.3.0","capabilities":{"streaming":true,"push_notifications":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"s","name":"s","description":"s","tags":["t"]}]}"#;
        assert_eq!(
            super::declared_capabilities(card).unwrap(),
            concat!(
                r#"{"granted":["s","capability:streaming"],"readings":["#,
                r#"{"sdk":"a2a-sdk (Python)","capabilities":["s","capability:streaming","capability:pushNotifications","binding:JSONRPC","protocol:0.3"]},"#,
                r#"{"sdk":"@a2a-js/sdk default resolver","capabilities":["s","capability:streaming"]},"#,
                r#"{"sdk":"@a2a-js/sdk with legacyCompat","capabilities":["s","capability:streaming","binding:JSONRPC","protocol:0.3"]}]}"#
            )
        );
        // An empty protocolVersion is 0.3 to legacyCompat's conversion (`||`), nothing to a2a-sdk.
        let blank = String::from_utf8_lossy(card).replace(r#""0.3.0""#, r#""""#);
        let out = super::declared_capabilities(blank.as_bytes()).unwrap();
        assert!(
            out.ends_with(r#"{"sdk":"@a2a-js/sdk with legacyCompat","capabilities":["s","capability:streaming","binding:JSONRPC","protocol:0.3"]}]}"#),
            "{out}"
        );
        assert!(
            out.contains(r#"{"sdk":"a2a-sdk (Python)","capabilities":["s","capability:streaming","capability:pushNotifications","binding:JSONRPC"]}"#),
            "{out}"
        );
        // An interface with an empty binding serves no binding in any reading.
        let empty = br#"{"name":"W","description":"d","version":"1.0","supportedInterfaces":[{"url":"https://w.example/a2a","protocolBinding":"","protocolVersion":"1.0"}],"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}"#;
        let out = super::declared_capabilities(empty).unwrap();
        assert!(out.contains(r#""capabilities":["protocol:1.0"]"#), "{out}");
        assert!(!out.contains("binding:"), "{out}");
    }
}
