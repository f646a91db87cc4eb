//! `cardgate resolve`: re-resolution over HTTP, each source fetched by [`fetch::get`] and judged by
//! the core's rule.

use crate::fetch::{self, Body};
use crate::proxy::Proxies;
use crate::{parse_args, report, requirement_of, system_now, tls, url, write_stdout};
use crate::{Command, UsageError, USAGE};
use cardgate::resolution::Outcome;
use cardgate::watermark_sources::{observe, ResponseFields};
use cardgate::{
    evaluate_with, Answer, Decision, Resolution, ResolutionLimits, Step, WatermarkSources,
};
use std::ffi::OsString;
/// `cardgate resolve URL [URL ...]`: asks each source in order and lets the core's
/// re-resolution rule decide (DESIGN.md "Re-resolution").
pub(crate) fn resolve(args: &[OsString]) -> Result<u8, UsageError> {
    let p = parse_args(args, Command::Resolve)?;
    if p.help {
        write_stdout(USAGE.as_bytes())?;
        return Ok(0);
    }
    if p.positional.is_empty() {
        return Err(UsageError(
            "resolve needs at least one URL; see cardgate --help".into(),
        ));
    }
    let urls = p
        .positional
        .iter()
        .map(|u| url::check_url(u))
        .collect::<Result<Vec<String>, String>>()
        .map_err(UsageError)?;
    let requirement = requirement_of(&p, false)?;
    // Read once, before any request: a bad file is bad input (exit 2), never a silent fallback.
    let tls = tls::tls_config(p.cacert.as_deref(), p.cert.as_deref(), p.key.as_deref())
        .map_err(UsageError)?;
    let proxies = Proxies::from_env(|name| std::env::var_os(name)).map_err(UsageError)?;
    let defaults = ResolutionLimits::default();
    let limits = ResolutionLimits {
        max_attempts: p.max_attempts.unwrap_or(defaults.max_attempts),
        deadline_ms: p.deadline_ms.unwrap_or(defaults.deadline_ms),
    };
    let fixed_now = p.sources.observation.now;
    let card_limits = p.limits;
    let started = std::time::Instant::now();
    let elapsed = || u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut resolution = Resolution::new(limits, 0);
    let mut step = Step::TryNext;
    for url in &urls {
        if step != Step::TryNext {
            break;
        }
        let remaining = resolution.remaining_ms(elapsed());
        if remaining == 0 {
            resolution.stop(Outcome::DeadlinePassed);
            step = Step::Stop;
            break;
        }
        let timeout_ms = p.timeout_ms.map_or(remaining, |t| t.min(remaining));
        let asked_at = elapsed();
        let mut timed_out = false;
        let final_url;
        let answer = match fetch::get(
            url,
            timeout_ms,
            card_limits.max_card_bytes,
            tls.as_ref(),
            &proxies,
            &p.headers,
        ) {
            Err(failure) => {
                timed_out = failure.timed_out;
                final_url = failure.final_url;
                Answer::Failed(failure.reason)
            }
            Ok(fetched) => {
                final_url = fetched.final_url.clone();
                for header in fetch::varies_on(&fetched.header("vary")) {
                    variant_note(url, header, fetch::sent_header(&p.headers, header));
                }
                let now = match fixed_now {
                    Some(now) => now,
                    None => system_now()?,
                };
                let header = |name: &str| fetched.header(name);
                // The CLI's HTTP client hands over no trailers, as a caller's does not.
                let mut observation = observe(
                    &WatermarkSources::conventional(),
                    None,
                    None,
                    ResponseFields::headers(&header),
                    now,
                );
                if p.no_clock && fixed_now.is_none() {
                    observation.now = None;
                }
                Answer::Card(Box::new(match fetched.body {
                    Body::Whole(card) => {
                        evaluate_with(&card, &requirement, &observation, &card_limits)
                    }
                    Body::TooLarge {
                        start,
                        seen,
                        complete,
                    } => {
                        Decision::body_too_large(&start, seen, card_limits.max_card_bytes, complete)
                    }
                    Body::Encoded(decision) => *decision,
                }))
            }
        };
        // A fetch that timed out took its whole timeout: when that was what was left of the
        // deadline, the deadline has passed, even if the clock (whole milliseconds, a timer
        // that may fire a little early) reads a moment before it.
        let now = if timed_out {
            elapsed().max(asked_at.saturating_add(timeout_ms))
        } else {
            elapsed()
        };
        step = resolution.record_from(url, final_url.as_deref(), answer, now);
    }
    if step == Step::TryNext {
        resolution.stop(Outcome::SourcesExhausted);
    }
    report(&resolution.finish())
}

/// A source whose answer varies on `A2A-Version` or `Accept` (DESIGN.md, "Card variants"): the
/// decision is about the card served to what this request said, and the SDKs' resolvers say
/// other things (`A2A-Version: 1.0`, but a2a-sdk's `A2ACardResolver` used without its
/// `ClientFactory` none; both `Accept: */*`), so a
/// caller may be served another card.
fn variant_note(url: &str, header: &str, sent: Option<&str>) {
    let (name, sdks, theirs) = if header == "accept" {
        (
            "Accept",
            "both SDKs' resolvers send Accept: */*",
            "'Accept: */*'",
        )
    } else {
        (
            "A2A-Version",
            "both SDKs' clients send A2A-Version: 1.0, a2a-sdk's A2ACardResolver used on its own none",
            "'A2A-Version: ...' (empty for none)",
        )
    };
    let asked = match sent {
        Some("") if header == "accept" => "an empty Accept".to_owned(),
        Some("") => "an empty A2A-Version (as none, to @a2a-js/sdk's server)".to_owned(),
        Some(value) => format!("{name}: {value}"),
        None => format!("no {name}"),
    };
    crate::note(format_args!(
        "note: {url} varies its card on {name} (its Vary header): this decision is about the \
         card served to {asked}; {sdks}, and may be served another card: judge that one with \
         --header {theirs}, or pin this card's hash in the caller"
    ));
}
