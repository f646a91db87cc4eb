//! Policy files: per-agent requirements plus defaults, as operators keep them in `policies/`.
//!
//! ```json
//! {"$schema": "./schema.json",
//!  "defaults": {"max_stale": "30s"},
//!  "agents": {"worker-7": {"require": ["task.execute.v3"], "max_stale": "10s"}}}
//! ```
//!
//! An agent's rule replaces the defaults member by member: a member the rule sets wins, a member
//! it leaves out comes from `defaults`. `$comment` members are allowed wherever a rule is.

use crate::agent_id::{AgentIds, Reading};
use crate::input_error::{range, read_json_text, Object};
use crate::json;
use crate::requirement::{requirement_members, Requirement};
use crate::InputError;
use serde::de::{DeserializeSeed, MapAccess, Visitor};
use std::fmt;

/// A validated policy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    /// Applies to every agent.
    pub defaults: Requirement,
    /// Per-agent rules, by agent id, already merged over the defaults.
    pub agents: Vec<(String, Requirement)>,
}

requirement_members! {
    /// A rule of a policy: a requirement's members, and `$comment`.
    #[cfg_attr(feature = "js", derive(tsify::Tsify))]
    pub struct Rule {
        /// Free text for people.
        #[serde(rename = "$comment", default, deserialize_with = "crate::input_error::present")]
        #[schemars(with = "String")]
        #[cfg_attr(feature = "js", tsify(optional))]
        pub comment: Option<String>,
    }
}

/// The `agents` member: rules by agent id, in document order. An empty id or an id given twice
/// is an error at that id.
#[derive(Debug, Clone, Default)]
pub struct AgentRules(pub Vec<(String, Rule)>);

impl<'de> serde::Deserialize<'de> for AgentRules {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Rules;
        impl<'de> Visitor<'de> for Rules {
            type Value = AgentRules;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object mapping agent ids to rules")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AgentRules, A::Error> {
                let mut rules: Vec<(String, Rule)> = Vec::new();
                while let Some(id) = map.next_key_seed(NewId(&rules))? {
                    let rule: Object<Rule> = map.next_value()?;
                    rules.push((id, rule.0));
                }
                Ok(AgentRules(rules))
            }
        }
        d.deserialize_map(Rules)
    }
}

/// Reads an agent id, refusing an empty one and one already given (compared decoded, so two
/// spellings that differ only by escapes are the same id).
struct NewId<'a>(&'a [(String, Rule)]);

impl<'de> DeserializeSeed<'de> for NewId<'_> {
    type Value = String;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for NewId<'_> {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an agent id")
    }
    fn visit_str<E: serde::de::Error>(self, id: &str) -> Result<String, E> {
        if id.is_empty() {
            return Err(range("agent id is empty"));
        }
        if self.0.iter().any(|(k, _)| k == id) {
            return Err(E::custom(format_args!("duplicate agent id {id:?}")));
        }
        Ok(id.to_owned())
    }
}

impl schemars::JsonSchema for AgentRules {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "agents".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "propertyNames": { "minLength": 1 },
            "additionalProperties": generator.subschema_for::<Rule>()
        })
    }
}

/// Declares a struct with a policy's JSON members (`$schema`, `$comment`, `defaults`, `agents`)
/// and the members given after them: the policy itself, and a configuration that embeds one.
macro_rules! policy_members {
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($extra:tt)* }) => {
        #[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        $(#[$meta])*
        $vis struct $name {
            /// The schema this document follows (for editors).
            #[serde(rename = "$schema", default, deserialize_with = "crate::input_error::present")]
            #[schemars(with = "String")]
            pub schema: Option<String>,
            /// Free text for people.
            #[serde(rename = "$comment", default, deserialize_with = "crate::input_error::present")]
            #[schemars(with = "String")]
            pub comment: Option<String>,
            /// Applies to every agent without its own rule, and fills the members an agent
            /// rule leaves out.
            #[serde(default, deserialize_with = "crate::input_error::present_object")]
            #[schemars(with = "crate::policy::Rule")]
            pub defaults: Option<crate::policy::Rule>,
            /// Rules by agent id (the {id} of a registry route, or --agent on the CLI).
            #[serde(default, deserialize_with = "crate::input_error::present")]
            #[schemars(with = "crate::policy::AgentRules")]
            pub agents: Option<crate::policy::AgentRules>,
            $($extra)*
        }

        impl $name {
            /// The policy these members state: each agent's rule merged over the defaults.
            pub fn policy(&self) -> crate::policy::Policy {
                let defaults = self
                    .defaults
                    .as_ref()
                    .map(|r| r.requirement())
                    .unwrap_or_default();
                let agents = self
                    .agents
                    .iter()
                    .flat_map(|a| a.0.iter())
                    .map(|(id, rule)| {
                        let own = rule.requirement();
                        let mut merged = defaults.overlay(&own);
                        if rule.require.is_some() {
                            // A rule that lists its capabilities replaces the defaults' list,
                            // even with [].
                            merged.require = own.require;
                        }
                        (id.clone(), merged)
                    })
                    .collect();
                crate::policy::Policy { defaults, agents }
            }
        }
    };
}
#[cfg_attr(not(feature = "envoy"), allow(unused_imports))]
pub(crate) use policy_members;

policy_members! {
    /// The JSON form of a [`Policy`] (`policies/schema.json` is generated from it).
    #[schemars(
        title = "cardgate policy",
        description = "What callers require of the A2A Agent Cards they delegate to: defaults plus per-agent rules. An agent's rule replaces the defaults member by member. Validate with `cardgate policy check FILE`, which also refuses duplicate member names (a JSON Schema cannot see those)."
    )]
    pub struct PolicyInput {}
}

/// The largest policy (or Envoy plugin configuration, a policy plus filter settings) any host
/// reads: `cardgate policy check` and `check --policy` stop reading past it, the npm package's
/// `checkPolicy` and the filter refuse it alike.
pub const MAX_POLICY_BYTES: usize = 1 << 20;

/// Refuses a policy or configuration over [`MAX_POLICY_BYTES`].
pub(crate) fn check_size(bytes: &[u8], what: &str) -> Result<(), InputError> {
    if bytes.len() > MAX_POLICY_BYTES {
        return Err(InputError::range_error(
            "",
            format!(
                "{what} is {} bytes, over the {MAX_POLICY_BYTES}-byte (1 MiB) limit",
                bytes.len()
            ),
        ));
    }
    Ok(())
}

impl Policy {
    /// Parses and validates a policy document; errors name the exact field path.
    ///
    /// ```
    /// let e = cardgate::Policy::from_json(br#"{"agents":{"w7":{"max_stale":"ten"}}}"#).unwrap_err();
    /// assert_eq!(e.path, "/agents/w7/max_stale");
    /// ```
    pub fn from_json(bytes: &[u8]) -> Result<Policy, InputError> {
        check_size(bytes, "policy")?;
        json::parse(bytes, 32).map_err(|e| {
            InputError::type_error(e.path(), format!("policy is not valid I-JSON: {e}"))
        })?;
        let input: PolicyInput = read_json_text(bytes)?;
        let policy = input.policy();
        policy.check_agent_ids()?;
        Ok(policy)
    }

    /// Refuses two agent ids that differ only in ASCII letter case: hosts find an agent's rule
    /// regardless of case (the Envoy filter's card routes, `check --agent`), so such a policy
    /// has no one rule for either id. Every host refuses it alike (`policy check`, the npm
    /// package's `checkPolicy`, the filter's configuration).
    pub fn check_agent_ids(&self) -> Result<(), InputError> {
        for (i, (id, _)) in self.agents.iter().enumerate() {
            let mut earlier = self.agents.iter().take(i);
            if let Some((other, _)) = earlier.find(|(k, _)| k.eq_ignore_ascii_case(id)) {
                return Err(InputError::range_error(
                    format!("/agents/{}", json::pointer_token(id)),
                    format!("agent ids {other:?} and {id:?} differ only in letter case; card paths match agents regardless of case"),
                ));
            }
        }
        Ok(())
    }

    /// The requirement for `agent` (its rule merged over the defaults), or the defaults.
    pub fn requirement_for(&self, agent: Option<&str>) -> Requirement {
        agent
            .and_then(|id| self.agents.iter().find(|(k, _)| k == id))
            .map_or_else(|| self.defaults.clone(), |(_, r)| r.clone())
    }

    /// Whether the policy has a rule for `agent`.
    pub fn has_agent(&self, agent: &str) -> bool {
        self.agents.iter().any(|(k, _)| k == agent)
    }

    /// The policy's agent ids, ready to read given ids as agents ([`AgentIds::read`]).
    pub fn agent_ids(&self) -> AgentIds {
        AgentIds::new(self.agents.iter().map(|(id, _)| id.as_str()))
    }

    /// The rule every host applies to the agent id `given` (the Envoy filter to an `{id}` of a
    /// card route, `check --agent` to its argument; DESIGN.md, "Card routes and path
    /// variants"): the rule of the agent `given` names exactly, else regardless of ASCII case,
    /// or for an id that is no agent's the defaults, tightened in either case with the rule of
    /// every other agent it may still be read as: once trimmed or cut at a `?` or `#`, or by
    /// its loose key (accents, width, ligatures and ignorable characters folded;
    /// [`crate::agent_id`]). An id with
    /// `;parameters` is also read as the id before them, as the filter reads a path segment
    /// (`w;v=1` holds `w`'s rule too, with the defaults when `w` is no agent). Rules that cannot
    /// all hold (different pins) are a [`ConflictingAgentRules`].
    ///
    /// ```
    /// let p = cardgate::Policy::from_json(br#"{"defaults":{"max_stale":"30s"},
    ///     "agents":{"worker-7":{"max_stale":"10s"}}}"#).unwrap();
    /// let rule = p.rule_for_agent("w\u{00F6}rker-7").unwrap();
    /// assert_eq!(rule.read_as, ["worker-7"]);
    /// assert_eq!(rule.requirement.max_stale_ms, Some(10_000));
    /// assert_eq!(p.rule_for_agent("worker-8").unwrap().requirement, p.defaults);
    /// ```
    pub fn rule_for_agent(&self, given: &str) -> Result<AgentRule, ConflictingAgentRules> {
        self.rule_for_agent_with(&self.agent_ids(), given)
    }

    /// [`Policy::rule_for_agent`] with this policy's [`Policy::agent_ids`] computed already.
    pub fn rule_for_agent_with(
        &self,
        ids: &AgentIds,
        given: &str,
    ) -> Result<AgentRule, ConflictingAgentRules> {
        // The agents an id is read as, and whether the defaults apply (no agent has it).
        let read = |id| match ids.read(id) {
            Reading::Agent(id, mut also) => {
                also.insert(0, id);
                (also, false)
            }
            Reading::Unknown(agents) => (agents, true),
        };
        let (mut read_as, mut defaults) = read(given);
        // An id that is no agent's is read as itself too: its rule is the defaults.
        let own = defaults.then_some(Some(given));
        // `;` starts path parameters, which upstreams drop: the Envoy filter reads the `{id}` of
        // `/agents/w;v=1/card` (or `w%3Bv=1`) as `w;v=1` and as `w`, and holds the card to both.
        if let Some(head) = given
            .split_once(';')
            .map(|(h, _)| h)
            .filter(|h| !h.is_empty())
        {
            let (agents, unknown) = read(head);
            defaults |= unknown;
            for agent in agents {
                if !read_as.contains(&agent) {
                    read_as.push(agent);
                }
            }
        }
        let rules = own
            .into_iter()
            .chain(defaults.then_some(None))
            .chain(read_as.iter().map(|id| Some(*id)));
        let together = self.rules_together(rules);
        let read_as = read_as.into_iter().map(str::to_owned).collect();
        match together {
            Ok(requirement) => Ok(AgentRule {
                requirement,
                read_as,
                defaults,
            }),
            Err(error) => Err(ConflictingAgentRules {
                given: given.to_owned(),
                read_as,
                defaults,
                error,
            }),
        }
    }

    /// The rules of `agents` tightened together, in order, each agent once: `None`, or an id
    /// the policy has no rule for, is the defaults (no agents at all: the defaults). The error
    /// is [`Requirement::tighten`]'s, for two rules that cannot both hold.
    pub fn rules_together<'a>(
        &self,
        agents: impl IntoIterator<Item = Option<&'a str>>,
    ) -> Result<Requirement, InputError> {
        let mut seen: Vec<Option<&str>> = Vec::new();
        for agent in agents {
            if !seen.contains(&agent) {
                seen.push(agent);
            }
        }
        let mut rules = seen.into_iter().map(|a| self.requirement_for(a));
        let first = rules.next().unwrap_or_else(|| self.defaults.clone());
        rules.try_fold(first, |acc, rule| acc.tighten(&rule))
    }
}

/// The rule a host applies to a given agent id ([`Policy::rule_for_agent`]).
#[derive(Debug, Clone, PartialEq)]
pub struct AgentRule {
    /// The rules below tightened together.
    pub requirement: Requirement,
    /// The policy agents whose rules it holds, as the policy spells them, in the order read:
    /// the agent the id names, or every agent an unknown id may be read as (maybe none).
    pub read_as: Vec<String>,
    /// Whether it holds the defaults too: the id is no policy agent's, even regardless of case.
    pub defaults: bool,
}

/// A given agent id that may be read as policy agents whose rules, with the defaults, cannot
/// all hold (they pin different hashes, or name different cards): no card can satisfy them, so
/// hosts refuse the id (the Envoy filter answers `400`, `check --agent` exits 2).
#[derive(Debug, Clone, PartialEq)]
pub struct ConflictingAgentRules {
    /// The id as given.
    pub given: String,
    /// The policy agents it may be read as, as the policy spells them.
    pub read_as: Vec<String>,
    /// Whether the defaults are among the rules: the id is no policy agent's.
    pub defaults: bool,
    /// Why the rules cannot all hold ([`Requirement::tighten`]'s error).
    pub error: InputError,
}

impl fmt::Display for ConflictingAgentRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.defaults {
            write!(
                f,
                "agent id {:?} is no policy agent's but may be read as {:?}: their rules and the defaults cannot all hold ({})",
                self.given, self.read_as, self.error.message
            )
        } else {
            write!(
                f,
                "agent id {:?} may be read as {:?}: their rules cannot all hold ({})",
                self.given, self.read_as, self.error.message
            )
        }
    }
}

impl std::error::Error for ConflictingAgentRules {}

/// The policy JSON Schema (`policies/schema.json`), generated from [`PolicyInput`].
pub fn json_schema() -> String {
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<PolicyInput>();
    schema.insert("$id".into(), "urn:cardgate:policy:v1".into());
    if let Some(members) = schema.as_object_mut() {
        members.values_mut().for_each(tidy);
    }
    // The Schema's own serialization puts the keywords in the order people read them.
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// Doc comments as one-line descriptions, and no `"default": null` (an absent member is not
/// `null`, which the readers refuse).
fn tidy(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(members) => {
            if members
                .get("default")
                .is_some_and(serde_json::Value::is_null)
            {
                members.remove("default");
            }
            if let Some(serde_json::Value::String(text)) = members.get_mut("description") {
                *text = text.replace('\n', " ");
            }
            members.values_mut().for_each(tidy);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_over_1_mib_is_refused_by_every_host_alike() {
        let padded = |len: usize| {
            let mut text = br#"{"defaults":{"max_stale":"10s"}}"#.to_vec();
            text.resize(len, b' ');
            text
        };
        assert!(Policy::from_json(&padded(MAX_POLICY_BYTES)).is_ok());
        let e = Policy::from_json(&padded(MAX_POLICY_BYTES + 1)).unwrap_err();
        assert_eq!(e.path, "");
        assert!(
            e.message
                .contains("1048577 bytes, over the 1048576-byte (1 MiB) limit"),
            "{}",
            e.message
        );
    }

    #[test]
    fn the_checked_in_schema_is_generated_from_the_types() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/policies/schema.json");
        let generated = json_schema();
        if std::env::var_os("CARDGATE_BLESS").is_some() {
            std::fs::write(path, &generated).unwrap();
        }
        let checked_in = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "policies/schema.json is not what the Rust types generate; update it with \
             `CARDGATE_BLESS=1 cargo test --lib the_checked_in_schema_is_generated_from_the_types` \
             and review the diff"
        );
    }

    /// `w;v=1` is also read as `w`; when `w` is no agent, that reading takes the defaults, which
    /// then tighten `w;v=1`'s own rule.
    #[test]
    fn an_id_with_parameters_before_which_no_agent_is_named_takes_the_defaults_too() {
        let p = Policy::from_json(
            br#"{"defaults":{"max_stale":"10s"},"agents":{"w;v=1":{"max_stale":"60s"}}}"#,
        )
        .unwrap();
        assert_eq!(
            p.rule_for_agent("w;v=1").unwrap().requirement.max_stale_ms,
            Some(10_000)
        );
        // With `w` an agent, its rule is the one before the `;`: no defaults.
        let p = Policy::from_json(
            br#"{"defaults":{"max_stale":"10s"},"agents":{"w":{"max_stale":"30s"},"w;v=1":{"max_stale":"60s"}}}"#,
        )
        .unwrap();
        assert_eq!(
            p.rule_for_agent("w;v=1").unwrap().requirement.max_stale_ms,
            Some(30_000)
        );
    }

    #[test]
    fn agents_of_another_type_say_what_is_expected() {
        let e = Policy::from_json(br#"{"agents":["worker-7"]}"#).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            (
                "/agents",
                "invalid type: sequence, expected an object mapping agent ids to rules"
            )
        );
    }

    #[test]
    fn agent_ids_differing_only_in_case_are_refused_by_every_host() {
        let e =
            Policy::from_json(br#"{"agents":{"Worker-7":{},"x":{},"worker-7":{}}}"#).unwrap_err();
        assert_eq!(e.path, "/agents/worker-7");
        assert!(e.to_string().contains("differ only in letter case"), "{e}");
        assert!(Policy::from_json(br#"{"agents":{"worker-7":{},"worker-8":{}}}"#).is_ok());
    }

    #[test]
    fn agent_rules_replace_defaults_member_by_member() {
        let p = Policy::from_json(
            br#"{"defaults":{"max_stale":"30s","require":["a"]},
            "agents":{"w":{"require":["b"],"min_version":"3"}}}"#,
        )
        .unwrap();
        let w = p.requirement_for(Some("w"));
        assert_eq!(w.max_stale_ms, Some(30_000));
        assert_eq!(w.require.len(), 1);
        assert_eq!(w.require[0].to_string(), "b");
        assert_eq!(p.requirement_for(Some("other")).require[0].to_string(), "a");
        assert_eq!(p.requirement_for(None), p.defaults);
        let cleared =
            Policy::from_json(br#"{"defaults":{"require":["a"]},"agents":{"w":{"require":[]}}}"#)
                .unwrap();
        assert!(cleared.requirement_for(Some("w")).require.is_empty());
    }

    #[test]
    fn an_agent_id_gets_the_rules_of_every_agent_it_may_be_read_as() {
        let pin = |c: char| format!("sha256:{}", c.to_string().repeat(64));
        let p = Policy::from_json(
            format!(
                r#"{{"defaults":{{"max_stale":"30s"}},"agents":{{
                "worker-7":{{"max_stale":"10s"}},"slow":{{"max_stale":"60s"}},
                "café-1":{{"max_stale":"5s"}},"cafe-1":{{"require":["a"],"max_stale":"60s"}},
                "straße":{{"pin":"{}"}},"strasse":{{"pin":"{}"}}}}}}"#,
                pin('a'),
                pin('b')
            )
            .as_bytes(),
        )
        .unwrap();
        let rule = |id: &str| p.rule_for_agent(id).unwrap();
        // Named exactly or but for ASCII case: that rule alone, no defaults.
        for id in ["worker-7", "WORKER-7"] {
            let r = rule(id);
            assert_eq!(
                (r.read_as, r.defaults),
                (vec!["worker-7".to_owned()], false)
            );
            assert_eq!(r.requirement, p.requirement_for(Some("worker-7")));
        }
        // cafe-1's own rule is looser than the defaults (60 s), but a registry that compares
        // accent-insensitively may answer its path with café-1's card: café-1's rule holds too
        // (5 s), and cafe-1's `require` holds for café-1 (no defaults: both are agents).
        for id in ["cafe-1", "café-1", "CAFE-1"] {
            let r = rule(id);
            assert!(!r.defaults, "{id:?}");
            assert_eq!(r.read_as.len(), 2, "{id:?}");
            assert_eq!(r.requirement.max_stale_ms, Some(5_000), "{id:?}");
            assert_eq!(r.requirement.require.len(), 1, "{id:?}");
        }
        // Folded or trimmed: the defaults and every agent read, tightened together.
        for id in [
            "wörker-7",
            "\u{FF57}orker-7",
            "wo\u{200B}rker-7",
            "worker-7. ",
        ] {
            let r = rule(id);
            assert_eq!((r.read_as, r.defaults), (vec!["worker-7".to_owned()], true));
            assert_eq!(r.requirement.max_stale_ms, Some(10_000), "{id:?}");
        }
        // An unknown id is also read as itself: the defaults hold too (30 s, not slow's 60 s).
        assert_eq!(rule("slow").requirement.max_stale_ms, Some(60_000));
        let folded = rule("\u{017F}low");
        assert_eq!(
            (folded.read_as, folded.defaults),
            (vec!["slow".to_owned()], true)
        );
        assert_eq!(folded.requirement.max_stale_ms, Some(30_000));
        let both = rule("CAFÉ-1");
        assert_eq!(both.read_as, ["café-1", "cafe-1"]);
        assert_eq!(both.requirement.max_stale_ms, Some(5_000));
        assert_eq!(both.requirement.require.len(), 1);
        // Unknown: the defaults alone.
        let none = rule("worker-8");
        assert!(none.read_as.is_empty() && none.defaults);
        assert_eq!(none.requirement, p.defaults);
        // Rules that cannot both hold: the typed error, naming the agents.
        for id in ["STRAẞE", "strasse ", "\u{FF53}traße"] {
            let e = p.rule_for_agent(id).unwrap_err();
            assert_eq!(e.given, id);
            assert_eq!(e.read_as.len(), 2, "{id:?}");
            assert!(e.read_as.iter().all(|a| a == "straße" || a == "strasse"));
            assert_eq!(e.error.path, "/pin");
            assert!(e.to_string().contains("cannot all hold"), "{e}");
        }
        // Named exactly, too: the registry may answer `straße` with strasse's card.
        for id in ["straße", "strasse"] {
            let e = p.rule_for_agent(id).unwrap_err();
            assert_eq!(e.read_as.len(), 2, "{id:?}");
            assert!(!e.defaults);
        }
        // Several agents, each once, in order; none: the defaults.
        assert_eq!(p.rules_together([]).unwrap(), p.defaults);
        assert_eq!(
            p.rules_together([Some("worker-7"), None, Some("worker-7")])
                .unwrap(),
            rule("worker-7").requirement.tighten(&p.defaults).unwrap()
        );
    }

    #[test]
    fn a_looser_rule_for_a_variant_of_an_agent_id_never_loosens_that_agent() {
        // The incident's worker-7 rule, plus looser rules under ids a registry may read as
        // worker-7 (trimmed, accent-insensitive): each path is held to worker-7's rule too.
        let p = Policy::from_json(
            r#"{"defaults":{"max_stale":"30s"},"agents":{
                "worker-7":{"max_stale":"10s","min_version":"7","require":["task.execute.v3"]},
                "worker-7 ":{"max_stale":"1h"},"wörker-7":{"max_stale":"1h"},
                "worker-7?x":{"max_stale":"1h"}}}"#
                .as_bytes(),
        )
        .unwrap();
        let strict = p.requirement_for(Some("worker-7"));
        for id in [
            "worker-7 ",
            "wörker-7",
            "worker-7?x",
            "WÖRKER-7",
            "worker-7",
        ] {
            let r = p.rule_for_agent(id).unwrap();
            assert!(r.read_as.iter().any(|a| a == "worker-7"), "{id:?}: {r:?}");
            assert_eq!(r.requirement.max_stale_ms, strict.max_stale_ms, "{id:?}");
            assert_eq!(r.requirement.min_version, strict.min_version, "{id:?}");
            assert_eq!(r.requirement.require, strict.require, "{id:?}");
        }
    }

    #[test]
    fn agent_ids_are_refused_at_the_id() {
        // Straight from serde_json, without the strict reader in front: the map type itself
        // refuses a repeated id (compared decoded) and an empty one.
        for (text, path) in [
            (r#"{"agents":{"w":{},"\u0077":{}}}"#, "/agents/w"),
            (r#"{"agents":{"":{}}}"#, "/agents/"),
        ] {
            let e = read_json_text::<PolicyInput>(text.as_bytes()).unwrap_err();
            assert_eq!(e.path, path, "{text}: {e}");
        }
    }

    #[test]
    fn errors_name_the_path() {
        let cases: [(&[u8], &str); 7] = [
            (br#"{"agent":{}}"#, "/agent"),
            (br#"{"agents":[]}"#, "/agents"),
            (br#"{"agents":{"a/b":{"pin":"x"}}}"#, "/agents/a~1b/pin"),
            (br#"{"defaults":{"require":[1]}}"#, "/defaults/require/0"),
            (br#"{"defaults":{"$comment":1}}"#, "/defaults/$comment"),
            (
                br#"{"defaults":{"max_stale":"1s","max_stale":"2s"}}"#,
                "/defaults/max_stale",
            ),
            (br#"{"agents":{"w":[]}}"#, "/agents/w"),
        ];
        for (text, path) in cases {
            assert_eq!(
                Policy::from_json(text).unwrap_err().path,
                path,
                "{}",
                String::from_utf8_lossy(text)
            );
        }
    }
}
