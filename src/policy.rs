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

use crate::json::{self, pointer_token, Value};
use crate::requirement::Requirement;
use crate::InputError;

/// A validated policy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    /// Applies to every agent.
    pub defaults: Requirement,
    /// Per-agent rules, by agent id, already merged over the defaults.
    pub agents: Vec<(String, Requirement)>,
}

impl Policy {
    /// Parses and validates a policy document; errors name the exact field path.
    ///
    /// ```
    /// let e = cardgate::Policy::from_json(br#"{"agents":{"w7":{"max_stale":"ten"}}}"#).unwrap_err();
    /// assert_eq!(e.path, "/agents/w7/max_stale");
    /// ```
    pub fn from_json(bytes: &[u8]) -> Result<Policy, InputError> {
        let value = json::parse(bytes, 32).map_err(|e| {
            InputError::type_error(e.path(), format!("policy is not valid I-JSON: {e}"))
        })?;
        Policy::from_value(&value, "")
    }

    /// Validates a parsed policy; errors are reported under `base_path`.
    pub fn from_value(value: &Value, base_path: &str) -> Result<Policy, InputError> {
        Policy::from_members(value, base_path, &[])
    }

    /// Like [`Policy::from_value`], also accepting the `extra` top-level members (an embedding
    /// configuration's own settings, read by its caller).
    pub fn from_members(
        value: &Value,
        base_path: &str,
        extra: &[&str],
    ) -> Result<Policy, InputError> {
        let members = value.as_object().ok_or_else(|| {
            InputError::type_error(
                base_path,
                format!("policy must be an object, found {}", value.type_name()),
            )
        })?;
        let mut defaults = Requirement::default();
        let mut rules: Vec<(String, Value)> = Vec::new();
        for (key, v) in members {
            let at = format!("{base_path}/{}", pointer_token(key));
            match key.as_str() {
                "$schema" | "$comment" => {
                    if v.as_str().is_none() {
                        return Err(InputError::type_error(
                            at,
                            format!("must be a string, found {}", v.type_name()),
                        ));
                    }
                }
                "defaults" => defaults = rule(v, &at)?,
                "agents" => {
                    let agents = v.as_object().ok_or_else(|| {
                        InputError::type_error(
                            at.clone(),
                            format!(
                                "must be an object mapping agent ids to rules, found {}",
                                v.type_name()
                            ),
                        )
                    })?;
                    for (id, r) in agents {
                        if id.is_empty() {
                            return Err(InputError::range_error(
                                format!("{at}/"),
                                "agent id is empty",
                            ));
                        }
                        rules.push((id.clone(), r.clone()));
                    }
                }
                other if extra.contains(&other) => {}
                other => {
                    return Err(InputError::type_error(
                        at,
                        format!(
                            "unknown member {other:?} (known: defaults, agents, $schema, $comment)"
                        ),
                    ))
                }
            }
        }
        let mut agents = Vec::with_capacity(rules.len());
        for (id, r) in rules {
            let at = format!("{base_path}/agents/{}", pointer_token(&id));
            let own = rule(&r, &at)?;
            let mut merged = defaults.overlay(&own);
            if r.get("require").is_some() {
                // A rule that lists its capabilities replaces the defaults' list, even with [].
                merged.require = own.require;
            }
            agents.push((id, merged));
        }
        Ok(Policy { defaults, agents })
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
}

fn rule(v: &Value, at: &str) -> Result<Requirement, InputError> {
    if let Some(Value::String(_)) | None = v.get("$comment") {
        Requirement::from_members(v, at, &["$comment"])
    } else {
        Err(InputError::type_error(
            format!("{at}/$comment"),
            "must be a string",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
