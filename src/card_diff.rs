//! Replica versus primary: what differs between two Agent Cards, and what re-resolution makes of
//! them.
//!
//! In the seed's incident a lagging replica served `worker-7` 2.0.0 (skill `task.execute.v2`, the
//! old endpoint) while the primary already had 3.0.0 (`task.execute.v3`, a new endpoint).
//! [`compare`] reads both bodies the way the gate does and lists, per kind, what the primary has
//! that the replica does not (`added`), what only the replica has (`removed`) and what both have:
//! interface URLs (as written in the card), then the capabilities the gate counts
//! ([`AgentCard::granted_capabilities`]: bindings, protocol versions, skills, extensions, flags).
//! A side that is not a readable card is reported with its defect, never a panic.
//!
//! [`side_by_side`] adds each side's decision and the outcome [`Resolution`] reaches when the
//! replica is asked first and the primary next (the inspector's "replica vs primary" view).
//! Everything here is pure: the host fetched both bodies and read their watermark headers.

use crate::capability::Capability;
use crate::card::{AgentCard, CardDefect, Limits};
use crate::card_hash::CardHash;
use crate::decision::{Decision, DecisionJson};
use crate::document::Node;
use crate::freshness::Observation;
use crate::gate::evaluate_with;
use crate::jcs;
use crate::requirement::Requirement;
use crate::resolution::{Answer, Outcome, Resolution, ResolutionLimits, Step};
use crate::version::Version;
use std::cmp::Ordering;

/// The source names the comparison gives [`Resolution`], in the order it asks them.
pub const SOURCES: [&str; 2] = ["replica", "primary"];

/// What one side's body is, as far as the comparison needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct CardSide {
    /// The card hash, when the body is strict I-JSON within the size limit.
    pub card_hash: Option<CardHash>,
    /// The card as the gate reads it, or why it cannot.
    pub card: Result<SideFacts, CardDefect>,
}

/// The members of a readable card that the comparison shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideFacts {
    /// `name`.
    pub name: String,
    /// `version`.
    pub version: String,
    /// Interface URLs as written: `supportedInterfaces[].url` (or `supported_interfaces`), then
    /// the v0.3 `url` and `additionalInterfaces[].url`, without repeats.
    pub endpoints: Vec<String>,
    /// What the gate counts ([`AgentCard::granted_capabilities`]), in requirement syntax.
    pub granted: Vec<String>,
}

/// A kind of thing the comparison lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// An interface URL.
    Endpoint,
    /// `binding:<protocolBinding>`.
    Binding,
    /// `protocol:<Major.Minor>`.
    Protocol,
    /// A skill id.
    Skill,
    /// `extension:<uri>`.
    Extension,
    /// `capability:<flag>`.
    Flag,
}

impl ChangeKind {
    /// Every kind, in the order the comparison lists them.
    pub const ALL: [ChangeKind; 6] = [
        ChangeKind::Endpoint,
        ChangeKind::Binding,
        ChangeKind::Protocol,
        ChangeKind::Skill,
        ChangeKind::Extension,
        ChangeKind::Flag,
    ];

    /// The kind of a granted capability name, as the requirement syntax reads it.
    fn of_capability(name: &str) -> ChangeKind {
        match Capability::parse(name) {
            Ok(Capability::Extension(_)) => ChangeKind::Extension,
            Ok(Capability::Flag(_)) => ChangeKind::Flag,
            Ok(Capability::Binding(_)) => ChangeKind::Binding,
            Ok(Capability::Protocol(_)) => ChangeKind::Protocol,
            Ok(Capability::Skill(_)) | Err(_) => ChangeKind::Skill,
        }
    }
}

/// One kind's differences. `added`: only the primary has it; `removed`: only the replica.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindDiff {
    /// What is compared.
    pub kind: ChangeKind,
    /// In the primary's card, not in the replica's (primary order).
    pub added: Vec<String>,
    /// In the replica's card, not in the primary's (replica order).
    pub removed: Vec<String>,
    /// In both (replica order).
    pub unchanged: Vec<String>,
}

impl KindDiff {
    /// Something was added or removed.
    pub fn changed(&self) -> bool {
        !self.added.is_empty() || !self.removed.is_empty()
    }
}

/// How the primary's `version` relates to the replica's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum VersionChange {
    /// The same text.
    Unchanged,
    /// Different text, equal as versions (`1.2` and `1.2.0`).
    Equivalent,
    /// The primary's is higher.
    Newer,
    /// The primary's is lower.
    Older,
    /// Different, and at least one cannot be ordered.
    Incomparable,
}

impl VersionChange {
    fn between(replica: &str, primary: &str) -> VersionChange {
        if replica == primary {
            return VersionChange::Unchanged;
        }
        match (Version::parse(replica), Version::parse(primary)) {
            (Ok(r), Ok(p)) => match p.cmp(&r) {
                Ordering::Greater => VersionChange::Newer,
                Ordering::Less => VersionChange::Older,
                Ordering::Equal => VersionChange::Equivalent,
            },
            _ => VersionChange::Incomparable,
        }
    }
}

/// What differs between the replica's card and the primary's.
#[derive(Debug, Clone, PartialEq)]
pub struct CardComparison {
    /// The replica's body.
    pub replica: CardSide,
    /// The primary's body.
    pub primary: CardSide,
    /// Both bodies have the same card hash (the same card, whatever the whitespace).
    pub same_card: bool,
    /// When both cards are readable: how the version changed.
    pub version: Option<VersionChange>,
    /// When both cards are readable: every kind, in [`ChangeKind::ALL`] order.
    pub changes: Vec<KindDiff>,
}

impl CardComparison {
    /// Both sides are readable cards, so `version` and `changes` say something.
    pub fn comparable(&self) -> bool {
        self.replica.card.is_ok() && self.primary.card.is_ok()
    }

    /// The comparison's JSON form ([`CardComparisonJson`]):
    ///
    /// ```json
    /// {"changes":[{"added":["task.execute.v3"],"changed":true,"kind":"skill",
    ///              "removed":["task.execute.v2"],"unchanged":[]}, ...],
    ///  "comparable":true,
    ///  "primary":{...},
    ///  "replica":{"card_hash":"sha256:...","endpoints":["wss://..."],
    ///             "granted":["task.execute.v2","capability:streaming",...],"name":"worker-7",
    ///             "readable":true,"version":"2.0.0"},
    ///  "same_card":false,
    ///  "version":{"change":"newer","primary":"3.0.0","replica":"2.0.0"}}
    /// ```
    ///
    /// An unreadable side is `{"card_hash":null|"sha256:...","defect":{"code","message","path"},
    /// "readable":false}`; then `version` is null and `changes` empty.
    pub fn wire(&self) -> CardComparisonJson<'_> {
        let version = match (&self.replica.card, &self.primary.card, self.version) {
            (Ok(r), Ok(p), Some(change)) => Some(VersionJson {
                change,
                primary: &p.version,
                replica: &r.version,
            }),
            _ => None,
        };
        CardComparisonJson {
            changes: self
                .changes
                .iter()
                .map(|d| KindDiffJson {
                    added: &d.added,
                    changed: d.changed(),
                    kind: d.kind,
                    removed: &d.removed,
                    unchanged: &d.unchanged,
                })
                .collect(),
            comparable: self.comparable(),
            primary: self.primary.wire(),
            replica: self.replica.wire(),
            same_card: self.same_card,
            version,
        }
    }

    /// The RFC 8785 canonical JSON of [`CardComparison::wire`].
    pub fn to_json(&self) -> String {
        // Cannot fail: every member name is a string, and nothing is bytes.
        jcs::to_string(&self.wire()).unwrap_or_default()
    }
}

impl CardSide {
    /// The side's JSON form.
    pub fn wire(&self) -> ComparedSide<'_> {
        let card_hash = self.card_hash.as_ref().map(CardHash::as_str);
        match &self.card {
            Ok(facts) => ComparedSide::Readable(ReadableSide {
                card_hash,
                endpoints: &facts.endpoints,
                granted: &facts.granted,
                name: &facts.name,
                readable: Readable,
                version: &facts.version,
            }),
            Err(defect) => ComparedSide::Unreadable(UnreadableSide {
                card_hash,
                defect,
                readable: Unreadable,
            }),
        }
    }
}

/// Reads one body the way the gate does (same limits, same card model).
pub fn read_side(bytes: &[u8]) -> CardSide {
    let doc = match AgentCard::parse_document(bytes, &Limits::default()) {
        Ok(doc) => doc,
        Err(defect) => {
            return CardSide {
                card_hash: None,
                card: Err(defect),
            }
        }
    };
    let card_hash = Some(CardHash::of_document(&doc));
    let card = AgentCard::from_document(&doc).map(|card| SideFacts {
        endpoints: endpoints(doc.root()),
        granted: card.granted_capabilities(),
        name: card.name,
        version: card.version,
    });
    CardSide { card_hash, card }
}

/// Interface URLs as written, in card order, without repeats.
fn endpoints(doc: Node<'_>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |v: Option<Node<'_>>| {
        if let Some(url) = v.and_then(Node::as_str) {
            if !out.iter().any(|u| u == url) {
                out.push(url.to_string());
            }
        }
    };
    for key in ["supportedInterfaces", "supported_interfaces"] {
        for item in doc.get(key).and_then(Node::items).into_iter().flatten() {
            push(item.get("url"));
        }
    }
    push(doc.get("url"));
    for item in doc
        .get("additionalInterfaces")
        .and_then(Node::items)
        .into_iter()
        .flatten()
    {
        push(item.get("url"));
    }
    out
}

/// `added`, `removed` and `unchanged` between two lists (each taken without repeats).
fn diff(kind: ChangeKind, replica: &[&String], primary: &[&String]) -> KindDiff {
    let mut d = KindDiff {
        kind,
        added: Vec::new(),
        removed: Vec::new(),
        unchanged: Vec::new(),
    };
    for r in replica {
        let list = if primary.contains(r) {
            &mut d.unchanged
        } else {
            &mut d.removed
        };
        if !list.contains(r) {
            list.push((*r).clone());
        }
    }
    for p in primary {
        if !replica.contains(p) && !d.added.contains(p) {
            d.added.push((*p).clone());
        }
    }
    d
}

/// Compares the replica's body with the primary's.
///
/// ```
/// use cardgate::card_diff::{compare, ChangeKind, VersionChange};
/// let replica = br#"{"name":"w","version":"2.0.0","skills":[{"id":"task.execute.v2"}]}"#;
/// let primary = br#"{"name":"w","version":"3.0.0","skills":[{"id":"task.execute.v3"}]}"#;
/// let c = compare(replica, primary);
/// assert_eq!(c.version, Some(VersionChange::Newer));
/// let skills = c.changes.iter().find(|d| d.kind == ChangeKind::Skill).unwrap();
/// assert_eq!(skills.added, ["task.execute.v3"]);
/// assert_eq!(skills.removed, ["task.execute.v2"]);
/// ```
pub fn compare(replica: &[u8], primary: &[u8]) -> CardComparison {
    let replica = read_side(replica);
    let primary = read_side(primary);
    let same_card =
        matches!((&replica.card_hash, &primary.card_hash), (Some(r), Some(p)) if r == p);
    let (version, changes) = match (&replica.card, &primary.card) {
        (Ok(r), Ok(p)) => {
            let changes = ChangeKind::ALL
                .iter()
                .map(|&kind| {
                    let pick = |facts: &'_ SideFacts| -> Vec<String> {
                        if kind == ChangeKind::Endpoint {
                            facts.endpoints.clone()
                        } else {
                            facts
                                .granted
                                .iter()
                                .filter(|n| ChangeKind::of_capability(n) == kind)
                                .cloned()
                                .collect()
                        }
                    };
                    let (rs, ps) = (pick(r), pick(p));
                    diff(
                        kind,
                        &rs.iter().collect::<Vec<_>>(),
                        &ps.iter().collect::<Vec<_>>(),
                    )
                })
                .collect();
            (
                Some(VersionChange::between(&r.version, &p.version)),
                changes,
            )
        }
        _ => (None, Vec::new()),
    };
    CardComparison {
        replica,
        primary,
        same_card,
        version,
        changes,
    }
}

/// What the core's re-resolution does with these two answers, replica first.
#[derive(Debug, Clone, PartialEq)]
pub struct ReResolution {
    /// The rule's step after the replica's decision: accept it, ask the primary, or stop.
    pub after_replica: Step,
    /// Why the resolution ended.
    pub outcome: Outcome,
    /// A sentence: the core's `resolution.message` when the primary was asked.
    pub message: String,
    /// How many sources were asked (1 or 2).
    pub attempts: usize,
    /// The final decision, as a host answers it (with `resolution` when the primary was asked).
    pub decision: Decision,
}

/// Both decisions, the comparison, and the re-resolution outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct SideBySide {
    /// The replica's card judged with the replica's watermark.
    pub replica: Decision,
    /// The primary's card judged with the primary's watermark.
    pub primary: Decision,
    /// What differs between the two cards.
    pub comparison: CardComparison,
    /// What re-resolution (replica, then primary) would conclude.
    pub re_resolution: ReResolution,
}

impl SideBySide {
    /// The JSON form the inspector reads ([`SideBySideJson`]).
    pub fn wire(&self) -> SideBySideJson<'_> {
        let r = &self.re_resolution;
        SideBySideJson {
            comparison: self.comparison.wire(),
            primary: self.primary.wire(),
            re_resolution: ReResolutionJson {
                after_replica: r.after_replica,
                attempts: r.attempts,
                decision: r.decision.wire(),
                message: &r.message,
                outcome: r.outcome,
            },
            replica: self.replica.wire(),
        }
    }

    /// The RFC 8785 canonical JSON of [`SideBySide::wire`].
    pub fn to_json(&self) -> String {
        // Cannot fail: every member name is a string, and nothing is bytes.
        jcs::to_string(&self.wire()).unwrap_or_default()
    }
}

/// Judges both cards with the same requirement (each with its own watermark), compares them, and
/// runs the re-resolution rule over the two answers (default limits; both answers at time 0: the
/// inspector asks both sources at once, so the deadline plays no part).
pub fn side_by_side(
    replica: &[u8],
    primary: &[u8],
    requirement: &Requirement,
    replica_observation: &Observation,
    primary_observation: &Observation,
) -> SideBySide {
    let limits = Limits::default();
    let replica_decision = evaluate_with(replica, requirement, replica_observation, &limits);
    let primary_decision = evaluate_with(primary, requirement, primary_observation, &limits);
    let mut resolution = Resolution::new(ResolutionLimits::default(), 0);
    let [first, second] = SOURCES;
    let after_replica =
        resolution.record(first, Answer::Card(Box::new(replica_decision.clone())), 0);
    if after_replica == Step::TryNext
        && resolution.record(second, Answer::Card(Box::new(primary_decision.clone())), 0)
            == Step::TryNext
    {
        resolution.stop(Outcome::SourcesExhausted);
    }
    let attempts = resolution.attempts().len();
    let outcome = resolution.outcome().unwrap_or(Outcome::SourcesExhausted);
    let decision = resolution.finish();
    let message = decision
        .resolution()
        .map(|r| r.message.clone())
        .unwrap_or_else(|| match outcome {
            Outcome::Accepted => {
                format!("accepted the card from {first} at attempt 1; {second} not asked")
            }
            _ => format!(
                "{first} served a fresh card that lacks a required capability; \
                 re-resolution stops there ({second} not asked)"
            ),
        });
    SideBySide {
        replica: replica_decision,
        primary: primary_decision,
        comparison: compare(replica, primary),
        re_resolution: ReResolution {
            after_replica,
            outcome,
            message,
            attempts,
            decision,
        },
    }
}

// The JSON forms, borrowed from the types above: the one definition the canonical text, the
// inspector and the generated TypeScript declarations come from. Members are declared in
// RFC 8785 order, so the canonical writer never moves them.

/// [`SideBySide`] on the wire (the package's `CardComparison`).
#[derive(Debug, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
pub struct SideBySideJson<'a> {
    /// What differs between the two cards.
    pub comparison: CardComparisonJson<'a>,
    /// The primary's card judged with the primary's watermark.
    #[cfg_attr(feature = "js", tsify(type = "Decision"))]
    pub primary: DecisionJson<'a>,
    /// What re-resolution (replica, then primary) concludes.
    pub re_resolution: ReResolutionJson<'a>,
    /// The replica's card judged with the replica's watermark.
    #[cfg_attr(feature = "js", tsify(type = "Decision"))]
    pub replica: DecisionJson<'a>,
}

/// [`ReResolution`] on the wire.
#[derive(Debug, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
pub struct ReResolutionJson<'a> {
    /// The rule's step after the replica's decision.
    pub after_replica: Step,
    /// How many sources were asked (1 or 2).
    pub attempts: usize,
    /// The final decision, as a host answers it.
    #[cfg_attr(feature = "js", tsify(type = "Decision"))]
    pub decision: DecisionJson<'a>,
    /// A sentence: how the resolution ended.
    pub message: &'a str,
    /// Why the resolution ended.
    pub outcome: Outcome,
}

/// [`CardComparison`] on the wire.
#[derive(Debug, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify), tsify(missing_as_null))]
pub struct CardComparisonJson<'a> {
    /// Every kind, in [`ChangeKind::ALL`] order; empty unless both cards are readable.
    pub changes: Vec<KindDiffJson<'a>>,
    /// Both sides are readable cards.
    pub comparable: bool,
    /// The primary's side.
    pub primary: ComparedSide<'a>,
    /// The replica's side.
    pub replica: ComparedSide<'a>,
    /// Both bodies have the same card hash.
    pub same_card: bool,
    /// How the version changed, when both cards are readable.
    pub version: Option<VersionJson<'a>>,
}

/// Both versions and how they relate.
#[derive(Debug, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
pub struct VersionJson<'a> {
    /// How the primary's version relates to the replica's.
    pub change: VersionChange,
    /// The primary's `version`.
    pub primary: &'a str,
    /// The replica's `version`.
    pub replica: &'a str,
}

/// [`KindDiff`] on the wire.
#[derive(Debug, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
pub struct KindDiffJson<'a> {
    /// Only the primary has it.
    pub added: &'a [String],
    /// Something was added or removed.
    pub changed: bool,
    /// What is compared.
    pub kind: ChangeKind,
    /// Only the replica has it.
    pub removed: &'a [String],
    /// Both have it.
    pub unchanged: &'a [String],
}

/// One side of a comparison: what the gate reads from the card, or its defect (also for a body
/// that does not parse: the comparison never fails for a card).
#[derive(Debug, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(untagged)]
pub enum ComparedSide<'a> {
    /// A readable card.
    Readable(ReadableSide<'a>),
    /// A body the gate cannot read as a card.
    Unreadable(UnreadableSide<'a>),
}

/// A readable side.
#[derive(Debug, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
pub struct ReadableSide<'a> {
    /// `sha256:<hex>`.
    #[cfg_attr(feature = "js", tsify(type = "string"))]
    pub card_hash: Option<&'a str>,
    /// Interface URLs as written.
    pub endpoints: &'a [String],
    /// What the gate counts, in requirement syntax.
    pub granted: &'a [String],
    /// `name`.
    pub name: &'a str,
    /// `true`.
    #[cfg_attr(feature = "js", tsify(type = "true"))]
    pub readable: Readable,
    /// `version`.
    pub version: &'a str,
}

/// An unreadable side.
#[derive(Debug, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify), tsify(missing_as_null))]
pub struct UnreadableSide<'a> {
    /// `sha256:<hex>` when the body is JSON within the size limit, else `null`.
    pub card_hash: Option<&'a str>,
    /// Why the gate cannot read it.
    pub defect: &'a CardDefect,
    /// `false`.
    #[cfg_attr(feature = "js", tsify(type = "false"))]
    pub readable: Unreadable,
}

crate::decision::wire_constant!(
    /// `true`: the `readable` of a [`ReadableSide`].
    Readable,
    serialize_bool(true)
);
crate::decision::wire_constant!(
    /// `false`: the `readable` of an [`UnreadableSide`].
    Unreadable,
    serialize_bool(false)
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Value;

    const REPLICA: &str = r#"{"name":"worker-7","version":"2.0.0",
      "supportedInterfaces":[{"url":"wss://worker-7.internal/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
      "capabilities":{"streaming":true,"pushNotifications":false},
      "skills":[{"id":"task.execute.v2","name":"Execute task","description":"Runs one planner task.","tags":["task"]}]}"#;
    const PRIMARY: &str = r#"{"name":"worker-7","version":"3.0.0",
      "supportedInterfaces":[{"url":"wss://worker-7.internal/a2a/v3","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
      "capabilities":{"streaming":true,"pushNotifications":false},
      "skills":[{"id":"task.execute.v3","name":"Execute task","description":"Runs one planner task.","tags":["task"]}]}"#;

    fn kind(c: &CardComparison, k: ChangeKind) -> &KindDiff {
        c.changes.iter().find(|d| d.kind == k).unwrap()
    }

    fn req(json: &str) -> Requirement {
        Requirement::from_json(json).unwrap()
    }

    fn obs(json: &str) -> Observation {
        Observation::from_json(json).unwrap()
    }

    #[test]
    fn the_incident_rename_is_one_skill_removed_and_one_added() {
        let c = compare(REPLICA.as_bytes(), PRIMARY.as_bytes());
        assert!(c.comparable());
        assert!(!c.same_card);
        assert_eq!(c.version, Some(VersionChange::Newer));
        let skills = kind(&c, ChangeKind::Skill);
        assert_eq!(skills.removed, ["task.execute.v2"]);
        assert_eq!(skills.added, ["task.execute.v3"]);
        assert!(skills.unchanged.is_empty());
        let ep = kind(&c, ChangeKind::Endpoint);
        assert_eq!(ep.removed, ["wss://worker-7.internal/a2a"]);
        assert_eq!(ep.added, ["wss://worker-7.internal/a2a/v3"]);
        assert_eq!(kind(&c, ChangeKind::Binding).unchanged, ["binding:JSONRPC"]);
        assert_eq!(kind(&c, ChangeKind::Protocol).unchanged, ["protocol:1.0"]);
        assert_eq!(
            kind(&c, ChangeKind::Flag).unchanged,
            ["capability:streaming"]
        );
        assert!(!kind(&c, ChangeKind::Flag).changed());
        assert!(skills.changed());
        // Only added, or only removed, is a change too.
        let one_sided = |added: &[&str], removed: &[&str]| KindDiff {
            kind: ChangeKind::Skill,
            added: added.iter().map(|s| s.to_string()).collect(),
            removed: removed.iter().map(|s| s.to_string()).collect(),
            unchanged: Vec::new(),
        };
        assert!(one_sided(&["a"], &[]).changed());
        assert!(one_sided(&[], &["a"]).changed());
        assert!(!one_sided(&[], &[]).changed());
        assert_eq!(
            c.changes.iter().map(|d| d.kind).collect::<Vec<_>>(),
            ChangeKind::ALL
        );
        let json = c.to_json();
        assert!(
            json.contains(r#""version":{"change":"newer","primary":"3.0.0","replica":"2.0.0"}"#)
        );
        assert!(json.contains(
            r#"{"added":["task.execute.v3"],"changed":true,"kind":"skill","removed":["task.execute.v2"],"unchanged":[]}"#
        ));
    }

    /// The incident's stale replica case and the primary's case, from the shared vectors.
    #[test]
    fn the_incident_vectors_replica_then_primary() {
        let doc = crate::json::parse(include_bytes!("../tests/vectors/incident.json"), 64).unwrap();
        let case = |prefix: &str| {
            doc.get("cases")
                .and_then(Value::as_array)
                .unwrap()
                .iter()
                .find(|c| {
                    c.get("name")
                        .and_then(Value::as_str)
                        .unwrap()
                        .starts_with(prefix)
                })
                .unwrap()
                .clone()
        };
        let stale = case("incident: edge replica 40 s behind serves the task.execute.v2 card");
        let fresh = case("incident: the primary serves the fresh task.execute.v3 card");
        let bytes = |c: &Value| jcs::canonicalize(c.get("card").unwrap()).into_bytes();
        let requirement = Requirement::from_value(stale.get("requirement").unwrap(), "").unwrap();
        let observation =
            |c: &Value| Observation::from_value(c.get("observation").unwrap(), "").unwrap();
        let s = side_by_side(
            &bytes(&stale),
            &bytes(&fresh),
            &requirement,
            &observation(&stale),
            &observation(&fresh),
        );
        let hash = |c: &Value| {
            c.pointer("/expect/card_hash")
                .and_then(Value::as_str)
                .unwrap()
                .to_string()
        };
        let side_hash = |side: &CardSide| side.card_hash.as_ref().unwrap().as_str().to_string();
        assert_eq!(side_hash(&s.comparison.replica), hash(&stale));
        assert_eq!(side_hash(&s.comparison.primary), hash(&fresh));
        assert_eq!(s.replica.status(), 503);
        assert!(s.primary.is_valid());
        let skills = kind(&s.comparison, ChangeKind::Skill);
        assert_eq!(
            (&skills.removed[..], &skills.added[..]),
            (
                &["task.execute.v2".to_string()][..],
                &["task.execute.v3".to_string()][..]
            )
        );
        assert_eq!(s.comparison.version, Some(VersionChange::Newer));
        assert_eq!(
            s.re_resolution.message,
            "accepted the card from primary at attempt 2"
        );
    }

    #[test]
    fn capabilities_are_what_the_gate_counts() {
        // The primary spells pushNotifications in snake_case on a card that is not proto-shaped:
        // the JS default reading does not see it, so the gate does not grant it, and the diff
        // does not list it as added.
        let replica = br#"{"name":"w","version":"1","skills":[],"capabilities":{"streaming":true},
          "supportedInterfaces":[{"url":"https://w/a","protocolBinding":"JSONRPC","protocolVersion":"0.3"},
                                 {"url":"https://w/g","protocolBinding":"GRPC","protocolVersion":"1.0"}]}"#;
        let primary =
            br#"{"name":"w","version":"1","skills":[],"capabilities":{"push_notifications":true},
          "supportedInterfaces":[{"url":"https://w/g","protocolBinding":"GRPC","protocolVersion":"1.0"}]}"#;
        let c = compare(replica, primary);
        assert_eq!(c.version, Some(VersionChange::Unchanged));
        assert_eq!(kind(&c, ChangeKind::Flag).removed, ["capability:streaming"]);
        assert!(
            kind(&c, ChangeKind::Flag).added.is_empty(),
            "{:?}",
            kind(&c, ChangeKind::Flag)
        );
        assert_eq!(kind(&c, ChangeKind::Binding).removed, ["binding:JSONRPC"]);
        assert_eq!(kind(&c, ChangeKind::Binding).unchanged, ["binding:GRPC"]);
        assert_eq!(kind(&c, ChangeKind::Protocol).removed, ["protocol:0.3"]);
        assert!(kind(&c, ChangeKind::Endpoint).added.is_empty());
    }

    #[test]
    fn same_card_with_other_whitespace_is_the_same_card() {
        let spaced = PRIMARY.replace(',', " ,\n ");
        let c = compare(PRIMARY.as_bytes(), spaced.as_bytes());
        assert!(c.same_card);
        assert_eq!(c.version, Some(VersionChange::Unchanged));
        assert!(c.changes.iter().all(|d| !d.changed()));
    }

    #[test]
    fn versions_are_ordered_as_the_gate_orders_them() {
        assert_eq!(
            VersionChange::between("1.2", "1.2.0"),
            VersionChange::Equivalent
        );
        assert_eq!(
            VersionChange::between("3.0.0", "2.9.9"),
            VersionChange::Older
        );
        assert_eq!(
            VersionChange::between("2.0.0-rc.1", "2.0.0"),
            VersionChange::Newer
        );
        assert_eq!(
            VersionChange::between("latest", "3"),
            VersionChange::Incomparable
        );
    }

    #[test]
    fn endpoints_include_legacy_members_once() {
        let card = br#"{"name":"w","version":"1","skills":[],"url":"https://a/","preferredTransport":"JSONRPC",
          "capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],
          "additionalInterfaces":[{"url":"https://b/","transport":"GRPC"},{"url":"https://a/","transport":"HTTP+JSON"}]}"#;
        let side = read_side(card);
        assert_eq!(side.card.unwrap().endpoints, ["https://a/", "https://b/"]);
    }

    #[test]
    fn malformed_sides_are_reported_not_panicked_on() {
        let truncated = &PRIMARY.as_bytes()[..PRIMARY.len() / 2];
        let cases: [(&[u8], &str); 6] = [
            (truncated, "json_syntax"),
            (b"", "body_empty"),
            (b"[1,2]", "not_an_object"),
            (br#"{"name":"w","skills":[]}"#, "missing_field"),
            (b"{\"name\":\"\xff\"}", "invalid_utf8"),
            (br#"{"a":1,"a":2}"#, "duplicate_member"),
        ];
        for (bytes, code) in cases {
            let c = compare(REPLICA.as_bytes(), bytes);
            assert!(!c.comparable());
            assert!(c.replica.card.is_ok());
            let defect = c.primary.card.as_ref().unwrap_err();
            assert_eq!(defect.code.as_str(), code);
            assert_eq!(c.version, None);
            assert!(c.changes.is_empty());
            let v = crate::json::parse(c.to_json().as_bytes(), 16).unwrap();
            assert_eq!(v.get("comparable"), Some(&Value::Bool(false)));
            assert_eq!(
                v.pointer("/primary/defect/code").and_then(Value::as_str),
                Some(code)
            );
            // And the other way round.
            let c = compare(bytes, REPLICA.as_bytes());
            assert!(c.replica.card.is_err() && c.primary.card.is_ok());
        }
        // JSON that is not a card still has a hash; both unreadable is fine too.
        let c = compare(br#"{"name":"w","skills":[]}"#, b"nope");
        assert!(c.replica.card_hash.is_some());
        assert!(c.primary.card_hash.is_none());
        assert!(!c.same_card);
        let big = vec![b' '; Limits::default().max_card_bytes + 1];
        let c = compare(&big, &big);
        assert_eq!(c.replica.card.unwrap_err().code.as_str(), "body_too_large");
    }

    #[test]
    fn stale_replica_then_fresh_primary_is_accepted_at_attempt_2() {
        let s = side_by_side(
            REPLICA.as_bytes(),
            PRIMARY.as_bytes(),
            &req(r#"{"require":["task.execute.v3"],"min_version":"2.0.0","max_stale":"10s"}"#),
            &obs(r#"{"lag_ms":"40000"}"#),
            &obs(r#"{"lag_ms":"0"}"#),
        );
        assert_eq!(
            s.replica.error_class().map(|c| c.as_str()),
            Some("stale_agent_card")
        );
        assert!(s.primary.is_valid());
        let r = &s.re_resolution;
        assert_eq!(r.after_replica, Step::TryNext);
        assert_eq!(r.outcome, Outcome::Accepted);
        assert_eq!(r.attempts, 2);
        assert_eq!(r.message, "accepted the card from primary at attempt 2");
        assert!(r.decision.is_valid());
        assert_eq!(r.decision.card_hash(), s.primary.card_hash());
        let json = s.to_json();
        assert!(json.contains(r#""after_replica":"try_next""#));
        assert!(json.contains(r#""outcome":"accepted""#));
        assert!(json.contains(r#""source":"primary""#));
    }

    #[test]
    fn malformed_replica_then_valid_primary_is_accepted() {
        let s = side_by_side(
            &REPLICA.as_bytes()[..40],
            PRIMARY.as_bytes(),
            &req(r#"{"require":["task.execute.v3"],"max_stale":"10s"}"#),
            &obs(r#"{"lag_ms":"0"}"#),
            &obs(r#"{"lag_ms":"0"}"#),
        );
        assert_eq!(
            s.replica.error_class().map(|c| c.as_str()),
            Some("malformed_card")
        );
        assert_eq!(s.re_resolution.outcome, Outcome::Accepted);
        assert!(!s.comparison.comparable());
    }

    #[test]
    fn valid_replica_is_accepted_without_asking_the_primary() {
        let s = side_by_side(
            PRIMARY.as_bytes(),
            PRIMARY.as_bytes(),
            &req(r#"{"require":["task.execute.v3"],"max_stale":"10s"}"#),
            &obs(r#"{"lag_ms":"5"}"#),
            &obs(r#"{"lag_ms":"0"}"#),
        );
        let r = &s.re_resolution;
        assert_eq!(
            (r.after_replica, r.outcome, r.attempts),
            (Step::Accept, Outcome::Accepted, 1)
        );
        assert_eq!(
            r.message,
            "accepted the card from replica at attempt 1; primary not asked"
        );
        // One attempt: the plain decision, byte for byte.
        assert_eq!(r.decision.to_json(), s.replica.to_json());
        assert!(s.comparison.same_card);
    }

    #[test]
    fn fresh_capability_mismatch_stops_at_the_replica() {
        let s = side_by_side(
            REPLICA.as_bytes(),
            PRIMARY.as_bytes(),
            &req(r#"{"require":["task.execute.v3"],"max_stale":"10s"}"#),
            &obs(r#"{"lag_ms":"5"}"#),
            &obs(r#"{"lag_ms":"0"}"#),
        );
        let r = &s.re_resolution;
        assert_eq!(
            (r.after_replica, r.outcome, r.attempts),
            (Step::Stop, Outcome::CapabilityMismatch, 1)
        );
        assert!(r.message.contains("not asked"));
        assert_eq!(r.decision.status(), 409);
    }

    #[test]
    fn both_stale_fails_closed_with_both_attempts() {
        let s = side_by_side(
            REPLICA.as_bytes(),
            PRIMARY.as_bytes(),
            &req(r#"{"require":["task.execute.v3"],"max_stale":"10s"}"#),
            &obs(r#"{"lag_ms":"40000"}"#),
            &obs("{}"),
        );
        let r = &s.re_resolution;
        assert_eq!(
            (r.after_replica, r.outcome, r.attempts),
            (Step::TryNext, Outcome::SourcesExhausted, 2)
        );
        assert_eq!(r.message, "no valid card from any of the 2 sources tried");
        assert_eq!(r.decision.status(), 503);
        // The last card that answered: the primary's.
        assert_eq!(r.decision.card_hash(), s.primary.card_hash());
        let attempts = r.decision.resolution().map(|v| v.attempts.len());
        assert_eq!(attempts, Some(2));
    }
}
