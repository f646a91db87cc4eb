//! Answers on a card route that send the caller elsewhere. Plain Rust, unit-tested natively;
//! `filter` applies it.
//!
//! - **Redirects.** Card resolvers follow redirects (`fetch` does, for `301`, `302`, `303`,
//!   `307` and `308`): the card the caller ends up with is the redirect target's. A redirect on a
//!   card route is forwarded only when its target, on the same authority, is a card route this
//!   filter checks under the same policy rule; anything else (another host, a path that is not a
//!   card route, a card route of another agent's rule, no readable single `Location`) would hand
//!   the caller a card the gate never checked under this rule, so it fails closed.

/// The statuses a caller's HTTP client follows by itself: the core's rule, shared with
/// `cardgate resolve` and the npm package ([`crate::resolution::follows_redirect`]).
pub fn is_followed_redirect(status: u16) -> bool {
    crate::resolution::follows_redirect(status)
}

/// Where a redirect leads, as far as the gate can tell.
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    /// A path (query removed) on the authority the request was made to.
    SamePath(String),
    /// Somewhere the gate cannot follow: another authority or scheme, or no single readable
    /// `Location` (the text says why).
    Elsewhere(String),
    /// No `Location` at all: clients do not follow it.
    None,
}

/// Resolves the `Location` values of a redirect to `request_path` (query removed) made to
/// `authority` over `scheme` (the request's `:scheme`).
pub fn target(
    locations: &[Vec<u8>],
    request_path: &str,
    authority: Option<&str>,
    scheme: Option<&str>,
) -> Target {
    let location = match locations {
        [] => return Target::None,
        [one] => one,
        _ => return Target::Elsewhere("more than one Location header".to_owned()),
    };
    let Ok(location) = std::str::from_utf8(location) else {
        return Target::Elsewhere("a Location that is not UTF-8".to_owned());
    };
    let location = location.trim_matches([' ', '\t']);
    if location.is_empty() {
        return Target::Elsewhere("an empty Location".to_owned());
    }
    if location.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Target::Elsewhere("a Location with control characters".to_owned());
    }
    // Drop the fragment; the query does not choose the route (Envoy's and ours ignore it).
    let reference = location
        .split(['#', '?'])
        .next()
        .unwrap_or(location)
        .replace('\\', "/");
    let path = if let Some((theirs, rest)) = scheme_rest(&reference) {
        // Absolute URI: the same scheme and authority only. Another scheme is another port and
        // listener (`http:` to `https:` on an egress sidecar leaves for TLS the sidecar cannot
        // read): the gate cannot vouch that a caller following it is checked there.
        let Some(rest) = rest.strip_prefix("//") else {
            return Target::Elsewhere(format!("Location {location:?} is not an http(s) URL"));
        };
        if !scheme.is_some_and(|ours| ours.eq_ignore_ascii_case(theirs)) {
            return Target::Elsewhere(format!(
                "Location {location:?} leaves the request's scheme ({}): another listener, which this gate cannot vouch for",
                scheme.unwrap_or("unknown")
            ));
        }
        match same_authority(rest, authority) {
            Some(path) => path,
            None => {
                return Target::Elsewhere(format!("Location {location:?} is another authority"))
            }
        }
    } else if let Some(rest) = reference.strip_prefix("//") {
        match same_authority(rest, authority) {
            Some(path) => path,
            None => {
                return Target::Elsewhere(format!("Location {location:?} is another authority"))
            }
        }
    } else if reference.starts_with('/') {
        reference
    } else if reference.is_empty() {
        // "?query" or "#fragment" only: the same path.
        request_path.to_owned()
    } else {
        // Relative: merged with the request path's directory (RFC 3986, 5.2.3); dot segments
        // are resolved by the route matching.
        let dir = request_path
            .rfind('/')
            .and_then(|i| request_path.get(..=i))
            .unwrap_or("/");
        format!("{dir}{reference}")
    };
    Target::SamePath(path)
}

/// The request header Envoy sets on a request it recreates to follow a redirect itself
/// (`internal_redirect_policy`): the URL the caller asked for.
pub const ORIGINAL_URL: &str = "x-envoy-original-url";

/// A redirect Envoy followed internally from a card route that the gate refuses: the card
/// route's own attempt, failed.
#[derive(Debug)]
pub struct InternalRefusal {
    /// The card route's request, as in `x-envoy-original-url`: its path and query (what a
    /// re-resolution asks the route's clusters for, as for any request on that route).
    pub original: String,
    /// The original card route: its `re_resolve`, if any, is the one that applies.
    pub route: crate::envoy::routes::RouteId,
    /// The refusal (`malformed_card`, `body_empty`).
    pub decision: crate::Decision,
}

impl InternalRefusal {
    /// The card route's path, query removed: what chooses its route, rule and `re_resolve`.
    pub fn original_path(&self) -> &str {
        crate::envoy::routes::strip_query(&self.original)
    }
}

/// The refusal of a redirect Envoy followed internally from `original` (a URL whose path is a
/// card route) to this request's `path`, unless every reading of `path` has that route's rule
/// or a stricter one (the rule of the filter's redirect refusal; the authority may differ: the
/// recreated request comes through this filter chain whatever its host). `None` when the
/// original path is no card route, or the target keeps the rule.
pub fn internal_refusal(
    config: &crate::envoy::config::FilterConfig,
    original: &str,
    path: &str,
) -> Option<InternalRefusal> {
    let rest = original
        .split_once("://")
        .map_or(original, |(_, rest)| rest);
    let original = authority_and_path(rest)?.1;
    let original_path = crate::envoy::routes::strip_query(original);
    // Only a redirect from a card route (its rule readable or not) is the gate's business.
    let (route, _, _) = config.route_and_requirement(original_path)?;
    let why = config.redirect_keeps_rule(original_path, path).err()?;
    let decision = crate::Decision::malformed(
        crate::reason::ReasonCode::BodyEmpty,
        "",
        format!("Envoy followed a redirect from the card route {original_path:?} itself (the route's internal_redirect_policy): {why}, so the caller would get a card the gate never checked under that route's rule (no card to check)"),
    );
    Some(InternalRefusal {
        original: original.to_owned(),
        route,
        decision,
    })
}

/// The paths a caller's HTTP client requests when it follows a redirect to `target` (a path on
/// this authority, as [`target`] returns it): its dot segments removed as RFC 3986 (5.2.4) does
/// (httpx, curl), and as the WHATWG URL parser does for `fetch` (where `%2e`, in either case, is
/// a dot too: `/a/b/%2E%2e/c` is `/a/c`). The gate must judge these, not `target` itself: a
/// reading of `target` that cuts it first (at a decoded `?` in `/agents/w/card%3F/../../../x`,
/// say) names a card route, while the client asks for `/x`. Without repeats, RFC 3986 first.
pub fn client_paths(target: &str) -> Vec<String> {
    let rfc = remove_dot_segments(target, false);
    let whatwg = remove_dot_segments(target, true);
    if whatwg == rfc {
        vec![rfc]
    } else {
        vec![rfc, whatwg]
    }
}

/// RFC 3986 5.2.4 on an absolute path (`..` never climbs above the root; a final `.` or `..`
/// leaves a trailing slash); with `encoded_dots`, `%2e` counts as `.` (WHATWG's single- and
/// double-dot segments). A path that does not start with `/` is returned as it is.
fn remove_dot_segments(path: &str, encoded_dots: bool) -> String {
    let Some(rest) = path.strip_prefix('/') else {
        return path.to_owned();
    };
    let dots = |segment: &str| -> usize {
        let lower = segment.to_ascii_lowercase();
        match lower.as_str() {
            "." => 1,
            ".." => 2,
            "%2e" if encoded_dots => 1,
            ".%2e" | "%2e." | "%2e%2e" if encoded_dots => 2,
            _ => 0,
        }
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let last = segments.len().saturating_sub(1);
    let mut out: Vec<&str> = Vec::new();
    for (i, segment) in segments.into_iter().enumerate() {
        match dots(segment) {
            0 => out.push(segment),
            n => {
                if n == 2 {
                    out.pop();
                }
                if i == last {
                    out.push("");
                }
            }
        }
    }
    format!("/{}", out.join("/"))
}

/// `Some((scheme, after the colon))` when `reference` starts with a URI scheme.
fn scheme_rest(reference: &str) -> Option<(&str, &str)> {
    let colon = reference.find(':')?;
    let scheme = reference.get(..colon)?;
    let first = scheme.bytes().next()?;
    let valid = first.is_ascii_alphabetic()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    if !valid {
        return None;
    }
    let rest = reference.get(colon + 1..)?;
    if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") {
        Some((scheme, rest))
    } else {
        // Another scheme: never the same place (an empty rest makes the caller fail closed).
        Some((scheme, ""))
    }
}

/// The path of `//authority/path...` when the authority is the request's (ASCII case aside),
/// `/` when it has no path.
fn same_authority(rest: &str, authority: Option<&str>) -> Option<String> {
    let (host, path) = authority_and_path(rest)?;
    let authority = authority?;
    (!host.is_empty() && host.eq_ignore_ascii_case(authority)).then(|| path.to_owned())
}

/// `authority/path...` (a URL after its `//`) split before the path's first `/`; the path is
/// `/` when there is none.
fn authority_and_path(rest: &str) -> Option<(&str, &str)> {
    match rest.find('/') {
        Some(i) => Some((rest.get(..i)?, rest.get(i..)?)),
        None => Some((rest, "/")),
    }
}

#[cfg(test)]
mod tests {
    use super::{internal_refusal, is_followed_redirect, Target};

    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/common/redirect_locations.rs"
    ));

    fn loc(v: &str) -> Vec<Vec<u8>> {
        vec![v.as_bytes().to_vec()]
    }

    fn same(p: &str) -> Target {
        Target::SamePath(p.to_owned())
    }

    #[test]
    fn followed_statuses() {
        for s in [301, 302, 303, 307, 308] {
            assert!(is_followed_redirect(s));
        }
        for s in [300, 304, 305, 306, 200, 404] {
            assert!(!is_followed_redirect(s));
        }
    }

    #[test]
    fn targets_on_the_same_authority() {
        let req = "/agents/w/card/";
        let a = Some("Registry.example:8080");
        let target = |l: &[Vec<u8>], r: &str, a: Option<&str>| super::target(l, r, a, Some("http"));
        assert_eq!(
            target(&loc("/agents/w/card"), req, a),
            same("/agents/w/card")
        );
        assert_eq!(target(&loc("/x?y=1#z"), req, a), same("/x"));
        assert_eq!(
            target(&loc("../card"), req, a),
            same("/agents/w/card/../card")
        );
        assert_eq!(target(&loc("other"), "/a/b", a), same("/a/other"));
        assert_eq!(target(&loc("?v=2"), "/a/b", a), same("/a/b"));
        assert_eq!(
            target(&loc("http://registry.example:8080/agents/w/card"), req, a),
            same("/agents/w/card")
        );
        assert_eq!(
            super::target(&loc("HTTPS://REGISTRY.example:8080"), req, a, Some("https")),
            same("/")
        );
        assert_eq!(
            super::target(&loc("Http://registry.example:8080/x"), req, a, Some("HTTP")),
            same("/x")
        );
        assert_eq!(
            target(&loc("//registry.example:8080/p"), req, a),
            same("/p")
        );
        assert_eq!(target(&loc("\\agents\\w"), req, a), same("/agents/w"));
        assert_eq!(target(&[], req, a), Target::None);
    }

    #[test]
    fn client_paths_resolve_dot_segments_as_clients_do() {
        use super::client_paths;
        assert_eq!(client_paths("/agents/w/card"), ["/agents/w/card"]);
        assert_eq!(
            client_paths("/agents/w/card%3F/../../../cards/w.json"),
            ["/cards/w.json"]
        );
        assert_eq!(client_paths("/a/b/./c/../d"), ["/a/b/d"]);
        assert_eq!(client_paths("/a/b/.."), ["/a/"]);
        assert_eq!(client_paths("/a/b/."), ["/a/b/"]);
        assert_eq!(client_paths("/../../a"), ["/a"]);
        assert_eq!(client_paths("/a//b/../c"), ["/a//c"]);
        // fetch reads %2e as a dot; httpx sends it as written (Envoy's normalize_path decodes it).
        assert_eq!(
            client_paths("/agents/w/card%3F/%2E%2e/.%2E/%2e./x"),
            ["/agents/w/card%3F/%2E%2e/.%2E/%2e./x", "/x"]
        );
        assert_eq!(client_paths("/a/%2e/b"), ["/a/%2e/b", "/a/b"]);
        assert_eq!(client_paths("relative"), ["relative"]);
    }

    #[test]
    fn targets_elsewhere() {
        let req = "/agents/w/card";
        let a = Some("registry.example");
        let target = |l: &[Vec<u8>], r: &str, a: Option<&str>| super::target(l, r, a, Some("http"));
        for l in [
            "http://cdn.example/agents/w/card",
            "//cdn.example/agents/w/card",
            "https://registry.example:443/agents/w/card",
            // The same authority over another scheme: another port and listener.
            "https://registry.example/agents/w/card",
            "ftp://registry.example/agents/w/card",
            "javascript:alert(1)",
            "",
            "/a\u{1}b",
        ] {
            assert!(
                matches!(target(&loc(l), req, a), Target::Elsewhere(_)),
                "{l:?}"
            );
        }
        assert!(matches!(
            target(&[b"/a".to_vec(), b"/b".to_vec()], req, a),
            Target::Elsewhere(_)
        ));
        assert!(matches!(
            target(&[vec![0xff]], req, a),
            Target::Elsewhere(_)
        ));
        assert!(matches!(
            target(&loc("http://registry.example/x"), req, None),
            Target::Elsewhere(_)
        ));
        // A colon later in a relative path is not a scheme, nor is one after a first character
        // that is not a letter; a space is no control character (clients send it escaped).
        assert_eq!(target(&loc("/a:b"), req, a), same("/a:b"));
        assert_eq!(target(&loc("1a:b"), req, a), same("/agents/w/1a:b"));
        assert_eq!(target(&loc("+x:y"), req, a), same("/agents/w/+x:y"));
        assert_eq!(target(&loc("/a b"), req, a), same("/a b"));
        // Over https, a Location on the same authority over http leaves too; with the
        // request's scheme unknown, any absolute Location does (a relative one stays).
        let over = |l: &str, scheme| super::target(&loc(l), req, a, scheme);
        assert!(matches!(
            over("http://registry.example/agents/w/card", Some("https")),
            Target::Elsewhere(why) if why.contains("scheme (https)")
        ));
        assert!(matches!(
            over("http://registry.example/agents/w/card", None),
            Target::Elsewhere(_)
        ));
        assert_eq!(over("/agents/w/card", None), same("/agents/w/card"));
    }

    #[test]
    fn internal_redirects_keep_the_card_routes_rule() {
        let config = crate::envoy::config::FilterConfig::from_json(
            br#"{"defaults":{"max_stale":"10s"},"agents":{"strict":{"max_stale":"1s"}},
                "routes":[{"path":"/c/{id}/card"}],"well_known":false}"#,
        )
        .unwrap();
        let refused = |original: &str, path: &str| {
            internal_refusal(&config, original, path).map(|r| r.decision.error_class())
        };
        let malformed = Some(Some(crate::ErrorClass::MalformedCard));
        // Off the card routes, or to a looser rule: refused.
        assert_eq!(
            refused("http://h:1/c/a/card", "/elsewhere/card.json"),
            malformed
        );
        assert_eq!(refused("http://h/c/a/card?v=2", "/x"), malformed);
        assert_eq!(refused("/c/a/card", "/x"), malformed);
        assert_eq!(refused("http://h/c/strict/card", "/c/a/card"), malformed);
        // The same or a stricter rule, or no card route to begin with: the request is checked
        // as usual.
        assert_eq!(refused("http://other:2/c/a/card", "/c/b/card"), None);
        assert_eq!(refused("http://h/c/a/card", "/c/strict/card"), None);
        assert_eq!(refused("http://h/x", "/y"), None);
        assert_eq!(refused("garbage", "/y"), None);
        // The card route's request is kept, query and all: a re-resolution asks for it.
        let refusal = internal_refusal(&config, "http://h:1/c/a/card?v=2", "/x").unwrap();
        assert_eq!(refusal.original, "/c/a/card?v=2");
        assert_eq!(refusal.original_path(), "/c/a/card");
        assert_eq!(refusal.route, crate::envoy::routes::RouteId::Listed(0));
        let refusal = internal_refusal(&config, "/c/a/card", "/x").unwrap();
        assert_eq!(refusal.original, "/c/a/card");
    }

    /// Every redirect of tests/vectors/url/redirect_locations.json (Node's `URL` and undici's
    /// request: the file's `fetch`) that [`target`] reads as a path on the request's authority
    /// is one fetch follows to that authority, at one of the paths [`client_paths`] gives
    /// (percent-escapes decoded on both sides: the route matching reads every decoding). Any
    /// other reading fails closed, which is always safe.
    #[test]
    fn same_path_targets_are_where_fetch_goes() {
        use super::{client_paths, target};
        let (path, cases) = redirect_location_cases();
        let decode = crate::envoy::routes::percent_decode;
        let mut same = 0;
        for case in &cases {
            let base = case["base"].as_str().unwrap();
            let location = case["location"].as_str().unwrap();
            let (scheme, rest) = base.split_once("://").unwrap();
            let (authority, path_query) = rest.split_at(rest.find('/').unwrap());
            let request_path = path_query.split('?').next().unwrap();
            let read = target(
                &[location.as_bytes().to_vec()],
                request_path,
                Some(authority),
                Some(scheme),
            );
            let Target::SamePath(p) = read else { continue };
            same += 1;
            let fetch = case["fetch"].as_str();
            let want = fetch.unwrap_or_else(|| panic!("{base} + {location:?}: {p}, fetch: none"));
            // The base's origin as the URL Standard writes it (lowercase, no default port).
            let default = if scheme == "https" { ":443" } else { ":80" };
            let origin = authority.to_ascii_lowercase();
            let origin = origin.strip_suffix(default).unwrap_or(&origin);
            let (want_origin, want_path) = {
                let rest = want.split_once("://").unwrap().1;
                let (o, p) = rest.split_at(rest.find('/').unwrap());
                (o, p.split('?').next().unwrap())
            };
            assert_eq!(want_origin, origin, "{base} + {location:?}: {p} vs {want}");
            let paths = client_paths(&p);
            assert!(
                paths.iter().any(|c| decode(c) == decode(want_path)),
                "{base} + {location:?}: the gate reads {paths:?}, fetch requests {want}"
            );
        }
        // The file reaches this reading often.
        let all = cases.len();
        assert!(same * 10 > all, "{same} of {all}");
        eprintln!("{path}: {same} of {all} read as a path on the same authority");
    }
}
