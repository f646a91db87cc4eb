//! The gate: is this card valid for delegation?
//!
//! Order follows the seed: (b) freshness — a pinned hash replaces the watermark check, or with
//! `pin_mode: "with_watermark"` is required on top of it — then
//! (a) the version floor, then (c) the capability superset. Unlike the seed, every failed
//! condition is reported; the primary error class is the first failure in that order.

use crate::capability::{Capability, Flag};
use crate::card::{AgentCard, Limits};
use crate::card_hash::CardHash;
use crate::decision::{
    card_excerpt, ConditionOutcome, Conditions, Decision, FreshnessBasis, Reason,
};
use crate::document::Document;
use crate::duration::push_duration;
use crate::freshness::Observation;
use crate::interface_choice;
use crate::json::{push_whole, Value};
use crate::reason::{ErrorClass, ReasonCode};
use crate::requirement::Requirement;
use crate::version::Version;
use std::rc::{Rc, Weak};

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

/// Evaluates `card` with explicit limits: [`decide`] on [`analyze`].
pub fn evaluate_with(
    card: &[u8],
    requirement: &Requirement,
    observation: &Observation,
    limits: &Limits,
) -> Decision {
    analyze(card, limits).into_decision(requirement, observation)
}

/// What the gate learns from a card's bytes alone, before any requirement or observation: the
/// parsed document, its card hash and card view, or the decision for a body that is not a card.
/// A host that sees the same bytes again may keep it and call [`decide`] per request: the
/// decision is the one [`evaluate_with`] makes for those bytes.
pub struct Analysis(Analyzed);

enum Analyzed {
    /// Not a card (unreadable, or not an Agent Card): the same decision for every request.
    Defect(Box<Decision>),
    /// A card: the document, its view and its hash.
    Card {
        doc: Document,
        view: Box<AgentCard>,
        hash: CardHash,
    },
}

/// Parses and hashes `card` (the exact bytes served) and reads its card view.
pub fn analyze(card: &[u8], limits: &Limits) -> Analysis {
    match AgentCard::parse_document(card, limits) {
        Ok(doc) => analyze_parsed(doc),
        Err(defect) => {
            let mut decision = Decision::malformed(defect.code, &defect.path, defect.message);
            decision.defect_offset = defect.offset;
            if defect.code == ReasonCode::BodyTooLarge {
                decision.reasons_mut_figures(vec![
                    ("body_bytes".into(), Value::whole(card.len() as u64)),
                    (
                        "max_card_bytes".into(),
                        Value::whole(limits.max_card_bytes as u64),
                    ),
                ]);
            }
            decision.card_text = Some(card_excerpt(card));
            Analysis(Analyzed::Defect(Box::new(decision)))
        }
    }
}

/// [`analyze`] for a card that is already a parsed tree.
pub fn analyze_document(doc: Value) -> Analysis {
    analyze_parsed(Document::from_value(&doc))
}

fn analyze_parsed(doc: Document) -> Analysis {
    match AgentCard::from_document(&doc) {
        Ok(view) => {
            let hash = CardHash::of_document(&doc);
            Analysis(Analyzed::Card {
                doc,
                view: Box::new(view),
                hash,
            })
        }
        Err(defect) => {
            let mut decision = Decision::malformed(defect.code, &defect.path, defect.message);
            decision.card_hash = Some(CardHash::of_document(&doc));
            decision.card = Some(doc.root().to_value());
            Analysis(Analyzed::Defect(Box::new(decision)))
        }
    }
}

impl Analysis {
    /// The card's hash, when the body is a readable document.
    pub fn card_hash(&self) -> Option<&CardHash> {
        match &self.0 {
            Analyzed::Defect(d) => d.card_hash(),
            Analyzed::Card { hash, .. } => Some(hash),
        }
    }

    /// About the heap bytes this analysis holds, for hosts that keep analyses within a memory
    /// bound: the document and card view of a card; for a body that is not one, the decision's
    /// card tree, text excerpt and messages.
    pub fn heap_bytes(&self) -> usize {
        match &self.0 {
            Analyzed::Card { doc, view, hash } => {
                std::mem::size_of::<AgentCard>()
                    + doc.heap_bytes()
                    + view.heap_bytes()
                    + hash.as_str().len()
            }
            Analyzed::Defect(d) => {
                std::mem::size_of::<Decision>()
                    + d.card.as_ref().map_or(0, Value::heap_bytes)
                    + d.card_text.as_ref().map_or(0, String::capacity)
                    + d.reasons
                        .iter()
                        .map(|r| {
                            std::mem::size_of::<Reason>()
                                + r.message.capacity()
                                + r.figures
                                    .iter()
                                    .map(|(k, v)| k.capacity() + v.heap_bytes() + 32)
                                    .sum::<usize>()
                        })
                        .sum::<usize>()
            }
        }
    }

    /// The checks for one request on an analysis that is kept (see [`decide`]).
    pub fn decide(&self, requirement: &Requirement, observation: &Observation) -> Decision {
        match &self.0 {
            Analyzed::Defect(d) => (**d).clone(),
            Analyzed::Card { doc, view, hash } => {
                check_card(doc, view, hash.clone(), requirement, observation)
            }
        }
    }

    /// [`Analysis::decide`] with `memo`, this analysis's [`PassedChecks`]: conditions (a) and
    /// (c) come from the memo when this requirement passed them before, and are kept there when
    /// they pass now. The decision is the one [`Analysis::decide`] makes.
    pub fn decide_remembering(
        &self,
        memo: &mut PassedChecks,
        requirement: &Rc<Requirement>,
        observation: &Observation,
    ) -> Decision {
        let Analyzed::Card { doc, view, hash } = &self.0 else {
            return self.decide(requirement, observation);
        };
        let freshness = check_freshness(requirement, observation, Some((hash, &view.name)));
        let checks = match memo.get(requirement) {
            Some(kept) => kept,
            None => {
                let checks = check_requirement(view, requirement);
                memo.put(requirement, &checks);
                checks
            }
        };
        let read = (view.name.clone(), view.version.clone());
        card_decision(doc, read, hash.clone(), freshness, checks)
    }

    /// [`Analysis::decide`] for an analysis used once (nothing is copied).
    pub fn into_decision(self, requirement: &Requirement, observation: &Observation) -> Decision {
        match self.0 {
            Analyzed::Defect(d) => *d,
            Analyzed::Card {
                doc,
                mut view,
                hash,
            } => {
                // The checks first; then the view's name and version move into the decision.
                let freshness =
                    check_freshness(requirement, observation, Some((&hash, &view.name)));
                let checks = check_requirement(&view, requirement);
                let read = (
                    std::mem::take(&mut view.name),
                    std::mem::take(&mut view.version),
                );
                card_decision(&doc, read, hash, freshness, checks)
            }
        }
    }
}

/// The per-request checks on an analysed card: freshness against `observation`, then the
/// requirement's version floor and capabilities. `decide(&analyze(b, l), r, o)` is
/// `evaluate_with(b, r, o, l)`.
pub fn decide(
    analysis: &Analysis,
    requirement: &Requirement,
    observation: &Observation,
) -> Decision {
    analysis.decide(requirement, observation)
}

/// Evaluates a card that is already a parsed document, such as one taken out of a JSON envelope
/// that was read with [`crate::json::parse`] (so it is strict I-JSON within the host's limits).
/// The same decision [`evaluate_with`] makes for the document's bytes.
pub fn evaluate_document(
    doc: Value,
    requirement: &Requirement,
    observation: &Observation,
) -> Decision {
    analyze_document(doc).into_decision(requirement, observation)
}

fn check_card(
    doc: &Document,
    view: &AgentCard,
    hash: CardHash,
    requirement: &Requirement,
    observation: &Observation,
) -> Decision {
    let freshness = check_freshness(requirement, observation, Some((&hash, &view.name)));
    let checks = check_requirement(view, requirement);
    let read = (view.name.clone(), view.version.clone());
    card_decision(doc, read, hash, freshness, checks)
}

/// Conditions (a) and (c): they depend on the card and the requirement alone, never on the
/// answer's observation.
#[derive(Clone)]
struct RequirementChecks {
    version: ConditionOutcome,
    version_reason: Option<Reason>,
    missing: Vec<String>,
    capabilities: ConditionOutcome,
    capabilities_reason: Option<Reason>,
}

/// Checks (a) the version floor and (c) the capability superset.
fn check_requirement(view: &AgentCard, requirement: &Requirement) -> RequirementChecks {
    // (a) version floor.
    let mut version_reason = None;
    let version = match &requirement.min_version {
        None => ConditionOutcome {
            passed: true,
            message: format!(
                "no minimum version required (card version {:?})",
                view.version
            ),
        },
        Some(min) => {
            let failure = match Version::is_below(&view.version, min) {
                Err(e) => Some((
                    ReasonCode::VersionIncomparable,
                    format!("card {e}, so it cannot be checked against minimum {min}"),
                )),
                Ok(true) => Some((
                    ReasonCode::VersionBelowMinimum,
                    format!("card version {} is below the minimum {min}", view.version),
                )),
                Ok(false) => None,
            };
            match failure {
                Some((code, message)) => {
                    version_reason = Some(Reason {
                        code,
                        message: message.clone(),
                        figures: vec![
                            ("card_version".into(), Value::text(&view.version)),
                            ("min_version".into(), Value::text(min.as_str())),
                        ],
                    });
                    ConditionOutcome {
                        passed: false,
                        message,
                    }
                }
                None => ConditionOutcome {
                    passed: true,
                    message: concat(&[
                        "card version ",
                        &view.version,
                        " is at least the minimum ",
                        min.as_str(),
                    ]),
                },
            }
        }
    };

    // (c) capability superset; a required binding must be offered at the required protocol
    // versions by one interface (`Capability::covered_by`).
    let protocols = required_protocols(requirement, view);
    let v03_caller = speaks_only_v03(requirement);
    let uncovered: Vec<&Capability> = requirement
        .require
        .iter()
        .filter(|c| !c.covered_by(view, &protocols, v03_caller))
        .collect();
    let missing: Vec<String> = uncovered.iter().map(ToString::to_string).collect();
    let mut capabilities_reason = None;
    let capabilities = if missing.is_empty() {
        ConditionOutcome {
            passed: true,
            message: if requirement.require.is_empty() {
                "no capabilities required".into()
            } else {
                let mut message = String::with_capacity(48);
                message.push_str("card declares all ");
                push_whole(&mut message, requirement.require.len() as u64);
                message.push_str(" required capabilities");
                message
            },
        }
    } else {
        let message = format!(
            "card for {} does not declare {} of {} required capabilities: {}",
            view.name,
            missing.len(),
            requirement.require.len(),
            missing_with_readings(&uncovered, view, &protocols, v03_caller)
        );
        capabilities_reason = Some(Reason {
            code: ReasonCode::CapabilitiesMissing,
            message: message.clone(),
            figures: vec![(
                "missing".into(),
                Value::Array(missing.iter().map(|m| Value::text(m)).collect()),
            )],
        });
        ConditionOutcome {
            passed: false,
            message,
        }
    };
    RequirementChecks {
        version,
        version_reason,
        missing,
        capabilities,
        capabilities_reason,
    }
}

/// The decision on a card from its three conditions; `read` is the card's name and version.
fn card_decision(
    doc: &Document,
    (agent, card_version): (String, String),
    hash: CardHash,
    freshness: FreshnessCheck,
    checks: RequirementChecks,
) -> Decision {
    // Reasons in the order b, a, c; the first one names the class.
    let reasons: Vec<Reason> = freshness
        .reason
        .into_iter()
        .chain(checks.version_reason)
        .chain(checks.capabilities_reason)
        .collect();
    let error_class = reasons.first().map(|r| match r.code {
        ReasonCode::CapabilitiesMissing => ErrorClass::CapabilityMismatch,
        _ => ErrorClass::StaleAgentCard,
    });
    Decision {
        error_class,
        reasons,
        missing: checks.missing,
        agent: Some(agent),
        card_version: Some(card_version),
        card_hash: Some(hash),
        staleness_ms: freshness.staleness_ms,
        freshness: if error_class.is_none() {
            freshness.basis
        } else {
            None
        },
        conditions: Some(Conditions {
            version: checks.version,
            freshness: freshness.outcome,
            capabilities: checks.capabilities,
        }),
        // Only a rejection carries the card (DESIGN.md): a valid decision copies nothing.
        card: error_class.map(|_| doc.root().to_value()),
        card_text: None,
        defect_path: None,
        defect_offset: None,
        resolution: None,
    }
}

/// How many requirements a [`PassedChecks`] remembers.
pub const PASSED_CHECKS_SIZE: usize = 4;

/// The longest condition message (bytes) a [`PassedChecks`] keeps: a card whose version text
/// is longer is checked in full every time.
pub const PASSED_CHECKS_MAX_MESSAGE: usize = 256;

/// A memo for one kept [`Analysis`]: conditions (a) and (c) of the card under a few recent
/// requirements they passed, so a host deciding the same card again for the same requirement
/// runs only the freshness check (b), which depends on each answer's observation.
///
/// Keyed by the requirement's identity (the `Rc` a host shares between requests that have the
/// same requirement), held by a `Weak`: while an entry exists its requirement's allocation is
/// never freed, so no other requirement can take its address; a dropped requirement's entry
/// matches nothing and is replaced in turn. Bounded: [`PASSED_CHECKS_SIZE`] entries of two
/// messages of at most [`PASSED_CHECKS_MAX_MESSAGE`] bytes (about [`PassedChecks::MAX_BYTES`]).
/// Failed conditions are never kept (their reasons carry figures; a rejection is decided in full).
#[derive(Default)]
pub struct PassedChecks {
    entries: Vec<(Weak<Requirement>, ConditionOutcome, ConditionOutcome)>,
    next: usize,
}

impl PassedChecks {
    /// An upper bound of the heap one memo holds, its entries' requirement allocations included.
    pub const MAX_BYTES: usize = PASSED_CHECKS_SIZE
        * (2 * PASSED_CHECKS_MAX_MESSAGE
            + std::mem::size_of::<Requirement>()
            + 2 * std::mem::size_of::<usize>()
            + std::mem::size_of::<(Weak<Requirement>, ConditionOutcome, ConditionOutcome)>());

    fn get(&self, requirement: &Rc<Requirement>) -> Option<RequirementChecks> {
        let (_, version, capabilities) = self
            .entries
            .iter()
            .find(|(w, _, _)| std::ptr::eq(w.as_ptr(), Rc::as_ptr(requirement)))?;
        Some(RequirementChecks {
            version: version.clone(),
            version_reason: None,
            missing: Vec::new(),
            capabilities: capabilities.clone(),
            capabilities_reason: None,
        })
    }

    fn put(&mut self, requirement: &Rc<Requirement>, checks: &RequirementChecks) {
        let passed = checks.version.passed
            && checks.capabilities.passed
            && checks.version_reason.is_none()
            && checks.capabilities_reason.is_none()
            && checks.missing.is_empty();
        let small = checks.version.message.len() <= PASSED_CHECKS_MAX_MESSAGE
            && checks.capabilities.message.len() <= PASSED_CHECKS_MAX_MESSAGE;
        if !passed || !small {
            return;
        }
        let entry = (
            Rc::downgrade(requirement),
            checks.version.clone(),
            checks.capabilities.clone(),
        );
        if self.entries.len() < PASSED_CHECKS_SIZE {
            self.entries.push(entry);
        } else if let Some(slot) = self.entries.get_mut(self.next) {
            *slot = entry;
        }
        self.next = (self.next + 1) % PASSED_CHECKS_SIZE;
    }

    /// Entries kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No entry kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The pieces joined, in one allocation (a message of the per-request checks).
fn concat(pieces: &[&str]) -> String {
    let mut out = String::with_capacity(pieces.iter().map(|p| p.len()).sum());
    pieces.iter().for_each(|p| out.push_str(p));
    out
}

/// The `Major.Minor` of each `protocol:` capability the caller requires and `view` declares
/// (one it does not declare is missing on its own), for [`Capability::covered_by`].
fn required_protocols<'r>(requirement: &'r Requirement, view: &AgentCard) -> Vec<&'r str> {
    requirement
        .require
        .iter()
        .filter_map(|c| match c {
            Capability::Protocol(v) if c.declared_by(view) => Some(v.as_str()),
            _ => None,
        })
        .collect()
}

/// Whether every `protocol:` the requirement names (one at least) is 0.3 (also spelled `00.3`
/// or `0.03`, as a card's version may be): the caller speaks v0.3 only, so it may be on an
/// SDK before 1.0 ([`Capability::covered_by`]).
fn speaks_only_v03(requirement: &Requirement) -> bool {
    let mut named = false;
    requirement.require.iter().all(|c| match c {
        Capability::Protocol(v) => {
            named = true;
            let (major, minor) = v.split_once('.').unwrap_or_default();
            major.bytes().all(|b| b == b'0') && minor.trim_start_matches('0') == "3"
        }
        _ => true,
    }) && named
}

/// The missing capabilities (those [`Capability::covered_by`] refused), each followed by the SDK
/// readings that lack it when only some do (`binding:JSONRPC (not read by @a2a-js/sdk default
/// resolver)`).
fn missing_with_readings(
    uncovered: &[&Capability],
    view: &AgentCard,
    protocols: &[&str],
    v03_caller: bool,
) -> String {
    let mut parts = Vec::new();
    for &cap in uncovered {
        if let Capability::Binding(b) = cap {
            // Every reading has the binding: the interface a client picks for it is the trouble.
            let everywhere = view.readings.iter().all(|(_, r)| r.offers_binding(b));
            if let Some(why) = everywhere
                .then(|| interface_choice::unserved(&view.readings, b, protocols))
                .flatten()
            {
                parts.push(format!("{cap} ({why})"));
                continue;
            }
            if let Some(why) = (everywhere && v03_caller)
                .then(|| view.v03.why_not(b))
                .flatten()
            {
                parts.push(format!(
                    "{cap} (for protocol:0.3, the clients of a2a-sdk and @a2a-js/sdk before 1.0, which read only the card's v0.3 members: {why})"
                ));
                continue;
            }
        }
        // A version the card declares, on a card a pre-1.0 SDK cannot read.
        if let Some(why) = matches!(cap, Capability::Protocol(_))
            .then(|| view.v03.refusal.as_deref())
            .flatten()
            .filter(|_| v03_caller && cap.declared_by(view))
        {
            parts.push(format!("{cap} ({why}, so a caller on it has no card)"));
            continue;
        }
        // A flag every 1.x reading has, which the pre-1.0 clients read elsewhere.
        let v03_flag = match cap {
            Capability::Flag(Flag::ExtendedAgentCard) if view.extended_agent_card => Some(
                "the clients of a2a-sdk and @a2a-js/sdk before 1.0 fetch the extended card only when supportsAuthenticatedExtendedCard is true",
            ),
            Capability::Flag(Flag::PushNotifications) if view.push_notifications => Some(
                "@a2a-js/sdk before 1.0 reads capabilities.pushNotifications only, and this card says it as push_notifications",
            ),
            _ => None,
        };
        if let Some(why) = v03_flag.filter(|_| v03_caller) {
            parts.push(format!("{cap} (for protocol:0.3, {why})"));
            continue;
        }
        let lacking = view.readings_lacking(|sdk, r| cap.in_reading(sdk, r).unwrap_or(false));
        if lacking.is_empty() || lacking.len() == view.readings.len() {
            parts.push(cap.to_string());
        } else {
            parts.push(format!("{cap} (not read by {})", lacking.join(", ")));
        }
    }
    parts.join(", ")
}

/// Condition (b) for one answer: the outcome, the failure if any, how it passed, the figure.
struct FreshnessCheck {
    outcome: ConditionOutcome,
    reason: Option<Reason>,
    basis: Option<FreshnessBasis>,
    staleness_ms: Option<u64>,
}

/// Checks (b). `card` is the card's hash and name, or `None` for an answer that carries no
/// card (a `304 Not Modified` or a `HEAD`): with a pin the caller then already holds the pinned
/// card. A name other than the requirement's `card_name` fails at once (another agent's card is
/// not this agent's current card, whatever its watermark); then a pin that does not match.
/// With [`crate::requirement::PinMode::Replace`] (the default) a matching pin passes without
/// the watermark; with `WithWatermark` the watermark is then checked as without a pin, and a
/// pass is reported as `pinned`.
fn check_freshness(
    requirement: &Requirement,
    observation: &Observation,
    card: Option<(&CardHash, &str)>,
) -> FreshnessCheck {
    let hash = card.map(|(hash, _)| hash);
    let staleness = observation.staleness();
    let staleness_ms = staleness.as_ref().ok().map(|s| s.ms);
    let pass = |basis, message| FreshnessCheck {
        outcome: ConditionOutcome {
            passed: true,
            message,
        },
        reason: None,
        basis: Some(basis),
        staleness_ms,
    };
    let fail = |code, message: String, figures| FreshnessCheck {
        outcome: ConditionOutcome {
            passed: false,
            message: message.clone(),
        },
        reason: Some(Reason {
            code,
            message,
            figures,
        }),
        basis: None,
        staleness_ms,
    };
    // Whose card it is, when the caller names it: a mismatch fails (b) at once.
    if let (Some(expected), Some((_, name))) = (&requirement.card_name, card) {
        if name != expected.as_str() {
            return fail(
                ReasonCode::CardNameMismatch,
                format!(
                    "card name {name:?} is not the expected card_name {:?}: another agent's card, or one from before a rename",
                    expected.as_str()
                ),
                vec![
                    ("agent".into(), Value::text(name)),
                    ("card_name".into(), Value::text(expected.as_str())),
                ],
            );
        }
    }
    // The pin's verdict, when there is a pin: a mismatch fails (b) at once.
    let mut pinned = None;
    if let Some(pin) = &requirement.pin {
        let matched = match hash {
            None => format!("no card in this answer; the caller holds the card pinned as {pin}"),
            Some(hash) if hash == pin => concat(&["card hash matches the pinned ", pin.as_str()]),
            Some(hash) => {
                return fail(
                    ReasonCode::PinnedHashMismatch,
                    format!("card hash {hash} does not match the pinned {pin}"),
                    vec![
                        ("card_hash".into(), Value::text(hash.as_str())),
                        ("pin".into(), Value::text(pin.as_str())),
                    ],
                )
            }
        };
        if !requirement.pin_with_watermark() {
            let message = match hash {
                None => matched,
                Some(_) => matched + "; the watermark is not consulted",
            };
            return pass(FreshnessBasis::Pinned, message);
        }
        // pin_mode "with_watermark": the watermark must hold too.
        pinned = Some(matched);
    }
    match (&staleness, requirement.max_stale_ms) {
        (Err(why), max) => {
            // The observation's own figures, and the tolerance it could not be held to.
            let mut figures = why.figures.clone();
            figures.extend(max.map(|m| ("max_stale_ms".to_owned(), Value::whole(m))));
            fail(why.code, why.message.clone(), figures)
        }
        (Ok(s), None) => fail(
            ReasonCode::ToleranceMissing,
            match pinned {
                // A pin whose pin_mode is with_watermark matched: the watermark must hold too.
                Some(_) => format!(
                    "staleness {} ms ({}) but no max_stale was given, and the pinned hash (pin_mode with_watermark) needs the watermark to hold too, so freshness cannot be accepted",
                    s.ms, s.basis
                ),
                None => format!(
                    "staleness {} ms ({}) but no max_stale was given and no hash pinned, so freshness cannot be accepted",
                    s.ms, s.basis
                ),
            },
            vec![("staleness_ms".into(), Value::whole(s.ms))],
        ),
        (Ok(s), Some(max)) if s.ms > max => {
            let mut check = fail(
                ReasonCode::WatermarkExceeded,
                format!("staleness {} ms exceeds max_stale {} ms", s.ms, max),
                vec![
                    ("staleness_ms".into(), Value::whole(s.ms)),
                    ("max_stale_ms".into(), Value::whole(max)),
                ],
            );
            check.outcome.message = format!("{} ({})", check.outcome.message, s.basis);
            check
        }
        (Ok(s), Some(max)) => {
            // "staleness {ms} ms ({basis}) is within max_stale {max} ms ({max as a duration})"
            let mut within = String::with_capacity(80 + s.basis.len());
            within.push_str("staleness ");
            push_whole(&mut within, s.ms);
            within.push_str(" ms (");
            within.push_str(&s.basis);
            within.push_str(") is within max_stale ");
            push_whole(&mut within, max);
            within.push_str(" ms (");
            push_duration(&mut within, max);
            within.push(')');
            match pinned {
                Some(matched) => pass(FreshnessBasis::Pinned, concat(&[&matched, " and ", &within])),
                None => pass(FreshnessBasis::Watermark, within),
            }
        }
    }
}

/// Condition (b) alone, for an answer that carries no card: a `304 Not Modified` (the caller
/// revalidates the card it holds; a stale replica's 304 is stale too) or a `HEAD`. Conditions (a)
/// and (c) are reported as not checked.
///
/// ```
/// use cardgate::{gate::evaluate_freshness, Observation, Requirement};
/// let req = Requirement::from_json(r#"{"max_stale":"10s"}"#).unwrap();
/// let stale = Observation::from_json(r#"{"lag_ms":"40000"}"#).unwrap();
/// assert_eq!(evaluate_freshness(&req, &stale).status(), 503);
/// ```
pub fn evaluate_freshness(requirement: &Requirement, observation: &Observation) -> Decision {
    let freshness = check_freshness(requirement, observation, None);
    let unchecked = |what: &str| ConditionOutcome {
        passed: true,
        message: format!("no card in this answer: {what} not checked"),
    };
    let error_class = freshness
        .reason
        .as_ref()
        .map(|_| ErrorClass::StaleAgentCard);
    Decision {
        error_class,
        reasons: freshness.reason.into_iter().collect(),
        missing: Vec::new(),
        agent: None,
        card_version: None,
        card_hash: None,
        staleness_ms: freshness.staleness_ms,
        freshness: if error_class.is_none() {
            freshness.basis
        } else {
            None
        },
        conditions: Some(Conditions {
            version: unchecked("version"),
            freshness: freshness.outcome,
            capabilities: unchecked("capabilities"),
        }),
        card: None,
        card_text: None,
        defect_path: None,
        defect_offset: None,
        resolution: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a requirement whose protocol versions are all 0.3, however spelled, is a pre-1.0
    /// caller's; its near-variants are not.
    #[test]
    fn only_a_requirement_naming_0_3_alone_is_a_pre_1_0_callers() {
        let v03 = |require: &str| {
            speaks_only_v03(
                &Requirement::from_json(&format!(r#"{{"require":{require}}}"#)).unwrap(),
            )
        };
        for yes in [
            r#"["protocol:0.3"]"#,
            r#"["protocol:00.3"]"#,
            r#"["protocol:0.03"]"#,
            r#"["binding:JSONRPC","protocol:0.3","protocol:00.3"]"#,
        ] {
            assert!(v03(yes), "{yes}");
        }
        for no in [
            r#"[]"#,
            r#"["binding:JSONRPC"]"#,
            r#"["protocol:0.30"]"#,
            r#"["protocol:1.3"]"#,
            r#"["protocol:0.2"]"#,
            r#"["protocol:0.3","protocol:1.0"]"#,
            r#"["protocol:1.0","protocol:0.3"]"#,
        ] {
            assert!(!v03(no), "{no}");
        }
    }

    #[test]
    fn not_modified_from_a_stale_replica_is_stale() {
        let req = Requirement::from_json(r#"{"max_stale":"10s"}"#).unwrap();
        let stale = Observation::from_json(r#"{"lag_ms":"40000"}"#).unwrap();
        let d = evaluate_freshness(&req, &stale);
        assert_eq!(d.status(), 503);
        assert_eq!(d.reasons()[0].code, ReasonCode::WatermarkExceeded);
        let fresh = Observation::from_json(r#"{"lag_ms":"100"}"#).unwrap();
        assert!(evaluate_freshness(&req, &fresh).is_valid());
        let none = evaluate_freshness(&req, &Observation::default());
        assert_eq!(none.reasons()[0].code, ReasonCode::FreshnessUnverifiable);
        let pinned =
            Requirement::from_json(&format!(r#"{{"pin":"sha256:{}"}}"#, "a".repeat(64))).unwrap();
        let d = evaluate_freshness(&pinned, &stale);
        assert_eq!(d.freshness(), Some(FreshnessBasis::Pinned));
    }

    #[test]
    fn oversized_body_reports_what_the_host_buffered() {
        let d = Decision::body_too_large(b"{\"name\":", 200_000, 65_536, false);
        assert_eq!(d.status(), 502);
        assert_eq!(
            d.reasons()[0].message,
            "card body is at least 200000 bytes, more than the limit of 65536 bytes"
        );
        let json = d.to_json();
        assert!(json.contains(r#""card_text":"{\"name\":""#), "{json}");
        assert!(json.contains(r#""body_bytes":200000"#), "{json}");
        let whole = evaluate(
            &vec![b' '; 70_000],
            &Requirement::default(),
            &Observation::default(),
        );
        assert!(whole.to_json().contains(r#""body_bytes":70000"#));
    }

    fn memo_card(version: &str) -> Vec<u8> {
        format!(
            r#"{{"name":"w","version":"{version}","skills":[{{"id":"task.execute.v3","name":"x","description":"x","tags":["x"]}}]}}"#
        )
        .into_bytes()
    }

    fn req(json: &str) -> Rc<Requirement> {
        Rc::new(Requirement::from_json(json).unwrap())
    }

    #[test]
    fn remembered_checks_decide_as_a_full_check() {
        let body = memo_card("3.1.0");
        let analysis = analyze(&body, &Limits::default());
        let requirements = [
            req(r#"{"require":["task.execute.v3"],"max_stale":"10s","min_version":"3"}"#),
            req(r#"{"require":["task.execute.v3"],"max_stale":"10s"}"#),
            req(r#"{"max_stale":"10s"}"#),
            // Fail (a) or (c): never kept, decided in full every time.
            req(r#"{"require":["task.cancel"],"max_stale":"10s"}"#),
            req(r#"{"max_stale":"10s","min_version":"4"}"#),
            req(&format!(r#"{{"pin":"sha256:{}"}}"#, "a".repeat(64))),
        ];
        let observations = [
            Observation::from_json(r#"{"lag_ms":"100"}"#).unwrap(),
            Observation::from_json(r#"{"lag_ms":"40000"}"#).unwrap(),
            Observation::default(),
        ];
        let mut memo = PassedChecks::default();
        for _ in 0..3 {
            for r in &requirements {
                for o in &observations {
                    let full = evaluate_with(&body, r, o, &Limits::default()).to_json();
                    let got = analysis.decide_remembering(&mut memo, r, o).to_json();
                    assert_eq!(got, full);
                }
            }
        }
        // Only the requirements that passed (a) and (c) were kept (the pinned one passes both).
        assert_eq!(memo.len(), 4);
        // A requirement equal to a kept one but another allocation is another key: checked in
        // full (and kept in turn).
        let twin = Rc::new(Requirement::clone(&requirements[0]));
        assert!(memo.get(&twin).is_none());
        assert!(memo.get(&requirements[0]).is_some());
        assert!(memo.get(&requirements[3]).is_none());
    }

    #[test]
    fn a_requirement_never_reuses_another_ones_checks() {
        let body = memo_card("3.1.0");
        let analysis = analyze(&body, &Limits::default());
        let fresh = Observation::from_json(r#"{"lag_ms":"100"}"#).unwrap();
        let mut memo = PassedChecks::default();
        let loose = req(r#"{"max_stale":"10s"}"#);
        assert!(analysis
            .decide_remembering(&mut memo, &loose, &fresh)
            .is_valid());
        // Dropped: its entry is kept (by a Weak) but matches no requirement made since, even
        // one that would take the freed address.
        let kept_at = Rc::as_ptr(&loose);
        drop(loose);
        for _ in 0..64 {
            let strict = req(r#"{"require":["task.cancel"],"max_stale":"10s","min_version":"9"}"#);
            assert_ne!(Rc::as_ptr(&strict), kept_at);
            let d = analysis.decide_remembering(&mut memo, &strict, &fresh);
            let codes: Vec<_> = d.reasons().iter().map(|r| r.code.as_str()).collect();
            assert_eq!(codes, ["version_below_minimum", "capabilities_missing"]);
        }
        // Bounded: many passing requirements keep the most recent few.
        let kept: Vec<_> = (0..10)
            .map(|i| req(&format!(r#"{{"max_stale":"{}s"}}"#, i + 1)))
            .collect();
        for r in &kept {
            assert!(analysis.decide_remembering(&mut memo, r, &fresh).is_valid());
        }
        assert_eq!(memo.len(), PASSED_CHECKS_SIZE);
        assert!(memo.get(&kept[9]).is_some() && memo.get(&kept[0]).is_none());
        // A card whose messages are long is checked in full every time.
        let long = analyze(&memo_card(&"1".repeat(300)), &Limits::default());
        let mut memo = PassedChecks::default();
        let d = long.decide_remembering(&mut memo, &kept[0], &fresh);
        assert!(d.is_valid());
        assert!(memo.is_empty());
    }

    #[test]
    fn encoded_body_is_malformed() {
        let d = Decision::body_encoded("gzip");
        assert_eq!(d.status(), 502);
        assert!(d.to_json().contains(r#""code":"body_encoded""#));
    }

    /// A capability some SDK readings lack and others have names the ones that lack it; one
    /// every reading lacks is named bare.
    #[test]
    fn a_capability_some_readings_lack_names_them() {
        // A v0.3 card: @a2a-js/sdk's default resolver reads none of its interfaces, and only
        // a2a-sdk takes the snake_case flag.
        let card = br#"{"name":"W","description":"d","version":"1.0","url":"https://w.example/a2a","preferredTransport":"JSONRPC","protocolVersion":"0.3.0","capabilities":{"push_notifications":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"s","name":"s","description":"s","tags":["t"]}]}"#;
        let message = |require: &str| {
            let req =
                Requirement::from_json(&format!(r#"{{"require":{require},"max_stale":"10s"}}"#))
                    .unwrap();
            let d = evaluate(
                card,
                &req,
                &Observation::from_json(r#"{"lag_ms":"5"}"#).unwrap(),
            );
            assert_eq!(d.reasons().len(), 1, "{require}");
            d.reasons()[0].message.clone()
        };
        assert_eq!(
            message(r#"["binding:JSONRPC","capability:pushNotifications"]"#),
            "card for W does not declare 2 of 2 required capabilities: binding:JSONRPC (not read by @a2a-js/sdk default resolver), capability:pushNotifications (not read by @a2a-js/sdk default resolver, @a2a-js/sdk with legacyCompat)"
        );
        assert_eq!(
            message(r#"["protocol:0.3","protocol:1.0","binding:GRPC"]"#),
            "card for W does not declare 3 of 3 required capabilities: protocol:0.3 (not read by @a2a-js/sdk default resolver), protocol:1.0, binding:GRPC"
        );
    }

    /// For a caller naming only protocol:0.3, a capability the 1.x readings grant and the
    /// pre-1.0 clients do not is explained as theirs; one the 1.x readings lack is not.
    #[test]
    fn a_pre_1_0_callers_missing_capability_says_whose_reading_lacks_it() {
        let message = |card: &str, require: &str| {
            let req =
                Requirement::from_json(&format!(r#"{{"require":{require},"max_stale":"10s"}}"#))
                    .unwrap();
            let obs = Observation::from_json(r#"{"lag_ms":"5"}"#).unwrap();
            let d = evaluate(card.as_bytes(), &req, &obs);
            assert_eq!(d.reasons().len(), 1, "{require}");
            let m = d.reasons()[0].message.clone();
            m.split_once("capabilities: ")
                .map_or(m.clone(), |(_, list)| list.to_string())
        };
        let skills = r#""defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"s","name":"s","description":"s","tags":["t"]}]"#;
        let interface = r#""url":"https://w.example/a2a","preferredTransport":"JSONRPC","supportedInterfaces":[{"url":"https://w.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"0.3"}]"#;
        // Every 1.x reading has the extended card; the 0.3 clients need their own flag.
        let extended = format!(
            r#"{{"name":"W","description":"d","version":"1.0",{interface},"capabilities":{{"extendedAgentCard":true}},{skills}}}"#
        );
        assert_eq!(
            message(&extended, r#"["capability:extendedAgentCard","protocol:0.3"]"#),
            "capability:extendedAgentCard (for protocol:0.3, the clients of a2a-sdk and @a2a-js/sdk before 1.0 fetch the extended card only when supportsAuthenticatedExtendedCard is true)"
        );
        // A proto-shaped card: both 1.x SDKs read push_notifications there, A2AClient does not.
        let proto = format!(
            r#"{{"name":"W","description":"d","version":"1.0",{interface},"securitySchemes":{{"bearer":{{"httpAuthSecurityScheme":{{"scheme":"bearer"}}}}}},"capabilities":{{"push_notifications":true}},{skills}}}"#
        );
        assert_eq!(
            message(&proto, r#"["capability:pushNotifications","protocol:0.3"]"#),
            "capability:pushNotifications (for protocol:0.3, @a2a-js/sdk before 1.0 reads capabilities.pushNotifications only, and this card says it as push_notifications)"
        );
        // A v0.3 card: no reading has the extended card; only a2a-sdk reads push_notifications;
        // @a2a-js/sdk's default resolver reads no interface; the 0.3 clients send JSON-RPC
        // apart (a2a-sdk to url, @a2a-js/sdk to the upper-cased additional entry).
        let v03 = format!(
            r#"{{"name":"W","description":"d","version":"1.0","url":"https://w.example/a2a","protocolVersion":"0.3.0","additionalInterfaces":[{{"transport":"jsonrpc","url":"https://w.example/other"}}],"capabilities":{{"push_notifications":true}},{skills}}}"#
        );
        assert_eq!(
            message(
                &v03,
                r#"["capability:extendedAgentCard","capability:pushNotifications","binding:JSONRPC","protocol:0.3"]"#
            ),
            "capability:extendedAgentCard, capability:pushNotifications (not read by @a2a-js/sdk default resolver, @a2a-js/sdk with legacyCompat), binding:JSONRPC (not read by @a2a-js/sdk default resolver), protocol:0.3 (not read by @a2a-js/sdk default resolver)"
        );
    }
}
