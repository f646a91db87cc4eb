//! Which request paths carry Agent Cards, and which agent's rule applies to them.
//!
//! A route's `path` is a template matched segment by segment against the request path (query
//! string removed): literal segments match exactly, `*` matches any one segment and `{id}` matches
//! any one segment and names the agent whose policy rule applies. Percent-encoded bytes in the id
//! are decoded. The implicit well-known route matches any path ending in
//! `/.well-known/agent-card.json` and uses the policy's defaults.

use crate::InputError;

use crate::watermark_sources::{PointerUnit, WatermarkSources};

/// The suffix of the A2A well-known card URI.
pub const WELL_KNOWN_SUFFIX: &str = "/.well-known/agent-card.json";

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
            PathPattern::WellKnown => path.ends_with(WELL_KNOWN_SUFFIX).then(|| RouteMatch {
                route: self,
                agent: self.agent.clone(),
            }),
            PathPattern::Template(segments) => {
                let rest = path.strip_prefix('/')?;
                let mut parts = rest.split('/');
                let mut agent = self.agent.clone();
                for segment in segments {
                    let part = parts.next()?;
                    match segment {
                        Segment::Literal(text) => {
                            if part != text {
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

/// The request path without query string or fragment.
pub fn strip_query(path: &str) -> &str {
    path.split(['?', '#']).next().unwrap_or(path)
}

/// Decodes `%XX` escapes; invalid escapes and invalid UTF-8 are kept as written / replaced.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(decoded) = hex {
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
    fn query_is_ignored() {
        assert_eq!(strip_query("/a/b?x=1#f"), "/a/b");
        assert_eq!(strip_query("/a/b"), "/a/b");
    }
}
