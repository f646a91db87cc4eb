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

impl Policy {
    /// Parses and validates a policy document; errors name the exact field path.
    ///
    /// ```
    /// let e = cardgate::Policy::from_json(br#"{"agents":{"w7":{"max_stale":"ten"}}}"#).unwrap_err();
    /// assert_eq!(e.path, "/agents/w7/max_stale");
    /// ```
    pub fn from_json(bytes: &[u8]) -> Result<Policy, InputError> {
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

    /// The agent whose rule applies to the id `given`, as the Envoy filter reads an `{id}`
    /// (DESIGN.md, "Card routes and path variants"): the rule named exactly, else regardless of
    /// ASCII case, else the same for the id with surrounding whitespace and control characters
    /// and trailing dots trimmed (`WORKER-7`, `worker-7 `, `worker-7.` name `worker-7`). `None`
    /// when no rule applies (the defaults do). (The filter's accent- and width-folding key is
    /// not applied here.)
    ///
    /// ```
    /// let p = cardgate::Policy::from_json(br#"{"agents":{"worker-7":{"max_stale":"1s"}}}"#).unwrap();
    /// assert_eq!(p.agent_named("Worker-7 "), Some("worker-7"));
    /// assert_eq!(p.agent_named("worker-8"), None);
    /// ```
    pub fn agent_named(&self, given: &str) -> Option<&str> {
        let find = |id: &str| {
            let exact = self.agents.iter().find(|(k, _)| k == id);
            exact
                .or_else(|| self.agents.iter().find(|(k, _)| k.eq_ignore_ascii_case(id)))
                .map(|(k, _)| k.as_str())
        };
        find(given).or_else(|| {
            let trimmed = given
                .trim_matches(|c: char| c.is_whitespace() || c.is_control())
                .trim_end_matches('.');
            (trimmed != given && !trimmed.is_empty())
                .then(|| find(trimmed))
                .flatten()
        })
    }
}

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
