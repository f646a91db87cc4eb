//! The HTTP side of `resolve`: one bounded GET per source, redirects followed as fetch follows
//! them (native builds only).

use crate::proxy::Proxies;
use crate::url::{as_fetch_sends, join, origin, request_form};
use cardgate::resolution;
use std::io::Read;
use std::time::Duration;
use ureq::tls::TlsConfig;

/// What every request of `resolve` says, unless a `--header` of that name replaces it.
const DEFAULT_HEADERS: [(&str, &str); 3] = [
    ("accept", "application/json"),
    ("a2a-version", "1.0"),
    ("accept-encoding", "identity"),
];

/// The value of request header `name` (lowercase) a request of `resolve` says: a `--header` of
/// that name (its value may be empty), else the default, else none.
pub(crate) fn sent_header<'a>(extra: &'a [(String, String)], name: &str) -> Option<&'a str> {
    let given = extra.iter().find(|(n, _)| n == name);
    let default = DEFAULT_HEADERS.iter().find(|(n, _)| *n == name);
    given
        .map(|(_, value)| value.as_str())
        .or(default.map(|(_, value)| *value))
}

/// The request headers among `A2A-Version` and `Accept` (lowercase) that an answer's `Vary`
/// says its body depends on (`*`: both): the SDKs' resolvers send them otherwise than `resolve`
/// does, so a server may serve them another card.
pub(crate) fn varies_on(vary: &[Vec<u8>]) -> Vec<&'static str> {
    let names: Vec<&[u8]> = vary
        .iter()
        .flat_map(|value| value.split(|&b| b == b','))
        .map(<[u8]>::trim_ascii)
        .collect();
    ["a2a-version", "accept"]
        .into_iter()
        .filter(|header| {
            names
                .iter()
                .any(|n| *n == b"*" || n.eq_ignore_ascii_case(header.as_bytes()))
        })
        .collect()
}

/// Request headers not sent on when a redirect leaves the origin they were given for: the
/// ones the Fetch standard drops (`Authorization`) and undici with it, as the npm package
/// drops them from `options.headers`.
const CROSS_ORIGIN_DROPPED: [&str; 3] = ["authorization", "cookie", "proxy-authorization"];

/// What a source's 2xx answer carried.
pub(crate) enum Body {
    /// The whole body, at most the limit.
    Whole(Vec<u8>),
    /// More than the limit: the first `limit + 1` bytes and the size seen (`complete`: exact,
    /// from an identity `Content-Length`; otherwise "at least").
    TooLarge {
        start: Vec<u8>,
        seen: usize,
        complete: bool,
    },
    /// A `Content-Encoding` other than identity: the body was not read; its `body_encoded`
    /// decision.
    Encoded(Box<cardgate::Decision>),
}

/// Why a source gave no answer to judge, and whether it ran out of time (a fetch that
/// timed out took its whole timeout, however early the clock read afterwards says it ended).
pub(crate) struct Failure {
    pub reason: String,
    pub timed_out: bool,
    /// The URL that answered (an error status) after redirects.
    pub final_url: Option<String>,
}

impl From<String> for Failure {
    fn from(reason: String) -> Failure {
        Failure {
            reason,
            timed_out: false,
            final_url: None,
        }
    }
}

/// A source's answer: its headers (lowercase names) and body.
pub(crate) struct Fetched {
    headers: Vec<(String, Vec<u8>)>,
    pub body: Body,
    /// The URL that answered, when redirects led elsewhere.
    pub final_url: Option<String>,
}

impl Fetched {
    /// Every value of a response header (lowercase name), as bytes.
    pub fn header(&self, name: &str) -> Vec<Vec<u8>> {
        self.headers
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .collect()
    }
}

/// The core's text for ureq's refusal to follow a redirect of the source `url`: past the
/// bound (`TooManyRedirects`), or to a non-https URL from an https source
/// (`RequireHttpsOnly(<to>)`, raised before connecting to `<to>`); `None` for other errors.
pub(crate) fn redirect_failure(url: &str, e: &ureq::Error) -> Option<String> {
    match e {
        ureq::Error::TooManyRedirects => Some(resolution::too_many_redirects(url)),
        ureq::Error::RequireHttpsOnly(to) => Some(
            resolution::redirect_refusal(url, to, 0)
                .unwrap_or_else(|| format!("{url} redirected to {to}, which is not https")),
        ),
        _ => None,
    }
}

/// GETs `url` within `timeout_ms` (connection, headers and body), reading at most
/// `limit + 1` bytes. A transport failure, a non-2xx status or a 2xx without a whole card
/// (204, 205, 206: `resolution::status_without_card`) is `Err` with the reason the
/// resolution records.
///
/// Redirects (DESIGN.md "Redirects") are followed here, one request per hop: only the
/// statuses fetch follows (`resolution::follows_redirect`; any other 3xx is a non-2xx
/// answer), the `Location` resolved against the URL that answered ([`join`]), and the core's
/// `redirect_refusal` asked before each hop (at most `resolution::MAX_REDIRECTS`; from an
/// https source never to anything but https), so a downgraded request is never sent. ureq's
/// `https_only` stays on for an https source as a second guard.
///
/// `tls` ([`crate::tls::tls_config`]): the trusted roots and a client certificate; without it, the
/// Mozilla roots built into the binary (`webpki-roots`) and none. `proxies`: each hop's
/// proxy ([`Proxies::for_url`]). `extra`: the `--header`s.
pub(crate) fn get(
    url: &str,
    timeout_ms: u64,
    limit: usize,
    tls: Option<&TlsConfig>,
    proxies: &Proxies,
    extra: &[(String, String)],
) -> Result<Fetched, Failure> {
    let https = resolution::is_https(url);
    let mut config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .https_only(https)
        // Redirects are followed below, one request per hop, as the npm package does.
        .max_redirects(0)
        .max_redirects_will_error(false)
        // Each request's proxy is chosen below ([`Proxies`]), not from ureq's reading.
        .proxy(None)
        .user_agent(concat!("cardgate/", env!("CARGO_PKG_VERSION")));
    if let Some(tls) = tls {
        config = config.tls_config(tls.clone());
    }
    let agent: ureq::Agent = config.build().into();
    let started = std::time::Instant::now();
    let timed_out = |what: &str| Failure {
        reason: format!("timeout after {timeout_ms} ms{what}"),
        timed_out: true,
        final_url: None,
    };
    let failed = |e: ureq::Error| match e {
        ureq::Error::Timeout(_) => timed_out(""),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => timed_out(""),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            Failure::from("connection refused".to_owned())
        }
        other => Failure::from(redirect_failure(url, &other).unwrap_or_else(|| other.to_string())),
    };
    // The request goes where fetch (and httpx) would send it: `/a/../card` is `/card`, a
    // non-ASCII byte percent-encoded; ureq sends the path as written.
    let first = as_fetch_sends(url);
    let mut current = first.clone();
    let mut hop_headers: Vec<(String, String)> = extra.to_vec();
    let mut followed = 0;
    let response = loop {
        // One timeout for the whole chain and the body.
        let spent = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let left = timeout_ms.saturating_sub(spent);
        if left == 0 {
            return Err(timed_out(""));
        }
        let mut request = agent
            .get(&request_form(&current))
            .config()
            .timeout_global(Some(Duration::from_millis(left)))
            .proxy(proxies.for_url(&current))
            .build();
        // The gate judges the exact bytes served: ask for them unencoded. A `--header` of
        // the same name replaces a default (an encoded answer is then `body_encoded`).
        for (name, value) in DEFAULT_HEADERS {
            if !hop_headers.iter().any(|(n, _)| n == name) {
                request = request.header(name, value);
            }
        }
        for (name, value) in &hop_headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let response = request.call().map_err(&failed)?;
        let status = response.status().as_u16();
        if !resolution::follows_redirect(status) {
            break response;
        }
        let answered = (current != first).then(|| current.clone());
        let location = response
            .headers()
            .get("location")
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let to = match location.as_deref().map(|l| (l, join(&current, l))) {
            Some((_, Ok(to))) => to,
            unfollowed => {
                let why = match unfollowed {
                    Some((l, Err(refusal))) => {
                        format!("with a Location {}: {l:?}", refusal.phrase())
                    }
                    _ => "without a Location header".to_owned(),
                };
                return Err(Failure {
                    reason: format!("{current} answered {status} {why}"),
                    timed_out: false,
                    final_url: answered,
                });
            }
        };
        if let Some(why) = resolution::redirect_refusal(url, &to, followed) {
            return Err(Failure::from(why));
        }
        // Credentials stay with the origin they were given for (as fetch drops them).
        if origin(&to).is_none_or(|o| Some(o) != origin(&current)) {
            hop_headers.retain(|(name, _)| !CROSS_ORIGIN_DROPPED.contains(&name.as_str()));
        }
        current = to;
        followed += 1;
    };
    let final_url = (current != first).then(|| current.clone());
    let fail = |reason: String| Failure {
        reason,
        timed_out: false,
        final_url: final_url.clone(),
    };
    let status = response.status();
    if !status.is_success() {
        return Err(fail(match status.canonical_reason() {
            Some(reason) => format!("HTTP {} {reason}", status.as_u16()),
            None => format!("HTTP {}", status.as_u16()),
        }));
    }
    // A 204 or 205 has no content (fetch reads no body, whatever follows the headers) and a
    // 206 part of a card: a failed source, as in the npm package (the core's rule) and the
    // Envoy filter.
    if let Some(why) = resolution::status_without_card(status.as_u16()) {
        return Err(fail(why.to_owned()));
    }
    let headers: Vec<(String, Vec<u8>)> = response
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str().to_ascii_lowercase(), v.as_bytes().to_vec()))
        .collect();
    let single = |name: &str| {
        let mut values = headers.iter().filter(|(n, _)| n == name);
        match (values.next(), values.next()) {
            (Some((_, v)), None) => Some(String::from_utf8_lossy(v).trim().to_owned()),
            (None, _) => None,
            (Some(_), Some(_)) => Some(String::new()),
        }
    };
    // Both framings (RFC 9112 section 6.3: "ought to be handled as an error"): the filter
    // (Envoy) and the npm package (undici) refuse such an answer; a client that honours the
    // length would read other bytes than the chunks the gate would check.
    let has = |name: &str| headers.iter().any(|(n, _)| n == name);
    if has("transfer-encoding") && has("content-length") {
        return Err(fail(
            "the answer has both Transfer-Encoding and Content-Length (ambiguous framing)"
                .to_owned(),
        ));
    }
    // A Transfer-Encoding other than one header saying `chunked` (any ASCII case): ureq
    // reads some of them (`chunked, identity` de-chunked, `identity` to the close, two
    // headers), httpx (h11: "Only Transfer-Encoding: chunked is supported") reads none,
    // and undici reads `chunked, identity` to the close, chunk sizes and all. The card
    // a2a-sdk would read is no card: a failed source.
    let values_of = |name: &str| -> Vec<&[u8]> {
        headers
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
            .collect()
    };
    let transfer_codings = values_of("transfer-encoding");
    if let [first, ..] = transfer_codings.as_slice() {
        if transfer_codings.len() > 1 || !first.trim_ascii().eq_ignore_ascii_case(b"chunked") {
            let shown: Vec<String> = transfer_codings
                .iter()
                .map(|v| format!("{:?}", String::from_utf8_lossy(v)))
                .collect();
            return Err(fail(format!(
                "the answer's Transfer-Encoding is {} where only one `chunked` frames a \
                 body every caller reads alike (httpx reads no other)",
                shown.join(" and ")
            )));
        }
    }
    // Every value of every `Content-Encoding` header counts; an empty one lists no coding
    // (`Decision::content_encoding`, the Envoy filter's rule).
    let codings = values_of("content-encoding");
    if let Some(decision) = cardgate::Decision::content_encoding(&codings) {
        return Ok(Fetched {
            body: Body::Encoded(Box::new(decision)),
            headers,
            final_url,
        });
    }
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let mut bytes = Vec::new();
    response
        .into_body()
        .into_reader()
        .take(cap)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            // ureq's body reader reports its timeout as an io error wrapping
            // `ureq::Error::Timeout` (kind `Other`), not as `TimedOut`.
            let ureq_timeout = e
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<ureq::Error>())
                .is_some_and(|inner| matches!(inner, ureq::Error::Timeout(_)));
            if ureq_timeout || e.kind() == std::io::ErrorKind::TimedOut {
                Failure {
                    final_url: final_url.clone(),
                    ..timed_out(" while reading the body")
                }
            } else {
                fail(format!("reading the body failed: {e}"))
            }
        })?;
    let body = if bytes.len() <= limit {
        Body::Whole(bytes)
    } else {
        let declared = single("content-length").and_then(|v| v.parse::<usize>().ok());
        let (seen, complete) = match declared {
            Some(n) if n >= bytes.len() => (n, true),
            _ => (bytes.len(), false),
        };
        Body::TooLarge {
            start: bytes,
            seen,
            complete,
        }
    };
    Ok(Fetched {
        headers,
        body,
        final_url,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::redirect_failure;

    // ureq 3.5.2 raises these while following redirects (run.rs: `https_only` is checked for each
    // hop's URL before connecting; the bound when a further 3xx arrives).
    #[test]
    fn ureq_redirect_refusals_read_as_the_core_says() {
        let asked = "https://registry.example/card";
        let why = redirect_failure(
            asked,
            &ureq::Error::RequireHttpsOnly("http://registry.example/card".into()),
        )
        .unwrap();
        assert_eq!(
            Some(why),
            cardgate::resolution::redirect_refusal(asked, "http://registry.example/card", 0)
        );
        assert_eq!(
            redirect_failure(asked, &ureq::Error::TooManyRedirects).as_deref(),
            Some("https://registry.example/card redirected more than 5 times (the limit)")
        );
        assert_eq!(redirect_failure(asked, &ureq::Error::RedirectFailed), None);
    }

    /// The agent `get` builds refuses a non-https URL when the source is https: asked directly
    /// here (no TLS needed), the same check ureq applies to every redirect target.
    #[test]
    fn https_only_is_what_refuses_the_downgrade() {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .https_only(true)
            .build()
            .into();
        let e = agent.get("http://127.0.0.1:9/card").call().unwrap_err();
        assert!(
            matches!(&e, ureq::Error::RequireHttpsOnly(to) if to == "http://127.0.0.1:9/card"),
            "{e}"
        );
    }
}
