//! The plugin configuration: a policy plus the filter's own settings, validated in full.
//!
//! ```json
//! {
//!   "defaults": {"max_stale": "10s"},
//!   "agents": {"worker-7": {"require": ["task.execute.v3"]}},
//!   "routes": [{"path": "/agents/{id}/card"},
//!              {"path": "/v1/resolve/{id}", "card_pointer": "/card",
//!               "watermark_pointer": "/replication/lag_ms", "watermark": {}}],
//!   "well_known": true,
//!   "watermark": {"lag_ms_header": "x-replica-lag-ms", "consul": true, "age": true},
//!   "max_card_bytes": 65536,
//!   "mode": "enforce",
//!   "allow_caller_relax": false,
//!   "retry_after_s": 5
//! }
//! ```
//!
//! It is a policy (the `policies/` schema: `$schema`, `$comment`, `defaults`, `agents`) plus the
//! filter's own members, so any policy file is a valid configuration. Every member is optional;
//! unknown members are errors (`$comment` is allowed in every object).
//! Errors carry the JSON Pointer of the offending member, which `on_configure` logs.

use crate::json;
use crate::{InputError, Limits, Policy, Requirement};

use super::reresolve::ReResolve;
use super::response::VERDICT_HEADER_PREFIX;
use super::routes::{path_variants, CardRoute, PathPattern, RouteId, RouteMatch};
use crate::agent_id::{AgentIds, Reading};
use crate::duration::Millis;
use crate::input_error::{present, present_object, range, read_json_text, Object, RangeMessage};
use crate::policy::policy_members;
use crate::resolution::ResolutionLimits;
use crate::watermark_sources::{PointerUnit, WatermarkSources};
use serde::de::{DeserializeSeed, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// Envoy buffers at most 1 MiB per connection by default; our own limit must stay below it so
/// the filter, not Envoy, answers an oversized card (with a reason).
pub const MAX_CARD_BYTES_CEILING: usize = 1_048_576;

/// Whether a rejection blocks the response or is only reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "String")]
#[schemars(with = "String")]
pub enum Mode {
    /// Rejected cards are replaced by the problem document.
    Enforce,
    /// Rejected cards pass with verdict headers, are counted and logged: for rollouts.
    Observe,
}

impl Mode {
    /// `"enforce"` or `"observe"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Enforce => "enforce",
            Mode::Observe => "observe",
        }
    }
}

impl TryFrom<String> for Mode {
    type Error = RangeMessage;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        match text.as_str() {
            "enforce" => Ok(Mode::Enforce),
            "observe" => Ok(Mode::Observe),
            other => Err(RangeMessage(format!(
                "must be \"enforce\" or \"observe\", found {other:?}"
            ))),
        }
    }
}

/// The validated configuration of one filter instance.
#[derive(Debug, Clone)]
pub struct FilterConfig {
    /// Per-agent rules and defaults (the `policies/` schema).
    pub policy: Policy,
    /// Explicit card routes, first match wins.
    pub routes: Vec<CardRoute>,
    /// Also treat any path ending in `/.well-known/agent-card.json` as a card route.
    pub well_known: Option<CardRoute>,
    /// Body and nesting limits handed to the core.
    pub limits: Limits,
    /// Enforce or observe.
    pub mode: Mode,
    /// Whether callers may relax the policy (off by default: callers can only tighten).
    pub allow_caller_relax: bool,
    /// `Retry-After` seconds on a `503 stale_agent_card`.
    pub retry_after_s: u32,
    /// The top-level `re_resolve`: every route without its own.
    pub re_resolve: Option<ReResolve>,
    /// Each listed route's own `re_resolve` (`Some(None)`: `false`, off), `None`: the default.
    pub route_re_resolve: Vec<Option<Option<ReResolve>>>,
    /// The policy's agent ids, read as every host reads them ([`Policy::agent_ids`]).
    pub agent_ids: AgentIds,
}

policy_members! {
    /// The JSON form of the plugin configuration: a policy's members and the filter's own.
    pub struct ConfigInput {
        /// Explicit card routes, first match wins.
        #[serde(default, deserialize_with = "present")]
        pub routes: Option<Vec<Object<RouteInput>>>,
        /// Also treat any path ending in `/.well-known/agent-card.json` as a card route.
        #[serde(default, deserialize_with = "present")]
        pub well_known: Option<bool>,
        /// Response headers that carry the watermark (every route without its own).
        #[serde(default, deserialize_with = "present_object")]
        pub watermark: Option<WatermarkInput>,
        /// The largest card body the filter reads.
        #[serde(default, deserialize_with = "present")]
        pub max_card_bytes: Option<Number>,
        /// `"enforce"` or `"observe"`.
        #[serde(default, deserialize_with = "present")]
        pub mode: Option<Mode>,
        /// Whether callers may relax the policy.
        #[serde(default, deserialize_with = "present")]
        pub allow_caller_relax: Option<bool>,
        /// `Retry-After` seconds on a `503 stale_agent_card`.
        #[serde(default, deserialize_with = "present")]
        pub retry_after_s: Option<Number>,
        /// Re-resolution for every route without its own setting.
        #[serde(default, deserialize_with = "present")]
        pub re_resolve: Option<ReResolveSetting>,
    }
}

/// One card route of the configuration.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteInput {
    /// Free text for people.
    #[serde(rename = "$comment", default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub comment: Option<String>,
    /// The path template, e.g. `/agents/{id}/card`.
    pub path: String,
    /// A fixed agent id (when the path has no `{id}`).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub agent: Option<String>,
    /// JSON Pointer of the card inside a JSON envelope.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub card_pointer: Option<String>,
    /// This route's watermark headers.
    #[serde(default, deserialize_with = "present_object")]
    #[schemars(with = "WatermarkInput")]
    pub watermark: Option<WatermarkInput>,
    /// JSON Pointer of a watermark value in the body.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub watermark_pointer: Option<String>,
    /// `"ms"`, `"s"` or `"rfc3339"`.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "PointerUnit")]
    pub watermark_pointer_unit: Option<PointerUnit>,
    /// This route's re-resolution, or `false`.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "ReResolveSetting")]
    pub re_resolve: Option<ReResolveSetting>,
}

/// Response headers that carry the watermark.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatermarkInput {
    /// Free text for people.
    #[serde(rename = "$comment", default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub comment: Option<String>,
    /// Replica lag in milliseconds.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub lag_ms_header: Option<String>,
    /// Replica lag in seconds.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub lag_s_header: Option<String>,
    /// Last successful sync, RFC 3339.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub synced_at_header: Option<String>,
    /// Read the Consul pair.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "bool")]
    pub consul: Option<bool>,
    /// Read HTTP `Age`.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "bool")]
    pub age: Option<bool>,
}

/// A `re_resolve` member: an object, or `false` (on a route: off).
#[derive(Debug, Clone, schemars::JsonSchema)]
pub enum ReResolveSetting {
    /// `false`.
    Off,
    /// The setting.
    On(ReResolveInput),
}

impl<'de> Deserialize<'de> for ReResolveSetting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Setting;
        impl<'de> Visitor<'de> for Setting {
            type Value = ReResolveSetting;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object (or false on a route)")
            }
            fn visit_bool<E: serde::de::Error>(self, on: bool) -> Result<ReResolveSetting, E> {
                if on {
                    Err(E::custom(
                        "must be an object naming a \"cluster\" (true is not a setting)",
                    ))
                } else {
                    Ok(ReResolveSetting::Off)
                }
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<ReResolveSetting, A::Error> {
                ReResolveInput::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(ReResolveSetting::On)
            }
        }
        d.deserialize_any(Setting)
    }
}

/// A `re_resolve` object.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReResolveInput {
    /// Free text for people.
    #[serde(rename = "$comment", default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub comment: Option<String>,
    /// The Envoy cluster of the primary, or an ordered list of clusters.
    pub cluster: Clusters,
    /// The path to ask for (`{id}`: the matched agent id).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub path: Option<String>,
    /// `:authority` of the calls.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub authority: Option<String>,
    /// Per-call timeout (default 2s).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Millis")]
    pub timeout: Option<Millis>,
    /// Calls at most, the route's own answer included.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Number")]
    pub max_attempts: Option<Number>,
    /// Deadline for all calls (default 5s).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Millis")]
    pub deadline: Option<Millis>,
    /// Token bucket.
    #[serde(default, deserialize_with = "present_object")]
    #[schemars(with = "BudgetInput")]
    pub budget: Option<BudgetInput>,
}

/// A `budget` object.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BudgetInput {
    /// Free text for people.
    #[serde(rename = "$comment", default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub comment: Option<String>,
    /// Calls per second (default 10).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Number")]
    pub per_second: Option<Number>,
    /// The bucket's size (default 20).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Number")]
    pub burst: Option<Number>,
}

/// Cluster names, each valid and listed once: `"primary"` or `["r2", "primary"]`.
#[derive(Debug, Clone, schemars::JsonSchema)]
pub struct Clusters(pub Vec<String>);

impl<'de> Deserialize<'de> for Clusters {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct List;
        impl<'de> Visitor<'de> for List {
            type Value = Clusters;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a cluster name or an array of cluster names")
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Clusters, E> {
                Ok(Clusters(vec![NewCluster(&[]).visit_str(name)?]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Clusters, A::Error> {
                let mut out: Vec<String> = Vec::new();
                while let Some(name) = seq.next_element_seed(NewCluster(&out))? {
                    out.push(name);
                }
                if out.is_empty() {
                    return Err(range("must name at least one cluster"));
                }
                Ok(Clusters(out))
            }
        }
        d.deserialize_any(List)
    }
}

/// An Envoy cluster name not among those already listed: printable ASCII without spaces, at
/// most 255 bytes.
struct NewCluster<'a>(&'a [String]);

impl<'de> DeserializeSeed<'de> for NewCluster<'_> {
    type Value = String;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for NewCluster<'_> {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an Envoy cluster name")
    }
    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<String, E> {
        if text.is_empty() || text.len() > 255 || !text.chars().all(|c| c.is_ascii_graphic()) {
            return Err(range(format_args!("must be an Envoy cluster name (1 to 255 printable ASCII characters, no spaces), found {text:?}")));
        }
        if self.0.iter().any(|c| c == text) {
            return Err(range(format_args!("cluster {text:?} is listed twice")));
        }
        Ok(text.to_owned())
    }
}

/// A JSON number (integers are checked against their range after reading).
#[derive(Debug, Clone, Copy, schemars::JsonSchema)]
#[schemars(with = "f64")]
pub struct Number(pub f64);

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Num;
        impl Visitor<'_> for Num {
            type Value = Number;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_f64<E>(self, v: f64) -> Result<Number, E> {
                Ok(Number(v))
            }
            #[allow(clippy::cast_precision_loss)]
            fn visit_u64<E>(self, v: u64) -> Result<Number, E> {
                Ok(Number(v as f64))
            }
            #[allow(clippy::cast_precision_loss)]
            fn visit_i64<E>(self, v: i64) -> Result<Number, E> {
                Ok(Number(v as f64))
            }
        }
        d.deserialize_any(Num)
    }
}

impl FilterConfig {
    /// Parses and validates the plugin configuration. Empty bytes mean "all defaults".
    pub fn from_json(bytes: &[u8]) -> Result<FilterConfig, InputError> {
        crate::policy::check_size(bytes, "plugin configuration")?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return FilterConfig::from_input(&ConfigInput::default());
        }
        // A policy's depth limit (`Policy::from_json`): the configuration is a policy plus
        // filter settings no deeper than it, so every host refuses a deep one at one place.
        json::parse(bytes, 32).map_err(|e| {
            InputError::type_error(
                e.path(),
                format!("plugin configuration is not valid I-JSON: {e}"),
            )
        })?;
        let input: ConfigInput = read_json_text(bytes)?;
        FilterConfig::from_input(&input)
    }

    /// Validates a read configuration: the rules that span members, and the values whose
    /// errors need the route's context.
    pub fn from_input(input: &ConfigInput) -> Result<FilterConfig, InputError> {
        let policy = input.policy();
        // Card routes find an agent's rule regardless of letter case.
        policy.check_agent_ids()?;
        let default_watermark = match &input.watermark {
            Some(w) => watermark_sources(w, "/watermark")?,
            None => WatermarkSources::conventional(),
        };
        let re_resolve = match &input.re_resolve {
            None => None,
            Some(ReResolveSetting::Off) => {
                return Err(InputError::type_error(
                    "/re_resolve",
                    "must be an object (false turns re-resolution off on a route only)",
                ))
            }
            Some(ReResolveSetting::On(r)) => Some(re_resolve_setting(r, "/re_resolve", 0)?),
        };
        let mut routes = Vec::new();
        let mut route_re_resolve = Vec::new();
        for (i, Object(item)) in input.routes.iter().flatten().enumerate() {
            let at = format!("/routes/{i}");
            let parsed = route(item, &at, &default_watermark)?;
            // First match wins: a route whose every path an earlier one matches never applies
            // (its rule, pointers and re-resolution would be configuration without effect).
            if let Some(j) = routes
                .iter()
                .position(|r: &CardRoute| r.pattern.covers(&parsed.pattern))
            {
                return Err(InputError::range_error(
                    format!("{at}/path"),
                    format!(
                        "never matches: /routes/{j} comes first and matches every path it does"
                    ),
                ));
            }
            let own = match &item.re_resolve {
                None => None,
                Some(ReResolveSetting::Off) => Some(None),
                Some(ReResolveSetting::On(r)) => {
                    let setting = re_resolve_setting(r, &format!("{at}/re_resolve"), i + 1)?;
                    if setting.path.as_deref().is_some_and(|p| p.contains("{id}"))
                        && !parsed.pattern.has_agent_placeholder()
                        && parsed.agent.is_none()
                    {
                        return Err(InputError::range_error(
                            format!("{at}/re_resolve/path"),
                            "has {id} but the route names no agent (no {id} segment, no \"agent\")",
                        ));
                    }
                    Some(Some(setting))
                }
            };
            routes.push(parsed);
            route_re_resolve.push(own);
        }
        let max_card_bytes = match input.max_card_bytes {
            None => Limits::default().max_card_bytes,
            Some(n) => {
                let n = integer(n, "/max_card_bytes", 1, MAX_CARD_BYTES_CEILING as u64)?;
                usize::try_from(n).map_err(|_| {
                    InputError::range_error("/max_card_bytes", "does not fit this platform")
                })?
            }
        };
        let retry_after_s = match input.retry_after_s {
            None => 5,
            Some(n) => {
                let n = integer(n, "/retry_after_s", 0, 86_400)?;
                u32::try_from(n)
                    .map_err(|_| InputError::range_error("/retry_after_s", "too large"))?
            }
        };
        Ok(FilterConfig {
            agent_ids: policy.agent_ids(),
            policy,
            routes,
            well_known: input.well_known.unwrap_or(true).then(|| CardRoute {
                pattern: PathPattern::WellKnown,
                agent: None,
                card_pointer: None,
                watermark: default_watermark.clone(),
                watermark_pointer: None,
            }),
            limits: Limits {
                max_card_bytes,
                ..Limits::default()
            },
            mode: input.mode.unwrap_or(Mode::Enforce),
            allow_caller_relax: input.allow_caller_relax.unwrap_or(false),
            retry_after_s,
            re_resolve,
            route_re_resolve,
        })
    }

    /// The `re_resolve` setting in force on a route: its own, else the top-level one.
    pub fn re_resolve_for(&self, id: RouteId) -> Option<&ReResolve> {
        match id {
            RouteId::Listed(i) => match self.route_re_resolve.get(i) {
                Some(Some(own)) => own.as_ref(),
                _ => self.re_resolve.as_ref(),
            },
            RouteId::WellKnown => self.re_resolve.as_ref(),
        }
    }

    /// Whether a rejected answer on this route may be re-resolved: enforce mode and a
    /// `re_resolve` setting in force there.
    pub fn re_resolves(&self, id: RouteId) -> bool {
        self.mode == Mode::Enforce && self.re_resolve_for(id).is_some()
    }

    /// The card route a request path belongs to, if any: the first of its
    /// [`path_variants`] that matches a listed route (in order) or the well-known route. The
    /// agent id is then looked up in the policy exactly, or else regardless of ASCII case.
    pub fn match_path(&self, path: &str) -> Option<(RouteId, RouteMatch<'_>)> {
        self.match_all(path).into_iter().next()
    }

    /// The rule for a request path on a card route: the rule of the agent [`match_path`] names,
    /// tightened by the rule of every other agent a variant of the path names (an upstream may
    /// read `/agents/w;v=1/card` as agent `w` or as `w;v=1`: the card must satisfy both rules).
    /// Two of those rules pinning different hashes cannot both hold: an error.
    ///
    /// [`match_path`]: FilterConfig::match_path
    pub fn requirement_for_path(&self, path: &str) -> Result<Requirement, InputError> {
        self.requirement_for_matches(&self.match_all(path))
    }

    /// Whether a caller that follows a redirect from the card route `path` to `target` (a path
    /// on the same authority) is checked at least as strictly there: every path its HTTP client
    /// may request ([`redirect::client_paths`]), in every form this filter or an upstream may
    /// read it ([`path_variants`]), must be a card route whose rule holds `path`'s rule (the same
    /// rule or a stricter one). One form that is no card route, or that has a looser or other
    /// rule, and the redirect would hand the caller a card the gate did not check under this
    /// rule: `Err` says why.
    ///
    /// [`redirect::client_paths`]: super::redirect::client_paths
    pub fn redirect_keeps_rule(&self, path: &str, target: &str) -> Result<(), String> {
        let rule = |p: &str| self.route_and_requirement(p).map(|(_, _, rule)| rule);
        let looser =
            || format!("Location {target:?} is checked under a looser or other policy rule");
        let Some(Ok(here)) = rule(path) else {
            return Err(looser());
        };
        for request in super::redirect::client_paths(target) {
            for form in path_variants(&request) {
                match rule(&form) {
                    Some(Ok(there)) if here.tighten(&there).is_ok_and(|both| both == there) => {}
                    None if form == target => {
                        return Err(format!(
                            "Location {target:?} is not a card route this gate checks"
                        ))
                    }
                    None => {
                        return Err(format!(
                            "Location {target:?} is not a card route this gate checks (a client following it asks for {request:?}, read as {form:?})"
                        ))
                    }
                    Some(_) => return Err(looser()),
                }
            }
        }
        Ok(())
    }

    /// [`FilterConfig::match_path`] and [`FilterConfig::requirement_for_path`] from one pass over
    /// the path's variants (what the filter needs on each card request).
    #[allow(clippy::type_complexity)]
    pub fn route_and_requirement(
        &self,
        path: &str,
    ) -> Option<(RouteId, RouteMatch<'_>, Result<Requirement, InputError>)> {
        let matches = self.match_all(path);
        let rule = self.requirement_for_matches(&matches);
        let (id, matched) = matches.into_iter().next()?;
        Some((id, matched, rule))
    }

    /// The rule for a path's matches (see [`FilterConfig::requirement_for_path`]): the rules of
    /// the agents they name, tightened together ([`Policy::rules_together`]).
    fn requirement_for_matches(
        &self,
        matches: &[(RouteId, RouteMatch<'_>)],
    ) -> Result<Requirement, InputError> {
        self.policy
            .rules_together(matches.iter().map(|(_, m)| m.agent.as_deref()))
    }

    /// The match of every variant of `path` that matches a route, in variant order, with agent
    /// ids resolved to the policy's spelling. An id is followed by the other agents it may be
    /// read as ([`AgentIds::read`], the reading every host applies: an upstream may look
    /// `worker-7 `, `worker-7%3Fx` or `wörker-7` up as `worker-7`, whether or not the policy
    /// knows that id too), so the card must also satisfy their rules.
    fn match_all(&self, path: &str) -> Vec<(RouteId, RouteMatch<'_>)> {
        let mut out = Vec::new();
        for variant in path_variants(path) {
            let Some((id, mut matched)) = self.match_normalized(&variant) else {
                continue;
            };
            let mut also = Vec::new();
            if let Some(agent) = matched.agent.as_mut() {
                match self.agent_ids.read(agent) {
                    Reading::Agent(known, others) => {
                        known.clone_into(agent);
                        also = others;
                    }
                    Reading::Unknown(agents) => also = agents,
                }
            }
            let route = matched.route;
            out.push((id, matched));
            out.extend(also.into_iter().map(|agent| {
                (
                    id,
                    RouteMatch {
                        route,
                        agent: Some(agent.to_owned()),
                    },
                )
            }));
        }
        out
    }

    /// [`FilterConfig::match_path`] for one normalized path.
    fn match_normalized(&self, path: &str) -> Option<(RouteId, RouteMatch<'_>)> {
        let listed = self
            .routes
            .iter()
            .enumerate()
            .find_map(|(i, route)| route.matches(path).map(|m| (RouteId::Listed(i), m)));
        listed.or_else(|| {
            let route = self.well_known.as_ref()?;
            route.matches(path).map(|m| (RouteId::WellKnown, m))
        })
    }

    /// The route a [`RouteId`] names.
    pub fn route(&self, id: RouteId) -> Option<&CardRoute> {
        match id {
            RouteId::Listed(i) => self.routes.get(i),
            RouteId::WellKnown => self.well_known.as_ref(),
        }
    }
}

fn route(
    input: &RouteInput,
    path: &str,
    default_watermark: &WatermarkSources,
) -> Result<CardRoute, InputError> {
    let pattern = PathPattern::parse(&input.path).map_err(|e| e.within(&format!("{path}/path")))?;
    // An empty id names no agent (a policy refuses it as a key): the route would silently get
    // the defaults.
    if input.agent.as_deref() == Some("") {
        return Err(InputError::range_error(
            format!("{path}/agent"),
            "agent id is empty",
        ));
    }
    if input.agent.is_some() && pattern.has_agent_placeholder() {
        return Err(InputError::range_error(
            format!("{path}/agent"),
            "a route takes its agent from either \"agent\" or a {id} segment, not both",
        ));
    }
    let card_pointer = input
        .card_pointer
        .as_deref()
        .map(|p| json_pointer(p, &format!("{path}/card_pointer")))
        .transpose()?;
    let watermark = match &input.watermark {
        Some(w) => watermark_sources(w, &format!("{path}/watermark"))?,
        None => default_watermark.clone(),
    };
    let watermark_pointer = match &input.watermark_pointer {
        Some(p) => Some((
            json_pointer(p, &format!("{path}/watermark_pointer"))?,
            input
                .watermark_pointer_unit
                .unwrap_or(PointerUnit::Milliseconds),
        )),
        None if input.watermark_pointer_unit.is_some() => {
            return Err(InputError::type_error(
                format!("{path}/watermark_pointer_unit"),
                "only meaningful with \"watermark_pointer\"",
            ))
        }
        None => None,
    };
    Ok(CardRoute {
        pattern,
        agent: input.agent.clone(),
        card_pointer,
        watermark,
        watermark_pointer,
    })
}

/// Longest per-call timeout and deadline: a caller waits at most this long for a card.
const RE_RESOLVE_MAX_MS: u64 = 60_000;

/// A `re_resolve` object. `slot` names its token bucket.
fn re_resolve_setting(
    input: &ReResolveInput,
    path: &str,
    slot: usize,
) -> Result<ReResolve, InputError> {
    let at = |key: &str| format!("{path}/{key}");
    let clusters = input.cluster.0.clone();
    if let Some(text) = &input.path {
        let bad = text.chars().any(|c| c.is_control() || c == ' ' || c == '#')
            || text.replace("{id}", "").contains(['{', '}']);
        if !text.starts_with('/') || bad {
            return Err(InputError::range_error(
                at("path"),
                format!("must be a path starting with '/' (no spaces, control characters or '#'; {{id}} is the only placeholder), found {text:?}"),
            ));
        }
    }
    if let Some(text) = &input.authority {
        let ok = !text.is_empty()
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._~:[]".contains(c));
        if !ok {
            return Err(InputError::range_error(
                at("authority"),
                format!("must be a host or host:port, found {text:?}"),
            ));
        }
    }
    let millis = |key: &str, given: Option<Millis>, default: u64| -> Result<u64, InputError> {
        match given {
            None => Ok(default),
            Some(Millis(ms)) if ms == 0 || ms > RE_RESOLVE_MAX_MS => Err(InputError::range_error(
                at(key),
                format!("must be from 1ms to 60s, found {ms} ms"),
            )),
            Some(Millis(ms)) => Ok(ms),
        }
    };
    let timeout_ms = millis("timeout", input.timeout, 2_000)?;
    let deadline_ms = millis("deadline", input.deadline, 5_000)?;
    let most = clusters.len() as u64 + 1;
    let max_attempts = match input.max_attempts {
        None => most,
        Some(n) => integer(n, &at("max_attempts"), 2, most.max(2))?,
    };
    let (per_second, burst) = match &input.budget {
        None => (10.0, 20),
        Some(b) => {
            let here = at("budget");
            let per_second = match b.per_second {
                None => 10.0,
                Some(Number(n)) => {
                    if !(n > 0.0 && n <= 100_000.0) {
                        return Err(InputError::range_error(
                            format!("{here}/per_second"),
                            format!("must be more than 0 and at most 100000, found {n}"),
                        ));
                    }
                    n
                }
            };
            let burst = match b.burst {
                None => 20,
                Some(n) => integer(n, &format!("{here}/burst"), 1, 100_000)?,
            };
            (per_second, u32::try_from(burst).unwrap_or(u32::MAX))
        }
    };
    Ok(ReResolve {
        clusters,
        path: input.path.clone(),
        authority: input.authority.clone(),
        timeout_ms,
        limits: ResolutionLimits {
            max_attempts: usize::try_from(max_attempts).unwrap_or(usize::MAX),
            deadline_ms,
        },
        per_second,
        burst,
        budget_slot: slot,
    })
}

fn watermark_sources(input: &WatermarkInput, path: &str) -> Result<WatermarkSources, InputError> {
    let header = |key: &str, name: &Option<String>| {
        name.as_deref()
            .map(|n| watermark_header_name(n, &format!("{path}/{key}")))
            .transpose()
    };
    Ok(WatermarkSources {
        lag_ms_header: header("lag_ms_header", &input.lag_ms_header)?,
        lag_s_header: header("lag_s_header", &input.lag_s_header)?,
        synced_at_header: header("synced_at_header", &input.synced_at_header)?,
        consul: input.consul.unwrap_or(false),
        age: input.age.unwrap_or(false),
    })
}

fn integer(Number(n): Number, path: &str, min: u64, max: u64) -> Result<u64, InputError> {
    if n.fract() != 0.0 || n < min as f64 || n > max as f64 {
        return Err(InputError::range_error(
            path,
            format!("must be an integer from {min} to {max}, found {n}"),
        ));
    }
    // In range and integral, so the conversion is exact.
    Ok(n as u64)
}

fn json_pointer(text: &str, path: &str) -> Result<String, InputError> {
    if !text.is_empty() && !text.starts_with('/') {
        return Err(InputError::range_error(
            path,
            format!("must be a JSON Pointer (\"\" or starting with '/'), found {text:?}"),
        ));
    }
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
            return Err(InputError::range_error(
                path,
                "'~' must be followed by '0' or '1' in a JSON Pointer",
            ));
        }
    }
    Ok(text.to_owned())
}

/// A watermark header name: a response header name outside the gate's own `a2a-card-*`
/// namespace. The filter removes every upstream `a2a-card-*` header before it reads an answer
/// (on the response path and on a re-resolution), so a route reading its watermark there would
/// never see one: every card stale. Refused when the configuration loads, not found out later.
fn watermark_header_name(text: &str, path: &str) -> Result<String, InputError> {
    let name = header_name(text, path)?;
    if name.starts_with(VERDICT_HEADER_PREFIX) {
        return Err(InputError::range_error(
            path,
            format!(
                "{text:?} is in the gate's own header namespace ({VERDICT_HEADER_PREFIX}*), which the \
                 filter removes from every upstream answer before reading it: the watermark would \
                 never be seen"
            ),
        ));
    }
    Ok(name)
}

/// A response header name: an HTTP token, stored lowercase (Envoy's header maps are).
fn header_name(text: &str, path: &str) -> Result<String, InputError> {
    if !crate::resolution::is_header_name(text) {
        return Err(InputError::range_error(
            path,
            format!("must be an HTTP header name (a token), found {text:?}"),
        ));
    }
    Ok(text.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Value;

    fn err(text: &str) -> InputError {
        FilterConfig::from_json(text.as_bytes()).unwrap_err()
    }

    #[test]
    fn a_configuration_over_1_mib_is_refused() {
        let mut text = br#"{"mode":"enforce"}"#.to_vec();
        text.resize(crate::policy::MAX_POLICY_BYTES, b' ');
        assert!(FilterConfig::from_json(&text).is_ok());
        text.push(b' ');
        let e = FilterConfig::from_json(&text).unwrap_err();
        assert!(
            e.message.contains("plugin configuration is 1048577 bytes"),
            "{}",
            e.message
        );
        // Whitespace alone over the limit is refused too, not read as "all defaults".
        assert!(FilterConfig::from_json(&vec![b' '; (1 << 20) + 1]).is_err());
    }

    #[test]
    fn empty_configuration_means_defaults() {
        let c = FilterConfig::from_json(b"").unwrap();
        assert_eq!(c.mode, Mode::Enforce);
        assert_eq!(c.limits.max_card_bytes, 65_536);
        assert!(!c.allow_caller_relax);
        assert!(c.match_path("/x/.well-known/agent-card.json").is_some());
        assert!(c.match_path("/agents/w/card").is_none());
    }

    #[test]
    fn every_agent_a_path_variant_names_applies() {
        let c = FilterConfig::from_json(
            br#"{"defaults":{"max_stale":"10s"},"agents":{"w":{"require":["a"]},"w;v=1":{"require":["b"],"max_stale":"2s"}},
                "routes":[{"path":"/agents/{id}/card"}]}"#,
        )
        .unwrap();
        let r = c.requirement_for_path("/agents/w/card").unwrap();
        assert_eq!((r.require.len(), r.max_stale_ms), (1, Some(10_000)));
        let r = c.requirement_for_path("/agents/w;v=1/card").unwrap();
        assert_eq!((r.require.len(), r.max_stale_ms), (2, Some(2_000)));
        assert_eq!(
            c.match_path("/agents/w;v=1/card")
                .unwrap()
                .1
                .agent
                .as_deref(),
            Some("w;v=1")
        );
        let r = c.requirement_for_path("/agents/W;x/card").unwrap();
        assert_eq!(r.require.len(), 1, "{r:?}");
        // The filter's one-pass lookup gives what the two separate ones give.
        for path in [
            "/agents/w/card",
            "/agents/w;v=1/card",
            "/agents/W;x/card",
            "/x",
            "/agents//w/card",
        ] {
            let one = c.route_and_requirement(path);
            let (route, rule) = (c.match_path(path), c.requirement_for_path(path));
            assert_eq!(one.is_some(), route.is_some(), "{path}");
            if let (Some((id, m, r)), Some((id2, m2))) = (one, route) {
                assert_eq!((id, m.agent, r.ok()), (id2, m2.agent, rule.ok()), "{path}");
            }
        }
        let pins = FilterConfig::from_json(
            format!(
                r#"{{"agents":{{"w":{{"pin":"sha256:{}"}},"w;v":{{"pin":"sha256:{}"}}}},"routes":[{{"path":"/a/{{id}}"}}]}}"#,
                "a".repeat(64),
                "b".repeat(64)
            )
            .as_bytes(),
        )
        .unwrap();
        assert!(pins.requirement_for_path("/a/w;v").is_err());
    }

    #[test]
    fn an_id_in_a_path_gets_the_rule_every_host_gives_it() {
        // The filter and `check --agent` read an id through one definition
        // (`Policy::rule_for_agent`): the same rule, or the same refusal.
        let pin = |c: char| format!("sha256:{}", c.to_string().repeat(64));
        let c = FilterConfig::from_json(
            format!(
                r#"{{"defaults":{{"max_stale":"30s","require":["d"]}},"agents":{{
                "worker-7":{{"require":["a"],"max_stale":"10s"}},
                "café-1":{{"max_stale":"5s"}},"cafe-1":{{"require":["b"],"max_stale":"60s"}},
                "straße":{{"pin":"{}"}},"strasse":{{"pin":"{}"}}}},
                "routes":[{{"path":"/agents/{{id}}/card"}}]}}"#,
                pin('a'),
                pin('b')
            )
            .as_bytes(),
        )
        .unwrap();
        let escaped = |id: &str| -> String {
            id.chars()
                .map(|ch| match ch {
                    'a'..='z' | 'A'..='Z' | '0'..='9' | '-' => ch.to_string(),
                    _ => ch
                        .to_string()
                        .bytes()
                        .map(|b| format!("%{b:02X}"))
                        .collect(),
                })
                .collect()
        };
        for id in [
            "worker-7",
            "WORKER-7",
            "worker-8",
            "wörker-7",
            "\u{FF57}orker-7",
            "wo\u{200B}rker-7",
            "wor\u{212A}er-7",
            "cafe-1",
            "café-1",
            "CAFÉ-1",
            "cafe\u{0301}-1",
            "straße",
            "STRAẞE",
            "\u{FF53}traße",
            // path parameters: the id and the id before them (`;` escaped as %3B here)
            "worker-7;v=2",
            "WORKER-7;",
            "wörker-7;v=2",
            "worker-8;v=2",
            "straße;strasse",
        ] {
            let path = format!("/agents/{}/card", escaped(id));
            let in_path = c.requirement_for_path(&path);
            let given = c.policy.rule_for_agent(id);
            match (in_path, given) {
                (Ok(a), Ok(b)) => assert_eq!(a, b.requirement, "{id:?}"),
                (Err(a), Err(b)) => assert_eq!(a, b.error, "{id:?}"),
                (a, b) => panic!("{id:?}: the filter gives {a:?}, rule_for_agent {b:?}"),
            }
        }
    }

    #[test]
    fn ids_an_upstream_may_trim_or_cut_also_name_the_agent() {
        let c = FilterConfig::from_json(
            br#"{"defaults":{"max_stale":"30s"},"agents":{"worker-7":{"require":["a"],"max_stale":"10s"}},
                "routes":[{"path":"/agents/{id}/card"}]}"#,
        )
        .unwrap();
        for path in [
            "/agents/worker-7%20/card",
            "/agents/%20worker-7/card",
            "/agents/worker-7%09/card",
            "/agents/worker-7%0A/card",
            "/agents/worker-7%C2%A0/card",
            "/agents/worker-7./card",
            "/agents/WORKER-7%20/card",
            "/agents/worker-7%3Fx=1/card",
            "/agents/worker-7%23x/card",
            "/agents/w%C3%B6rker-7/card",
            "/agents/W%C3%96RKER-7/card",
            "/agents/%EF%BD%97orker-7/card",
            "/agents/work%C2%ADer-7/card",
            "/agents/wor%E2%84%AAer-7%20/card",
        ] {
            let r = c.requirement_for_path(path).unwrap();
            assert_eq!(
                (r.require.len(), r.max_stale_ms),
                (1, Some(10_000)),
                "{path}"
            );
        }
        // Other ids keep the defaults; the id itself is still the one the path names.
        for path in [
            "/agents/worker-77/card",
            "/agents/worker/card",
            "/agents/%20/card",
        ] {
            let r = c.requirement_for_path(path).unwrap();
            assert_eq!(
                (r.require.len(), r.max_stale_ms),
                (0, Some(30_000)),
                "{path}"
            );
        }
        assert_eq!(
            c.match_path("/agents/worker-7%20/card")
                .unwrap()
                .1
                .agent
                .as_deref(),
            Some("worker-7 ")
        );
        assert_eq!(crate::agent_id::readings("a. "), vec!["a".to_owned()]);
        assert!(crate::agent_id::readings("a").is_empty());
    }

    #[test]
    fn errors_name_the_field() {
        assert_eq!(err(r#"{"mode":"block"}"#).path, "/mode");
        assert_eq!(err(r#"{"max_card_bytes":0}"#).path, "/max_card_bytes");
        assert_eq!(err(r#"{"max_card_bytes":2000000}"#).path, "/max_card_bytes");
        assert_eq!(
            err(r#"{"routes":[{"path":"/a/{id}/{id}"}]}"#).path,
            "/routes/0/path"
        );
        assert_eq!(
            err(r#"{"routes":[{"path":"/a","extra":1}]}"#).path,
            "/routes/0/extra"
        );
        // A route an earlier one covers never applies (first match wins).
        for routes in [
            r#"[{"path":"/a/{id}/card"},{"path":"/A/*/Card","agent":"w"}]"#,
            r#"[{"path":"/a/*/card"},{"path":"/a/{id}/card"}]"#,
            r#"[{"path":"/x"},{"path":"/a/{id}/card"},{"path":"/a/w7/card"}]"#,
        ] {
            let e = err(&format!(r#"{{"routes":{routes}}}"#));
            let last = routes.matches("path").count() - 1;
            assert_eq!(e.path, format!("/routes/{last}/path"), "{routes}");
            assert!(e.message.contains("never matches"), "{}", e.message);
        }
        // A narrower route before a wider one is the way to give one agent's path its own rule.
        for routes in [
            r#"[{"path":"/a/w7/card"},{"path":"/a/{id}/card"}]"#,
            r#"[{"path":"/a/{id}/card"},{"path":"/a/{id}/card/x"}]"#,
            r#"[{"path":"/a/{id}"},{"path":"/a/"}]"#,
        ] {
            FilterConfig::from_json(format!(r#"{{"routes":{routes}}}"#).as_bytes())
                .unwrap_or_else(|e| panic!("{routes}: {e:?}"));
        }
        assert_eq!(
            err(r#"{"watermark":{"lag_ms_header":"bad header"}}"#).path,
            "/watermark/lag_ms_header"
        );
        // The gate's own namespace, in any case, for each header and at both levels.
        for (config, at) in [
            (
                r#"{"watermark":{"lag_ms_header":"a2a-card-lag-ms"}}"#,
                "/watermark/lag_ms_header",
            ),
            (
                r#"{"watermark":{"lag_s_header":"A2A-Card-Lag"}}"#,
                "/watermark/lag_s_header",
            ),
            (
                r#"{"routes":[{"path":"/a/{id}","watermark":{"synced_at_header":"a2a-card-verdict"}}]}"#,
                "/routes/0/watermark/synced_at_header",
            ),
        ] {
            let e = err(config);
            assert_eq!(e.path, at, "{config}");
            assert!(e.message.contains("a2a-card-*"), "{}", e.message);
        }
        // A name that only resembles it is a name like any other.
        for name in ["a2a-cardlag", "x-a2a-card-lag", "a2a-car-lag"] {
            FilterConfig::from_json(
                format!(r#"{{"watermark":{{"lag_ms_header":"{name}"}}}}"#).as_bytes(),
            )
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        }
        assert_eq!(
            err(r#"{"routes":[{"path":"/a","card_pointer":"card"}]}"#).path,
            "/routes/0/card_pointer"
        );
        assert_eq!(err(r#"{"retry_after_s":1.5}"#).path, "/retry_after_s");
        assert_eq!(err(r#"{"unknown":1}"#).path, "/unknown");
        assert_eq!(
            err(r#"{"agents":{"Worker":{},"worker":{}}}"#).path,
            "/agents/worker"
        );
        assert_eq!(err(r#"[1]"#).path, "");
    }

    #[test]
    fn re_resolve_is_validated_with_its_path() {
        let cases = [
            (r#"{"re_resolve":{}}"#, "/re_resolve"),
            (r#"{"re_resolve":true}"#, "/re_resolve"),
            (r#"{"re_resolve":{"cluster":""}}"#, "/re_resolve/cluster"),
            (r#"{"re_resolve":{"cluster":[]}}"#, "/re_resolve/cluster"),
            (
                r#"{"re_resolve":{"cluster":["a","a"]}}"#,
                "/re_resolve/cluster/1",
            ),
            (
                r#"{"re_resolve":{"cluster":["a",1]}}"#,
                "/re_resolve/cluster/1",
            ),
            (r#"{"re_resolve":{"cluster":"a b"}}"#, "/re_resolve/cluster"),
            (
                r#"{"re_resolve":{"cluster":"a","timeout":"2"}}"#,
                "/re_resolve/timeout",
            ),
            (
                r#"{"re_resolve":{"cluster":"a","timeout":"0ms"}}"#,
                "/re_resolve/timeout",
            ),
            (
                r#"{"re_resolve":{"cluster":"a","deadline":"2m"}}"#,
                "/re_resolve/deadline",
            ),
            (
                r#"{"re_resolve":{"cluster":"a","max_attempts":3}}"#,
                "/re_resolve/max_attempts",
            ),
            (
                r#"{"re_resolve":{"cluster":"a","max_attempts":1}}"#,
                "/re_resolve/max_attempts",
            ),
            (
                r#"{"re_resolve":{"cluster":"a","path":"card"}}"#,
                "/re_resolve/path",
            ),
            (
                r#"{"re_resolve":{"cluster":"a","path":"/{x}"}}"#,
                "/re_resolve/path",
            ),
            (
                r#"{"re_resolve":{"cluster":"a","authority":"a/b"}}"#,
                "/re_resolve/authority",
            ),
            (
                r#"{"re_resolve":{"cluster":"a","budget":{"per_second":0}}}"#,
                "/re_resolve/budget/per_second",
            ),
            (
                r#"{"re_resolve":{"cluster":"a","budget":{"burst":0}}}"#,
                "/re_resolve/budget/burst",
            ),
            (
                r#"{"re_resolve":{"cluster":"a","budget":{"rate":1}}}"#,
                "/re_resolve/budget/rate",
            ),
            (
                r#"{"re_resolve":{"cluster":"a","retries":1}}"#,
                "/re_resolve/retries",
            ),
            (
                r#"{"routes":[{"path":"/a","re_resolve":{"cluster":"p","path":"/c/{id}"}}]}"#,
                "/routes/0/re_resolve/path",
            ),
            (
                r#"{"routes":[{"path":"/a","re_resolve":{"cluster":"p","timeout":"1h"}}]}"#,
                "/routes/0/re_resolve/timeout",
            ),
            (
                r#"{"routes":[{"path":"/a","re_resolve":true}]}"#,
                "/routes/0/re_resolve",
            ),
        ];
        for (text, path) in cases {
            assert_eq!(err(text).path, path, "{text}");
        }
        // A setting or a cluster list of the wrong JSON type says what is expected.
        for (text, expected) in [
            (r#"{"re_resolve":5}"#, "an object (or false on a route)"),
            (
                r#"{"re_resolve":{"cluster":5}}"#,
                "a cluster name or an array of cluster names",
            ),
            (
                r#"{"re_resolve":{"cluster":["a",5]}}"#,
                "an Envoy cluster name",
            ),
        ] {
            let e = err(text);
            assert!(e.message.contains(expected), "{text}: {}", e.message);
        }
        // Cluster names of 255 characters are Envoy's; 256 are not.
        let name = |n: usize| format!(r#"{{"re_resolve":{{"cluster":"{}"}}}}"#, "c".repeat(n));
        FilterConfig::from_json(name(255).as_bytes()).unwrap();
        assert_eq!(err(&name(256)).path, "/re_resolve/cluster");
    }

    /// The `re_resolve` settings at the edges of what they take; the card size limit reaches
    /// the filter's limits; re-resolution runs only in enforce mode, where a setting is in force.
    #[test]
    fn settings_at_their_edges() {
        let setting = |extra: &str| format!(r#"{{"re_resolve":{{"cluster":"p"{extra}}}}}"#);
        for (extra, at) in [
            (r#","path":"/a b""#, "/re_resolve/path"),
            (r#","path":"/a#b""#, "/re_resolve/path"),
            (r#","path":"/a\u0001""#, "/re_resolve/path"),
            (r#","path":"/a/{id}}""#, "/re_resolve/path"),
            (r#","authority":"""#, "/re_resolve/authority"),
            (r#","authority":"a b""#, "/re_resolve/authority"),
            (r#","authority":"a@b""#, "/re_resolve/authority"),
            (r#","timeout":"60001ms""#, "/re_resolve/timeout"),
        ] {
            assert_eq!(err(&setting(extra)).path, at, "{extra}");
        }
        for extra in [
            r#","path":"/c/{id}/card.json""#,
            r#","authority":"registry-2.internal:8443""#,
            r#","authority":"[::1]:80""#,
            r#","timeout":"60s","deadline":"60s""#,
        ] {
            FilterConfig::from_json(setting(extra).as_bytes())
                .unwrap_or_else(|e| panic!("{extra}: {e:?}"));
        }
        assert_eq!(
            err(r#"{"routes":[{"path":"/a/{id}","watermark_pointer_unit":"s"}]}"#).path,
            "/routes/0/watermark_pointer_unit"
        );

        let c = FilterConfig::from_json(br#"{"max_card_bytes":1000}"#).unwrap();
        assert_eq!(c.limits.max_card_bytes, 1000);
        // Integers at both ends of their range; JSON Pointers with and without escapes.
        for ok in [
            r#"{"max_card_bytes":1}"#,
            r#"{"retry_after_s":0}"#,
            r#"{"retry_after_s":86400}"#,
            r#"{"routes":[{"path":"/a/{id}","card_pointer":""}]}"#,
            r#"{"routes":[{"path":"/a/{id}","card_pointer":"/a~0b~1c/0"}]}"#,
        ] {
            FilterConfig::from_json(ok.as_bytes()).unwrap_or_else(|e| panic!("{ok}: {e:?}"));
        }
        for (bad, at) in [
            (r#"{"retry_after_s":86401}"#, "/retry_after_s"),
            (r#"{"retry_after_s":-1}"#, "/retry_after_s"),
            (
                r#"{"routes":[{"path":"/a/{id}","card_pointer":"/a~2"}]}"#,
                "/routes/0/card_pointer",
            ),
            (
                r#"{"routes":[{"path":"/a/{id}","card_pointer":"/a~"}]}"#,
                "/routes/0/card_pointer",
            ),
        ] {
            assert_eq!(err(bad).path, at, "{bad}");
        }

        let routes = r#""routes":[{"path":"/a/{id}","re_resolve":false},{"path":"/b/{id}"}]"#;
        let enforce = FilterConfig::from_json(
            format!(r#"{{"re_resolve":{{"cluster":"p"}},{routes}}}"#).as_bytes(),
        )
        .unwrap();
        // Each route id names its route.
        let pattern = |id| enforce.route(id).map(|r: &CardRoute| r.pattern.clone());
        assert_eq!(pattern(RouteId::WellKnown), Some(PathPattern::WellKnown));
        assert_eq!(
            pattern(RouteId::Listed(1)),
            Some(PathPattern::parse("/b/{id}").unwrap())
        );
        assert_eq!(pattern(RouteId::Listed(2)), None);
        assert!(enforce.re_resolves(RouteId::WellKnown));
        assert!(enforce.re_resolves(RouteId::Listed(1)));
        assert!(!enforce.re_resolves(RouteId::Listed(0)), "off on its route");
        let observe = FilterConfig::from_json(
            format!(r#"{{"mode":"observe","re_resolve":{{"cluster":"p"}},{routes}}}"#).as_bytes(),
        )
        .unwrap();
        assert!(!observe.re_resolves(RouteId::WellKnown));
        assert!(!observe.re_resolves(RouteId::Listed(1)));
        let none = FilterConfig::from_json(format!("{{{routes}}}").as_bytes()).unwrap();
        assert!(!none.re_resolves(RouteId::WellKnown));
        assert!(!none.re_resolves(RouteId::Listed(1)));
    }

    #[test]
    fn re_resolve_defaults_and_per_route_settings() {
        let c = FilterConfig::from_json(
            br#"{"re_resolve":{"cluster":"primary"},
                "routes":[{"path":"/a/{id}","re_resolve":{"cluster":["r2","primary"],"path":"/c/{id}","timeout":"250ms","budget":{"per_second":0.5,"burst":2}}},
                          {"path":"/b","re_resolve":false},{"path":"/c"}]}"#,
        )
        .unwrap();
        let top = c.re_resolve_for(RouteId::WellKnown).unwrap();
        assert_eq!(top.clusters, vec!["primary"]);
        assert_eq!(
            (
                top.timeout_ms,
                top.limits.max_attempts,
                top.limits.deadline_ms
            ),
            (2000, 2, 5000)
        );
        assert_eq!((top.per_second, top.burst, top.budget_slot), (10.0, 20, 0));
        let own = c.re_resolve_for(RouteId::Listed(0)).unwrap();
        assert_eq!(own.clusters, vec!["r2", "primary"]);
        assert_eq!(
            (own.timeout_ms, own.limits.max_attempts, own.budget_slot),
            (250, 3, 1)
        );
        assert_eq!((own.per_second, own.burst), (0.5, 2));
        assert!(c.re_resolve_for(RouteId::Listed(1)).is_none());
        assert_eq!(c.re_resolve_for(RouteId::Listed(2)), Some(top));
        assert!(FilterConfig::from_json(b"{}")
            .unwrap()
            .re_resolve_for(RouteId::WellKnown)
            .is_none());
    }

    fn repo_file(path: &str) -> Vec<u8> {
        std::fs::read(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    #[test]
    fn every_shipped_policy_is_a_valid_configuration() {
        let c = FilterConfig::from_json(&repo_file("policies/incident.json")).unwrap();
        assert!(c.policy.has_agent("worker-7"));
    }

    #[test]
    fn every_invalid_policy_fixture_is_refused_at_the_same_path() {
        let index = json::parse(&repo_file("tests/policies_invalid/_expected.json"), 16).unwrap();
        let cases = index.get("cases").and_then(Value::as_object).unwrap();
        assert!(cases.len() >= 10);
        for (file, expected) in cases {
            let want = expected.get("path").and_then(Value::as_str).unwrap();
            let bytes = repo_file(&format!("tests/policies_invalid/{file}"));
            let e = FilterConfig::from_json(&bytes).unwrap_err();
            assert_eq!(e.path, want, "{file}: {e}");
        }
    }

    #[test]
    fn explicit_routes_win_over_well_known() {
        let c = FilterConfig::from_json(
            br#"{"routes":[{"path":"/agents/{id}/.well-known/agent-card.json"}]}"#,
        )
        .unwrap();
        let (id, m) = c
            .match_path("/agents/w7/.well-known/agent-card.json")
            .unwrap();
        assert_eq!((id, m.agent.as_deref()), (RouteId::Listed(0), Some("w7")));
        let (id, m) = c.match_path("/other/.well-known/agent-card.json").unwrap();
        assert_eq!((id, m.agent), (RouteId::WellKnown, None));
    }

    #[test]
    fn a_redirect_keeps_the_rule_only_where_every_client_path_is_checked_under_it() {
        let c = FilterConfig::from_json(
            br#"{"defaults":{"max_stale":"30s"},
                 "agents":{"worker-7":{"require":["task.execute.v3"],"max_stale":"10s"}},
                 "routes":[{"path":"/agents/{id}/card"},
                           {"path":"/agents/{id}/.well-known/agent-card.json"}]}"#,
        )
        .unwrap();
        let here = "/agents/worker-7/.well-known/agent-card.json";
        for ok in [
            "/agents/worker-7/card",
            "/agents/worker-7/x/../card",
            "/agents/worker-7/%2e/card",
            "/agents/Worker-7/card/",
        ] {
            assert_eq!(c.redirect_keeps_rule(here, ok), Ok(()), "{ok}");
        }
        // A reading cut at a decoded `?` or `#` (or one decoded twice) names worker-7's card
        // route, but a client resolves the dot segments first and asks for /cards/w.json.
        for bad in [
            "/agents/worker-7/card%3F/../../../cards/w.json",
            "/agents/worker-7/card%23/../../../cards/w.json",
            "/agents/worker-7/card%253F/../../../cards/w.json",
            "/agents/worker-7/card%3F/%2e%2e/%2E%2E/.%2e/cards/w.json",
            "/agents/worker-7/card%3F%2F..%2F..%2F..%2Fcards%2Fw.json",
            "/cards/w.json",
        ] {
            let why = c.redirect_keeps_rule(here, bad).unwrap_err();
            assert!(
                why.contains("is not a card route this gate checks"),
                "{bad}: {why}"
            );
        }
        // Another agent's card route (the defaults: looser).
        let why = c
            .redirect_keeps_rule(here, "/agents/worker-7/card%3F/../../someone/card")
            .unwrap_err();
        assert!(why.contains("looser or other"), "{why}");
    }
}
