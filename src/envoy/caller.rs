//! What the caller asks for on top of the policy, read from request headers.
//!
//! | header | meaning |
//! |---|---|
//! | `Cache-Control: max-stale=N` | tolerance of N seconds (a bare `max-stale`, "any staleness", is ignored) |
//! | `a2a-require-capabilities: a, b` | capabilities the caller will invoke (repeatable) |
//! | `a2a-min-card-version: 3.0.0` | version floor |
//! | `a2a-card-pin: sha256:...` | pinned card hash |
//! | `a2a-card-name: worker-7` | the card's expected `name`, exactly (`card_name`) |
//!
//! The result is combined with the policy's rule by [`effective_requirement`]: tightening only,
//! unless the policy lets callers relax. A header the gate cannot read is refused (HTTP 400)
//! rather than ignored: the caller asked for a check that would otherwise silently not happen.

use crate::{InputError, Requirement};

/// Request header: capabilities the caller will invoke.
pub const REQUIRE_CAPABILITIES: &str = "a2a-require-capabilities";
/// Request header: minimum card version.
pub const MIN_CARD_VERSION: &str = "a2a-min-card-version";
/// Request header: pinned card hash.
pub const CARD_PIN: &str = "a2a-card-pin";
/// Request header: the card's expected name (`card_name`). HTTP trims a field value's
/// surrounding whitespace, so a name that begins or ends with a space can only be stated in a
/// policy rule.
pub const CARD_NAME: &str = "a2a-card-name";

/// A caller header the gate could not use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallerError {
    /// The request header at fault.
    pub header: &'static str,
    /// What is wrong with it.
    pub message: String,
}

impl CallerError {
    fn new(header: &'static str, message: impl Into<String>) -> CallerError {
        CallerError {
            header,
            message: message.into(),
        }
    }
}

/// Reads the caller's requirement. `header` returns every value of a request header.
pub fn caller_requirement(
    header: &dyn Fn(&str) -> Vec<Vec<u8>>,
) -> Result<Requirement, CallerError> {
    let mut req = Requirement::default();
    let text = |name: &'static str| -> Result<Vec<String>, CallerError> {
        header(name)
            .into_iter()
            .map(|v| String::from_utf8(v).map_err(|_| CallerError::new(name, "is not UTF-8")))
            .collect()
    };

    for value in text("cache-control")? {
        for directive in value.split(',') {
            let directive = directive.trim_matches([' ', '\t']);
            let (name, arg) = match directive.split_once('=') {
                Some((n, a)) => (
                    n.trim_matches([' ', '\t']),
                    Some(a.trim_matches([' ', '\t'])),
                ),
                None => (directive, None),
            };
            if !name.eq_ignore_ascii_case("max-stale") {
                continue;
            }
            // A bare max-stale means "any staleness": never a reason to relax a fail-closed gate.
            let Some(arg) = arg else { continue };
            let digits = arg
                .strip_prefix('"')
                .and_then(|a| a.strip_suffix('"'))
                .unwrap_or(arg);
            if digits.is_empty() || digits.len() > 10 || !digits.bytes().all(|b| b.is_ascii_digit())
            {
                return Err(CallerError::new(
                    "cache-control",
                    format!("max-stale={arg} is not a whole number of seconds"),
                ));
            }
            let seconds: u64 = digits.parse().map_err(|_| {
                CallerError::new("cache-control", format!("max-stale={arg} is out of range"))
            })?;
            let ms = seconds.saturating_mul(1000);
            // Several max-stale directives: the strictest one counts.
            let tightest = req.max_stale_ms.map_or(ms, |m| m.min(ms));
            req.set_max_stale_ms(tightest);
        }
    }

    for value in text(REQUIRE_CAPABILITIES)? {
        for name in value
            .split(',')
            .map(|n| n.trim_matches([' ', '\t']))
            .filter(|n| !n.is_empty())
        {
            req.add_capability(name)
                .map_err(|e| CallerError::new(REQUIRE_CAPABILITIES, message(&e)))?;
        }
    }

    // The single-valued headers, in this order: at most one value each, its surrounding
    // spaces and tabs trimmed, read by the requirement's own setter.
    type Setter = fn(&mut Requirement, &str) -> Result<(), InputError>;
    let single: [(&'static str, Setter); 3] = [
        (MIN_CARD_VERSION, Requirement::set_min_version),
        (CARD_PIN, Requirement::set_pin),
        (CARD_NAME, Requirement::set_card_name),
    ];
    for (name, set) in single {
        match text(name)?.as_slice() {
            [] => {}
            [one] => set(&mut req, one.trim_matches([' ', '\t']))
                .map_err(|e| CallerError::new(name, message(&e)))?,
            _ => return Err(CallerError::new(name, "appears more than once")),
        }
    }
    Ok(req)
}

/// A caller requirement sent in the request trailers (HTTP/2 and chunked HTTP/1.1 requests can
/// carry trailers): the requirement is read from the request headers when the request starts, so
/// a tightening header that comes later would silently not be checked. The first caller header
/// (`names`, in that order) whose trailer values state a requirement, or cannot be read, is the
/// error; `None` when the trailers ask for nothing (say a `cache-control` without `max-stale`).
pub fn trailer_requirement(
    trailer: &dyn Fn(&str) -> Vec<Vec<u8>>,
    names: &[&'static str],
) -> Option<CallerError> {
    names.iter().find_map(|&name| {
        let only = |h: &str| {
            if h == name {
                trailer(h)
            } else {
                Vec::new()
            }
        };
        match caller_requirement(&only) {
            Ok(r) if r == Requirement::default() => None,
            Ok(_) => Some(CallerError::new(
                name,
                "was sent as a request trailer: the gate reads a caller's requirement from the request headers only, so it would not be checked",
            )),
            Err(e) => Some(CallerError::new(
                name,
                format!("was sent as a request trailer (and {})", e.message),
            )),
        }
    })
}

/// The policy's rule combined with the caller's: tightened only, unless relaxing is allowed.
pub fn effective_requirement(
    policy_rule: &Requirement,
    caller: &Requirement,
    allow_relax: bool,
) -> Result<Requirement, CallerError> {
    if allow_relax {
        return Ok(policy_rule.overlay(caller));
    }
    policy_rule.tighten(caller).map_err(|e| {
        let header = match e.path.as_str() {
            "/pin" => CARD_PIN,
            "/card_name" => CARD_NAME,
            _ => "a2a-*",
        };
        CallerError::new(header, format!("conflicts with the policy: {}", e.message))
    })
}

fn message(e: &InputError) -> String {
    e.message.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(pairs: &'static [(&'static str, &'static str)]) -> Result<Requirement, CallerError> {
        caller_requirement(&move |name: &str| {
            pairs
                .iter()
                .filter(|(k, _)| *k == name)
                .map(|(_, v)| v.as_bytes().to_vec())
                .collect()
        })
    }

    #[test]
    fn reads_every_header() {
        let r = req(&[
            ("cache-control", "no-cache, Max-Stale=10"),
            (
                REQUIRE_CAPABILITIES,
                "task.execute.v3, capability:streaming",
            ),
            (REQUIRE_CAPABILITIES, "binding:JSONRPC"),
            (MIN_CARD_VERSION, "2.0.0"),
        ])
        .unwrap();
        assert_eq!(r.max_stale_ms, Some(10_000));
        assert_eq!(r.require.len(), 3);
        assert!(r.min_version.is_some());
    }

    #[test]
    fn card_name_is_one_exact_value() {
        let name = |pairs| req(pairs).map(|r| r.card_name.map(|n| n.as_str().to_owned()));
        assert_eq!(name(&[]).unwrap(), None);
        assert_eq!(
            name(&[(CARD_NAME, " Wörker 7\t")]).unwrap().as_deref(),
            Some("Wörker 7")
        );
        for pairs in [
            &[(CARD_NAME, "")][..],
            &[(CARD_NAME, " \t ")][..],
            &[(CARD_NAME, "a"), (CARD_NAME, "a")][..],
        ] {
            let pairs: &'static [(&'static str, &'static str)] = pairs;
            assert_eq!(req(pairs).unwrap_err().header, CARD_NAME, "{pairs:?}");
        }
        let not_utf8 = caller_requirement(&|name: &str| {
            if name == CARD_NAME {
                vec![b"w\xf6rker".to_vec()]
            } else {
                Vec::new()
            }
        });
        assert_eq!(not_utf8.unwrap_err().header, CARD_NAME);
        // A caller's name on top of a rule's: the same passes, another conflicts (400).
        let rule = Requirement::from_json(r#"{"max_stale":"10s","card_name":"worker-7"}"#).unwrap();
        let same = req(&[(CARD_NAME, "worker-7")]).unwrap();
        assert_eq!(effective_requirement(&rule, &same, false).unwrap(), rule);
        let other = req(&[(CARD_NAME, "worker-8")]).unwrap();
        let e = effective_requirement(&rule, &other, false).unwrap_err();
        assert_eq!(e.header, CARD_NAME);
        assert!(
            e.message.contains("conflicts with the policy"),
            "{}",
            e.message
        );
        // So with a pin: another than the rule's is the pin header's conflict.
        let pinned = format!(r#"{{"pin":"sha256:{}"}}"#, "a".repeat(64));
        let rule = Requirement::from_json(&pinned).unwrap();
        const OTHER_PIN: &str =
            "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
        let other = req(&[(CARD_PIN, OTHER_PIN)]).unwrap();
        let e = effective_requirement(&rule, &other, false).unwrap_err();
        assert_eq!(e.header, CARD_PIN);
        assert!(e.message.starts_with("conflicts with the policy: "));
    }

    #[test]
    fn bare_max_stale_is_ignored_and_the_strictest_counts() {
        assert_eq!(
            req(&[("cache-control", "max-stale")]).unwrap().max_stale_ms,
            None
        );
        let r = req(&[("cache-control", "max-stale=60, max-stale=\"5\"")]).unwrap();
        assert_eq!(r.max_stale_ms, Some(5_000));
        // Ten digits are read; an empty figure, eleven digits, a sign or a unit are refused,
        // each as not a whole number of seconds.
        let r = req(&[("cache-control", "max-stale=9999999999")]).unwrap();
        assert_eq!(r.max_stale_ms, Some(9_999_999_999_000));
        let refused: [&'static [(&str, &str)]; 5] = [
            &[("cache-control", "max-stale=")],
            &[("cache-control", "max-stale=\"\"")],
            &[("cache-control", "max-stale=12345678901")],
            &[("cache-control", "max-stale=+5")],
            &[("cache-control", "max-stale=5s")],
        ];
        for pairs in refused {
            let e = req(pairs).unwrap_err();
            assert_eq!(e.header, "cache-control");
            let want = format!("{} is not a whole number of seconds", pairs[0].1);
            assert_eq!(e.message, want);
        }
    }

    #[test]
    fn unreadable_headers_are_refused() {
        assert_eq!(
            req(&[("cache-control", "max-stale=-1")])
                .unwrap_err()
                .header,
            "cache-control"
        );
        assert_eq!(
            req(&[("cache-control", "max-stale=1.5")])
                .unwrap_err()
                .header,
            "cache-control"
        );
        assert_eq!(
            req(&[(MIN_CARD_VERSION, "latest")]).unwrap_err().header,
            MIN_CARD_VERSION
        );
        assert_eq!(
            req(&[(CARD_PIN, "sha256:xyz")]).unwrap_err().header,
            CARD_PIN
        );
        let e = req(&[(REQUIRE_CAPABILITIES, "capability:teleport")]).unwrap_err();
        assert_eq!(e.header, REQUIRE_CAPABILITIES);
        assert!(e.message.contains("flag \"teleport\""), "{}", e.message);
    }

    #[test]
    fn a_requirement_in_the_trailers_is_refused() {
        let names = crate::envoy::headers::CALLER_HEADERS;
        let trailers = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| -> Vec<Vec<u8>> {
                pairs
                    .iter()
                    .filter(|(k, _)| *k == name)
                    .map(|(_, v)| v.as_bytes().to_vec())
                    .collect()
            }
        };
        assert_eq!(trailer_requirement(&trailers(&[]), names), None);
        assert_eq!(
            trailer_requirement(&trailers(&[("cache-control", "no-cache")]), names),
            None
        );
        assert_eq!(
            trailer_requirement(&trailers(&[("x-other", "1")]), names),
            None
        );
        for (pairs, header) in [
            (&[(MIN_CARD_VERSION, "9.0.0")][..], MIN_CARD_VERSION),
            (&[("cache-control", "max-stale=0")][..], "cache-control"),
            (
                &[(REQUIRE_CAPABILITIES, "task.cancel")][..],
                REQUIRE_CAPABILITIES,
            ),
            (&[(CARD_PIN, "sha256:xyz")][..], CARD_PIN),
            (&[(CARD_NAME, "worker-7")][..], CARD_NAME),
        ] {
            let pairs: &'static [(&'static str, &'static str)] = pairs;
            let err = trailer_requirement(&trailers(pairs), names).unwrap();
            assert_eq!(err.header, header);
            assert!(err.message.contains("request trailer"), "{}", err.message);
        }
    }

    #[test]
    fn callers_tighten_but_never_relax() {
        let policy = Requirement::from_json(r#"{"max_stale":"10s","require":["a"]}"#).unwrap();
        let looser = req(&[("cache-control", "max-stale=60")]).unwrap();
        let tighter = req(&[("cache-control", "max-stale=2")]).unwrap();
        assert_eq!(
            effective_requirement(&policy, &looser, false)
                .unwrap()
                .max_stale_ms,
            Some(10_000)
        );
        assert_eq!(
            effective_requirement(&policy, &tighter, false)
                .unwrap()
                .max_stale_ms,
            Some(2_000)
        );
        assert_eq!(
            effective_requirement(&policy, &looser, true)
                .unwrap()
                .max_stale_ms,
            Some(60_000)
        );
    }
}
