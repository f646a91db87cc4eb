//! URLs as `resolve` reads them: a source given on the command line, and a redirect's
//! `Location` resolved as fetch resolves it.

/// The origin of an http(s) URL: scheme, host and port (the scheme's default when none is
/// written), lowercase. `None` when it is not such a URL (never the same origin).
pub(crate) fn origin(url: &str) -> Option<(String, String, u16)> {
    let uri: ureq::http::Uri = url.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let host = uri.host()?.to_ascii_lowercase();
    let port = uri
        .port_u16()
        .unwrap_or(if scheme == "https" { 443 } else { 80 });
    Some((scheme, host, port))
}

/// An absolute `http`/`https` URL with a host, as text; anything else is a usage error.
pub(crate) fn check_url(arg: &std::ffi::OsStr) -> Result<String, String> {
    let shown = format!("{:?}", arg.to_string_lossy());
    let text = arg
        .to_str()
        .ok_or_else(|| format!("the URL {shown} is not UTF-8 text"))?;
    let uri: ureq::http::Uri = text
        .parse()
        .map_err(|e| format!("{shown} is not a URL: {e}"))?;
    match uri.scheme_str() {
        Some("http" | "https") => {}
        _ => return Err(format!("{shown} is not an http:// or https:// URL")),
    }
    if uri.host().is_none_or(str::is_empty) {
        return Err(format!("{shown} has no host"));
    }
    // User information (`user:password@`): resolve sends no credentials, and every attempt
    // and message would print them. Refused, as fetch() refuses such a URL in the npm
    // package, and named by its host alone.
    if let Some(authority) = uri.authority().filter(|a| a.as_str().contains('@')) {
        let host = authority.as_str().rsplit('@').next().unwrap_or_default();
        return Err(format!(
            "the URL for {host:?} carries user information (`user:password@`): resolve sends \
             no credentials and would print them in the decision; give the URL without them"
        ));
    }
    Ok(text.to_owned())
}

/// `location` (a redirect's `Location`) resolved against `base`, the absolute http(s) URL that
/// answered, as fetch resolves it for an http(s) URL (the WHATWG URL reference resolution, in
/// the part a redirect uses): leading and trailing spaces and controls dropped, tabs and
/// newlines removed, the fragment dropped (it is never sent); a URL with a scheme as it is;
/// `//host/...` with the base's scheme; otherwise the path, with `\` read as `/` before the
/// query, resolved against the base's and its `.` and `..` segments (`%2e` for a dot)
/// removed; an empty reference, or one of a query alone, keeps the base's path. `None` when
/// the result is not an http(s) URL with a host, or carries user information (fetch refuses
/// to request such a URL).
pub(crate) fn join(base: &str, location: &str) -> Option<String> {
    let cleaned: String = location
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let location = cleaned.split('#').next().unwrap_or_default();
    let base_uri: ureq::http::Uri = base.parse().ok()?;
    let scheme = base_uri.scheme_str()?;
    let authority = base_uri.authority()?.as_str();
    let has_scheme = location.find(':').is_some_and(|i| {
        let name = &location[..i];
        name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    let joined = if has_scheme {
        location.to_owned()
    } else {
        let (reference, query) = location
            .find('?')
            .map_or((location, ""), |i| location.split_at(i));
        let reference = reference.replace('\\', "/");
        if reference.starts_with("//") {
            format!("{scheme}:{reference}{query}")
        } else {
            let base_path = base_uri.path();
            let path = if reference.is_empty() {
                base_path.to_owned()
            } else if reference.starts_with('/') {
                reference
            } else {
                let dir = base_path.rfind('/').map_or("/", |i| &base_path[..=i]);
                format!("{dir}{reference}")
            };
            let query = match (location.is_empty(), base_uri.query()) {
                (true, Some(q)) => format!("?{q}"),
                _ => query.to_owned(),
            };
            format!(
                "{scheme}://{authority}{}{query}",
                without_dot_segments(&path)
            )
        }
    };
    let uri: ureq::http::Uri = percent_encoded(&joined).parse().ok()?;
    let scheme = uri.scheme_str()?;
    let web = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    // User information (`user:password@`): fetch refuses to request such a URL, and ureq
    // would send it as credentials.
    let userinfo = uri.authority().is_some_and(|a| a.as_str().contains('@'));
    if !web || userinfo || uri.host().is_none_or(str::is_empty) {
        return None;
    }
    let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
    Some(format!(
        "{}://{}{}{query}",
        scheme.to_ascii_lowercase(),
        uri.authority()?.as_str(),
        without_dot_segments(uri.path())
    ))
}

/// `url` as fetch sends it: [`join`] of the URL with itself (dot segments removed, the bytes
/// fetch percent-encodes encoded), or `url` when that gives no URL.
pub(crate) fn as_fetch_sends(url: &str) -> String {
    join(url, url).unwrap_or_else(|| url.to_owned())
}

/// `url` with the bytes the WHATWG URL parser percent-encodes (Node 20): in the path
/// (before the first `?`) controls, space, `"`, `<`, `>`, `` ` ``, `{`, `}` and every
/// non-ASCII byte; in the query the same but `` ` ``, `{`, `}`, and `'` as well.
fn percent_encoded(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    let mut in_query = false;
    for c in url.chars() {
        in_query |= c == '?';
        let mut bytes = [0u8; 4];
        for &b in c.encode_utf8(&mut bytes).as_bytes() {
            let encode = b <= 0x20
                || b >= 0x7f
                || matches!(b, b'"' | b'<' | b'>')
                || if in_query {
                    b == b'\''
                } else {
                    matches!(b, b'`' | b'{' | b'}')
                };
            if encode {
                out.push_str(&format!("%{b:02X}"));
            } else {
                out.push(char::from(b));
            }
        }
    }
    out
}

/// A path without its `.` and `..` segments (RFC 3986 section 5.2.4; `%2e` in any case is a
/// dot, as in the WHATWG URL parser).
fn without_dot_segments(path: &str) -> String {
    let dot = |s: &str| s == "." || s.eq_ignore_ascii_case("%2e");
    let dots = |s: &str| {
        matches!(
            s.to_ascii_lowercase().as_str(),
            ".." | ".%2e" | "%2e." | "%2e%2e"
        )
    };
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let last = segments.len().saturating_sub(1);
    for (i, segment) in segments.iter().enumerate() {
        if dots(segment) {
            out.pop();
            if i == last {
                out.push("");
            }
        } else if dot(segment) {
            if i == last {
                out.push("");
            }
        } else {
            out.push(segment);
        }
    }
    format!("/{}", out.join("/"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::{as_fetch_sends, join};

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
            ("HTTP://B.example/x/%2e%2E/c", Some("http://B.example/c")),
            (
                "/bäse?ä'`",
                Some("http://a.example:8080/b%C3%A4se?%C3%A4%27`"),
            ),
            (
                "/a`{}\"^|?q=\"<>",
                Some("http://a.example:8080/a%60%7B%7D%22^|?q=%22%3C%3E"),
            ),
        ] {
            assert_eq!(join(base, location).as_deref(), want, "{location:?}");
        }
        assert_eq!(
            as_fetch_sends("http://h:1/a/../b/./c?x#f"),
            "http://h:1/b/c?x"
        );
        assert_eq!(
            join("https://a/", "http://b/").as_deref(),
            Some("http://b/"),
            "the downgrade is the core's to refuse"
        );
    }
}
