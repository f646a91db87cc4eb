//! # cardgate
//!
//! Refuse stale or incomplete A2A Agent Cards **before** delegating to them.
//!
//! A registry replica that lags behind its primary can answer HTTP 200 with a well-formed but
//! stale Agent Card. cardgate's pure core decides whether a resolved card is valid for
//! delegation: (a) its `version` is at least the caller's minimum, (b) the resolver's
//! replication watermark is within the caller's tolerance — or the card matches a hash pinned
//! out of band — and (c) it declares every capability the caller will invoke. A condition that
//! cannot be verified has failed.
//!
//! The core does no I/O and reads no clock: hosts pass the card's bytes, what the resolver
//! reported about staleness, and the time. The same decision, serialized as RFC 8785 JSON, comes
//! out of the native CLI, the Envoy filter (feature `envoy`) and the npm package (feature `js`).
//!
//! ```
//! use cardgate::{evaluate, Observation, Requirement};
//!
//! // The incident: a replica 40 s behind serves the card from before a rolling deploy.
//! let stale = br#"{"name":"worker-7","version":"2.4.0","capabilities":{},
//!   "skills":[{"id":"task.execute.v2","name":"Execute","description":"Run a task","tags":["exec"]}],
//!   "supportedInterfaces":[{"url":"wss://worker-7.internal/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}"#;
//! let requirement = Requirement::from_json(r#"{"require":["task.execute.v3"],"max_stale":"10s"}"#)?;
//! let observed = Observation::from_json(r#"{"lag_ms":"40000"}"#)?;
//!
//! let decision = evaluate(stale, &requirement, &observed);
//! assert!(!decision.is_valid());
//! assert_eq!(decision.status(), 503);
//! assert_eq!(decision.missing_capabilities(), ["task.execute.v3"]);
//! println!("{}", decision.to_json()); // an RFC 9457 problem object with the card attached
//! # Ok::<(), cardgate::InputError>(())
//! ```
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

#[cfg(all(feature = "envoy", feature = "js"))]
compile_error!("features `envoy` and `js` are mutually exclusive: build one wasm module per host");

pub mod agent_id;
pub mod api;
pub mod capability;
pub mod card;
pub mod card_diff;
pub mod card_hash;
pub mod decision;
pub mod document;
pub mod duration;
pub mod freshness;
pub mod gate;
mod input_error;
pub mod interface_choice;
pub mod interface_url;
pub mod jcs;
pub mod json;
pub mod policy;
pub mod reason;
pub mod requirement;
pub mod resolution;
pub mod sdk_reading;
pub mod time;
pub mod v03_card_model;
pub mod version;
pub mod watermark_sources;

#[cfg(feature = "envoy")]
pub mod envoy;
#[cfg(feature = "js")]
pub mod js;

pub use card::Limits;
pub use card_hash::CardHash;
pub use decision::{Decision, FreshnessBasis, Reason};
pub use freshness::{Observation, WatermarkValue};
pub use gate::{evaluate, evaluate_with};
pub use input_error::{InputError, InputErrorKind};
pub use policy::{AgentRule, ConflictingAgentRules, Policy};
pub use reason::{Condition, ErrorClass, ReasonCode};
pub use requirement::Requirement;
pub use resolution::{Answer, Resolution, ResolutionLimits, Step};
pub use time::Timestamp;
pub use watermark_sources::WatermarkSources;
