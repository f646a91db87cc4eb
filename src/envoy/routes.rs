//! Which request paths carry Agent Cards, and which agent's rule applies to them.
//!
//! A route's `path` is a template matched segment by segment against the request path (query
//! string removed): literal segments match regardless of letter case as routers read it (ASCII
//! case, and the loose key of agent ids: Unicode case mappings that reach ASCII such as the
//! Kelvin sign and the long `ſ`, accents, fullwidth forms; surrounding whitespace and trailing
//! dots trimmed), `*` matches any one segment and `{id}` matches any one segment and names the
//! agent whose policy rule applies. Percent-encoded bytes in the id are decoded. The implicit
//! well-known route matches any path ending in `/.well-known/agent-card.json` (its two segments
//! compared the same way) and uses the policy's defaults.
//!
//! An upstream may read one resource under many spellings of its path, so a request path is
//! matched in every form an upstream is likely to read it as ([`path_variants`]): percent-escapes
//! decoded (with `%2F`/`%5C` kept, and decoded), `\` read as `/`, duplicate and trailing slashes
//! merged, `.` and `..` segments resolved, and `;parameters` dropped from segments. The first form
//! that matches a route wins. Matching more paths than the upstream serves cards on only means
//! some non-card answer is checked (and fails closed); matching fewer would let a card through
//! unchecked.

use crate::agent_id::{names_with_suffix, readings, skeleton, without_format_suffix};
use crate::InputError;

use crate::watermark_sources::{PointerUnit, WatermarkSources};

/// The suffix of the A2A well-known card URI.
pub const WELL_KNOWN_SUFFIX: &str = "/.well-known/agent-card.json";

/// The [`WELL_KNOWN_SUFFIX`]'s directory segment.
const WELL_KNOWN_DIR: &str = ".well-known";

/// The [`WELL_KNOWN_SUFFIX`]'s file segment.
const WELL_KNOWN_FILE: &str = "agent-card.json";

/// One segment of a path template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Must equal this text.
    Literal(String),
    /// Any one non-empty segment.
    Any,
    /// Any one non-empty segment, naming the agent.
    AgentId,
}

/// How a route recognises its paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathPattern {
    /// A `/`-separated template.
    Template(Vec<Segment>),
    /// Any path ending in `/.well-known/agent-card.json`.
    WellKnown,
}

impl PathPattern {
    /// Parses a template such as `/agents/{id}/card`.
    pub fn parse(template: &str) -> Result<PathPattern, InputError> {
        let rest = template.strip_prefix('/').ok_or_else(|| {
            InputError::range_error("", format!("must start with '/', found {template:?}"))
        })?;
        let mut segments = Vec::new();
        for raw in rest.split('/') {
            let segment = match raw {
                "{id}" => {
                    if segments.contains(&Segment::AgentId) {
                        return Err(InputError::range_error("", "at most one {id} segment"));
                    }
                    Segment::AgentId
                }
                "*" => Segment::Any,
                _ if raw.contains(['{', '}', '?', '#']) => {
                    return Err(InputError::range_error(
                        "",
                        format!("segment {raw:?}: only a whole {{id}} or * segment may be variable; no '?' or '#'"),
                    ))
                }
                _ => Segment::Literal(raw.to_owned()),
            };
            segments.push(segment);
        }
        Ok(PathPattern::Template(segments))
    }

    /// Whether every path `later` matches is matched by `self` too (so that, first match
    /// winning, a route with `later` after one with `self` never applies). Segments compare as
    /// [`CardRoute::matches`] does: literals by their loose key (ASCII case and more, see
    /// `literal_matches`), `*` and `{id}` any non-empty segment.
    pub fn covers(&self, later: &PathPattern) -> bool {
        match (self, later) {
            (PathPattern::WellKnown, PathPattern::WellKnown) => true,
            (PathPattern::Template(mine), PathPattern::Template(theirs)) => {
                mine.len() == theirs.len()
                    && mine.iter().zip(theirs).all(|(m, t)| match (m, t) {
                        // The same loose key: every segment one matches, the other does.
                        (Segment::Literal(a), Segment::Literal(b)) => skeleton(a) == skeleton(b),
                        (Segment::Literal(_), _) => false,
                        (_, Segment::Literal(b)) => !b.is_empty(),
                        (_, _) => true,
                    })
            }
            _ => false,
        }
    }

    /// Whether the template has an `{id}` segment.
    pub fn has_agent_placeholder(&self) -> bool {
        matches!(self, PathPattern::Template(s) if s.contains(&Segment::AgentId))
    }
}

/// A configured card route.
#[derive(Debug, Clone)]
pub struct CardRoute {
    /// Which paths.
    pub pattern: PathPattern,
    /// A fixed agent id for the policy rule (when the path has no `{id}`).
    pub agent: Option<String>,
    /// JSON Pointer of the card inside a JSON envelope; `None`: the body is the card.
    pub card_pointer: Option<String>,
    /// Response headers that carry the watermark.
    pub watermark: WatermarkSources,
    /// JSON Pointer (into the body) of a watermark value, and its unit.
    pub watermark_pointer: Option<(String, PointerUnit)>,
}

/// Names a route of a configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteId {
    /// `routes[i]`.
    Listed(usize),
    /// The implicit well-known route.
    WellKnown,
}

/// A request path matched to a route.
#[derive(Debug, Clone)]
pub struct RouteMatch<'a> {
    /// The route.
    pub route: &'a CardRoute,
    /// The agent whose rule applies (`None`: the policy's defaults).
    pub agent: Option<String>,
}

impl CardRoute {
    /// Matches a request path without its query string.
    pub fn matches(&self, path: &str) -> Option<RouteMatch<'_>> {
        match &self.pattern {
            PathPattern::WellKnown => {
                // `.../.well-known/agent-card.json`: the last two segments, after a `/`.
                let mut parts = path.rsplit('/');
                let (Some(file), Some(dir), Some(_)) = (parts.next(), parts.next(), parts.next())
                else {
                    return None;
                };
                (literal_matches(file, WELL_KNOWN_FILE) && literal_matches(dir, WELL_KNOWN_DIR))
                    .then(|| RouteMatch {
                        route: self,
                        agent: self.agent.clone(),
                    })
            }
            PathPattern::Template(segments) => {
                let rest = path.strip_prefix('/')?;
                let mut parts = rest.split('/');
                let mut agent = self.agent.clone();
                for segment in segments {
                    let part = parts.next()?;
                    match segment {
                        Segment::Literal(text) => {
                            if !literal_matches(part, text) {
                                return None;
                            }
                        }
                        Segment::Any => {
                            if part.is_empty() {
                                return None;
                            }
                        }
                        Segment::AgentId => {
                            if part.is_empty() {
                                return None;
                            }
                            agent = Some(percent_decode(part));
                        }
                    }
                }
                if parts.next().is_some() {
                    return None;
                }
                Some(RouteMatch { route: self, agent })
            }
        }
    }
}

/// Whether a request path segment names a template's literal segment as an upstream may read
/// it: equal regardless of ASCII letter case, or with the same [`skeleton`] once read as an
/// upstream reads an agent id ([`readings`]: surrounding whitespace, control characters and
/// trailing dots trimmed). Routers compare literal segments with Unicode case mappings that reach
/// ASCII (Python's `lower()` reads the Kelvin sign U+212A as `k`, Java's `equalsIgnoreCase` and
/// Go's `EqualFold` read the long `ſ` as `s`), and Windows file servers drop trailing dots
/// and spaces: `/.well-%E2%84%AAnown/agent-card.json` (the Kelvin sign for the `k`) is the
/// well-known card to such an upstream. Matching more spellings only means more answers are
/// checked.
fn literal_matches(part: &str, literal: &str) -> bool {
    // A format suffix names the literal too: `card.json`, `card.xml`, `card.json.json` (Spring's
    // `card.*`; Rails reads the text before the first dot), the stem read as any segment is.
    segment_names_literal(part, literal)
        || names_with_suffix(part, literal)
        || without_format_suffix(part).is_some_and(|stem| segment_names_literal(stem, literal))
}

/// [`literal_matches`] without the format suffix.
fn segment_names_literal(part: &str, literal: &str) -> bool {
    if part.eq_ignore_ascii_case(literal) {
        return true;
    }
    // Printable ASCII without a trailing dot, `?` or `#` on both sides: the loose reading is the
    // ASCII case comparison above (the common case; no allocation).
    let plain = |s: &str| {
        !s.ends_with('.')
            && s.bytes()
                .all(|b| b.is_ascii_graphic() && b != b'?' && b != b'#')
    };
    if plain(part) && plain(literal) {
        return false;
    }
    let want = skeleton(literal);
    skeleton(part) == want || readings(part).iter().any(|r| skeleton(r) == want)
}

/// The request path without query string or fragment.
pub fn strip_query(path: &str) -> &str {
    path.split(['?', '#']).next().unwrap_or(path)
}

/// Decodes `%XX` escapes; invalid escapes and invalid UTF-8 are kept as written / replaced.
pub(crate) fn percent_decode(text: &str) -> String {
    decode_except(text, &[])
}

/// Decodes `%XX` escapes except those that decode to a byte in `keep` (left as written).
fn decode_except(text: &str, keep: &[u8]) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(decoded) = hex.filter(|d| !keep.contains(d)) {
                out.push(decoded);
                i += 3;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The path with `\` read as `/`, empty segments (duplicate or trailing slashes) dropped and
/// `.` / `..` segments resolved (RFC 3986 §5.2.4; `..` never climbs above the root); with
/// `drop_params`, each segment's `;parameters` removed too.
fn normalize_segments(path: &str, drop_params: bool) -> String {
    let mut out: Vec<&str> = Vec::new();
    for raw in path.split(['/', '\\']) {
        let segment = if drop_params {
            raw.split(';').next().unwrap_or(raw)
        } else {
            raw
        };
        match segment {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    format!("/{}", out.join("/"))
}

/// Whether [`path_variants`] of `path` (query removed) is `path` alone: it starts with `/`, has no
/// escape, backslash or `;`, and every segment is non-empty and neither `.` nor `..` (so no
/// decoding or normalization changes it, and it is not an absolute-form target). The common
/// case, decided in one pass without allocating.
fn is_plain(path: &str) -> bool {
    let Some(rest) = path.strip_prefix('/') else {
        return false;
    };
    !path.bytes().any(|b| matches!(b, b'%' | b'\\' | b';'))
        && rest
            .split('/')
            .all(|segment| !matches!(segment, "" | "." | ".."))
}

/// The forms of a request path (query string removed) an upstream may read it as, most literal
/// first, without repeats: percent-escapes decoded except `%2F`, `%5C` and `%25` (which the
/// route's `{id}` decoding reads later), then with `%2F` and `%5C` decoded as separators too;
/// each normalized by `normalize_segments`, then again without `;parameters`. An
/// absolute-form target (`http://host/path`) is reduced to its path.
pub fn path_variants(path: &str) -> Vec<String> {
    let path = strip_query(path);
    if is_plain(path) {
        // Every variant would be the path itself: nothing to decode or normalize.
        return vec![path.to_owned()];
    }
    decoded_variants(path)
}

/// [`path_variants`] the long way, for any path without its query string.
fn decoded_variants(path: &str) -> Vec<String> {
    let path = match path.split_once("://") {
        Some((scheme, rest)) if !scheme.contains('/') => {
            rest.find('/').and_then(|i| rest.get(i..)).unwrap_or("/")
        }
        _ => path,
    };
    let mut decoded = vec![decode_except(path, b"/\\%"), decode_except(path, b"%")];
    if path.contains("%25") {
        // Decoded twice: a proxy between the gate and the upstream that decodes the path, then
        // the upstream again (`/agents/w/%2563ard` is `/agents/w/card` to them).
        decoded.push(percent_decode(&percent_decode(path)));
    }
    // A handler that decodes before it splits the URL reads a decoded `?` or `#` (`%3F`, `%23`)
    // as the end of the path.
    for i in 0..decoded.len() {
        if let Some(cut) = decoded.get(i).and_then(|d| d.split_once(['?', '#'])) {
            let cut = cut.0.to_owned();
            decoded.push(cut);
        }
    }
    let mut out: Vec<String> = Vec::new();
    for drop_params in [false, true] {
        for d in &decoded {
            let v = normalize_segments(d, drop_params);
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(template: &str) -> CardRoute {
        CardRoute {
            pattern: PathPattern::parse(template).unwrap(),
            agent: None,
            card_pointer: None,
            watermark: WatermarkSources::conventional(),
            watermark_pointer: None,
        }
    }

    #[test]
    fn a_format_suffix_names_the_literal() {
        let r = route("/agents/{id}/card");
        for path in [
            "/agents/w/card.json",
            "/agents/w/CARD.JSON",
            "/agents/w/card.xml",
            "/agents/w/card.json.json",
            "/agents/w/card.j-s",
            "/agents/w/card.abcdefghijklmnopq",
            "/agents/w/card.json.",
            "/agents/w/card.",
        ] {
            assert!(r.matches(path).is_some(), "{path}");
        }
        for path in [
            "/agents/w/cardjson",
            "/agents/w/.json",
            "/agents/w/cards.json",
        ] {
            assert!(r.matches(path).is_none(), "{path}");
        }
        // A segment of many suffixes is read once (no recursion per suffix).
        let long = format!("/agents/w/card{}", ".json".repeat(20_000));
        assert!(r.matches(&long).is_some());
    }

    #[test]
    fn templates_match_whole_segments() {
        let r = route("/agents/{id}/card");
        assert_eq!(
            r.matches("/agents/worker-7/card").unwrap().agent.as_deref(),
            Some("worker-7")
        );
        assert_eq!(
            r.matches("/agents/w%2D7/card").unwrap().agent.as_deref(),
            Some("w-7")
        );
        assert!(r.matches("/agents//card").is_none());
        assert!(r.matches("/agents/w/card/x").is_none());
        assert!(r.matches("/agents/w").is_none());
        assert!(r.matches("agents/w/card").is_none());
        let any = route("/*/card");
        assert!(any.matches("/x/card").unwrap().agent.is_none());
    }

    #[test]
    fn bad_templates_are_refused() {
        assert!(PathPattern::parse("agents").is_err());
        assert!(PathPattern::parse("/a/{id}/{id}").is_err());
        assert!(PathPattern::parse("/a/x{id}").is_err());
        assert!(PathPattern::parse("/a?b").is_err());
    }

    #[test]
    fn path_variants_cover_what_upstreams_read() {
        let r = route("/agents/{id}/card");
        let matched = |p: &str| {
            path_variants(p)
                .iter()
                .find_map(|v| r.matches(v).map(|m| m.agent))
                .flatten()
        };
        for p in [
            "/agents/w/card",
            "/agents/w/card/",
            "/agents/w/card//",
            "//agents//w///card",
            "/agents/./w/card",
            "/agents/x/../w/card",
            "/x/../../agents/w/card",
            "/agents/w/%63ard",
            "/agents/w/%63ARD",
            "/AGENTS/w/Card",
            "/agents/w/card;jsessionid=1",
            "/agents/w%3Bx/card",
            "/agents\\w\\card",
            "/agents%2Fw%2Fcard",
            "/agents/w/card?x=1",
            "http://registry/agents/w/card",
            "/agents/w/%2E/card",
            "/agents/w/%2e%2e/w/card",
            "/agents/w/card%3F",
            "/agents/w/card%3Fx=1",
            "/agents/w/card%23frag",
            "/agents/w/card%2F%3Fx",
            "/agents/w/%2563ard",
            "/%2561gents/w/card",
            "/agents/w/card%253F",
        ] {
            assert_eq!(
                matched(p).as_deref().map(|a| a.split(';').next().unwrap()),
                Some("w"),
                "{p}"
            );
        }
        assert_eq!(matched("/agents/a%2Fb/card").as_deref(), Some("a/b"));
        assert_eq!(matched("/agents/a%252Fb/card").as_deref(), Some("a%2Fb"));
        // Decoded twice, the id is `w` too (an extra reading: the first match stays `%77`).
        assert_eq!(matched("/agents/%2577/card").as_deref(), Some("%77"));
        assert!(path_variants("/agents/%2577/card").iter().any(|v| r
            .matches(v)
            .and_then(|m| m.agent)
            .as_deref()
            == Some("w")));
        assert_eq!(matched("/agents/w/cards"), None);
        // Only a target that starts with a scheme is absolute-form: a `://` later in a path
        // is part of it (`/agents/w/card` is not what an upstream serves there).
        assert_eq!(matched("/agents/x/http://h/agents/w/card"), None);
        assert!(path_variants("/p/http://h/agents/w/card")
            .iter()
            .all(|v| v.starts_with("/p/http:")));
        let wk = CardRoute {
            pattern: PathPattern::WellKnown,
            ..route("/x")
        };
        for p in [
            "/.well-known/agent-card.json",
            "/%2Ewell-known/agent-card.json",
            "/.Well-Known/Agent-Card.JSON",
            "/.well-known/agent-card.json/",
            "/.well-known/./agent-card.json",
            "//.well-known//agent-card.json",
            "/a/b/../.well-known/agent-card.json",
        ] {
            assert!(
                path_variants(p).iter().any(|v| wk.matches(v).is_some()),
                "{p}"
            );
        }
        assert!(wk.matches("/").is_none());
    }

    #[test]
    fn plain_paths_take_the_short_way_to_the_same_variants() {
        for p in [
            "/agents/w/card",
            "/.well-known/agent-card.json",
            "/a",
            "/a.b/..c/c..",
            "/AGENTS/W-7/Card",
            "/x/http:/y",
        ] {
            assert!(is_plain(p), "{p}");
            assert_eq!(path_variants(p), decoded_variants(p), "{p}");
            assert_eq!(path_variants(p), vec![p.to_owned()], "{p}");
        }
        for p in [
            "/",
            "",
            "agents/w/card",
            "/agents/w/card/",
            "//agents/w/card",
            "/agents/./w/card",
            "/agents/../w/card",
            "/agents/w/..",
            "/agents/w/.",
            "/agents/w%2Fx/card",
            "/agents\\w/card",
            "/agents/w/card;x=1",
            "http://registry/agents/w/card",
        ] {
            assert!(!is_plain(p), "{p}");
        }
    }

    #[test]
    fn literal_segments_match_as_routers_read_them() {
        let card = route("/agents/{id}/card");
        let well_known = CardRoute {
            pattern: PathPattern::WellKnown,
            ..route("/x")
        };
        // Decoded forms (what `path_variants` hands over): the Kelvin sign and the long s case-map
        // to ASCII, fullwidth and accented letters fold, trailing dots and spaces are dropped.
        for path in [
            "/agent\u{17f}/w/card",
            "/AGENT\u{17f}/w/CARD",
            "/\u{ff41}gents/w/card",
            "/agents/w/c\u{e4}rd",
            "/agents/w/card.",
            "/agents/w/card ",
            "/agents /w/card",
            "/agents/w/car\u{ad}d",
        ] {
            let m = card.matches(path);
            assert_eq!(m.and_then(|m| m.agent).as_deref(), Some("w"), "{path}");
        }
        for path in [
            "/.well-\u{212a}nown/agent-card.json",
            "/.WELL-\u{212a}NOWN/AGENT-CARD.JSON",
            "/a/.well-known/agent-card.j\u{17f}on",
            "/.well-known./agent-card.json",
            "/.well-known/agent-card.json.",
            "/.well-known/agent-card.json\t",
            "/.well-known/agent-card.json",
            "/x/.Well-Known/Agent-Card.JSON",
        ] {
            assert!(well_known.matches(path).is_some(), "{path}");
        }
        for path in [
            "/agents/w/cards",
            "/agents/w/car",
            "/agents/w/ca.rd",
            "/.well-known/agent-card.jsonx",
            ".well-known/agent-card.json",
            "/well-known/agent-card.json",
            "/agent-card.json",
            "/.well-known/agent-card.json/x",
        ] {
            assert!(card.matches(path).is_none(), "{path}");
            assert!(well_known.matches(path).is_none(), "{path}");
        }
        // A later route whose literals have the same loose key never applies.
        let pattern = |t: &str| PathPattern::parse(t).unwrap();
        assert!(pattern("/agents/{id}/card").covers(&pattern("/AGENTS/{id}/C\u{c4}RD")));
        assert!(!pattern("/agents/{id}/card").covers(&pattern("/agents/{id}/cards")));
    }

    #[test]
    fn query_is_ignored() {
        assert_eq!(strip_query("/a/b?x=1#f"), "/a/b");
        assert_eq!(strip_query("/a/b"), "/a/b");
    }
}
