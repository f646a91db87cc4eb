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
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// The card is valid: use it.
    Accept,
    /// Fetch from the next source.
    TryNext,
    /// Stop: [`Resolution::finish`] gives the failure.
    Stop,
}

/// Why a resolution ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
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
    /// The URL that answered, when redirects led elsewhere than `source`.
    pub final_url: Option<String>,
    /// What came back.
    pub answer: Answer,
    /// Host milliseconds since the resolution started.
    pub elapsed_ms: u64,
}

/// Most redirects a host follows for one source; a further redirect makes the source a failed
/// one ([`redirect_refusal`]).
pub const MAX_REDIRECTS: usize = 5;

/// The statuses a host follows as a redirect (with a `Location`): the Fetch standard's
/// "redirect status", which @a2a-js/sdk's fetch and the npm package follow. Any other 3xx (`300`,
/// `304`, `305`, a `399`) is an answer, a non-2xx one: a failed source. `cardgate resolve` used
/// to follow every 3xx with a `Location` but `304` (ureq's rule), so a `300` led it to a card
/// that neither SDK's resolver reads (fetch and httpx both stop at a `300`).
pub const REDIRECT_STATUSES: [u16; 5] = [301, 302, 303, 307, 308];

/// Whether a host follows an answer with `status` as a redirect ([`REDIRECT_STATUSES`]).
pub fn follows_redirect(status: u16) -> bool {
    REDIRECT_STATUSES.contains(&status)
}

/// Why a source's 2xx answer carries no card to judge, or `None` when its body is the card.
///
/// - `204 No Content` and `205 Reset Content` are statuses without content (RFC 9110 section
///   15.3.5 and 15.3.6; the Fetch standard's "null body status"): fetch, and so @a2a-js/sdk's
///   resolver and the npm package, reads no body, whatever the server sent, while a client that
///   honours a `Content-Length` (ureq, httpx on a 205) reads the bytes after it. Judging those
///   bytes would pass a card that fetch never shows its caller.
/// - `206 Partial Content` carries part of a representation, never a whole card (no range was
///   asked for).
///
/// Both hosts that fetch by URL (`cardgate resolve`, the npm package) record such an answer as
/// a failed source, with this text.
pub fn status_without_card(status: u16) -> Option<&'static str> {
    match status {
        204 => Some("HTTP 204 No Content: a status without content, not a card"),
        205 => Some("HTTP 205 Reset Content: a status without content, not a card"),
        206 => Some("HTTP 206 Partial Content: not a whole card"),
        _ => None,
    }
}

/// Whether `text` is an HTTP field name: an RFC 9110 token (letters, digits and
/// ``!#$%&'*+-.^_`|~``), as the hosts that fetch cards ask of a header name they are given (the
/// Envoy filter's `watermark` names, the CLI's `--header`; the npm package's `TOKEN`).
pub fn is_header_name(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Whether `url` is an `https:` URL (the scheme in any ASCII case).
pub fn is_https(url: &str) -> bool {
    url.get(..6)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https:"))
}

/// Whether a host may follow a redirect to `to` met while fetching the source `asked`, after
/// `followed` redirects: `None` to follow it, or why the source failed.
///
/// - More than [`MAX_REDIRECTS`]: failed (checked first, whatever the target).
/// - A source asked over `https:` must be answered over `https:`: a redirect from it (at any
///   hop) to anything else is a downgrade. The card and the watermark headers of such an answer
///   cross the network in the clear, where anyone on the path can forge `x-replica-lag-ms: 0`
///   or the card, so the conditions they carry cannot be verified. `http:` to `https:` and
///   same-scheme redirects are followed; a source asked over `http:` was never protected.
pub fn redirect_refusal(asked: &str, to: &str, followed: usize) -> Option<String> {
    if followed >= MAX_REDIRECTS {
        return Some(too_many_redirects(asked));
    }
    if is_https(asked) && !is_https(to) {
        return Some(format!(
            "{asked} redirected to {to}: a source asked over https must answer over https (the \
             card and its watermark headers would cross the network unprotected, where anyone \
             on the path can forge them)"
        ));
    }
    None
}

/// Why a source that redirected more than [`MAX_REDIRECTS`] times failed.
pub fn too_many_redirects(asked: &str) -> String {
    format!("{asked} redirected more than {MAX_REDIRECTS} times (the limit)")
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
    pub fn attempt_summaries(&self) -> Vec<ResolutionAttempt> {
        self.attempts.iter().map(ResolutionAttempt::of).collect()
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
        self.record_from(source, None, answer, now_ms)
    }

    /// [`Resolution::record`] for an answer that came from `final_url` after redirects (`None`,
    /// or the same text as `source`: no redirect). The attempt records it as `final_url`.
    pub fn record_from(
        &mut self,
        source: &str,
        final_url: Option<&str>,
        answer: Answer,
        now_ms: u64,
    ) -> Step {
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
            final_url: final_url.filter(|u| *u != source).map(str::to_owned),
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
        // A redirected attempt is something to report: where the card came from.
        let single_plain = self.attempts.len() == 1
            && chosen.is_some()
            && self.attempts.iter().all(|a| a.final_url.is_none())
            && matches!(
                outcome,
                Outcome::Accepted | Outcome::CapabilityMismatch | Outcome::AttemptsExhausted
            );
        let attempts = self.attempt_summaries();
        let chosen_attempt = chosen.and_then(|i| self.attempts.get(i));
        let source = chosen_attempt.map(|a| a.source.clone());
        let from = match chosen_attempt {
            Some(Attempt {
                source,
                final_url: Some(to),
                ..
            }) => format!("{source} (redirected to {to})"),
            Some(a) => a.source.clone(),
            None => "no source".to_owned(),
        };
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
        decision.resolution = Some(Box::new(ResolutionSummary {
            attempts,
            message,
            outcome,
            source,
        }));
        decision
    }
}

// The wire form. Members are declared in RFC 8785 order, so the canonical writer never moves
// them; the TypeScript declarations are generated from these types.

/// A decision's `resolution` member (DESIGN.md "Re-resolution"): present when more than one
/// source was asked, or a bound ended the resolution.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify), tsify(missing_as_null))]
pub struct ResolutionSummary {
    /// Every attempt, in the order made.
    pub attempts: Vec<ResolutionAttempt>,
    /// A sentence: how the resolution ended, with its figures.
    pub message: String,
    /// Why it ended.
    pub outcome: Outcome,
    /// The source whose decision this is; `null` for `source_unavailable` (no source served a
    /// card).
    pub source: Option<String>,
}

/// One attempt on the wire: a source that served a card the gate judged, or one that served
/// none (timeout, refused connection, HTTP error).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(untagged)]
pub enum ResolutionAttempt {
    /// The source served a card.
    Card(CardAttempt),
    /// The source served no card.
    Failed(FailedAttempt),
}

/// An attempt whose source served a card: the gate's decision in brief.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify), tsify(missing_as_null))]
pub struct CardAttempt {
    /// `sha256:<hex>`, when the body parsed.
    pub card_hash: Option<String>,
    /// ms since the resolution started, when the answer was recorded.
    pub elapsed_ms: u64,
    /// The decision's error class; `null` when valid.
    pub error_class: Option<ErrorClass>,
    /// The URL that served the card when redirects led away from `source`; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "js", tsify(optional))]
    pub final_url: Option<String>,
    /// The decision's reasons, code and message only.
    pub reasons: Vec<AttemptReason>,
    /// The card URL (or cluster, or label) asked.
    pub source: String,
    /// The staleness figure established, if any.
    pub staleness_ms: Option<u64>,
    /// The decision's status.
    pub status: u16,
    /// `"valid"` or `"rejected"`.
    pub verdict: AttemptVerdict,
}

/// The verdict of an attempt that served a card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum AttemptVerdict {
    /// The card was valid.
    Valid,
    /// The card was rejected.
    Rejected,
}

/// One reason of an attempt's decision.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
pub struct AttemptReason {
    /// The stable code.
    pub code: ReasonCode,
    /// The sentence with the figures.
    pub message: String,
}

/// An attempt whose source served no card.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
pub struct FailedAttempt {
    /// ms since the resolution started, when the failure was recorded.
    pub elapsed_ms: u64,
    /// Why: a timeout, a refused connection, an HTTP error status, a refused redirect.
    pub error: String,
    /// The URL that answered (an error status) when redirects led away from `source`; absent
    /// otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "js", tsify(optional))]
    pub final_url: Option<String>,
    /// The card URL (or cluster, or label) asked.
    pub source: String,
    /// `"failed"`.
    #[cfg_attr(feature = "js", tsify(type = "\"failed\""))]
    pub verdict: Failed,
}

crate::decision::wire_constant!(
    /// `"failed"`: the `verdict` of a [`FailedAttempt`].
    Failed,
    serialize_str("failed")
);

impl ResolutionAttempt {
    /// The wire form of one recorded attempt.
    fn of(a: &Attempt) -> ResolutionAttempt {
        let source = a.source.clone();
        let final_url = a.final_url.clone();
        let elapsed_ms = a.elapsed_ms;
        match &a.answer {
            Answer::Card(d) => ResolutionAttempt::Card(CardAttempt {
                card_hash: d.card_hash().map(|h| h.as_str().to_owned()),
                elapsed_ms,
                error_class: d.error_class(),
                final_url,
                reasons: d
                    .reasons()
                    .iter()
                    .map(|r| AttemptReason {
                        code: r.code,
                        message: r.message.clone(),
                    })
                    .collect(),
                source,
                staleness_ms: d.staleness_ms(),
                status: d.status(),
                verdict: if d.is_valid() {
                    AttemptVerdict::Valid
                } else {
                    AttemptVerdict::Rejected
                },
            }),
            Answer::Failed(why) => ResolutionAttempt::Failed(FailedAttempt {
                elapsed_ms,
                error: why.clone(),
                final_url,
                source,
                verdict: Failed,
            }),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn redirects_from_https_stay_on_https() {
        let asked = "https://registry.example/card";
        assert_eq!(
            redirect_refusal(asked, "https://other.example/card", 0),
            None
        );
        assert_eq!(redirect_refusal("http://a/card", "https://a/card", 0), None);
        assert_eq!(redirect_refusal("http://a/card", "http://b/card", 4), None);
        // An http source that went through https may come back: it was never protected.
        assert_eq!(redirect_refusal("http://a/card", "http://c/card", 1), None);
        for to in [
            "http://registry.example/card",
            "HTTP://x/",
            "ftp://x/card",
            "x",
        ] {
            let why = redirect_refusal(asked, to, 0).expect("a downgrade is refused");
            assert!(
                why.starts_with(&format!("{asked} redirected to {to}: ")),
                "{why}"
            );
        }
        // At any hop, and the scheme in any case.
        assert!(redirect_refusal("HTTPS://a/", "http://a/", 3).is_some());
        assert_eq!(redirect_refusal("HTTPS://a/", "hTTpS://b/", 3), None);
    }

    #[test]
    fn only_fetchs_redirect_statuses_are_followed() {
        for status in [301, 302, 303, 307, 308] {
            assert!(follows_redirect(status), "{status}");
        }
        for status in [300, 304, 305, 306, 309, 399, 200, 201] {
            assert!(!follows_redirect(status), "{status}");
        }
    }

    #[test]
    fn statuses_without_a_card() {
        for status in [204, 205, 206] {
            let why = status_without_card(status).unwrap();
            assert!(why.starts_with(&format!("HTTP {status} ")), "{why}");
        }
        for status in [200, 201, 202, 203, 207, 208, 226] {
            assert_eq!(status_without_card(status), None, "{status}");
        }
    }

    #[test]
    fn redirects_are_bounded() {
        assert_eq!(
            redirect_refusal("http://a/", "http://a/", MAX_REDIRECTS - 1),
            None
        );
        let why = redirect_refusal("http://a/", "http://a/", MAX_REDIRECTS).unwrap();
        assert_eq!(why, "http://a/ redirected more than 5 times (the limit)");
        // The bound is checked first, as a client that stops at the bound does.
        assert_eq!(
            redirect_refusal("https://a/", "http://a/", MAX_REDIRECTS),
            Some(why.replace("http:", "https:"))
        );
    }

    const ONE: ResolutionLimits = ResolutionLimits {
        max_attempts: 1,
        deadline_ms: 5000,
    };

    /// A card without a watermark: stale, so one attempt ends the resolution only at
    /// `max_attempts` 1.
    fn stale() -> Decision {
        crate::evaluate(
            br#"{"name":"a","version":"1.0.0","skills":[]}"#,
            &crate::Requirement::default(),
            &crate::Observation::default(),
        )
    }

    #[test]
    fn a_redirect_is_recorded_and_reported() {
        // Without a redirect (or one back to the same URL) the single attempt is the plain decision.
        for final_url in [None, Some("http://a/card")] {
            let mut r = Resolution::new(ONE, 0);
            r.record_from(
                "http://a/card",
                final_url,
                Answer::Card(Box::new(stale())),
                1,
            );
            assert_eq!(r.finish().to_json(), stale().to_json());
        }
        let mut r = Resolution::new(ONE, 0);
        r.record_from(
            "http://a/card",
            Some("http://b/card"),
            Answer::Card(Box::new(stale())),
            1,
        );
        let json = r.finish().to_json();
        assert!(
            json.contains(
                r#""error_class":"stale_agent_card","final_url":"http://b/card","reasons""#
            ),
            "{json}"
        );
        assert!(
            json.contains(r#""message":"no valid card in 1 attempts"#),
            "{json}"
        );
        assert!(json.contains(r#""source":"http://a/card""#), "{json}");
    }

    #[test]
    fn a_failed_redirect_names_where_it_ended() {
        let mut r = Resolution::new(ResolutionLimits::default(), 0);
        r.record_from(
            "http://a/card",
            Some("http://b/card"),
            Answer::Failed("HTTP 404 Not Found".into()),
            1,
        );
        r.record(
            "http://c/card",
            Answer::Failed("connection refused".into()),
            2,
        );
        let json = r.finish().to_json();
        assert!(
            json.contains(r#"{"elapsed_ms":1,"error":"HTTP 404 Not Found","final_url":"http://b/card","source":"http://a/card","verdict":"failed"}"#),
            "{json}"
        );
        assert!(json.contains(r#"{"elapsed_ms":2,"error":"connection refused","source":"http://c/card","verdict":"failed"}"#), "{json}");
    }
}
