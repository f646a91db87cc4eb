//! From a held upstream answer to what the caller gets: evaluation through the core, then
//! either the upstream answer with verdict headers or a problem document in its place.
//!
//! | decision | enforce | observe |
//! |---|---|---|
//! | valid | card unchanged + `a2a-card-verdict: valid`, `a2a-card-hash`, `a2a-card-staleness-ms`, `a2a-card-freshness` | same |
//! | `stale_agent_card` | `503` + `Retry-After`, `application/problem+json` | card unchanged + `a2a-card-verdict: rejected`, `a2a-card-error-class`, `a2a-card-reasons` |
//! | `capability_mismatch` | `409` problem | as above |
//! | `malformed_card` | `502` problem | as above |

use crate::card_hash::CardHash;
use crate::gate::evaluate_document;
use crate::json;
use crate::reason::{ErrorClass, ReasonCode};
use crate::resolution::ResolutionSummary;
use crate::{evaluate_with, jcs, Decision, Limits, Requirement, Timestamp};

use std::rc::Rc;

use super::analysis::{AnalysisCache, Lookup};
use super::caller::CallerError;
use super::config::Mode;
use super::routes::CardRoute;
use crate::watermark_sources::{observe, ResponseFields, WatermarkSources};

/// Every response header starting with this is ours; upstream copies are removed first.
pub const VERDICT_HEADER_PREFIX: &str = "a2a-card-";
/// `valid` or `rejected`.
pub const VERDICT: &str = "a2a-card-verdict";
/// The card hash of a card that was evaluated.
pub const CARD_HASH: &str = "a2a-card-hash";
/// The staleness figure the verdict used, in ms.
pub const STALENESS_MS: &str = "a2a-card-staleness-ms";
/// How freshness was established for a valid card: `watermark` or `pinned`.
pub const FRESHNESS: &str = "a2a-card-freshness";
/// Observe mode: the error class that would have blocked the answer.
pub const ERROR_CLASS: &str = "a2a-card-error-class";
/// Observe mode: the reason codes, comma-separated.
pub const REASONS: &str = "a2a-card-reasons";
/// Re-resolution: the Envoy cluster whose card this is.
pub const CARD_SOURCE: &str = "a2a-card-source";
/// Re-resolution: how many sources were asked (the route's own upstream included).
pub const CARD_ATTEMPTS: &str = "a2a-card-attempts";

/// Response headers a valid answer loses besides those [`is_lifetime_header`] selects by their
/// suffix: they would let a cache after the gate keep the card longer than the tolerance
/// (`Expires`; `Surrogate-Control`, read by Fastly and Varnish-based CDNs; nginx's
/// `X-Accel-Expires`, which its `proxy_cache` obeys before `Cache-Control`; Akamai's
/// `Edge-Control`).
const LIFETIME_HEADERS_REMOVED: &[&str] = &[
    "expires",
    "surrogate-control",
    "x-accel-expires",
    "edge-control",
];

/// Whether a response header (any ASCII case) would give a cache after the gate a lifetime other
/// than the capped `Cache-Control`: `LIFETIME_HEADERS_REMOVED`, or a targeted cache-control
/// field (RFC 9213: `CDN-Cache-Control`, and vendors' such as `Cloudflare-CDN-Cache-Control` and
/// `Akamai-Cache-Control`, each overriding `Cache-Control` for the caches it targets).
pub fn is_lifetime_header(name: &str) -> bool {
    const TARGETED: &str = "-cache-control";
    LIFETIME_HEADERS_REMOVED
        .iter()
        .any(|h| h.eq_ignore_ascii_case(name))
        || name
            .len()
            .checked_sub(TARGETED.len())
            .and_then(|at| name.get(at..))
            .is_some_and(|tail| tail.eq_ignore_ascii_case(TARGETED))
}

/// `Cache-Control` directives a valid answer loses (replaced by capped `max-age`/`s-maxage`, or
/// letting a cache serve the card after it expires).
const LIFETIME_DIRECTIVES: &[&str] = &[
    "max-age",
    "s-maxage",
    "stale-while-revalidate",
    "stale-if-error",
    "immutable",
];

/// Request headers whose value changes the verdict: a cache after the gate must not answer one
/// caller with a verdict made for another caller's requirement.
pub const VARY: &str =
    "a2a-require-capabilities, a2a-min-card-version, a2a-card-pin, a2a-card-name, cache-control";

/// How many whole seconds a valid verdict stays true: what is left of the tolerance,
/// `floor((max_stale_ms - staleness_ms) / 1000)`. A card that passed on its pin alone
/// (`pin_mode` `replace`) has no tolerance to spend: 0, so caches after the gate revalidate.
pub fn lifetime_left_s(decision: &Decision, requirement: &Requirement) -> u64 {
    if decision.freshness() == Some(crate::FreshnessBasis::Pinned)
        && !requirement.pin_with_watermark()
    {
        return 0;
    }
    match (requirement.max_stale_ms, decision.staleness_ms()) {
        (Some(max), Some(staleness)) => max.saturating_sub(staleness) / 1000,
        _ => 0,
    }
}

/// The `Cache-Control` value for a valid answer whose upstream sent `values`: every directive
/// kept except those in `LIFETIME_DIRECTIVES`, then `max-age` (the upstream's, or `cap_s` if
/// that is smaller or there was none) and `s-maxage` (likewise, when the upstream sent one).
/// Byte slices only (not `impl AsRef<[u8]>`): one copy of it in the module (1.8 KB, issue 10).
pub fn capped_cache_control(values: &[&[u8]], cap_s: u64) -> String {
    let mut kept: Vec<String> = Vec::new();
    let mut max_age: Option<u64> = None;
    let mut s_maxage: Option<u64> = None;
    for value in values {
        let text = String::from_utf8_lossy(value);
        for directive in split_directives(&text) {
            let (name, arg) = match directive.split_once('=') {
                Some((n, a)) => (
                    n.trim_matches([' ', '\t']),
                    Some(a.trim_matches([' ', '\t', '"'])),
                ),
                None => (directive, None),
            };
            let name = name.to_ascii_lowercase();
            if name.is_empty() {
                continue;
            }
            if !LIFETIME_DIRECTIVES.contains(&name.as_str()) {
                kept.push(directive.to_owned());
                continue;
            }
            // An unreadable figure counts as 0: never longer than the cap.
            let seconds = arg.and_then(|a| a.parse::<u64>().ok()).unwrap_or(0);
            let slot = match name.as_str() {
                "max-age" => &mut max_age,
                "s-maxage" => &mut s_maxage,
                _ => continue,
            };
            *slot = Some(slot.map_or(seconds, |s| s.min(seconds)));
        }
    }
    kept.push(format!(
        "max-age={}",
        max_age.map_or(cap_s, |m| m.min(cap_s))
    ));
    if let Some(s) = s_maxage {
        kept.push(format!("s-maxage={}", s.min(cap_s)));
    }
    // A caller states its tolerance as `max-stale=N`, which to an HTTP cache also means "an
    // answer expired up to N s ago will do" (RFC 9111, 5.2.1.2): `must-revalidate` forbids that
    // (5.2.2.2), so no cache serves the verdict past the lifetime above.
    if !kept
        .iter()
        .any(|d| d.eq_ignore_ascii_case("must-revalidate"))
    {
        kept.push("must-revalidate".to_owned());
    }
    kept.join(", ")
}

/// Splits a `Cache-Control` value at commas outside quoted strings; trims each directive.
fn split_directives(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                out.push(text.get(start..i).unwrap_or(""));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(text.get(start..).unwrap_or(""));
    out.into_iter()
        .map(|d| d.trim_matches([' ', '\t']))
        .filter(|d| !d.is_empty())
        .collect()
}

/// A reply the filter sends in place of the upstream answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalReply {
    /// HTTP status.
    pub status: u16,
    /// Headers (lowercase names).
    pub headers: Vec<(&'static str, String)>,
    /// The problem document.
    pub body: String,
}

/// What happens to the upstream answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Forward it, with these headers added.
    Forward(Vec<(&'static str, String)>),
    /// Replace it.
    Replace(LocalReply),
}

/// Evaluates a complete (or over-limit) body for a route.
///
/// Without an envelope the bytes go to the core as they are. With `card_pointer`, the envelope
/// is parsed strictly (an unparsable envelope is reported exactly as an unparsable card), and
/// the card member is canonicalized (RFC 8785) and evaluated; its hash is unchanged by that.
/// `fields`: the answer's header section and the names its trailer section holds (a watermark
/// there is invalid: [`crate::watermark_sources::observe`]).
pub fn evaluate_body(
    body: &[u8],
    route: &CardRoute,
    requirement: &Requirement,
    fields: ResponseFields<'_>,
    now: Timestamp,
    limits: &Limits,
) -> Decision {
    let needs_envelope = route.card_pointer.is_some() || route.watermark_pointer.is_some();
    let headers_only = || observe(&route.watermark, None, None, fields, now);
    if !needs_envelope || body.len() > limits.max_card_bytes {
        return evaluate_with(body, requirement, &headers_only(), limits);
    }
    let envelope = match json::parse(body, limits.max_depth) {
        Ok(v) => v,
        Err(_) => return evaluate_with(body, requirement, &headers_only(), limits),
    };
    let observation = observe(
        &route.watermark,
        route.watermark_pointer.as_ref(),
        Some(&envelope),
        fields,
        now,
    );
    // The envelope is parsed once: the card is evaluated as the document it already is.
    match &route.card_pointer {
        None => evaluate_document(envelope, requirement, &observation),
        Some(ptr) => match envelope.pointer(ptr) {
            Some(card) => evaluate_document(card.clone(), requirement, &observation),
            None => Decision::malformed(
                ReasonCode::MissingField,
                ptr,
                format!("the envelope has no member {ptr} (the route's card_pointer)"),
            ),
        },
    }
}

/// [`evaluate_body`] with the per-VM analysis cache: on a route that reads the whole body as
/// the card, the body's analysis is looked up by its exact bytes (or made and kept), and only the
/// per-request checks run. Returns the lookup, or `None` where the cache does not apply (an
/// envelope route, an oversized body). The decision is the one [`evaluate_body`] makes with
/// `clock()` as its `now`; the clock is read only when the decision depends on it
/// ([`observe_lazily`], and an envelope or oversized body, which takes the long way).
pub fn evaluate_body_cached(
    body: &[u8],
    route: &CardRoute,
    requirement: &Rc<Requirement>,
    fields: ResponseFields<'_>,
    clock: &mut dyn FnMut() -> Timestamp,
    limits: &Limits,
    cache: &mut AnalysisCache,
) -> (Decision, Option<Lookup>) {
    let needs_envelope = route.card_pointer.is_some() || route.watermark_pointer.is_some();
    if needs_envelope || body.len() > limits.max_card_bytes {
        return (
            evaluate_body(body, route, requirement, fields, clock(), limits),
            None,
        );
    }
    let observation = observe_lazily(&route.watermark, fields, clock);
    let (decision, lookup) = cache.decide(body, limits, requirement, &observation);
    (decision, Some(lookup))
}

/// The observation of a route's watermark headers, reading the clock only when a watermark
/// needs one: staleness is `now` minus the time only for a `synced_at` watermark
/// ([`crate::Observation::staleness`]); a lag (`lag_ms`, `lag_s`, Consul's `LastContact`,
/// `Age`) is the staleness itself, so the decision is the same whatever `now` is, and the
/// filter saves a host call per request.
pub fn observe_lazily(
    sources: &WatermarkSources,
    fields: ResponseFields<'_>,
    clock: &mut dyn FnMut() -> Timestamp,
) -> crate::Observation {
    let mut observation = observe(sources, None, None, fields, Timestamp::from_unix_ms(0));
    observation.now = if observation.synced_at.is_some() {
        Some(clock())
    } else {
        None
    };
    observation
}

/// How the gate reads a card route's answer from its status alone, before its headers and body:
/// one reading for the registry's answer on the response path and for a cluster's answer to a
/// re-resolution, so the same answer gets the same verdict either way.
#[derive(Debug, Clone, PartialEq)]
pub enum StatusReading {
    /// A `2xx` that may carry the whole card: its encoding and body are read next.
    Card,
    /// An answer that carries no whole card to check (`204`, `205`, `206`, `304`): fails closed.
    NoWholeCard(Box<Decision>),
    /// A status a caller's HTTP client follows by itself ([`super::redirect`]).
    Redirect,
    /// Not a card (`1xx`, another `3xx`, `4xx`, `5xx`): the response path lets it pass without a
    /// verdict; a re-resolution counts it as a failed attempt.
    NotACard,
}

/// Reads a card route's answer status ([`StatusReading`]).
///
/// The statuses without a whole card are the core's list
/// ([`crate::resolution::status_without_card`]: 204, 205, 206, the same rule `cardgate resolve`
/// and the npm package apply), plus `304 Not Modified`, which only a proxy sees as an answer (a
/// fetching host asks no conditional question, so a 304 is a failed source there).
pub fn read_status(status: u16) -> StatusReading {
    let why = match crate::resolution::status_without_card(status) {
        Some(why) => why,
        None if status == 304 => "HTTP 304 Not Modified: no card in the answer",
        None if super::redirect::is_followed_redirect(status) => return StatusReading::Redirect,
        None if (200..300).contains(&status) => return StatusReading::Card,
        None => return StatusReading::NotACard,
    };
    // The conditional and range headers were removed (from the caller's request and never sent
    // on a re-resolution call), so the answer is to a question nobody asked, without a whole
    // card to check. A 205 has no content (RFC 9110 15.3.6), yet Envoy forwards a
    // Content-Length body that httpx reads and fetch drops (a null-body status): the callers
    // would read different answers.
    StatusReading::NoWholeCard(Box::new(Decision::malformed(
        ReasonCode::BodyEmpty,
        "",
        format!("the upstream answered on a card route with {why} (the gate removes conditional and range request headers, so a card route must answer with the whole card)"),
    )))
}

/// The decision refusing a redirect (`status`) on a card route: `why` says where it leads.
pub fn redirect_refused(status: u16, why: &str) -> Decision {
    Decision::malformed(
        ReasonCode::BodyEmpty,
        "",
        format!("the upstream answered {status} on a card route: {why}, so a caller following it would get a card the gate never checked under this route's rule (no card to check)"),
    )
}

/// The decision refusing a 2xx answer whose body the caller would read as something other than
/// the UTF-8 identity bytes the gate checks: a `Content-Encoding` other than `identity` (every
/// value of every such header), or a `Content-Type` `charset` other than UTF-8.
pub fn unreadable_encoding(header: &dyn Fn(&str) -> Vec<Vec<u8>>) -> Option<Decision> {
    if let Some(decision) = Decision::content_encoding(&header("content-encoding")) {
        return Some(decision);
    }
    foreign_charset(&header("content-type"))
        .map(|why| Decision::malformed(ReasonCode::BodyEncoded, "", why))
}

/// The body length the answer declares in its one `Content-Length` field, if that is a plain
/// decimal count. Envoy's HTTP codecs refuse an upstream answer whose `Content-Length` fields
/// disagree or are not numbers before the filter sees it; anything else here reads as "not
/// declared", and the body's own size decides.
pub fn declared_length(header: &dyn Fn(&str) -> Vec<Vec<u8>>) -> Option<usize> {
    let values = header("content-length");
    let [value] = values.as_slice() else {
        return None;
    };
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // A count past usize is past any limit too.
    Some(
        std::str::from_utf8(value)
            .ok()?
            .parse()
            .unwrap_or(usize::MAX),
    )
}

/// Fields that frame the message: RFC 9112 7.1.2 and RFC 9110 6.5.1 keep them out of trailers,
/// yet Node's fetch (`@a2a-js/sdk`) checks the body against a `Content-Length` trailer and fails
/// on a card that httpx (`a2a-sdk`) reads.
const FRAMING_FIELDS: &[&str] = &["content-length", "transfer-encoding", "content-range"];

/// The decision refusing a card answer for its trailer section: what [`unreadable_encoding`]
/// refuses in the headers, or a framing field (`FRAMING_FIELDS`).
pub fn unreadable_trailers(trailer: &dyn Fn(&str) -> Vec<Vec<u8>>) -> Option<Decision> {
    unreadable_encoding(trailer).or_else(|| {
        FRAMING_FIELDS
            .iter()
            .find(|name| !trailer(name).is_empty())
            .map(|name| {
                Decision::malformed(
                    ReasonCode::BodyEncoded,
                    "",
                    format!(
                        "the answer's trailers carry {name}, a field that frames the message and may not be sent there: callers' HTTP clients would read the body differently (fetch checks it, httpx does not)"
                    ),
                )
            })
    })
}

/// Trailers a checked card answer loses: a cache lifetime there ([`is_lifetime_header`],
/// `Cache-Control`) would stand beside the capped one the gate writes in the headers.
pub fn is_trailer_removed(name: &str) -> bool {
    name.eq_ignore_ascii_case("cache-control") || is_lifetime_header(name)
}

/// Why a `Content-Type` makes the caller read the body as something other than UTF-8, if it
/// does: any `charset` parameter other than `utf-8` (`utf8` too, ASCII case aside, quoted or not)
/// in any of its values.
fn foreign_charset(content_types: &[Vec<u8>]) -> Option<String> {
    for value in content_types {
        // A parameter has a '=': without one (`application/json`) there is no charset.
        if !value.contains(&b'=') {
            continue;
        }
        let text = String::from_utf8_lossy(value);
        // Envoy joins repeated headers with ','; parameters follow ';'.
        for param in text.split([',', ';']) {
            let Some((name, charset)) = param.split_once('=') else {
                continue;
            };
            if !name
                .trim_matches([' ', '\t'])
                .eq_ignore_ascii_case("charset")
            {
                continue;
            }
            let charset = charset.trim_matches([' ', '\t']);
            let bare = charset
                .strip_prefix('"')
                .and_then(|c| c.strip_suffix('"'))
                .unwrap_or(charset);
            if !bare.eq_ignore_ascii_case("utf-8") && !bare.eq_ignore_ascii_case("utf8") {
                return Some(format!(
                    "the body's Content-Type says charset={charset}: the gate reads UTF-8 cards only, and a caller would decode these bytes as something else than the card it checked"
                ));
            }
        }
    }
    None
}

/// What to do with the upstream answer, given the decision.
pub fn outcome(decision: &Decision, mode: Mode, retry_after_s: u32) -> Outcome {
    let mut headers = Vec::new();
    if let Some(hash) = decision.card_hash() {
        headers.push((CARD_HASH, hash.to_string()));
    }
    if let Some(ms) = decision.staleness_ms() {
        headers.push((STALENESS_MS, ms.to_string()));
    }
    let Some(class) = decision.error_class() else {
        if let Some(basis) = decision.freshness() {
            headers.push((FRESHNESS, basis.as_str().to_owned()));
        }
        headers.insert(0, (VERDICT, "valid".to_owned()));
        return Outcome::Forward(headers);
    };
    headers.insert(0, (VERDICT, "rejected".to_owned()));
    if mode == Mode::Observe {
        headers.push((ERROR_CLASS, class.as_str().to_owned()));
        headers.push((REASONS, reason_codes(decision).join(",")));
        return Outcome::Forward(headers);
    }
    headers.push(("content-type", "application/problem+json".to_owned()));
    headers.push(("cache-control", "no-store".to_owned()));
    if decision.status() == 503 {
        headers.push(("retry-after", retry_after_s.to_string()));
    }
    Outcome::Replace(LocalReply {
        status: decision.status(),
        headers,
        body: decision.to_json(),
    })
}

/// The answer after a re-resolution (enforce mode). A valid final decision serves the accepted
/// card: its status (`200`, or the `2xx` its source answered), its exact bytes and `Content-Type`, the verdict headers, its `Cache-Control`
/// capped to what is left of the tolerance, `Vary`, [`CARD_SOURCE`] and [`CARD_ATTEMPTS`].
/// Otherwise the problem document (the core's final decision, listing every attempt) with
/// [`CARD_ATTEMPTS`].
pub fn resolved_reply(
    decision: &Decision,
    accepted: Option<(&str, &super::reresolve::ServedCard)>,
    requirement: &Requirement,
    attempts: usize,
    retry_after_s: u32,
) -> LocalReply {
    if let (true, Some((source, card)), Outcome::Forward(verdict)) = (
        decision.is_valid(),
        accepted,
        outcome(decision, Mode::Enforce, retry_after_s),
    ) {
        let mut headers = vec![(
            "content-type",
            card.content_type
                .clone()
                .unwrap_or_else(|| "application/json".to_owned()),
        )];
        headers.extend(verdict);
        let upstream: Vec<&[u8]> = card.cache_control.iter().map(Vec::as_slice).collect();
        headers.push((
            "cache-control",
            capped_cache_control(&upstream, lifetime_left_s(decision, requirement)),
        ));
        headers.push(("vary", VARY.to_owned()));
        // The source's own `Vary` (the request headers that chose this card) stays, as on an
        // upstream's answer the gate forwards; a value that is not text becomes `*`.
        headers.extend(card.vary.iter().map(|v| {
            let v = std::str::from_utf8(v).map_or_else(|_| "*".to_owned(), str::to_owned);
            ("vary", v)
        }));
        headers.push((CARD_SOURCE, source.to_owned()));
        headers.push((CARD_ATTEMPTS, attempts.to_string()));
        return LocalReply {
            status: card.status,
            headers,
            body: String::from_utf8_lossy(&card.body).into_owned(),
        };
    }
    let mut reply = match outcome(decision, Mode::Enforce, retry_after_s) {
        Outcome::Replace(reply) => reply,
        // A valid decision without the accepted card's bytes cannot be served: fail closed.
        Outcome::Forward(_) => LocalReply {
            status: 502,
            headers: vec![
                ("content-type", "application/problem+json".to_owned()),
                ("cache-control", "no-store".to_owned()),
            ],
            body: Decision::malformed(
                ReasonCode::SourceUnavailable,
                "",
                "the accepted card's bytes were not kept".to_owned(),
            )
            .to_json(),
        },
    };
    reply.headers.push((CARD_ATTEMPTS, attempts.to_string()));
    reply
}

/// A problem document (RFC 9457) the filter writes itself, members in RFC 8785 order.
#[derive(serde::Serialize)]
struct Problem<'a> {
    detail: String,
    /// The caller header refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    header: Option<&'a str>,
    status: u16,
    title: &'static str,
    #[serde(rename = "type")]
    problem_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<&'static str>,
}

impl Problem<'_> {
    /// The local reply carrying it.
    fn reply(&self) -> LocalReply {
        LocalReply {
            status: self.status,
            headers: vec![
                ("content-type", "application/problem+json".to_owned()),
                ("cache-control", "no-store".to_owned()),
            ],
            // Cannot fail: every member name is a string, and nothing is bytes.
            body: jcs::to_string(self).unwrap_or_default(),
        }
    }
}

/// The `400` answer to a caller header the gate cannot use (RFC 9457 problem).
pub fn caller_refused(err: &CallerError) -> LocalReply {
    Problem {
        detail: format!("{}: {}", err.header, err.message),
        header: Some(err.header),
        status: 400,
        title: "Invalid Caller Requirement",
        problem_type: "urn:cardgate:problem:invalid_caller_requirement",
        verdict: Some("refused"),
    }
    .reply()
}

/// The answer when the host does not hand over a whole header map (`which`: `"request"`,
/// `"response"` or `"response trailer"`): never seen from Envoy, and without it the filter cannot check anything, so it
/// fails closed with a 502 problem.
pub fn headers_unreadable(which: &'static str) -> LocalReply {
    Problem {
        detail: format!(
            "the proxy did not hand the gate the whole {which} header map, so nothing could be checked"
        ),
        header: None,
        status: 502,
        title: "Headers Unreadable",
        problem_type: "urn:cardgate:problem:headers_unreadable",
        verdict: None,
    }
    .reply()
}

/// One structured log line for a rejection: agent, reason codes, staleness, hash.
pub fn rejection_log(
    decision: &Decision,
    rule_agent: Option<&str>,
    path: &str,
    mode: Mode,
) -> String {
    /// The line's members, in RFC 8785 order.
    #[derive(serde::Serialize)]
    struct Line<'a> {
        agent: Option<&'a str>,
        card_hash: Option<&'a str>,
        error_class: Option<ErrorClass>,
        event: &'static str,
        missing_capabilities: &'a [String],
        mode: &'static str,
        path: &'a str,
        reasons: Vec<ReasonCode>,
        rule: Option<&'a str>,
        staleness_ms: Option<u64>,
        status: u16,
    }
    let line = Line {
        agent: decision.agent(),
        card_hash: decision.card_hash().map(CardHash::as_str),
        error_class: decision.error_class(),
        event: "cardgate.rejected",
        missing_capabilities: decision.missing_capabilities(),
        mode: mode.as_str(),
        path,
        reasons: decision.reasons().iter().map(|r| r.code).collect(),
        rule: rule_agent,
        staleness_ms: decision.staleness_ms(),
        status: decision.status(),
    };
    // Cannot fail: every member name is a string, and nothing is bytes.
    jcs::to_string(&line).unwrap_or_default()
}

/// One structured log line for a re-resolution: the request, the rule and the core's
/// `resolution` member (every attempt, the outcome, the source served).
pub fn resolution_log(
    resolution: &ResolutionSummary,
    rule_agent: Option<&str>,
    path: &str,
) -> String {
    /// The line's members, in RFC 8785 order.
    #[derive(serde::Serialize)]
    struct Line<'a> {
        event: &'static str,
        path: &'a str,
        resolution: &'a ResolutionSummary,
        rule: Option<&'a str>,
    }
    let line = Line {
        event: "cardgate.re_resolved",
        path,
        resolution,
        rule: rule_agent,
    };
    // Cannot fail: every member name is a string, and nothing is bytes.
    jcs::to_string(&line).unwrap_or_default()
}

/// The decision's reason codes, in order.
pub fn reason_codes(decision: &Decision) -> Vec<&'static str> {
    decision.reasons().iter().map(|r| r.code.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envoy::routes::PathPattern;
    use crate::json::Value;
    use crate::watermark_sources::{PointerUnit, WatermarkSources};

    const CARD: &str =
        r#"{"name":"w","version":"2","capabilities":{},"skills":[{"id":"task.execute.v2"}]}"#;

    fn route(card_pointer: Option<&str>, wm: Option<(&str, PointerUnit)>) -> CardRoute {
        CardRoute {
            pattern: PathPattern::WellKnown,
            agent: None,
            card_pointer: card_pointer.map(str::to_owned),
            watermark: WatermarkSources::conventional(),
            watermark_pointer: wm.map(|(p, u)| (p.to_owned(), u)),
        }
    }

    #[test]
    fn declared_length_reads_one_plain_decimal_count() {
        let read = |values: &[&str]| {
            let values: Vec<Vec<u8>> = values.iter().map(|v| v.as_bytes().to_vec()).collect();
            declared_length(&move |name| {
                assert_eq!(name, "content-length");
                values.clone()
            })
        };
        assert_eq!(read(&["65537"]), Some(65537));
        assert_eq!(read(&["0"]), Some(0));
        assert_eq!(read(&["99999999999999999999999"]), Some(usize::MAX));
        for undeclared in [
            &[][..],
            &[""],
            &["+5"],
            &["5 "],
            &["0x10"],
            &["-1"],
            &["5", "5"],
        ] {
            assert_eq!(read(undeclared), None, "{undeclared:?}");
        }
    }

    /// Every status gets the reading the fetching hosts give it: no whole card exactly where the
    /// core says so (204, 205, 206) plus 304; the core's redirects; every other 2xx a card.
    #[test]
    fn statuses_read_as_the_core_reads_them() {
        for status in 100..600u16 {
            let reading = read_status(status);
            let expected =
                if crate::resolution::status_without_card(status).is_some() || status == 304 {
                    "none"
                } else if crate::resolution::follows_redirect(status) {
                    "redirect"
                } else if (200..300).contains(&status) {
                    "card"
                } else {
                    "other"
                };
            let got = match &reading {
                StatusReading::NoWholeCard(d) => {
                    assert_eq!(d.reasons()[0].code, ReasonCode::BodyEmpty, "{status}");
                    assert!(d.detail().contains(&status.to_string()), "{status}");
                    "none"
                }
                StatusReading::Redirect => "redirect",
                StatusReading::Card => "card",
                StatusReading::NotACard => "other",
            };
            assert_eq!(got, expected, "{status}");
        }
    }

    fn lag(ms: &'static str) -> impl Fn(&str) -> Vec<Vec<u8>> {
        move |n: &str| {
            if n == "x-replica-lag-ms" {
                vec![ms.as_bytes().to_vec()]
            } else {
                Vec::new()
            }
        }
    }

    /// The cached path reads the clock only for a `synced_at` watermark, and decides exactly as
    /// the uncached path does with that clock as its `now`.
    /// The rejection log line and the caller's 400 problem carry exactly these members, as a
    /// JSON tree built member by member says (the derived types write the same bytes).
    /// The re-resolution log line: the event, the request path, the rule and the core's
    /// resolution member, in RFC 8785 order (what `make demo` reads back).
    #[test]
    fn the_re_resolution_log_line_has_its_members() {
        let summary = crate::resolution::ResolutionSummary {
            attempts: Vec::new(),
            message: "no source left".into(),
            outcome: crate::resolution::Outcome::SourcesExhausted,
            source: None,
        };
        let line = resolution_log(&summary, Some("w"), "/agents/w/card");
        let parsed = crate::json::parse(line.as_bytes(), 8).unwrap();
        let text = |pointer: &str| parsed.pointer(pointer).and_then(Value::as_str);
        assert_eq!(text("/event"), Some("cardgate.re_resolved"));
        assert_eq!(text("/path"), Some("/agents/w/card"));
        assert_eq!(text("/rule"), Some("w"));
        assert_eq!(text("/resolution/message"), Some("no source left"));
        assert_eq!(text("/resolution/outcome"), Some("sources_exhausted"));
        assert_eq!(crate::jcs::canonicalize(&parsed), line);
        let unruled = resolution_log(&summary, None, "/p");
        assert!(unruled.contains(r#""rule":null"#), "{unruled}");
    }

    #[test]
    fn the_log_line_and_the_400_problem_have_their_members() {
        let req =
            Requirement::from_json(r#"{"max_stale":"10s","require":["task.cancel"]}"#).unwrap();
        let decision = evaluate_with(
            CARD.as_bytes(),
            &req,
            &crate::Observation::from_json(r#"{"lag_ms":"40000"}"#).unwrap(),
            &Limits::default(),
        );
        let s = |v: &str| Value::String(v.to_owned());
        let expected = Value::Object(vec![
            ("event".into(), s("cardgate.rejected")),
            ("mode".into(), s("observe")),
            ("path".into(), s("/a/.well-known/agent-card.json")),
            ("rule".into(), Value::Null),
            ("agent".into(), s("w")),
            ("status".into(), Value::Number(503.0)),
            ("error_class".into(), s("stale_agent_card")),
            (
                "reasons".into(),
                Value::Array(vec![s("watermark_exceeded"), s("capabilities_missing")]),
            ),
            (
                "missing_capabilities".into(),
                Value::Array(vec![s("task.cancel")]),
            ),
            ("staleness_ms".into(), Value::Number(40000.0)),
            (
                "card_hash".into(),
                s(decision.card_hash().unwrap().as_str()),
            ),
        ]);
        let line = rejection_log(
            &decision,
            None,
            "/a/.well-known/agent-card.json",
            Mode::Observe,
        );
        assert_eq!(line, jcs::canonicalize(&expected));
        let refused = caller_refused(&CallerError {
            header: "a2a-card-pin",
            message: "is not sha256:<64 hex>".into(),
        });
        let expected = Value::Object(vec![
            (
                "type".into(),
                s("urn:cardgate:problem:invalid_caller_requirement"),
            ),
            ("title".into(), s("Invalid Caller Requirement")),
            ("status".into(), Value::Number(400.0)),
            ("detail".into(), s("a2a-card-pin: is not sha256:<64 hex>")),
            ("verdict".into(), s("refused")),
            ("header".into(), s("a2a-card-pin")),
        ]);
        assert_eq!(refused.status, 400);
        assert_eq!(refused.body, jcs::canonicalize(&expected));
    }

    #[test]
    fn an_unreadable_header_map_is_a_502_problem() {
        for which in ["request", "response"] {
            let reply = headers_unreadable(which);
            assert_eq!(reply.status, 502);
            let body = json::parse(reply.body.as_bytes(), 8).unwrap();
            assert_eq!(
                body.get("type").and_then(Value::as_str),
                Some("urn:cardgate:problem:headers_unreadable")
            );
            assert_eq!(body.get("status").and_then(Value::as_f64), Some(502.0));
            assert!(body
                .get("detail")
                .and_then(Value::as_str)
                .is_some_and(|d| d.contains(which)));
            assert_eq!(jcs::canonicalize(&body), reply.body, "canonical");
        }
    }

    #[test]
    fn the_clock_is_read_only_when_a_watermark_needs_it() {
        let req =
            Requirement::from_json(r#"{"max_stale":"10s","require":["task.execute.v2"]}"#).unwrap();
        let req = Rc::new(req);
        let now = Timestamp::parse_rfc3339("2026-11-09T12:00:40Z").unwrap();
        let headers = |pairs: &'static [(&'static str, &'static str)]| {
            move |n: &str| -> Vec<Vec<u8>> {
                pairs
                    .iter()
                    .filter(|(k, _)| *k == n)
                    .map(|(_, v)| v.as_bytes().to_vec())
                    .collect()
            }
        };
        let cases: [(&[(&str, &str)], usize); 7] = [
            (&[("x-replica-lag-ms", "500")], 0),
            (&[("x-replica-lag-ms", "40000")], 0),
            (&[("x-replica-lag-s", "x")], 0),
            (&[], 0),
            (&[("x-replica-synced-at", "2026-11-09T12:00:35Z")], 1),
            (&[("x-replica-synced-at", "2026-11-09T12:00:20Z")], 1),
            (
                &[
                    ("x-replica-lag-ms", "500"),
                    ("x-replica-synced-at", "2026-11-09T12:00:39Z"),
                ],
                1,
            ),
        ];
        let mut cache = AnalysisCache::default();
        for (pairs, reads) in cases {
            let header = headers(pairs);
            let expected = evaluate_body(
                CARD.as_bytes(),
                &route(None, None),
                &req,
                ResponseFields::headers(&header),
                now,
                &Limits::default(),
            );
            // Twice: a miss, then a hit on the kept analysis.
            for _ in 0..2 {
                let mut read = 0;
                let mut clock = || {
                    read += 1;
                    now
                };
                let (d, lookup) = evaluate_body_cached(
                    CARD.as_bytes(),
                    &route(None, None),
                    &req,
                    ResponseFields::headers(&header),
                    &mut clock,
                    &Limits::default(),
                    &mut cache,
                );
                assert!(lookup.is_some());
                assert_eq!(read, reads, "{pairs:?}");
                assert_eq!(d.to_json(), expected.to_json(), "{pairs:?}");
            }
        }
        // An envelope route takes the long way, with the clock.
        let mut read = 0;
        let mut clock = || {
            read += 1;
            now
        };
        let body = format!(r#"{{"card":{CARD}}}"#);
        let (_, lookup) = evaluate_body_cached(
            body.as_bytes(),
            &route(Some("/card"), None),
            &req,
            ResponseFields::headers(&headers(&[("x-replica-lag-ms", "500")])),
            &mut clock,
            &Limits::default(),
            &mut cache,
        );
        assert_eq!((lookup, read), (None, 1));
        // A card of the size limit is looked up; one byte over takes the long way.
        for (max_card_bytes, kept) in [(CARD.len(), true), (CARD.len() - 1, false)] {
            let limits = Limits {
                max_card_bytes,
                ..Limits::default()
            };
            let (_, lookup) = evaluate_body_cached(
                CARD.as_bytes(),
                &route(None, None),
                &req,
                ResponseFields::headers(&headers(&[("x-replica-lag-ms", "500")])),
                &mut || now,
                &limits,
                &mut cache,
            );
            assert_eq!(lookup.is_some(), kept, "{max_card_bytes}");
        }
    }

    #[test]
    fn stale_card_becomes_503_with_retry_after() {
        let req =
            Requirement::from_json(r#"{"max_stale":"10s","require":["task.execute.v3"]}"#).unwrap();
        let d = evaluate_body(
            CARD.as_bytes(),
            &route(None, None),
            &req,
            ResponseFields::headers(&lag("40000")),
            Timestamp::from_unix_ms(0),
            &Limits::default(),
        );
        let Outcome::Replace(reply) = outcome(&d, Mode::Enforce, 7) else {
            panic!("not replaced")
        };
        assert_eq!(reply.status, 503);
        assert!(reply.headers.contains(&("retry-after", "7".to_owned())));
        assert!(reply.body.contains("\"watermark_exceeded\""));
        let Outcome::Forward(h) = outcome(&d, Mode::Observe, 7) else {
            panic!("observe blocked")
        };
        assert!(h.contains(&(
            REASONS,
            "watermark_exceeded,capabilities_missing".to_owned()
        )));
    }

    #[test]
    fn envelope_card_and_watermark() {
        let body = format!(r#"{{"card":{CARD},"replication":{{"lag_ms":120}}}}"#);
        let req = Requirement::from_json(r#"{"max_stale":"10s"}"#).unwrap();
        let r = route(
            Some("/card"),
            Some(("/replication/lag_ms", PointerUnit::Milliseconds)),
        );
        let none = |_: &str| Vec::new();
        let d = evaluate_body(
            body.as_bytes(),
            &r,
            &req,
            ResponseFields::headers(&none),
            Timestamp::from_unix_ms(0),
            &Limits::default(),
        );
        assert!(d.is_valid(), "{}", d.to_json());
        assert_eq!(d.staleness_ms(), Some(120));
        assert_eq!(
            d.card_hash().unwrap().to_string(),
            crate::api::card_hash(CARD.as_bytes()).unwrap()
        );

        let missing = evaluate_body(
            br#"{"other":1}"#,
            &r,
            &req,
            ResponseFields::headers(&none),
            Timestamp::from_unix_ms(0),
            &Limits::default(),
        );
        assert_eq!(missing.status(), 502);
        let broken = evaluate_body(
            b"{\"card\":",
            &r,
            &req,
            ResponseFields::headers(&none),
            Timestamp::from_unix_ms(0),
            &Limits::default(),
        );
        assert_eq!(broken.reasons()[0].code, ReasonCode::JsonSyntax);

        // Either pointer alone makes an envelope route, and an envelope of the size limit is
        // read as one.
        let at = |max_card_bytes| Limits {
            max_card_bytes,
            ..Limits::default()
        };
        let decide = |body: &str, r: &CardRoute, header: &dyn Fn(&str) -> Vec<Vec<u8>>, limits| {
            evaluate_body(
                body.as_bytes(),
                r,
                &req,
                ResponseFields::headers(header),
                Timestamp::from_unix_ms(0),
                &limits,
            )
        };
        let card_only = route(Some("/card"), None);
        let d = decide(&body, &card_only, &lag("40"), at(body.len()));
        assert!(d.is_valid(), "{}", d.to_json());
        assert_eq!(d.staleness_ms(), Some(40));
        let inline = CARD.replacen('{', r#"{"replication":{"lag_ms":70},"#, 1);
        let watermark_only = route(
            None,
            Some(("/replication/lag_ms", PointerUnit::Milliseconds)),
        );
        let d = decide(&inline, &watermark_only, &none, at(inline.len()));
        assert!(d.is_valid(), "{}", d.to_json());
        assert_eq!(d.staleness_ms(), Some(70));
        let over = decide(&body, &card_only, &lag("40"), at(body.len() - 1));
        assert_eq!(over.reasons()[0].code, ReasonCode::BodyTooLarge);
    }

    #[test]
    fn lifetime_headers_are_every_one_a_cache_obeys() {
        for name in [
            "expires",
            "Expires",
            "surrogate-control",
            "x-accel-expires",
            "X-Accel-Expires",
            "edge-control",
            "cdn-cache-control",
            "cloudflare-cdn-cache-control",
            "Akamai-Cache-Control",
        ] {
            assert!(super::is_lifetime_header(name), "{name}");
        }
        for name in [
            "cache-control",
            "Cache-Control",
            "age",
            "vary",
            "x-accel-redirect",
            "cache-control-x",
            "-cache-controls",
            "",
        ] {
            assert!(!super::is_lifetime_header(name), "{name}");
        }
    }

    #[test]
    fn cache_lifetime_never_outlives_the_tolerance() {
        let cc = |vals: &[&str], cap| {
            let v: Vec<&[u8]> = vals.iter().map(|s| s.as_bytes()).collect();
            capped_cache_control(&v, cap)
        };
        let cases: [(&[&str], u64, &str); 9] = [
            (&["max-age=60"], 7, "max-age=7, must-revalidate"),
            (
                &["public, max-age=3"],
                7,
                "public, max-age=3, must-revalidate",
            ),
            (&[], 7, "max-age=7, must-revalidate"),
            // One must-revalidate, whoever wrote it first.
            (
                &["Must-Revalidate, max-age=60"],
                7,
                "Must-Revalidate, max-age=7",
            ),
            (
                &[
                    "public, s-maxage=600",
                    "stale-while-revalidate=30, stale-if-error=99",
                ],
                4,
                "public, max-age=4, s-maxage=4, must-revalidate",
            ),
            (&["max-age=abc, immutable"], 9, "max-age=0, must-revalidate"),
            (
                &["no-cache=\"a, b\", MAX-AGE=100"],
                5,
                "no-cache=\"a, b\", max-age=5, must-revalidate",
            ),
            // A directive inside a quoted string is text, also after an escaped quote.
            (
                &["private=\"a,max-age=100\""],
                5,
                "private=\"a,max-age=100\", max-age=5, must-revalidate",
            ),
            (
                &["private=\"x\\\",max-age=1\", max-age=100"],
                5,
                "private=\"x\\\",max-age=1\", max-age=5, must-revalidate",
            ),
        ];
        for (values, cap, expected) in cases {
            assert_eq!(cc(values, cap), expected, "{values:?} capped at {cap}");
        }
        let req = Requirement::from_json(r#"{"max_stale":"10s"}"#).unwrap();
        let d = |ms: &'static str| {
            evaluate_body(
                CARD.as_bytes(),
                &route(None, None),
                &req,
                ResponseFields::headers(&lag(ms)),
                Timestamp::from_unix_ms(0),
                &Limits::default(),
            )
        };
        assert_eq!(lifetime_left_s(&d("2500"), &req), 7);
        assert_eq!(lifetime_left_s(&d("10000"), &req), 0);
        assert_eq!(lifetime_left_s(&d("0"), &req), 10);
        let hash = crate::api::card_hash(CARD.as_bytes()).unwrap();
        let pinned =
            Requirement::from_json(&format!(r#"{{"pin":"{hash}","max_stale":"10s"}}"#)).unwrap();
        let d = evaluate_body(
            CARD.as_bytes(),
            &route(None, None),
            &pinned,
            ResponseFields::headers(&lag("1000")),
            Timestamp::from_unix_ms(0),
            &Limits::default(),
        );
        assert!(d.is_valid());
        assert_eq!(lifetime_left_s(&d, &pinned), 0);
        let both = req
            .tighten(&Requirement::from_json(&format!(r#"{{"pin":"{hash}"}}"#)).unwrap())
            .unwrap();
        let d = evaluate_body(
            CARD.as_bytes(),
            &route(None, None),
            &both,
            ResponseFields::headers(&lag("1000")),
            Timestamp::from_unix_ms(0),
            &Limits::default(),
        );
        assert_eq!(lifetime_left_s(&d, &both), 9);
        // A watermark field in the trailers is an invalid watermark: a card the pin vouches for
        // stays valid, one that needs the watermark too is stale.
        let in_trailers = |name: &str| name == "x-replica-lag-ms";
        let with_trailer = |requirement: &Requirement| {
            evaluate_body(
                CARD.as_bytes(),
                &route(None, None),
                requirement,
                ResponseFields {
                    header: &lag("1000"),
                    trailer: &in_trailers,
                },
                Timestamp::from_unix_ms(0),
                &Limits::default(),
            )
        };
        assert!(with_trailer(&pinned).is_valid());
        for requirement in [&req, &both] {
            let d = with_trailer(requirement);
            assert_eq!(
                d.reasons()[0].code.as_str(),
                "watermark_invalid",
                "{}",
                d.to_json()
            );
        }
    }

    #[test]
    fn re_resolved_card_is_served_with_its_source() {
        let req = Requirement::from_json(r#"{"max_stale":"10s"}"#).unwrap();
        let d = evaluate_body(
            CARD.as_bytes(),
            &route(None, None),
            &req,
            ResponseFields::headers(&lag("2500")),
            Timestamp::from_unix_ms(0),
            &Limits::default(),
        );
        let card = crate::envoy::reresolve::ServedCard {
            status: 200,
            body: CARD.as_bytes().to_vec(),
            content_type: Some("application/json; charset=utf-8".into()),
            cache_control: vec![b"public, max-age=60".to_vec()],
            vary: vec![b"A2A-Version".to_vec(), b"x-\xff".to_vec()],
        };
        let reply = resolved_reply(&d, Some(("primary", &card)), &req, 2, 5);
        let varies: Vec<&str> = reply
            .headers
            .iter()
            .filter(|(k, _)| *k == "vary")
            .map(|(_, v)| v.as_str())
            .collect();
        assert_eq!(varies, [VARY, "A2A-Version", "*"]);
        assert_eq!((reply.status, reply.body.as_str()), (200, CARD));
        for h in [
            ("content-type", "application/json; charset=utf-8"),
            (VERDICT, "valid"),
            (STALENESS_MS, "2500"),
            ("cache-control", "public, max-age=7, must-revalidate"),
            (CARD_SOURCE, "primary"),
            (CARD_ATTEMPTS, "2"),
        ] {
            assert!(
                reply.headers.contains(&(h.0, h.1.to_owned())),
                "{h:?} {reply:?}"
            );
        }
        let stale = evaluate_body(
            CARD.as_bytes(),
            &route(None, None),
            &req,
            ResponseFields::headers(&lag("40000")),
            Timestamp::from_unix_ms(0),
            &Limits::default(),
        );
        let reply = resolved_reply(&stale, None, &req, 2, 5);
        assert_eq!(reply.status, 503);
        assert!(reply.headers.contains(&(CARD_ATTEMPTS, "2".to_owned())));
        assert!(!reply.headers.iter().any(|(k, _)| *k == CARD_SOURCE));
    }

    #[test]
    fn valid_card_forwarded_with_headers() {
        let req = Requirement::from_json(r#"{"max_stale":"10s"}"#).unwrap();
        let d = evaluate_body(
            CARD.as_bytes(),
            &route(None, None),
            &req,
            ResponseFields::headers(&lag("250")),
            Timestamp::from_unix_ms(0),
            &Limits::default(),
        );
        let Outcome::Forward(h) = outcome(&d, Mode::Enforce, 5) else {
            panic!("blocked")
        };
        assert_eq!(h[0], (VERDICT, "valid".to_owned()));
        assert!(h.contains(&(STALENESS_MS, "250".to_owned())));
    }

    #[test]
    fn trailers_refused_or_removed() {
        let section = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| -> Vec<Vec<u8>> {
                pairs
                    .iter()
                    .filter(|(k, _)| k.eq_ignore_ascii_case(name))
                    .map(|(_, v)| v.as_bytes().to_vec())
                    .collect()
            }
        };
        let refused: [&'static [(&str, &str)]; 5] = [
            &[("content-length", "3")],
            &[("Transfer-Encoding", "chunked")],
            &[("content-range", "bytes 0-2/9")],
            &[("content-encoding", "gzip")],
            &[("content-type", "application/json; charset=latin1")],
        ];
        for pairs in refused {
            let d = unreadable_trailers(&section(pairs)).expect("refused");
            assert_eq!(d.reasons()[0].code.as_str(), "body_encoded", "{pairs:?}");
        }
        let passed: [&'static [(&str, &str)]; 3] = [
            &[("x-card-checksum", "1")],
            &[("content-encoding", "identity")],
            &[("content-type", "application/json; charset=utf-8")],
        ];
        for pairs in passed {
            assert!(unreadable_trailers(&section(pairs)).is_none(), "{pairs:?}");
        }
        for name in [
            "cache-control",
            "Expires",
            "CDN-Cache-Control",
            "surrogate-control",
        ] {
            assert!(is_trailer_removed(name), "{name}");
        }
        for name in ["x-card-checksum", "etag", "content-length"] {
            assert!(!is_trailer_removed(name), "{name}");
        }
    }

    #[test]
    fn charsets() {
        let ct = |v: &str| vec![v.as_bytes().to_vec()];
        for ok in [
            "application/json",
            "application/json; charset=utf-8",
            "application/json;charset=\"UTF-8\"",
            "application/json; charset=utf8",
            "text/html",
        ] {
            assert_eq!(foreign_charset(&ct(ok)), None, "{ok}");
        }
        for bad in [
            "application/json; charset=iso-8859-1",
            "application/json; charset=utf-16",
            "application/json,application/json; charset=utf-16",
            "application/json; CHARSET=\"windows-1252\"",
            "application/json; charset=",
        ] {
            assert!(foreign_charset(&ct(bad)).is_some(), "{bad}");
        }
        assert!(foreign_charset(&[
            b"application/json".to_vec(),
            b"application/json; charset=latin1".to_vec()
        ])
        .is_some());
    }
}
