//! URLs as `resolve` reads them: a source given on the command line and a redirect's
//! `Location`, both read by the WHATWG URL Standard as fetch reads them (the npm package and
//! @a2a-js/sdk; `url` is that Standard's Rust implementation), recorded as fetch's
//! `response.url` shows them and requested as undici writes the request.

use url::Url;

/// The origin of an http(s) URL: scheme, host and port (the scheme's default when none is
/// written), as the URL Standard serializes them (lowercase; an IPv4 address in its dotted
/// form, `127.1` as `127.0.0.1`). `None` when it is not such a URL (never the same origin).
pub(crate) fn origin(url: &str) -> Option<(String, String, u16)> {
    let url = Url::parse(url).ok()?;
    let host = url.host_str()?.to_owned();
    Some((url.scheme().to_owned(), host, url.port_or_known_default()?))
}

/// Why `resolve` does not request a URL: fetch would not request it either, or this client
/// cannot request it where fetch would.
#[derive(Debug, PartialEq)]
pub(crate) enum Refusal {
    /// The URL Standard reads no URL there (its message).
    NotAUrl(url::ParseError),
    /// Not `http` or `https`.
    NotWeb,
    /// User information (`user:password@`): fetch refuses to request such a URL, ureq would
    /// send it as credentials, and every attempt and message would print it.
    UserInfo,
    /// A host the Standard keeps but no HTTP request carries (`{x}`, a backquote): ureq's
    /// `http::Uri` does not read it.
    Unsendable,
    /// A `..` segment with a segment like a Windows drive letter ([`drive_letter_kept`]).
    DriveLetter,
}

impl Refusal {
    /// The refusal as the end of "... with a Location ...".
    pub(crate) fn phrase(&self) -> &'static str {
        match self {
            Refusal::NotAUrl(_) => "that is not a URL",
            Refusal::NotWeb => "that is not an http(s) URL",
            Refusal::UserInfo => "that carries user information (`user:password@`)",
            Refusal::Unsendable => "whose host no HTTP request carries",
            Refusal::DriveLetter => {
                "with a `..` beside a segment like a drive letter (`c:`), which this client \
                 cannot read as fetch does"
            }
        }
    }
}

/// An absolute `http`/`https` URL with a host, as text; anything else is a usage error.
pub(crate) fn check_url(arg: &std::ffi::OsStr) -> Result<String, String> {
    let shown = format!("{:?}", arg.to_string_lossy());
    let text = arg
        .to_str()
        .ok_or_else(|| format!("the URL {shown} is not UTF-8 text"))?;
    match read(None, text) {
        Ok(_) => Ok(text.to_owned()),
        Err(Refusal::NotAUrl(url::ParseError::RelativeUrlWithoutBase)) => Err(format!(
            "{shown} is not a URL: it has no scheme (not an http:// or https:// URL)"
        )),
        Err(Refusal::NotAUrl(e)) => Err(format!("{shown} is not a URL: {e}")),
        Err(Refusal::NotWeb) => Err(format!("{shown} is not an http:// or https:// URL")),
        // Named by its host alone.
        Err(Refusal::UserInfo) => Err(format!(
            "the URL for {:?} carries user information (`user:password@`): resolve sends \
             no credentials and would print them in the decision; give the URL without them",
            origin(text).map(|(_, host, _)| host).unwrap_or_default()
        )),
        Err(why) => Err(format!("{shown} is a URL {}", why.phrase())),
    }
}

/// `location` (a redirect's `Location`) resolved against `base`, the http(s) URL that
/// answered, as fetch resolves it (`new URL(location, base)`), as [`read`] writes it.
pub(crate) fn join(base: &str, location: &str) -> Result<String, Refusal> {
    let base = Url::parse(base).map_err(Refusal::NotAUrl)?;
    read(Some(&base), location)
}

/// `url` as fetch reads it ([`read`]: `/a/../card` is `/card`, `127.1` is `127.0.0.1`, the
/// bytes the Standard escapes percent-encoded), or `url` as it is when it is no such URL.
pub(crate) fn as_fetch_sends(url: &str) -> String {
    read(None, url).unwrap_or_else(|_| url.to_owned())
}

/// `reference` read by the URL Standard (against `base` when given) and written as fetch's
/// `response.url` shows it (the URL without its fragment; an empty query keeps its `?`), the form
/// every attempt records. The request itself is [`request_form`]'s.
fn read(base: Option<&Url>, reference: &str) -> Result<String, Refusal> {
    // The Standard reads a reference that starts with two or more `/` or `\` against an
    // http(s) base as an authority after the whole run ("special authority ignore slashes
    // state": `///host/card` is `http://host/card`, as Node's URL reads it); `url` 2.5 stops
    // at an empty host after the second. The Standard's own first step, run here first:
    // leading and trailing C0 controls and spaces trimmed, tabs and newlines removed.
    let cleaned: String = reference
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let after_slashes = cleaned.trim_start_matches(['/', '\\']);
    let cleaned = if cleaned.len() - after_slashes.len() > 2 {
        format!("//{after_slashes}")
    } else {
        cleaned
    };
    let mut url = Url::options()
        .base_url(base)
        .parse(&cleaned)
        .map_err(Refusal::NotAUrl)?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Refusal::NotWeb);
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Refusal::UserInfo);
    }
    if drive_letter_kept(&url, &cleaned) {
        return Err(Refusal::DriveLetter);
    }
    url.set_fragment(None);
    sendable(&url).ok_or(Refusal::Unsendable)?;
    Ok(url.into())
}

/// The URL ureq is asked to request for `url` (an http(s) URL as [`read`] writes it), as undici
/// (Node's fetch) writes the request: the Standard's scheme, host and port (none when it is the
/// scheme's default), then `pathname + search`: no `?` when the query is empty. `url` itself
/// when it does not parse.
pub(crate) fn request_form(url: &str) -> String {
    Url::parse(url)
        .ok()
        .and_then(|u| sendable(&u))
        .unwrap_or_else(|| url.to_owned())
}

/// [`request_form`] of a parsed URL, or `None` when ureq cannot send it as written: a host the
/// Standard keeps but no HTTP request carries (`{x}`, a backquote; ureq's `http::Uri` does not
/// read it), or an empty one.
fn sendable(url: &Url) -> Option<String> {
    let host = url.host_str().filter(|h| !h.is_empty())?;
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    let query = url
        .query()
        .filter(|q| !q.is_empty())
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    let target = format!("{}{query}", url.path());
    let written = format!("{}://{host}{port}{target}", url.scheme());
    // ureq sends what `http::Uri` reads, and must send this target as it is.
    let uri: ureq::http::Uri = written.parse().ok()?;
    (uri.path_and_query().map(|p| p.as_str()) == Some(target.as_str())).then_some(written)
}

/// Whether `url` may be one where `url` 2.5 kept a segment the URL Standard removes: it does
/// not let a `..` segment remove a segment that looks like a Windows drive letter (`c:`, `c|`)
/// in an http(s) path, as the Standard does only for `file:` URLs (`/c:/../card` is `/card`
/// to Node's URL and `/c:/card` to `url`). Such a path, with a `..` segment in the `reference`
/// it was read from, is refused rather than requested elsewhere than fetch would request.
fn drive_letter_kept(url: &Url, reference: &str) -> bool {
    let drive = |segment: &str| match segment.as_bytes() {
        [letter, b':' | b'|'] => letter.is_ascii_alphabetic(),
        _ => false,
    };
    let dots = |segment: &str| {
        matches!(
            segment.to_ascii_lowercase().as_str(),
            ".." | ".%2e" | "%2e." | "%2e%2e"
        )
    };
    let path = reference.split(['?', '#']).next().unwrap_or_default();
    url.path().split('/').any(drive) && path.split(['/', '\\']).any(dots)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::{as_fetch_sends, join, request_form, Refusal};

    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/common/redirect_locations.rs"
    ));

    /// Each case checked against Node 20's `new URL(location, base)` (fragment dropped); the
    /// `ftp:` one fetch would refuse to fetch.
    #[test]
    fn redirect_locations_resolve_as_fetch_resolves_them() {
        let base = "http://a.example:8080/x/y/card.json?q=1";
        for (location, want) in [
            ("https://b.example/c", Some("https://b.example/c")),
            ("//b.example/c?d", Some("http://b.example/c?d")),
            ("/c", Some("http://a.example:8080/c")),
            ("c", Some("http://a.example:8080/x/y/c")),
            ("../c", Some("http://a.example:8080/x/c")),
            ("./c/.", Some("http://a.example:8080/x/y/c/")),
            ("../../../../c", Some("http://a.example:8080/c")),
            ("%2E%2e/c", Some("http://a.example:8080/x/c")),
            ("?z", Some("http://a.example:8080/x/y/card.json?z")),
            ("", Some("http://a.example:8080/x/y/card.json?q=1")),
            ("#f", Some("http://a.example:8080/x/y/card.json?q=1")),
            ("c#f", Some("http://a.example:8080/x/y/c")),
            (" \t/c\n ", Some("http://a.example:8080/c")),
            ("\\\\b.example\\c", Some("http://b.example/c")),
            ("/c?a\\b", Some("http://a.example:8080/c?a\\b")),
            ("ftp://b.example/c", None),
            ("http://", None),
            ("http://[::1/c", None),
            ("//user:pw@b.example/c", None),
            ("http://user@b.example/c", None),
            ("/a/b/../../c/./d", Some("http://a.example:8080/c/d")),
            ("HTTP://B.example/x/%2e%2E/c", Some("http://b.example/c")),
            (
                "/bäse?ä'`",
                Some("http://a.example:8080/b%C3%A4se?%C3%A4%27`"),
            ),
            (
                "/a`{}\"^|?q=\"<>",
                Some("http://a.example:8080/a%60%7B%7D%22%5E|?q=%22%3C%3E"),
            ),
        ] {
            assert_eq!(join(base, location).ok().as_deref(), want, "{location:?}");
        }
        assert_eq!(
            as_fetch_sends("http://h:1/a/../b/./c?x#f"),
            "http://h:1/b/c?x"
        );
        assert_eq!(
            join("https://a/", "http://b/").ok().as_deref(),
            Some("http://b/"),
            "the downgrade is the core's to refuse"
        );
        // Each refusal by its cause.
        let base = "http://a.example/x/";
        assert_eq!(join(base, "ftp://b/c"), Err(Refusal::NotWeb));
        assert_eq!(join(base, "//u:pw@b/c"), Err(Refusal::UserInfo));
        assert_eq!(join(base, "https://{x}/c"), Err(Refusal::Unsendable));
        assert_eq!(
            join(base, "c:/../card"),
            Err(Refusal::NotWeb),
            "a scheme `c:`"
        );
        assert_eq!(join(base, "/c:/../card"), Err(Refusal::DriveLetter));
        assert_eq!(
            join("http://a/c|/x/", "../../card"),
            Err(Refusal::DriveLetter)
        );
        assert!(matches!(
            join(base, "http://[::1/c"),
            Err(Refusal::NotAUrl(_))
        ));
    }

    /// Every case of tests/vectors/url/redirect_locations.json (Node's `URL` and undici's request,
    /// written by tests/node/redirect-locations.mjs): [`join`] requests what fetch requests,
    /// never follows where fetch requests nothing, and refuses only where this file says it
    /// does: a host no HTTP request carries, or a segment like a drive letter with a `..`.
    #[test]
    fn redirect_locations_read_as_node_reads_them() {
        let (path, cases) = redirect_location_cases();
        let drive = |s: &str| {
            s.split(['/', '\\', '?', '#']).any(
                |segment| matches!(segment.as_bytes(), [l, b':' | b'|'] if l.is_ascii_alphabetic()),
            )
        };
        let dots = |s: &str| {
            s.split(['/', '\\', '?', '#'])
                .any(|segment| segment.to_ascii_lowercase().replace("%2e", ".") == "..")
        };
        let (mut same, mut refused, mut neither) = (0, 0, 0);
        for case in &cases {
            let base = case["base"].as_str().unwrap();
            let location = case["location"].as_str().unwrap();
            let fetch = case["fetch"].as_str();
            // Controls and spaces aside (the Standard trims or removes them first).
            let bare: String = location.chars().filter(|c| *c > ' ').collect();
            // `http:c:/..` is relative to an http base: its path starts after the scheme.
            let after_scheme = bare.split_once(':').map_or("", |(_, rest)| rest);
            let shows = case["response_url"].as_str();
            match (join(base, location), fetch) {
                (Err(_), None) => neither += 1,
                (Ok(got), Some(want))
                    if request_form(&got) == want && Some(got.as_str()) == shows =>
                {
                    same += 1
                }
                (Err(Refusal::Unsendable), Some(want))
                    if want
                        .split('/')
                        .nth(2)
                        .unwrap()
                        .contains(['{', '}', '`', '"']) =>
                {
                    refused += 1
                }
                (Err(Refusal::DriveLetter), Some(_))
                    if (drive(base) || drive(&bare) || drive(after_scheme)) && dots(&bare) =>
                {
                    refused += 1
                }
                (got, want) => panic!("{base:?} + {location:?}: {got:?}, fetch requests {want:?}"),
            }
        }
        // The file reaches every outcome, and refusals stay the exception.
        let all = same + neither + refused;
        assert!(
            same * 10 > all * 6 && neither * 10 > all * 2 && refused * 100 < all * 6,
            "{same} {neither} {refused}"
        );
        eprintln!("{path}: {same} the same URL, {neither} followed by neither, {refused} refused");
    }
}
