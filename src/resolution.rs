//! Re-resolution: a stale replica's answer becomes the primary's current card.
//!
//! The seed draws the boundary as "proceed" versus "**re-resolve** or fail closed". A resolution
//! is a short, bounded sequence of attempts against ordered sources (a replica, then the primary
//! or another replica). After each attempt the rule here says what the host does next:
//!
//! | attempt's decision | next |
//! |---|---|
//! | valid | accept this card |
//! | `stale_agent_card` (a lagging replica, an old version) | try the next source |
//! | `malformed_card` (a partially replicated body) | try the next source |
//! | the source failed (timeout, refused connection, HTTP error) | try the next source |
//! | `capability_mismatch` (a fresh card that lacks a capability: the agent's real card) | stop |
//!
//! and it stops anyway when the attempts reach `max_attempts`, when the host's clock passes the
//! deadline, or when the host has no budget left for another attempt. The core does no I/O and
//! reads no clock: the host fetches, supplies the time in milliseconds on any monotonic scale,
//! and asks [`Resolution::record`] what to do.
//!
//! The final decision ([`Resolution::finish`]) is the accepted attempt's decision, or else the
//! last one that carried a card (the most authoritative source that answered), with every
//! attempt listed under `resolution`. With a single attempt and nothing to report, it is the
//! plain decision, byte for byte.

use crate::decision::Decision;
use crate::json::Value;
use crate::reason::{ErrorClass, ReasonCode};

/// Bounds on one resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolutionLimits {
    /// Most attempts, the first one included (at least 1).
    pub max_attempts: usize,
    /// Milliseconds from the start after which no new attempt begins.
    pub deadline_ms: u64,
}

impl Default for ResolutionLimits {
    fn default() -> Self {
        ResolutionLimits {
            max_attempts: 3,
            deadline_ms: 5_000,
        }
    }
}

/// What the host does after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The card is valid: use it.
    Accept,
    /// Fetch from the next source.
    TryNext,
    /// Stop: [`Resolution::finish`] gives the failure.
    Stop,
}

/// Why a resolution ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// An attempt was valid.
    Accepted,
    /// A fresh card lacks a capability: another source would serve the same card.
    CapabilityMismatch,
    /// `max_attempts` reached.
    AttemptsExhausted,
    /// The deadline passed.
    DeadlinePassed,
    /// The host had no budget for another attempt.
    OverBudget,
    /// No further source was configured.
    SourcesExhausted,
}

impl Outcome {
    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Accepted => "accepted",
            Outcome::CapabilityMismatch => "capability_mismatch",
            Outcome::AttemptsExhausted => "attempts_exhausted",
            Outcome::DeadlinePassed => "deadline_passed",
            Outcome::OverBudget => "over_budget",
            Outcome::SourcesExhausted => "sources_exhausted",
        }
    }
}

/// What one source answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The gate's decision about the card the source served.
    Card(Box<Decision>),
    /// The source gave no card: timeout, refused connection, an HTTP error status.
    Failed(String),
}

/// One attempt: the source (a URL, a cluster name, a label) and its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    /// Where the card was asked for.
    pub source: String,
    /// What came back.
    pub answer: Answer,
    /// Host milliseconds since the resolution started.
    pub elapsed_ms: u64,
}

/// The rule alone: what to do after one decision, before any bound is applied.
pub fn rule(decision: &Decision) -> Step {
    match decision.error_class() {
        None => Step::Accept,
        Some(ErrorClass::CapabilityMismatch) => Step::Stop,
        Some(ErrorClass::StaleAgentCard | ErrorClass::MalformedCard) => Step::TryNext,
    }
}

/// A resolution in progress.
#[derive(Debug, Clone)]
pub struct Resolution {
    limits: ResolutionLimits,
    started_ms: u64,
    attempts: Vec<Attempt>,
    outcome: Option<Outcome>,
}

impl Resolution {
    /// Starts a resolution at host time `started_ms`.
    pub fn new(limits: ResolutionLimits, started_ms: u64) -> Resolution {
        Resolution {
            limits: ResolutionLimits {
                max_attempts: limits.max_attempts.max(1),
                deadline_ms: limits.deadline_ms,
            },
            started_ms,
            attempts: Vec::new(),
            outcome: None,
        }
    }

    /// The attempts so far.
    pub fn attempts(&self) -> &[Attempt] {
        &self.attempts
    }

    /// The attempts so far in their JSON form: the `resolution.attempts` array of
    /// [`Resolution::finish`], also for a resolution whose final decision is the plain one (a
    /// host reports them on its error either way).
    pub fn attempts_value(&self) -> Value {
        Value::Array(self.attempts.iter().map(attempt_value).collect())
    }

    /// Why the resolution ended, once it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Milliseconds the host may still wait for the next attempt at host time `now_ms` (0 once
    /// the deadline has passed).
    pub fn remaining_ms(&self, now_ms: u64) -> u64 {
        self.limits
            .deadline_ms
            .saturating_sub(now_ms.saturating_sub(self.started_ms))
    }

    /// Records what `source` answered at host time `now_ms` and says what to do next. After
    /// [`Step::Accept`] or [`Step::Stop`] further records are ignored and repeat that step.
    pub fn record(&mut self, source: &str, answer: Answer, now_ms: u64) -> Step {
        if let Some(outcome) = self.outcome {
            return if outcome == Outcome::Accepted {
                Step::Accept
            } else {
                Step::Stop
            };
        }
        let elapsed_ms = now_ms.saturating_sub(self.started_ms);
        let step = match &answer {
            Answer::Card(decision) => rule(decision),
            Answer::Failed(_) => Step::TryNext,
        };
        self.attempts.push(Attempt {
            source: source.to_string(),
            answer,
            elapsed_ms,
        });
        match step {
            Step::Accept => self.outcome = Some(Outcome::Accepted),
            Step::Stop => self.outcome = Some(Outcome::CapabilityMismatch),
            Step::TryNext if self.attempts.len() >= self.limits.max_attempts => {
                self.outcome = Some(Outcome::AttemptsExhausted)
            }
            Step::TryNext if elapsed_ms >= self.limits.deadline_ms => {
                self.outcome = Some(Outcome::DeadlinePassed)
            }
            Step::TryNext => {}
        }
        match self.outcome {
            None => Step::TryNext,
            Some(Outcome::Accepted) => Step::Accept,
            Some(_) => Step::Stop,
        }
    }

    /// Ends a resolution that wanted another attempt: `outcome` says why none was made
    /// ([`Outcome::OverBudget`], [`Outcome::SourcesExhausted`], [`Outcome::DeadlinePassed`]).
    pub fn stop(&mut self, outcome: Outcome) {
        if self.outcome.is_none() {
            self.outcome = Some(outcome);
        }
    }

    /// The final decision: the accepted card's, or the last card decision with every attempt
    /// listed; a resolution where no source served a card is `malformed_card`
    /// `source_unavailable`. A single attempt that ended the resolution by itself gives the
    /// plain decision.
    pub fn finish(mut self) -> Decision {
        let outcome = self.outcome.unwrap_or(Outcome::SourcesExhausted);
        let chosen = self
            .attempts
            .iter()
            .rposition(|a| matches!(&a.answer, Answer::Card(d) if d.is_valid()))
            .or_else(|| {
                self.attempts
                    .iter()
                    .rposition(|a| matches!(a.answer, Answer::Card(_)))
            });
        let single_plain = self.attempts.len() == 1
            && chosen.is_some()
            && matches!(
                outcome,
                Outcome::Accepted | Outcome::CapabilityMismatch | Outcome::AttemptsExhausted
            );
        let summary = self.attempts_value();
        let chosen_source = chosen
            .and_then(|i| self.attempts.get(i))
            .map_or(Value::Null, |a| Value::String(a.source.clone()));
        let mut decision = match chosen.map(|i| self.attempts.swap_remove(i).answer) {
            Some(Answer::Card(d)) => *d,
            _ => {
                let sources: Vec<String> = self
                    .attempts
                    .iter()
                    .map(|a| match &a.answer {
                        Answer::Failed(why) => format!("{}: {why}", a.source),
                        Answer::Card(_) => a.source.clone(),
                    })
                    .collect();
                Decision::malformed(
                    ReasonCode::SourceUnavailable,
                    "",
                    if sources.is_empty() {
                        "no source was tried".to_string()
                    } else {
                        format!("no source served a card ({})", sources.join("; "))
                    },
                )
            }
        };
        if single_plain {
            return decision;
        }
        let tried = self.attempts.len() + usize::from(chosen.is_some());
        let from = chosen_source.as_str().unwrap_or("no source").to_string();
        let message = match outcome {
            Outcome::Accepted => format!("accepted the card from {from} at attempt {tried}"),
            Outcome::CapabilityMismatch => format!(
                "{from} served a fresh card that lacks a required capability; no other source was asked"
            ),
            Outcome::AttemptsExhausted => format!(
                "no valid card in {tried} attempts (max_attempts {})",
                self.limits.max_attempts
            ),
            Outcome::DeadlinePassed => format!(
                "no valid card before the deadline of {} ms",
                self.limits.deadline_ms
            ),
            Outcome::OverBudget => "the re-resolution budget is exhausted: failing closed without \
                                    asking another source"
                .to_string(),
            Outcome::SourcesExhausted => {
                format!("no valid card from any of the {tried} sources tried")
            }
        };
        decision.resolution = Some(Value::Object(vec![
            ("attempts".into(), summary),
            ("message".into(), Value::String(message)),
            ("outcome".into(), Value::String(outcome.as_str().into())),
            ("source".into(), chosen_source),
        ]));
        decision
    }
}

/// One attempt in the decision JSON.
fn attempt_value(a: &Attempt) -> Value {
    let s = |v: &str| Value::String(v.to_string());
    let mut m = vec![
        ("source".to_string(), s(&a.source)),
        ("elapsed_ms".to_string(), Value::Number(a.elapsed_ms as f64)),
    ];
    match &a.answer {
        Answer::Card(d) => {
            m.push((
                "verdict".into(),
                s(if d.is_valid() { "valid" } else { "rejected" }),
            ));
            m.push(("status".into(), Value::Number(f64::from(d.status()))));
            m.push((
                "error_class".into(),
                d.error_class().map_or(Value::Null, |c| s(c.as_str())),
            ));
            m.push((
                "staleness_ms".into(),
                d.staleness_ms()
                    .map_or(Value::Null, |n| Value::Number(n as f64)),
            ));
            m.push((
                "card_hash".into(),
                d.card_hash().map_or(Value::Null, |h| s(h.as_str())),
            ));
            m.push((
                "reasons".into(),
                Value::Array(
                    d.reasons()
                        .iter()
                        .map(|r| {
                            Value::Object(vec![
                                ("code".into(), s(r.code.as_str())),
                                ("message".into(), s(&r.message)),
                            ])
                        })
                        .collect(),
                ),
            ));
        }
        Answer::Failed(why) => {
            m.push(("verdict".into(), s("failed")));
            m.push(("error".into(), s(why)));
        }
    }
    Value::Object(m)
}
