//! What the caller requires of a card: capabilities, a version floor, a staleness tolerance and
//! optionally a pinned hash.
//!
//! JSON form (every member optional, unknown members refused):
//! `{"require": ["task.execute.v3"], "min_version": "3.0.0", "max_stale": "10s", "pin": "sha256:...",
//!   "pin_mode": "replace"}`

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
    /// A card hash pinned out of band; replaces the watermark check unless `pin_mode` says
    /// both must hold.
    pub pin: Option<CardHash>,
    /// How a pin combines with the watermark check; `None` means [`PinMode::Replace`].
    pub pin_mode: Option<PinMode>,
}

/// How a pinned hash combines with the watermark check (condition (b)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinMode {
    /// A matching hash passes (b) whatever the watermark says (the default).
    Replace,
    /// A matching hash **and** a watermark within `max_stale` are both required.
    WithWatermark,
}

impl PinMode {
    /// `"replace"` or `"with_watermark"`.
    pub fn as_str(self) -> &'static str {
        match self {
            PinMode::Replace => "replace",
            PinMode::WithWatermark => "with_watermark",
        }
    }

    fn parse(text: &str) -> Result<PinMode, InputError> {
        match text {
            "replace" => Ok(PinMode::Replace),
            "with_watermark" => Ok(PinMode::WithWatermark),
            other => Err(InputError::range_error(
                "",
                format!("must be \"replace\" or \"with_watermark\", found {other:?}"),
            )),
        }
    }
}

/// Members a requirement (or a policy rule) may have.
pub(crate) const REQUIREMENT_MEMBERS: &[&str] =
    &["require", "min_version", "max_stale", "pin", "pin_mode"];

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
                "pin_mode" => {
                    req.pin_mode = Some(PinMode::parse(string()?).map_err(|e| e.within(&at))?);
                }
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

    /// Whether a pin must be matched **and** the watermark be within `max_stale`.
    pub fn pin_with_watermark(&self) -> bool {
        self.pin.is_some() && self.pin_mode == Some(PinMode::WithWatermark)
    }

    /// This requirement (a complete rule, such as an operator's) made stricter by the conditions
    /// `other` adds (such as a caller's headers), never looser: the result holds only when both
    /// hold. Capabilities are united and the higher version floor wins. For condition (b),
    /// `other`'s `max_stale` adds a watermark condition and its `pin` adds a hash condition, on
    /// top of this rule's own: a caller's pin never replaces an operator's watermark check, and
    /// a caller's tolerance applies on top of an operator's pin-only rule (the result then has
    /// [`PinMode::WithWatermark`]). What `other` leaves out adds nothing. Two different pins
    /// cannot both hold: that is an error.
    ///
    /// ```
    /// use cardgate::Requirement;
    /// let operator = Requirement::from_json(r#"{"max_stale":"10s"}"#).unwrap();
    /// let pin = format!(r#"{{"pin":"sha256:{}"}}"#, "a".repeat(64));
    /// let caller = Requirement::from_json(&pin).unwrap();
    /// let both = operator.tighten(&caller).unwrap();
    /// assert!(both.pin_with_watermark());
    /// assert_eq!(both.max_stale_ms, Some(10_000));
    /// ```
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
        out.pin = match (&self.pin, &other.pin) {
            (Some(a), Some(b)) if a != b => {
                return Err(InputError::range_error(
                    "/pin",
                    format!("conflicting pins {a} and {b}: no card can match both"),
                ))
            }
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        // This rule's watermark condition: none when its own pin replaces the watermark check;
        // otherwise "staleness within max_stale", where no max_stale can never be met.
        let own_watermark = if self.pin.is_some() && !self.pin_with_watermark() {
            None
        } else {
            Some(self.max_stale_ms)
        };
        // The other rule's demand: none when its own pin replaces the watermark check (its
        // `max_stale` is then the alternative to that pin, which the pin kept here decides), so
        // tightening a rule with itself gives the same rule. Never looser than the conjunction.
        let other_watermark = if other.pin.is_some() && !other.pin_with_watermark() {
            None
        } else {
            other.max_stale_ms
        };
        let watermark = match (own_watermark, other_watermark) {
            (None, None) => None,
            (None, Some(b)) => Some(Some(b)),
            (Some(a), None) => Some(a),
            (Some(a), Some(b)) => Some(a.map(|a| a.min(b))),
        };
        match (out.pin.is_some(), watermark) {
            // Pinned, and nothing asks for a watermark: the pin alone decides, as before.
            (true, None) => {}
            (true, Some(max)) => {
                out.max_stale_ms = max;
                out.pin_mode = Some(PinMode::WithWatermark);
            }
            (false, max) => out.max_stale_ms = max.flatten(),
        }
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
        if other.pin_mode.is_some() {
            out.pin_mode = other.pin_mode;
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
        // Idempotent, also for a pin that replaces a given max_stale.
        for text in [
            format!(r#"{{"pin":"sha256:{}","max_stale":"10s"}}"#, "a".repeat(64)),
            format!(
                r#"{{"pin":"sha256:{}","max_stale":"10s","pin_mode":"with_watermark"}}"#,
                "a".repeat(64)
            ),
            r#"{"max_stale":"10s","min_version":"2","require":["a"]}"#.to_string(),
        ] {
            let r = req(&text);
            let t = r.tighten(&r).unwrap();
            assert_eq!(
                (t.max_stale_ms, t.pin_with_watermark(), &t.pin),
                (r.max_stale_ms, r.pin_with_watermark(), &r.pin),
                "{text}"
            );
        }
    }

    #[test]
    fn a_caller_pin_adds_to_the_operator_watermark() {
        let pin = format!(r#"{{"pin":"sha256:{}"}}"#, "a".repeat(64));
        let caller_pin = req(&pin);
        // Operator tolerance + caller pin: both.
        let t = req(r#"{"max_stale":"10s"}"#).tighten(&caller_pin).unwrap();
        assert!(t.pin_with_watermark());
        assert_eq!(t.max_stale_ms, Some(10_000));
        // Operator without any tolerance: the pin cannot make the watermark check pass.
        let t = Requirement::default().tighten(&caller_pin).unwrap();
        assert!(t.pin_with_watermark());
        assert_eq!(t.max_stale_ms, None);
        // Operator pin-only rule (its inherited max_stale is not consulted) + caller tolerance.
        let op = req(&format!(
            r#"{{"pin":"sha256:{}","max_stale":"30s"}}"#,
            "a".repeat(64)
        ));
        let t = op.tighten(&req(r#"{"max_stale":"60s"}"#)).unwrap();
        assert!(t.pin_with_watermark());
        assert_eq!(t.max_stale_ms, Some(60_000));
        // ... and with nothing from the caller it stays pin-only.
        let t = op.tighten(&Requirement::default()).unwrap();
        assert!(!t.pin_with_watermark());
        let t = op.tighten(&caller_pin).unwrap();
        assert!(!t.pin_with_watermark());
        // Operator pin with watermark + caller tolerance: the smaller one.
        let both = req(&format!(
            r#"{{"pin":"sha256:{}","max_stale":"10s","pin_mode":"with_watermark"}}"#,
            "a".repeat(64)
        ));
        let t = both.tighten(&req(r#"{"max_stale":"60s"}"#)).unwrap();
        assert_eq!(
            (t.max_stale_ms, t.pin_with_watermark()),
            (Some(10_000), true)
        );
        let t = both.tighten(&req(r#"{"max_stale":"2s"}"#)).unwrap();
        assert_eq!(t.max_stale_ms, Some(2_000));
        // Without pins nothing changes: the smaller tolerance, none stays none.
        let t = req(r#"{"max_stale":"10s"}"#)
            .tighten(&req(r#"{"max_stale":"60s"}"#))
            .unwrap();
        assert_eq!((t.max_stale_ms, t.pin), (Some(10_000), None));
        assert_eq!(
            Requirement::default()
                .tighten(&req(r#"{"max_stale":"60s"}"#))
                .unwrap()
                .max_stale_ms,
            None
        );
        assert_eq!(
            Requirement::from_json(r#"{"pin_mode":"both"}"#)
                .unwrap_err()
                .path,
            "/pin_mode"
        );
    }
}
