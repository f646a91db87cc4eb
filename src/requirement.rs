//! What the caller requires of a card: capabilities, a version floor, a staleness tolerance and
//! optionally a pinned hash.
//!
//! JSON form (every member optional, unknown members refused):
//! `{"require": ["task.execute.v3"], "min_version": "3.0.0", "max_stale": "10s", "pin": "sha256:..."}`

use crate::capability::Capability;
use crate::card_hash::CardHash;
use crate::duration::parse_duration;
use crate::json::{self, Value};
use crate::version::Version;
use crate::InputError;

/// The caller's requirement.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Requirement {
    /// The capabilities the caller will invoke, in the order given, without repeats.
    pub require: Vec<Capability>,
    /// The lowest acceptable card version.
    pub min_version: Option<Version>,
    /// The staleness tolerance in milliseconds; `None` means none given, and only a pin passes.
    pub max_stale_ms: Option<u64>,
    /// A card hash pinned out of band; replaces the watermark check.
    pub pin: Option<CardHash>,
}

/// Members a requirement (or a policy rule) may have.
pub(crate) const REQUIREMENT_MEMBERS: &[&str] = &["require", "min_version", "max_stale", "pin"];

impl Requirement {
    /// Parses the JSON form.
    ///
    /// ```
    /// let r = cardgate::Requirement::from_json(r#"{"require":["task.execute.v3"],"max_stale":"10s"}"#).unwrap();
    /// assert_eq!(r.max_stale_ms, Some(10_000));
    /// let e = cardgate::Requirement::from_json(r#"{"max_stale":"10"}"#).unwrap_err();
    /// assert_eq!(e.path, "/max_stale");
    /// ```
    pub fn from_json(text: &str) -> Result<Requirement, InputError> {
        let value = json::parse(text.as_bytes(), 32).map_err(|e| {
            InputError::type_error("", format!("requirement is not valid JSON: {e}"))
        })?;
        Requirement::from_value(&value, "")
    }

    /// Reads the JSON form from a parsed value; errors are reported under `prefix`.
    pub fn from_value(value: &Value, prefix: &str) -> Result<Requirement, InputError> {
        Requirement::from_members(value, prefix, &[])
    }

    /// Like [`Requirement::from_value`], also accepting the `extra` member names (ignored here).
    pub(crate) fn from_members(
        value: &Value,
        prefix: &str,
        extra: &[&str],
    ) -> Result<Requirement, InputError> {
        let members = value.as_object().ok_or_else(|| {
            InputError::type_error(
                prefix,
                format!("must be an object, found {}", value.type_name()),
            )
        })?;
        let mut req = Requirement::default();
        for (key, v) in members {
            let at = format!("{prefix}/{}", json::pointer_token(key));
            let string = || {
                v.as_str().ok_or_else(|| {
                    InputError::type_error(
                        at.clone(),
                        format!("must be a string, found {}", v.type_name()),
                    )
                })
            };
            match key.as_str() {
                "require" => {
                    let items = v.as_array().ok_or_else(|| {
                        InputError::type_error(
                            at.clone(),
                            format!("must be an array of strings, found {}", v.type_name()),
                        )
                    })?;
                    for (i, item) in items.iter().enumerate() {
                        let name = item.as_str().ok_or_else(|| {
                            InputError::type_error(
                                format!("{at}/{i}"),
                                format!("must be a string, found {}", item.type_name()),
                            )
                        })?;
                        req.add_capability(name)
                            .map_err(|e| e.within(&format!("{at}/{i}")))?;
                    }
                }
                "min_version" => req.set_min_version(string()?).map_err(|e| e.within(&at))?,
                "max_stale" => {
                    let ms = parse_duration(string()?).map_err(|e| e.within(&at))?;
                    req.set_max_stale_ms(ms);
                }
                "pin" => req.set_pin(string()?).map_err(|e| e.within(&at))?,
                other if extra.contains(&other) => {}
                other => {
                    let mut known: Vec<&str> = REQUIREMENT_MEMBERS.to_vec();
                    known.extend(extra.iter().filter(|k| !k.starts_with('$')));
                    return Err(InputError::type_error(
                        at,
                        format!("unknown member {other:?} (known: {})", known.join(", ")),
                    ));
                }
            }
        }
        Ok(req)
    }

    /// Adds a required capability (repeats are kept once).
    pub fn add_capability(&mut self, name: &str) -> Result<(), InputError> {
        let cap = Capability::parse(name)?;
        if !self.require.contains(&cap) {
            self.require.push(cap);
        }
        Ok(())
    }

    /// Sets the version floor; it must itself be comparable.
    pub fn set_min_version(&mut self, text: &str) -> Result<(), InputError> {
        let v = Version::parse(text)
            .map_err(|e| InputError::range_error("", format!("min_version: {e}")))?;
        self.min_version = Some(v);
        Ok(())
    }

    /// Sets the staleness tolerance.
    pub fn set_max_stale_ms(&mut self, ms: u64) {
        self.max_stale_ms = Some(ms);
    }

    /// Pins a card hash.
    pub fn set_pin(&mut self, text: &str) -> Result<(), InputError> {
        self.pin = Some(CardHash::parse(text)?);
        Ok(())
    }

    /// This requirement made stricter by `other`, never looser: capabilities are united, the
    /// higher version floor and the smaller tolerance win. Two different pins cannot both hold:
    /// that is an error.
    pub fn tighten(&self, other: &Requirement) -> Result<Requirement, InputError> {
        let mut out = self.clone();
        for cap in &other.require {
            if !out.require.contains(cap) {
                out.require.push(cap.clone());
            }
        }
        out.min_version = match (&self.min_version, &other.min_version) {
            (Some(a), Some(b)) => Some(if b > a { b.clone() } else { a.clone() }),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        out.max_stale_ms = match (self.max_stale_ms, other.max_stale_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            // No tolerance means "only a pin passes": a caller's tolerance cannot add one.
            (None, _) => None,
            (a, None) => a,
        };
        out.pin = match (&self.pin, &other.pin) {
            (Some(a), Some(b)) if a != b => {
                return Err(InputError::range_error(
                    "/pin",
                    format!("conflicting pins {a} and {b}: no card can match both"),
                ))
            }
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        Ok(out)
    }

    /// This requirement with every member `other` sets replaced by `other`'s (capabilities are
    /// still united). Only for policies that let callers relax rules.
    pub fn overlay(&self, other: &Requirement) -> Requirement {
        let mut out = self.clone();
        for cap in &other.require {
            if !out.require.contains(cap) {
                out.require.push(cap.clone());
            }
        }
        if other.min_version.is_some() {
            out.min_version.clone_from(&other.min_version);
        }
        if other.max_stale_ms.is_some() {
            out.max_stale_ms = other.max_stale_ms;
        }
        if other.pin.is_some() {
            out.pin.clone_from(&other.pin);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(text: &str) -> Requirement {
        Requirement::from_json(text).unwrap()
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (r#"{"require":"x"}"#, "/require"),
            (r#"{"require":["a",""]}"#, "/require/1"),
            (r#"{"require":["capability:teleport"]}"#, "/require/0"),
            (r#"{"min_version":"latest"}"#, "/min_version"),
            (r#"{"max_stale":10}"#, "/max_stale"),
            (r#"{"pin":"sha256:ABC"}"#, "/pin"),
            (r#"{"maxStale":"1s"}"#, "/maxStale"),
            ("[]", ""),
            ("{", ""),
        ];
        for (text, path) in cases {
            assert_eq!(
                Requirement::from_json(text).unwrap_err().path,
                path,
                "{text}"
            );
        }
    }

    #[test]
    fn tighten_never_loosens() {
        let policy = req(r#"{"require":["a"],"min_version":"2","max_stale":"10s"}"#);
        let caller = req(r#"{"require":["b"],"min_version":"1","max_stale":"60s"}"#);
        let t = policy.tighten(&caller).unwrap();
        assert_eq!(t.require.len(), 2);
        assert_eq!(t.min_version.unwrap().as_str(), "2");
        assert_eq!(t.max_stale_ms, Some(10_000));
        let none = Requirement::default().tighten(&caller).unwrap();
        assert_eq!(none.max_stale_ms, None);
        let relaxed = policy.overlay(&caller);
        assert_eq!(relaxed.max_stale_ms, Some(60_000));
        let p1 = req(&format!(r#"{{"pin":"sha256:{}"}}"#, "a".repeat(64)));
        let p2 = req(&format!(r#"{{"pin":"sha256:{}"}}"#, "b".repeat(64)));
        assert!(p1.tighten(&p2).is_err());
        assert!(p1.tighten(&p1).is_ok());
    }
}
